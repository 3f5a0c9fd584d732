"""Restores refuse wrong data as TF's RestoreV2 does: a saved dtype that differs from the
variable's is an InvalidArgumentError (never a silent cast), a shape mismatch a ValueError."""
from __future__ import annotations

import os

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _save(tmp_path, value, dtype):
    v = tf.Variable(value, dtype=dtype)
    return tf.train.Checkpoint(v=v).save(os.path.join(str(tmp_path), "c"))


@pytest.mark.parametrize("saved,target,saved_name,target_name", [
    (tf.float64, tf.int32, "double", "int32"),
    (tf.float32, tf.float64, "float", "double"),
    (tf.int64, tf.int32, "int64", "int32"),
])
def test_dtype_mismatch_is_invalid_argument(tmp_path, saved, target, saved_name, target_name):
    path = _save(tmp_path, [-2.82, 1.5] if saved.is_floating else [3, 4], saved)
    w = tf.Variable([0, 0], dtype=target)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.train.Checkpoint(v=w).restore(path)
    assert (f"expected dtype {target_name} does not equal original dtype {saved_name}"
            in str(info.value))
    np.testing.assert_array_equal(w.numpy(), [0, 0])   # nothing was written


def test_matching_dtype_restores(tmp_path):
    path = _save(tmp_path, [1.5, 2.5], tf.float64)
    ck = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0], dtype=tf.float64))
    ck.restore(path)
    np.testing.assert_array_equal(ck.v.numpy(), [1.5, 2.5])


def test_shape_mismatch_is_value_error(tmp_path):
    path = _save(tmp_path, [1.0, 2.0], tf.float32)
    with pytest.raises(ValueError, match="Received incompatible tensor with shape"):
        tf.train.Checkpoint(v=tf.Variable([0.0, 0.0, 0.0])).restore(path)
