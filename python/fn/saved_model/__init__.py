"""``fn.saved_model`` (``tf.saved_model``): ``save`` an object's traced functions (the graph
IR), variables and signatures in fn's own versioned format (docs/FORMATS.md) and ``load``
them in another process without the Python source."""

from __future__ import annotations

from fn.saved_model._load import load
from fn.saved_model._save import save
from fn.saved_model._options import LoadOptions, SaveOptions

from fn.saved_model import experimental

SERVING = "serve"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"

from fn._public import export as _export

_export(globals())
