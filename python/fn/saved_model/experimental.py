"""``fn.saved_model.experimental`` (``tf.saved_model.experimental``): ``TrackableResource``."""

from __future__ import annotations

from fn._tf_compat._trackable_view import TrackableResource

from fn._public import export as _export

_export(globals())
