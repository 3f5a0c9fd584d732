"""``fn.types``: mirrors ``tf.types`` (only ``experimental.TraceType`` is needed)."""
from fn.types import experimental  # noqa: F401

from fn._public import export as _export  # noqa: E402
_export(globals())
