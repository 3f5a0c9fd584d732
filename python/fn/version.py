"""``fn.version`` (``tf.version``): fn's version strings, with TensorFlow's attribute names."""

from __future__ import annotations

import platform as _platform

VERSION = "0.1.0"
GIT_VERSION = "v" + VERSION
COMPILER_VERSION = _platform.python_compiler()
# The GraphDef version fn's as_graph_def() output follows (TensorFlow 2.21's).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

from fn._public import export as _export

_export(globals())
