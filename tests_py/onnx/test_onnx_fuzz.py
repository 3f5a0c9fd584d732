"""fn.onnx.export under seeded random cases (onnx_fuzz.py): every exported model passes
``onnx.checker.check_model(full_check=True)``, loads in onnxruntime and agrees with fn, or the export
refuses with an error naming the op; plus the cases issue 25 found, one by one."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import fn as tf  # noqa: E402
import fn.onnx  # noqa: E402,F401
import onnx_fuzz  # noqa: E402

pytestmark = pytest.mark.fn_only


@pytest.mark.parametrize("seed", [0, 1])
def test_fuzz_exports_load_and_agree(seed):
    counts, failures = onnx_fuzz.fuzz(tf, 150, seed)
    assert not failures, "\n".join(failures)
    assert counts["ok"] >= 120, counts


def run(op, *inputs):
    return onnx_fuzz.run_case(tf, onnx, ort, op.__name__ if hasattr(op, "__name__") else "op", op, list(inputs))


def test_float_floormod_has_python_sign():
    x = np.array([5.5, -5.5, 3.0, -3.0, 0.5, -0.0, np.inf, 7.0], np.float32)
    y = np.array([2.0, 2.0, -2.0, -2.0, -1.0, 3.0, 2.0, np.inf], np.float32)
    assert run(tf.math.floormod, x, y)[0] == "ok"
    model = tf.onnx.export(tf.function(tf.math.floormod, input_signature=[tf.TensorSpec([8])] * 2)
                           .get_concrete_function())
    mods = [n for n in model.graph.node if n.op_type == "Mod"]
    assert mods and all(a.i == 1 for n in mods for a in n.attribute if a.name == "fmod")


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_one_hot_negative_and_large_indices_are_off_rows(dtype):
    idx = np.array([-1, 0, 3, 5, -4] if dtype != "uint8" else [0, 3, 200], dtype)
    for axis in (-1, 0):
        assert run(lambda i: tf.one_hot(i, 4, on_value=2.5, off_value=-1.0, axis=axis), idx)[0] == "ok"
    assert run(lambda i: tf.one_hot(i, 3, dtype=tf.float64), idx[:2])[0] == "ok"   # float64 values exact


def test_unknown_rank_input_is_refused():
    f = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec(None, tf.float32)])
    with pytest.raises(ValueError, match="input 'x' has unknown rank"):
        tf.onnx.export(f.get_concrete_function())


def test_unknown_rank_output_is_refused_or_inferred():
    f = tf.function(lambda x, s: tf.reshape(x, s), input_signature=[tf.TensorSpec([6]), tf.TensorSpec(None, tf.int32)])
    with pytest.raises(ValueError, match="unknown rank"):
        tf.onnx.export(f.get_concrete_function())


def test_empty_names_are_refused_and_empty_spec_names_defaulted():
    f = tf.function(lambda x: x + 1.0, input_signature=[tf.TensorSpec([2], tf.float32, name="")])
    model = tf.onnx.export(f.get_concrete_function())
    onnx.checker.check_model(model, full_check=True)
    assert model.graph.input[0].name == "x"
    for kw in ({"input_names": [""]}, {"output_names": [""]}):
        with pytest.raises(ValueError, match="names must be non-empty"):
            tf.onnx.export(f.get_concrete_function(), **kw)


def test_float64_erf_is_refused_and_float16_erf_widened():
    f64 = tf.function(tf.math.erf, input_signature=[tf.TensorSpec([3], tf.float64)])
    with pytest.raises(NotImplementedError, match="no Erf kernel for double"):
        tf.onnx.export(f64.get_concrete_function())
    x = np.array([-1.0, 0.25, np.inf], np.float16)
    assert run(tf.math.erf, x)[0] == "ok"


def test_empty_reductions_agree():
    for op in (tf.reduce_mean, tf.reduce_any, tf.reduce_all, tf.reduce_max, tf.reduce_sum):
        x = np.zeros((2, 0), bool if op in (tf.reduce_any, tf.reduce_all) else np.float32)
        assert run(lambda t: op(t, axis=1), x)[0] == "ok"


def test_same_pooling_with_stride_above_window():
    x = np.arange(2 * 5 * 4 * 3, dtype=np.float32).reshape(2, 5, 4, 3)
    assert run(lambda t: tf.nn.max_pool2d(t, 1, 2, "SAME"), x)[0] == "ok"
    assert run(lambda t: tf.nn.avg_pool2d(t, 1, 3, "SAME"), x)[0] == "ok"


def test_negative_stride_slice_from_before_the_start_is_empty():
    assert run(lambda t: t[-3::-1], np.array([1, 2], np.int64))[0] == "ok"


def test_nan_in_max_min_and_divide_no_nan():
    x = np.array([[1.0, np.nan, 2.0], [3.0, -1.0, 0.5]], np.float32)
    assert run(lambda t: tf.reduce_max(t, axis=-1), x)[0] == "ok"
    assert run(lambda t: tf.reduce_min(t, axis=0), x)[0] == "ok"
    y = np.array([[0.0, 0.0, 2.0], [-0.0, np.nan, 0.0]], np.float16)
    assert run(tf.math.divide_no_nan, np.array([[np.nan, np.inf, 1.0], [np.inf, 1.0, -1.0]], np.float16), y)[0] == "ok"
