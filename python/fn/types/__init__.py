"""``fn.types``: mirrors ``tf.types`` (only ``experimental.TraceType`` is needed)."""
from fn.types import experimental  # noqa: F401
