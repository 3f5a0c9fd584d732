"""Damaged Checkpoint, SavedModel and Keras weight files (truncated, flipped, replaced, removed, extended)
restore either with TF's error classes or with exactly the saved values: never a Python-internal
exception, never a silent partial or wrong restore. CI runs ``FN_CORRUPT_CASES`` cases (default
200); ``python corruption.py --cases 1000`` is the long run."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import corruption  # noqa: E402

pytestmark = pytest.mark.fn_only   # fn's own file formats


def test_corrupted_files_raise_or_restore_exactly() -> None:
    n = int(os.environ.get("FN_CORRUPT_CASES", "200"))
    counts, failures = corruption.run(int(os.environ.get("FN_CORRUPT_SEED", "1")), n)
    assert not failures, "\n".join(failures[:20])
    assert counts["raised"] > 0 and counts["ok"] + counts["raised"] == n


def test_harness_sees_a_silent_wrong_restore(monkeypatch) -> None:
    # The checker itself: a reader that ignores damage and returns zeros must be reported.
    import numpy as np
    from fn.train import _checkpoint_io
    real = _checkpoint_io.CheckpointReader.get_tensor
    monkeypatch.setattr(_checkpoint_io.CheckpointReader, "get_tensor",
                        lambda self, key: np.zeros_like(real(self, key)) if "VARIABLE_VALUE" in key else
                        real(self, key))
    counts, failures = corruption.run(7, 4)
    assert failures and "silently wrong" in failures[0]


def test_damaged_keras_weight_files_raise_or_load_what_tf_loads() -> None:
    # .weights.h5 and .keras files damaged as above, loaded by Keras on fn and (the oracle) by
    # Keras on TF 2.21 from the same bytes (keras_corruption.py; the long run is its --cases).
    pytest.importorskip("keras")
    pytest.importorskip("h5py")
    import keras_corruption
    if not os.path.exists(keras_corruption.TF_PYTHON):
        pytest.skip("TF 2.21's venv (the oracle) is not installed: tools/tf_reference.sh")
    n = int(os.environ.get("FN_KERAS_CORRUPT_CASES", "12"))
    counts, failures = keras_corruption.run(int(os.environ.get("FN_CORRUPT_SEED", "1")), n)
    assert not failures, "\n".join(failures[:20])
    assert counts["raised"] > 0 and sum(counts.values()) == n
