"""``fn.keras.utils``: ``set_random_seed`` (Python, NumPy, fn.random and Keras initializers)."""
from __future__ import annotations

import random


def set_random_seed(seed: int) -> None:
    """``tf.keras.utils.set_random_seed``: seeds Python's ``random``, NumPy, ``fn.random`` and the
    generator Keras initializers draw from, so weights and random ops are reproducible."""
    import numpy as np

    from fn import random as fn_random
    from fn.keras import initializers
    random.seed(seed)
    np.random.seed(seed)
    fn_random.set_seed(seed)
    initializers.set_random_seed(seed)

from fn._public import export as _export  # noqa: E402
_export(globals())
