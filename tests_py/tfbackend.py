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
