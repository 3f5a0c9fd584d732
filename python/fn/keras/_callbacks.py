"""``fn.keras.callbacks`` (``keras.callbacks``): ``Callback``, ``History``, ``ProgbarLogger``
(Keras 3's progress bar), ``EarlyStopping``, ``ModelCheckpoint``, ``LambdaCallback``."""
from __future__ import annotations

import sys
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np


class Callback:
    """``keras.callbacks.Callback``: hooks ``fit``/``evaluate``/``predict`` call."""

    def __init__(self) -> None:
        self.params: Dict[str, Any] = {}
        self._model: Any = None

    def set_params(self, params: Dict[str, Any]) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self._model = model

    @property
    def model(self) -> Any:
        return self._model

    def on_train_begin(self, logs: Optional[dict] = None) -> None: ...
    def on_train_end(self, logs: Optional[dict] = None) -> None: ...
    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None: ...
    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None: ...
    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None: ...
    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None: ...
    def on_test_begin(self, logs: Optional[dict] = None) -> None: ...
    def on_test_end(self, logs: Optional[dict] = None) -> None: ...
    def on_test_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None: ...
    def on_test_batch_end(self, batch: int, logs: Optional[dict] = None) -> None: ...
    def on_predict_begin(self, logs: Optional[dict] = None) -> None: ...
    def on_predict_end(self, logs: Optional[dict] = None) -> None: ...
    def on_predict_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None: ...
    def on_predict_batch_end(self, batch: int, logs: Optional[dict] = None) -> None: ...


class CallbackList:
    """Calls each callback's hook in order."""

    def __init__(self, callbacks: List[Callback], model: Any, **params: Any) -> None:
        self.callbacks = list(callbacks)
        for c in self.callbacks:
            c.set_model(model)
            c.set_params(params)

    def __getattr__(self, name: str) -> Callable:
        if not name.startswith("on_"):
            raise AttributeError(name)

        def call(*args: Any) -> None:
            for c in self.callbacks:
                getattr(c, name)(*args)
        return call


class History(Callback):
    """``keras.callbacks.History``: ``history[name]`` is the per-epoch list of each log."""

    def __init__(self) -> None:
        super().__init__()
        self.history: Dict[str, List[float]] = {}
        self.epoch: List[int] = []

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


def _format_time(seconds: float) -> str:
    return f"{int(seconds)}s" if seconds >= 1 or seconds == 0 else f"{int(seconds)}s"


def _per_step(seconds: float) -> str:
    if seconds >= 1:
        return f"{int(round(seconds))}s/step"
    if seconds >= 1e-3:
        return f"{int(round(seconds * 1e3))}ms/step"
    return f"{int(round(seconds * 1e6))}us/step"


class Progbar:
    """Keras 3's progress bar: ``7/7 ━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step - accuracy: 0.78 - loss: 0.53``
    redrawn in place (verbose 1), or one line per epoch (verbose 2)."""

    WIDTH = 20

    def __init__(self, target: Optional[int], verbose: int = 1, stream: Any = None) -> None:
        self.target = target
        self.verbose = verbose
        self.stream = stream
        self.start = time.time()
        self._last_draw = 0.0
        self._interactive = self._is_tty()

    def _out(self) -> Any:
        return self.stream if self.stream is not None else sys.stdout

    def _is_tty(self) -> bool:
        try:
            return bool(self._out().isatty()) or "ipykernel" in sys.modules
        except (AttributeError, ValueError):
            return False

    @staticmethod
    def logs_text(logs: Dict[str, Any]) -> str:
        return "".join(f" - {k}: {v:.4f}" if isinstance(v, float) and abs(v) >= 1e-3 or v == 0 else f" - {k}: {v:.4e}"
                       for k, v in sorted(logs.items()))

    def update(self, current: int, logs: Optional[Dict[str, Any]] = None, finalize: bool = False) -> None:
        now = time.time()
        if self.verbose != 1 or (not finalize and not self._interactive) or \
                (not finalize and now - self._last_draw < 0.05):
            return
        self._last_draw = now
        elapsed = now - self.start
        per = elapsed / max(current, 1)
        target = self.target or current
        done = int(self.WIDTH * min(current, target) / max(target, 1))
        bar = "━" * done + "━" * (self.WIDTH - done) if not self._interactive else \
            f"\x1b[32m{'━' * done}\x1b[0m\x1b[37m{'━' * (self.WIDTH - done)}\x1b[0m"
        eta = per * (target - current) if not finalize else elapsed
        line = f"{current}/{target} {bar} {_format_time(eta)} {_per_step(per)}{self.logs_text(logs or {})}"
        out = self._out()
        out.write(("\r" if self._interactive else "") + line + ("\n" if finalize else ""))
        out.flush()

    def epoch_line(self, current: int, logs: Dict[str, Any]) -> None:
        """verbose=2: ``7/7 - 0s - 16ms/step - accuracy: 0.8750 - loss: 0.3555``."""
        elapsed = time.time() - self.start
        self._out().write(f"{current}/{self.target or current} - {_format_time(elapsed)} - "
                          f"{_per_step(elapsed / max(current, 1))}{self.logs_text(logs)}\n")
        self._out().flush()


class ProgbarLogger(Callback):
    """``keras.callbacks.ProgbarLogger``: prints ``Epoch i/n`` and the progress bar."""

    def __init__(self) -> None:
        super().__init__()
        self._bar: Optional[Progbar] = None
        self._seen = 0

    def _verbose(self) -> int:
        return int(self.params.get("verbose", 1))

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self._verbose() and self.params.get("epochs", 1) > 1:
            sys.stdout.write(f"Epoch {epoch + 1}/{self.params.get('epochs', 1)}\n")
            sys.stdout.flush()
        self._bar = Progbar(self.params.get("steps"), self._verbose())
        self._seen = 0

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        self._seen = batch + 1
        if self._bar is not None:
            self._bar.update(self._seen, logs)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self._bar is None:
            return
        if self._verbose() == 1:
            self._bar.update(self._seen, logs or {}, finalize=True)
        elif self._verbose() == 2:
            self._bar.epoch_line(self._seen, logs or {})


class LambdaCallback(Callback):
    """``keras.callbacks.LambdaCallback``: each hook from a function argument."""

    def __init__(self, on_epoch_begin: Any = None, on_epoch_end: Any = None, on_train_begin: Any = None,
                 on_train_end: Any = None, on_train_batch_begin: Any = None, on_train_batch_end: Any = None,
                 **kwargs: Any) -> None:
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end, on_train_begin=on_train_begin,
                     on_train_end=on_train_end, on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


def _monitor_op(mode: str, monitor: str) -> Callable[[float, float], bool]:
    if mode == "auto":
        mode = "max" if any(w in monitor for w in ("acc", "auc", "precision", "recall")) else "min"
    return (lambda a, b: a > b) if mode == "max" else (lambda a, b: a < b)


class EarlyStopping(Callback):
    """``keras.callbacks.EarlyStopping``: stops ``fit`` when ``monitor`` stops improving for
    ``patience`` epochs (optionally restoring the best weights)."""

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0.0, patience: int = 0, verbose: int = 0,
                 mode: str = "auto", baseline: Optional[float] = None, restore_best_weights: bool = False,
                 start_from_epoch: int = 0) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.restore_best_weights, self.start_from_epoch = baseline, restore_best_weights, start_from_epoch
        self._better = _monitor_op(mode, monitor)
        sign = 1 if self._better(1.0, 0.0) else -1
        self.min_delta = abs(min_delta) * sign
        self.wait = 0
        self.stopped_epoch = 0
        self.best: Optional[float] = None
        self.best_weights: Any = None
        self.best_epoch = 0

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.wait, self.stopped_epoch, self.best, self.best_weights, self.best_epoch = 0, 0, None, None, 0

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        current = (logs or {}).get(self.monitor)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        reference = self.best if self.best is not None else self.baseline
        if reference is None or self._better(current - self.min_delta, reference):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._better(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(Callback):
    """``keras.callbacks.ModelCheckpoint``: saves the weights (``save_weights_only``, a
    ``.weights.h5`` name) or the model after each epoch, or only the best by ``monitor``. The
    file name may hold ``{epoch}`` and log names (``{val_loss:.2f}``)."""

    def __init__(self, filepath: str, monitor: str = "val_loss", verbose: int = 0, save_best_only: bool = False,
                 save_weights_only: bool = False, mode: str = "auto", save_freq: Any = "epoch",
                 initial_value_threshold: Optional[float] = None) -> None:
        super().__init__()
        filepath = str(filepath)
        if save_weights_only and not filepath.endswith(".weights.h5"):
            raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must "
                             f"end in `.weights.h5` (Keras weights format). Received: filepath={filepath}")
        if not save_weights_only and not filepath.endswith(".keras"):
            raise ValueError("The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={filepath}")
        if save_freq != "epoch":
            raise NotImplementedError("fn's ModelCheckpoint saves once per epoch (save_freq='epoch')")
        self.filepath, self.monitor, self.verbose = filepath, monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self._better = _monitor_op(mode, monitor)
        self.best = initial_value_threshold

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                return
            if self.best is not None and not self._better(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best} to {current:.5f}, "
                      f"saving model to {path}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)


def _as_float(value: Any) -> float:
    return float(np.asarray(value))
