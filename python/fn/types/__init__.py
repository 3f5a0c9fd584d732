"""``fn.types``: mirrors ``tf.types`` (only ``experimental.TraceType`` is needed)."""

from fn.types import experimental

from fn._public import export as _export

_export(globals())
