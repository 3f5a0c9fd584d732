"""``tf.io``: byte-level decoding and base64, TFRecord files, ``tf.train.Example`` parsing and
``tf.io.gfile`` (local files)."""

from __future__ import annotations

from fn._ops.io_ops import decode_base64, decode_raw, encode_base64
from fn._io.parsing import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    VarLenFeature,
    parse_example,
    parse_single_example,
)
from fn._io.file_ops import read_file, write_file
from fn._io.jpeg import decode_jpeg
from fn._io.png import decode_png, encode_png
from fn._io.tfrecord import TFRecordOptions, TFRecordWriter
from fn.io import gfile

from fn._public import export as _export

_export(globals())
