"""``tf.experimental.extension_type``."""

from __future__ import annotations

from fn._extension_type._extension_type import as_dict

from fn._public import export as _export

_export(globals())
