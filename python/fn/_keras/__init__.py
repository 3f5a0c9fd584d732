"""fn's glue for the real Keras 3 package (``fn.keras`` is ``keras._tf_keras.keras``, as
``tf.keras`` is in TensorFlow 2.21).

``load_keras()`` runs on the first use of ``fn.keras`` (``import fn`` does not import Keras): it
makes ``import tensorflow`` resolve to fn, selects Keras' TensorFlow backend and imports Keras.
"""

from __future__ import annotations

import os
import sys
import types

_INSTALL_HINT = (
    "fn.keras is the Keras 3 package running on fn, and it is not installed: "
    "`pip install 'fn[keras]'` (keras>=3.15,<3.16, the Keras TensorFlow 2.21 ships with)."
)


def load_keras() -> types.ModuleType:
    """Imports Keras on fn and returns ``keras._tf_keras.keras`` (what ``tf.keras`` names)."""
    backend = os.environ.get("KERAS_BACKEND")
    if backend not in (None, "", "tensorflow"):
        raise ImportError(
            f"fn.keras runs Keras on its TensorFlow backend, but KERAS_BACKEND={backend!r}: "
            "unset it or set KERAS_BACKEND=tensorflow."
        )
    if "keras" not in sys.modules:
        os.environ["KERAS_BACKEND"] = "tensorflow"
    from fn._tf_compat import install_as_tensorflow

    install_as_tensorflow()
    try:
        import keras
    except ImportError as e:
        if getattr(e, "name", None) in ("keras", "optree", "namex", "absl", "h5py", "ml_dtypes", "rich"):
            raise ImportError(_INSTALL_HINT) from e
        raise
    if keras.backend.backend() != "tensorflow":
        raise ImportError(
            f"Keras was already imported with the {keras.backend.backend()!r} backend; "
            "fn.keras needs KERAS_BACKEND=tensorflow set before Keras is imported."
        )
    install_glue()
    import keras._tf_keras.keras as tf_keras

    return tf_keras


def install_glue() -> None:
    """Tells the imported Keras fn's classes (data adapters, distributed values...)."""
    from fn._keras import _glue  # imports Keras: only once Keras is loaded

    _glue.install()
