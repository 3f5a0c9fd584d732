"""``fn.data`` (``tf.data``): input pipelines of tensors that work eagerly and inside Functions.

``Dataset`` sources and transformations run as a Python pipeline of eager tensors; inside a
Function a dataset or iterator is a variant tensor and iterating it is done by graph ops that
call back into Python (see ``iterator_ops``).
"""

from __future__ import annotations

from fn.data import experimental

# The modules whose datasets Dataset's methods build: importing them registers those datasets.
from fn._data import grouping, interleave, save, shuffle, sources, transforms
from fn._data.dataset_ops import AUTOTUNE, INFINITE, UNKNOWN, Dataset, NumpyIterator
from fn._data.iterator_ops import Iterator
from fn._data.options import Options, ThreadingOptions
from fn._data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from fn._data.structure import DatasetSpec, IteratorSpec

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN
DatasetV2 = Dataset

__all__ = [
    "AUTOTUNE",
    "Dataset",
    "DatasetSpec",
    "Iterator",
    "IteratorSpec",
    "NumpyIterator",
    "Options",
    "ThreadingOptions",
    "TFRecordDataset",
    "TextLineDataset",
    "FixedLengthRecordDataset",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "experimental",
]

from fn._public import export as _export

_export(globals())
