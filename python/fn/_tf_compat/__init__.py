"""fn standing in for the ``tensorflow`` module (``fn.experimental.install_as_tensorflow``).

After ``install_as_tensorflow()``, ``import tensorflow`` is ``import fn``: unmodified TensorFlow
programs, and the real Keras 3 package on its TensorFlow backend, run on fn. See ``_finder`` for
how module names resolve and which private TensorFlow modules are shimmed.
"""

from __future__ import annotations

import sys

from fn._tf_compat import _bindings


def install_as_tensorflow() -> None:
    """Makes ``import tensorflow`` (and ``import tensorflow.X``) resolve to fn.

    fn's own addition (TensorFlow has no such call). Idempotent. Raises ``RuntimeError`` when the
    real TensorFlow is already imported in this process, since its objects and fn's cannot mix.
    """
    fn = _bindings.package()
    current = sys.modules.get("tensorflow")
    if current is not None and current is not fn:
        raise RuntimeError(
            "install_as_tensorflow(): the real `tensorflow` module is already imported in this "
            "process; call fn.experimental.install_as_tensorflow() (or run the program with "
            "`python -m fn.run`) before anything imports tensorflow."
        )
    from fn._tf_compat._finder import install_finder  # importlib.abc: not on `import fn`'s path

    sys.modules["tensorflow"] = fn
    install_finder()


def is_installed() -> bool:
    """True when ``import tensorflow`` resolves to fn in this process."""
    return _bindings.is_bound() and sys.modules.get("tensorflow") is _bindings.package()
