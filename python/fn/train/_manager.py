"""``fn.train.CheckpointManager`` (``tf.train.CheckpointManager``): numbered saves in one
folder, keeping the newest ``max_to_keep``."""

from __future__ import annotations

import os
import time
from typing import Any, List, Optional

import numpy as np

from fn.train import _state
from fn.train._checkpoint import Checkpoint
from fn.train._checkpoint_io import DATA_SUFFIX


class CheckpointManager:
    """Saves ``checkpoint`` as ``<directory>/<checkpoint_name>-<n>`` and deletes the oldest beyond
    ``max_to_keep`` (None keeps all); picks up the checkpoints an earlier run left in the folder."""

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory: Any,
        max_to_keep: Optional[int] = None,
        keep_checkpoint_every_n_hours: Optional[float] = None,
        checkpoint_name: str = "ckpt",
        step_counter: Any = None,
        checkpoint_interval: Optional[int] = None,
        init_fn: Any = None,
    ) -> None:
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"checkpoint must be a fn.train.Checkpoint, got {checkpoint!r}")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step: Optional[int] = None
        latest, paths, stamps = _state.read(self._directory)
        stamps = stamps if len(stamps) == len(paths) else [time.time()] * len(paths)
        self._kept: List[List[Any]] = [[p, t] for p, t in zip(paths, stamps) if os.path.isfile(p + ".index")]
        self._latest = latest if latest is not None and os.path.isfile(latest + ".index") else None
        self._last_preserved = time.time()

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoints(self) -> List[str]:
        """The kept checkpoints, oldest first."""
        return [p for p, _ in self._kept]

    @property
    def latest_checkpoint(self) -> Optional[str]:
        return self._latest

    @property
    def checkpoint_interval(self) -> Optional[int]:
        return self._interval

    def save(self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None) -> Optional[str]:
        """Saves a numbered checkpoint (the number: ``checkpoint_number``, else the checkpoint's
        incremented ``save_counter``); returns its path, or None when the interval skipped it."""
        if self._interval is not None and check_interval:
            step = int(np.asarray(self._step_counter))
            if self._last_step is not None and step < self._last_step + self._interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(np.int64(1), read_value=False)
        number = int(np.asarray(checkpoint_number)) if checkpoint_number is not None else int(counter.numpy())
        path = f"{self._prefix}-{number}"
        self._checkpoint.write(path)
        self._kept = [k for k in self._kept if k[0] != path] + [[path, time.time()]]
        self._latest = path
        self._sweep()
        _state.update(self._directory, path, self.checkpoints, [t for _, t in self._kept], self._last_preserved)
        return path

    def _sweep(self) -> None:
        if self._max_to_keep is None:
            return
        while len(self._kept) > self._max_to_keep:
            path, stamp = self._kept.pop(0)
            if self._keep_every is not None and stamp - self._last_preserved >= self._keep_every * 3600:
                self._last_preserved = stamp
                continue
            for suffix in (".index", DATA_SUFFIX):
                try:
                    os.remove(path + suffix)
                except FileNotFoundError:
                    pass

    def restore_or_initialize(self) -> Optional[str]:
        """Restores the latest checkpoint (returning its path), else runs ``init_fn``."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None
