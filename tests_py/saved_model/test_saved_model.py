"""tf.saved_model.save/load under fn and under TensorFlow: functions and variables load and
run in a fresh process that does not have the Python source of the saved class."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.scale = tf.Variable(2.0)
        self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def serve(self, x):
        return tf.nn.relu(tf.matmul(x * self.scale, self.w) - 5.0)

    @tf.function
    def branchy(self, x):
        total = tf.constant(0.0)
        for v in tf.range(3):
            total += tf.cast(v, tf.float32) * tf.reduce_sum(x)
        if tf.reduce_sum(x) > 0:
            return {"sum": total, "neg": -x}
        return {"sum": total * 2.0, "neg": x}


def run_fresh(code: str) -> str:
    """Runs ``code`` in a new interpreter of this backend (it sees neither this module nor Affine)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE] + sys.path))
    out = subprocess.run([sys.executable, "-c", "from tfbackend import tf\nimport numpy as np\n" + textwrap.dedent(code)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_save_and_load_in_a_fresh_process(tmp_path):
    m = Affine()
    m.branchy(tf.constant([1.0, 2.0]))
    path = str(tmp_path / "sm")
    tf.saved_model.save(m, path)
    out = run_fresh(f"""
        loaded = tf.saved_model.load({path!r})
        sig = loaded.signatures["serving_default"]
        print(sorted(loaded.signatures))
        r = sig(x=tf.constant([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]))
        print(sorted(r), r["output_0"].numpy().tolist())
        print(loaded.serve(tf.ones([1, 3])).numpy().tolist())
        print(float(loaded.scale.numpy()), loaded.w.shape.as_list())
        b = loaded.branchy(tf.constant([3.0, -1.0]))
        print(float(b["sum"].numpy()), b["neg"].numpy().tolist())
        loaded.scale.assign(1.0)
        print(loaded.serve(tf.ones([1, 3])).numpy().tolist())
    """)
    assert out.splitlines() == [
        "['serving_default']",
        "['output_0'] [[3.0, 7.0], [0.0, 1.0]]",
        "[[7.0, 13.0]]",
        "2.0 [3, 2]",
        "6.0 [-3.0, 1.0]",
        "[[1.0, 4.0]]",
    ]


def test_signatures_argument_and_dict_outputs(tmp_path):
    m = Affine()

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32, name="a")])
    def two(a):
        return {"double": a * 2.0, "plus": a + m.scale}
    m.two = two
    path = str(tmp_path / "sm2")
    tf.saved_model.save(m, path, signatures={"serving_default": m.serve, "two": two})
    loaded = tf.saved_model.load(path)
    assert sorted(loaded.signatures) == ["serving_default", "two"]
    out = loaded.signatures["two"](a=tf.constant([1.0, 3.0]))
    assert sorted(out) == ["double", "plus"]
    np.testing.assert_allclose(out["plus"].numpy(), [3.0, 5.0])
    spec = loaded.signatures["two"].structured_input_signature
    assert spec[0] == () and list(spec[1]) == ["a"]


def test_missing_export_dir(tmp_path):
    with pytest.raises(OSError, match="SavedModel file does not exist at"):
        tf.saved_model.load(str(tmp_path / "none"))


def test_keras_model_serves(tmp_path):
    keras = tf.keras
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"), keras.layers.Dense(2)])
    x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    expected = model.predict(x, verbose=0)
    path = str(tmp_path / "keras_sm")
    tf.saved_model.save(model, path)
    run_fresh(f"""
        loaded = tf.saved_model.load({path!r})
        sig = loaded.signatures["serving_default"]
        (name,) = sig.structured_input_signature[1]
        x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
        (value,) = sig(**{{name: tf.constant(x)}}).values()
        np.save({str(tmp_path / "out.npy")!r}, value.numpy())
    """)
    np.testing.assert_allclose(np.load(str(tmp_path / "out.npy")), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.fn_only
def test_py_function_graphs_are_refused(tmp_path):
    class P(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
        def f(self, x):
            return tf.py_function(lambda a: a * 2, [x], tf.float32)
    with pytest.raises(ValueError, match="Could not find callback with key=pyfunc_0 in the registry"):
        tf.saved_model.save(P(), str(tmp_path / "py"))


@pytest.mark.fn_only
def test_versions_and_corruption(tmp_path):
    import struct
    path = str(tmp_path / "v")
    tf.saved_model.save(Affine(), path)
    f = os.path.join(path, "saved_model.fn")
    raw = bytearray(open(f, "rb").read())
    newer = raw[:8] + struct.pack("<I", 99) + raw[12:]
    open(f, "wb").write(bytes(newer))
    with pytest.raises(tf.errors.UnimplementedError, match="format version 99, newer than this fn reads"):
        tf.saved_model.load(path)
    older = raw[:8] + struct.pack("<I", 0) + raw[12:]
    open(f, "wb").write(bytes(older))
    with pytest.raises(tf.errors.UnimplementedError, match="format version 0, older than this fn reads"):
        tf.saved_model.load(path)
    raw[-3] ^= 0xFF
    open(f, "wb").write(bytes(raw))
    with pytest.raises(tf.errors.DataLossError, match="corrupted"):
        tf.saved_model.load(path)


@pytest.mark.fn_only
def test_graph_serialization_round_trips_every_attr():
    @tf.function
    def f(x, n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        i = tf.constant(0)
        while i < n:
            ta = ta.write(i, tf.reduce_sum(x) * tf.cast(i, tf.float32))
            i += 1
        y = tf.nn.conv2d(tf.reshape(x, [1, 2, 2, 1]), tf.ones([1, 1, 1, 2]), strides=1, padding="SAME")
        return ta.stack(), tf.cast(y, tf.int64), tf.strings.join(["a", "b"]) if hasattr(tf, "strings") else y
    c = f.get_concrete_function(tf.TensorSpec([4], tf.float32), tf.TensorSpec([], tf.int32))
    from fn import _core
    data = _core.serialize_graph(c.graph._core)
    g2 = _core.deserialize_graph(data)
    assert g2.to_text() == c.graph._core.to_text()
    assert _core.serialize_graph(g2) == data
    with pytest.raises(tf.errors.DataLossError):
        _core.deserialize_graph(data[:-5])
    with pytest.raises(tf.errors.DataLossError, match="bad magic"):
        _core.deserialize_graph(b"nonsense" * 3)


def test_captured_constants_and_while_loops_round_trip(tmp_path):
    table = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    m = tf.Module()
    m.v = tf.Variable(1.0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def power(n):
        acc = tf.constant([[1.0, 0.0], [0.0, 1.0]])
        for _ in tf.range(n):
            acc = tf.matmul(acc, table) * m.v
        return acc
    m.power = power
    path = str(tmp_path / "loop")
    tf.saved_model.save(m, path)
    loaded = tf.saved_model.load(path)
    np.testing.assert_allclose(loaded.power(tf.constant(3)).numpy(), [[37.0, 54.0], [81.0, 118.0]])
    np.testing.assert_allclose(loaded.signatures["serving_default"](n=tf.constant(0))["output_0"].numpy(),
                               np.eye(2))
