"""``fn.distribute.experimental`` (``tf.distribute.experimental``): collective communication
options, value contexts, and ``CentralStorageStrategy``."""

from __future__ import annotations

from fn._distribute import (
    CollectiveCommunication,
    CommunicationImplementation,
    CommunicationOptions,
    MultiWorkerMirroredStrategy,
    ValueContext,
)
from fn._distribute.central_storage import CentralStorageStrategy

from fn._public import export as _export

_export(globals())
