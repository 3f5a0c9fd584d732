"""``fn.distribute.experimental`` (``tf.distribute.experimental``): collective communication
options and value contexts."""
from __future__ import annotations

from fn._distribute import (CollectiveCommunication, CommunicationImplementation,  # noqa: F401
                            CommunicationOptions, ValueContext)

from fn._public import export as _export  # noqa: E402
_export(globals())
