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
        "markers", "avx512_bits: expected bits recorded from TF 2.21 on an AVX-512 host (TF's own differ "
                   "on other CPUs; fn gives them everywhere)")
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
    isa = pytest.mark.skip(reason="expected bits are TF's on AVX-512; TF's differ on this CPU (no avx512f)")
    avx512 = _cpu_has("avx512f")
    for item in items:
        if "fn_only" in item.keywords:
            item.add_marker(skip)
        elif "avx512_bits" in item.keywords and not avx512:
            item.add_marker(isa)


def _cpu_has(flag: str) -> bool:
    # oneDNN inside TF picks its kernels by ISA: softmax sums in 16 lanes with AVX-512, 8 without,
    # and its fused relu maps NaN to 0 only with AVX-512.
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            return any(line.startswith("flags") and flag in line.split() for line in f)
    except OSError:
        return True
