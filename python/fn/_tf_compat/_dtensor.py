"""``tf.experimental.dtensor`` as fn answers it: fn has no DTensor (meshes and layouts over
devices). Keras' TensorFlow backend imports the module at startup but uses it only when a
``keras.distribution`` layout is set; any use raises NotImplementedError saying so."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(
        f"tf.experimental.dtensor.{name}: fn has no DTensor; keras.distribution layouts "
        "(ModelParallel, DataParallel over a device mesh) are not available on fn."
    )
