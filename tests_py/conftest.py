"""The differential layer: behaviour tests run under fn or under TensorFlow 2.21.

A behaviour test module imports its backend with ``from tfbackend import tf, IS_TF`` and marks
itself ``pytestmark = pytest.mark.tf_oracle``. ``pytest --against-tf`` (what
``bash tools/test.sh --against-tf`` runs with the TF reference venv's python) sets
``FN_TEST_BACKEND=tf``, so ``tf`` is TensorFlow, and collects only modules that name
``tf_oracle``: the TF run proves each expectation is TensorFlow's, the fn run proves fn.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--against-tf", action="store_true",
                     help="run the tf_oracle behaviour tests under TensorFlow instead of fn")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "tf_oracle: behaviour test that also runs under TensorFlow 2.21 (--against-tf)")
    config.addinivalue_line("markers", "fn_only: test of fn's own additions (skipped under TF)")
    config.addinivalue_line(
        "markers", "tf_onednn: expectation is TF 2.21's with its oneDNN kernels (TF's default on AVX-512 "
                   "CPUs, TF_ENABLE_ONEDNN_OPTS=1 elsewhere); under TF skipped when they are off")
    config.addinivalue_line(
        "markers", "tf_eigen: expectation is TF 2.21's without oneDNN (its Eigen kernels: TF's default on "
                   "CPUs without AVX-512); under TF skipped when oneDNN is on")
    config.addinivalue_line(
        "markers", "avx512_bits: expected bits recorded from TF 2.21 on an AVX-512 CPU (oneDNN sums in 16 "
                   "lanes there, 8 elsewhere; fn gives these bits everywhere)")
    if config.getoption("--against-tf"):
        os.environ["FN_TEST_BACKEND"] = "tf"
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def against_tf() -> bool:
    return os.environ.get("FN_TEST_BACKEND") == "tf"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config):
    # Under TF, modules that are not behaviour tests would fail at `import fn`: skip them unread.
    if against_tf() and collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        if "tf_oracle" not in collection_path.read_text(encoding="utf-8"):
            return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not against_tf():
        return
    skip = pytest.mark.skip(reason="tests fn's own additions, not TensorFlow behaviour")
    onednn = _tf_onednn_enabled()
    skips = {
        "tf_onednn": (not onednn, "TF's oneDNN kernels are off on this CPU (set TF_ENABLE_ONEDNN_OPTS=1)"),
        "tf_eigen": (onednn, "TF runs its oneDNN kernels here; the expectation is its Eigen kernels'"),
        "avx512_bits": (not _cpu_has("avx512f"), "expected bits are TF's on an AVX-512 CPU (no avx512f here)"),
    }
    for item in items:
        if "fn_only" in item.keywords:
            item.add_marker(skip)
            continue
        for marker, (off, reason) in skips.items():
            if marker in item.keywords and off:
                item.add_marker(pytest.mark.skip(reason=reason))


def _tf_onednn_enabled() -> bool:
    # TF runs oneDNN ("Mkl") kernels by default only on CPUs with AVX-512; they differ from its Eigen
    # kernels in bits, NaN handling of fused activations, kernel names in messages and supported attrs.
    from tensorflow.python.util import _pywrap_util_port

    return bool(_pywrap_util_port.IsMklEnabled())


def _cpu_has(flag: str) -> bool:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            return any(line.startswith("flags") and flag in line.split() for line in f)
    except OSError:
        return True
