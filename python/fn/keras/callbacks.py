"""``fn.keras.callbacks`` (``keras.callbacks``)."""
from fn.keras._callbacks import (Callback, CallbackList, EarlyStopping, History, LambdaCallback,  # noqa: F401
                                 ModelCheckpoint, ProgbarLogger)

__all__ = ["Callback", "CallbackList", "EarlyStopping", "History", "LambdaCallback", "ModelCheckpoint",
           "ProgbarLogger"]
