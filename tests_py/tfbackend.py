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

__all__ = ["tf", "IS_TF"]
