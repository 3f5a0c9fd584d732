"""``fn.version`` (``tf.version``): fn's version strings, with TensorFlow's attribute names."""

from __future__ import annotations

import platform as _platform

# Programs branch on ``tf.__version__`` to pick the code path for the TF API they run on (Keras:
# ``tuple(int(x) for x in tf.__version__.split(".")[:2]) >= (2, 21)``), so fn reports the
# TensorFlow release whose API it implements; fn's own package version is ``FN_VERSION``.
VERSION = "2.21.0"
FN_VERSION = "0.1.0"
GIT_VERSION = f"v{VERSION}-fn{FN_VERSION}"
COMPILER_VERSION = _platform.python_compiler()
# The GraphDef version fn's as_graph_def() output follows (TensorFlow 2.21's).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

from fn._public import export as _export

_export(globals())
