"""``tf.lookup.experimental``: the mutable hash table and the initializers' base class."""

from __future__ import annotations

from fn._lookup.initializers import TableInitializerBase
from fn._lookup.tables import MutableHashTable

from fn._public import export as _export

_export(globals())
