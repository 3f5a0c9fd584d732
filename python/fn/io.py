"""``tf.io``: byte-level decoding and base64 (file and TFRecord APIs are not provided)."""
from __future__ import annotations

from fn._ops.io_ops import decode_base64, decode_raw, encode_base64  # noqa: F401

from fn._public import export as _export  # noqa: E402
_export(globals())
