"""``tf.lookup``: hash tables mapping keys to values, and their initializers."""

from __future__ import annotations

from fn._lookup.initializers import KeyValueTensorInitializer, TextFileIndex, TextFileInitializer
from fn._lookup.tables import StaticHashTable
from fn.lookup import experimental

from fn._public import export as _export

_export(globals())
