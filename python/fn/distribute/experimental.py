"""``fn.distribute.experimental`` (``tf.distribute.experimental``): collective communication
options and value contexts."""

from __future__ import annotations

from fn._distribute import (
    CollectiveCommunication,
    CommunicationImplementation,
    CommunicationOptions,
    MultiWorkerMirroredStrategy,
    ValueContext,
)

from fn._public import export as _export

_export(globals())
