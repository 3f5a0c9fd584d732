"""``tf.distribute.TPUStrategy``, a strategy fn cannot run, named so that programs (Keras' trainer does
``isinstance(strategy, tf.distribute.TPUStrategy)``) can test for them; making one raises."""

from __future__ import annotations

from typing import Any

from fn._distribute import Strategy


class TPUStrategy(Strategy):
    """``tf.distribute.TPUStrategy``: fn has no TPU support; constructing one is a ValueError."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ValueError("TPUStrategy: fn runs on CPUs only; there is no TPU to connect to.")
