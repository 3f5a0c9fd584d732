"""fn's explicit-vector kernels come in one body per x86-64 level (``cpp/kernels/multiversion.h``).
The machine runs its best level; ``FN_CPU_LEVEL`` caps it (as ``ONEDNN_MAX_CPU_ISA`` caps oneDNN's),
so the baseline body is tested on any machine: the suites that drive the direct matmul and the
fused contractions pass with both capped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.fn_only
TESTS = Path(__file__).resolve().parents[1]
SUITES = ["nn/test_fused_contraction.py", "nn/test_fold_transpose.py", "function/test_fused_random_trees.py"]


def _level(env: dict) -> int:
    code = "import fn._core as c; print(c.cpu_level)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip())


def test_the_cap_lowers_the_level_and_never_raises_it():
    best = _level(dict(os.environ, FN_CPU_LEVEL=""))
    assert best in (0, 3, 4)
    assert _level(dict(os.environ, FN_CPU_LEVEL="0")) == 0
    assert _level(dict(os.environ, FN_CPU_LEVEL="99")) == best  # never above what the CPU has
    assert _level(dict(os.environ, FN_CPU_LEVEL="avx2")) == best  # not a level: ignored


def test_the_matmul_suites_pass_at_the_baseline_level():
    env = dict(os.environ, FN_CPU_LEVEL="0", ONEDNN_MAX_CPU_ISA="SSE41")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *SUITES]
    out = subprocess.run(cmd, cwd=TESTS, env=env, capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
