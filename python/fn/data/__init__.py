"""``fn.data`` (``tf.data``): input pipelines of tensors that work eagerly and inside Functions.

``Dataset`` sources and transformations run as a Python pipeline of eager tensors; inside a
Function a dataset or iterator is a variant tensor and iterating it is done by graph ops that
call back into Python (see ``iterator_ops``).
"""
from __future__ import annotations

from fn.data import experimental
from fn.data._dataset_ops import AUTOTUNE, INFINITE, UNKNOWN, Dataset, NumpyIterator
from fn.data._iterator_ops import Iterator
from fn.data._structure import DatasetSpec, IteratorSpec
from fn.data._options import Options, ThreadingOptions

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN
DatasetV2 = Dataset

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "Iterator", "IteratorSpec", "NumpyIterator", "Options", "ThreadingOptions",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "experimental"]

from fn._public import export as _export  # noqa: E402
_export(globals())
