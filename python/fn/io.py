"""``tf.io``: byte-level decoding and base64, TFRecord files, and ``tf.train.Example`` parsing."""
from __future__ import annotations

from fn._ops.io_ops import decode_base64, decode_raw, encode_base64  # noqa: F401
from fn._io.parsing import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature,  # noqa: F401
                             VarLenFeature, parse_example, parse_single_example)
from fn._io.tfrecord import TFRecordOptions, TFRecordWriter  # noqa: F401

from fn._public import export as _export  # noqa: E402
_export(globals())
