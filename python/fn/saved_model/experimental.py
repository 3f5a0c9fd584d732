"""``fn.saved_model.experimental`` (``tf.saved_model.experimental``): ``TrackableResource``."""
from __future__ import annotations

from fn._tf_compat._trackable_view import TrackableResource  # noqa: F401

from fn._public import export as _export  # noqa: E402
_export(globals())
