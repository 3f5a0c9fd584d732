"""fn standing in for ``tensorflow``: ``install_as_tensorflow``, ``python -m fn.run``, and the
lazy ``fn.keras`` (the real Keras 3 package). fn's own additions: no TF counterpart to compare."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.fn_only

from tfbackend import fn_import_root

PYTHON_PATH = fn_import_root()


def _run(args, tmp_path, env_extra=None):
    env = {**os.environ, "PYTHONPATH": PYTHON_PATH}
    env.pop("KERAS_BACKEND", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable] + args, capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=600)


def test_import_fn_does_not_import_keras(tmp_path):
    out = _run(["-c", "import sys, fn; print('keras' in sys.modules, 'tensorflow' in sys.modules)"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_fn_keras_is_the_keras_package_on_fn(tmp_path):
    code = textwrap.dedent("""
        import sys, fn
        tf_keras = fn.keras        # first use: imports Keras with fn as its TensorFlow
        import keras
        assert tf_keras is fn.keras is sys.modules["keras._tf_keras.keras"]
        assert fn.keras.layers.Dense is keras.layers.Dense
        assert keras.backend.backend() == "tensorflow"
        import tensorflow
        assert tensorflow is fn and fn.keras is tensorflow.keras
        from fn.keras import layers
        import fn.keras.layers as layers2
        assert layers is layers2 is sys.modules["keras._tf_keras.keras.layers"]
        print("ok")
    """)
    out = _run(["-c", code], tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_other_keras_backend_is_an_import_error(tmp_path):
    out = _run(["-c", "import fn; fn.keras"], tmp_path, {"KERAS_BACKEND": "jax"})
    assert out.returncode != 0 and "KERAS_BACKEND='jax'" in out.stderr


def test_install_as_tensorflow_maps_modules(tmp_path):
    code = textwrap.dedent("""
        import fn
        fn.experimental.install_as_tensorflow()
        fn.experimental.install_as_tensorflow()    # idempotent
        import tensorflow as tf
        import tensorflow.nn, tensorflow.data.experimental
        from tensorflow.python.eager import context
        assert tf is fn and tensorflow.nn is fn.nn and tensorflow.data.experimental is fn.data.experimental
        assert fn.__spec__.name == "fn" and fn.nn.__spec__.name == "fn.nn"   # modules keep their own spec
        assert context.executing_eagerly()
        try:
            import tensorflow.python.ops.nn_ops
        except ModuleNotFoundError as e:
            print("missing", e.name)
    """)
    out = _run(["-c", code], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "missing tensorflow.python.ops.nn_ops"


def test_install_refuses_when_tensorflow_is_imported(tmp_path):
    code = ("import sys, types; sys.modules['tensorflow'] = types.ModuleType('tensorflow')\n"
            "import fn\ntry:\n    fn.experimental.install_as_tensorflow()\nexcept RuntimeError as e:\n    print(e)")
    out = _run(["-c", code], tmp_path)
    assert "already imported" in out.stdout, out.stderr


def test_fn_run_script_and_module(tmp_path):
    (tmp_path / "prog.py").write_text(textwrap.dedent("""
        import sys
        import tensorflow as tf
        print(tf.__name__, __name__, sys.argv, float(tf.reduce_sum(tf.constant([1.0, 2.0]))))
    """))
    out = _run(["-m", "fn.run", "prog.py", "a", "--b"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "fn __main__ ['prog.py', 'a', '--b'] 3.0"
    out = _run(["-m", "fn.run", "-m", "prog", "x"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("fn __main__ [") and out.stdout.strip().endswith("'x'] 3.0")
    (tmp_path / "fail.py").write_text("import sys; sys.exit(3)")
    assert _run(["-m", "fn.run", "fail.py"], tmp_path).returncode == 3
    usage = _run(["-m", "fn.run"], tmp_path)
    assert usage.returncode == 2 and "usage: python -m fn.run SCRIPT" in usage.stderr


def test_keras_fit_under_fn_run(tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import numpy as np
        import tensorflow as tf
        rng = np.random.default_rng(0)
        x = rng.normal(size=(256, 4)).astype("float32")
        y = (x @ np.array([1.0, -2.0, 0.5, 0.0], "float32") > 0).astype("int64")
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(16, activation="relu"),
                                     tf.keras.layers.Dense(2)])
        model.compile(tf.keras.optimizers.Adam(0.01), tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
        h = model.fit(x, y, epochs=15, batch_size=32, verbose=0)
        print(h.history["loss"][0] > h.history["loss"][-1], model.evaluate(x, y, verbose=0)[1] > 0.9)
    """))
    out = _run(["-m", "fn.run", "train.py"], tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-2:] == ["True", "True"]


def test_import_keras_directly_fits_sparse_batches(tmp_path):
    """A program importing ``keras`` itself (not tf.keras) gets fn's glue too: Keras' data adapters
    see fn's SparseTensor as TensorFlow's, and fit on a generator of sparse batches trains."""
    (tmp_path / "sparse_fit.py").write_text(textwrap.dedent("""
        import keras
        import tensorflow as tf
        from keras.src.trainers.data_adapters import data_adapter_utils as dau
        st = tf.sparse.SparseTensor([[0, 1]], [1.0], [2, 3])
        print(dau.is_tensorflow_sparse(st))
        model = keras.Sequential([keras.layers.Input((3,), sparse=True), keras.layers.Dense(2)])
        model.compile("sgd", "mse")
        def batches():
            while True:
                yield tf.sparse.from_dense(tf.constant([[1.0, 0, 2], [0, 0, 3]])), tf.ones([2, 2])
        h = model.fit(batches(), steps_per_epoch=3, epochs=2, verbose=0)
        print(len(h.history["loss"]))
    """))
    out = _run(["-m", "fn.run", "sparse_fit.py"], tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[-2:] == ["True", "2"]
