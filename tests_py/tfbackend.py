"""The backend of behaviour tests: ``fn`` (default) or TensorFlow (``FN_TEST_BACKEND=tf``).

    from tfbackend import tf, IS_TF
"""
import os

IS_TF = os.environ.get("FN_TEST_BACKEND") == "tf"
if IS_TF:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf  # noqa: F401
else:
    import fn as tf  # noqa: F401



def fn_import_root() -> str:
    """The folder holding the ``fn`` these tests import, for a child process's PYTHONPATH.

    Not the source tree's ``python/``: CI installs fn (with its built ``_core``) into the venv,
    and the bare source folder would shadow it."""
    import importlib.util
    spec = importlib.util.find_spec("fn")
    assert spec is not None and spec.origin is not None, "fn is not importable"
    return os.path.dirname(os.path.dirname(spec.origin))


__all__ = ["tf", "IS_TF", "fn_import_root"]


def disable_numpy_behavior(tnp) -> None:
    """Undoes ``tnp.experimental_enable_numpy_behavior()`` for the test modules that follow: NumPy
    promotion off, and under TF also NumPy-style slicing, which TF has no public switch for (it
    stays on for the whole process, and later modules' ``__getitem__`` tests would see NumPy's
    rules)."""
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="off")
    if IS_TF:
        from tensorflow.python.framework import ops

        ops._numpy_style_slicing = False
