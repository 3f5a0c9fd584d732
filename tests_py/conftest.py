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
    for item in items:
        if "fn_only" in item.keywords:
            item.add_marker(skip)
