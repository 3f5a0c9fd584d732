"""The ``checkpoint`` state file of a checkpoint folder (TensorFlow's text format:
``model_checkpoint_path: "ckpt-3"`` then one ``all_model_checkpoint_paths:`` line per kept
checkpoint), and ``fn.train.latest_checkpoint``."""

from __future__ import annotations

import os
import re
from typing import List, Optional, Sequence, Tuple

from fn._state.serialize import atomic_write

STATE_FILE = "checkpoint"


def _rel(folder: str, path: str) -> str:
    return os.path.basename(path) if os.path.dirname(os.path.abspath(path)) == os.path.abspath(folder) else path


def update(
    folder: str,
    latest: str,
    all_paths: Sequence[str],
    timestamps: Sequence[float] = (),
    last_preserved: Optional[float] = None,
) -> None:
    folder = folder or "."
    lines = [f'model_checkpoint_path: "{_rel(folder, latest)}"']
    lines += [f'all_model_checkpoint_paths: "{_rel(folder, p)}"' for p in all_paths]
    lines += [f"all_model_checkpoint_timestamps: {t}" for t in timestamps]
    if last_preserved is not None:
        lines.append(f"last_preserved_timestamp: {last_preserved}")
    atomic_write(os.path.join(folder, STATE_FILE), ("\n".join(lines) + "\n").encode())


def read(folder: str) -> Tuple[Optional[str], List[str], List[float]]:
    """(latest path, all kept paths, their timestamps), paths joined with ``folder``."""
    path = os.path.join(folder, STATE_FILE)
    if not os.path.isfile(path):
        return None, [], []
    latest, paths, stamps = None, [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'\s*(\w+):\s*"?(.*?)"?\s*$', line)
            if not m:
                continue
            key, value = m.groups()
            if key == "model_checkpoint_path":
                latest = os.path.join(folder, value)
            elif key == "all_model_checkpoint_paths":
                paths.append(os.path.join(folder, value))
            elif key == "all_model_checkpoint_timestamps":
                stamps.append(float(value))
    return latest, paths, stamps


def latest_checkpoint(checkpoint_dir: str, latest_filename: Optional[str] = None) -> Optional[str]:
    """``tf.train.latest_checkpoint``: the newest checkpoint recorded in the folder's state file
    (None when there is none, or when its files are gone)."""
    latest, _, _ = read(os.fspath(checkpoint_dir))
    if latest is None or not os.path.isfile(latest + ".index"):
        return None
    return latest
