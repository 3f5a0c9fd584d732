"""Local stand-in for the ``tensorflow_datasets`` calls of tensorflow/docs
``site/en/tutorials/customization/custom_training_walkthrough.ipynb``: ``tfds.load`` of
``penguins/simple`` and ``penguins/processed`` (with TFDS' split slicing ``train[:20%]``) and
``tfds.as_dataframe``, reading the CSV files ``prepare_tutorials.py`` writes beside this module
instead of downloading. Elements have TFDS' structure and dtypes (dict of features, or
``(features, label)`` with ``as_supervised``); ``import tensorflow`` here is whatever the program
runs on (TF, or fn under ``python -m fn.run``).
"""
from __future__ import annotations

import os
import re

import numpy as np
import tensorflow as tf

__version__ = "local stand-in"
_DIR = os.path.dirname(os.path.abspath(__file__))
SIMPLE_COLUMNS = ("body_mass_g", "culmen_depth_mm", "culmen_length_mm", "flipper_length_mm",
                  "island", "sex", "species")
_INT_COLUMNS = ("island", "sex", "species")


class DatasetInfo:
    """What the tutorial reads of ``tfds.core.DatasetInfo``: ``features``."""

    def __init__(self, name: str, features: dict):
        self.name = name
        self.features = features


class FeaturesDict(dict):
    def __repr__(self) -> str:
        body = "".join(f"    '{k}': {v},\n" for k, v in self.items())
        return "FeaturesDict({\n" + body + "})"


def _slice(n: int, split: str) -> slice:
    m = re.fullmatch(r"train(?:\[(-?\d*)(%?):(-?\d*)(%?)\])?", split)
    if not m:
        raise ValueError(f"Unknown split {split!r}")
    if m.group(0) == "train":
        return slice(0, n)

    def bound(text: str, pct: str, default: int) -> int:
        if not text:
            return default
        v = int(text)
        return int(round(v * n / 100)) if pct else v   # TFDS rounds percent boundaries

    return slice(bound(m.group(1), m.group(2), 0), bound(m.group(3), m.group(4), n))


def _read(name: str) -> np.ndarray:
    return np.loadtxt(os.path.join(_DIR, name.replace("/", "_") + ".csv"), delimiter=",",
                      skiprows=1, dtype=np.float64, ndmin=2)


def _dataset(name: str, split: str, as_supervised: bool):
    data = _read(name)
    data = data[_slice(len(data), split)]
    if name == "penguins/processed":
        features = data[:, :4].astype(np.float32)
        species = data[:, 4].astype(np.int64)
        if as_supervised:
            return tf.data.Dataset.from_tensor_slices((features, species))
        return tf.data.Dataset.from_tensor_slices({"features": features, "species": species})
    cols = {c: data[:, i].astype(np.int64 if c in _INT_COLUMNS else np.float32)
            for i, c in enumerate(SIMPLE_COLUMNS)}
    if as_supervised:
        label = cols.pop("species")
        return tf.data.Dataset.from_tensor_slices((cols, label))
    return tf.data.Dataset.from_tensor_slices(cols)


def _info(name: str) -> DatasetInfo:
    label = "ClassLabel(shape=(), dtype=int64, num_classes=3)"
    if name == "penguins/processed":
        feats = {"features": "Tensor(shape=(4,), dtype=float32)", "species": label}
    else:
        feats = {c: (label if c == "species" else
                     "ClassLabel(shape=(), dtype=int64, num_classes=%d)" % (3 if c == "island" else 2)
                     if c in _INT_COLUMNS else "float32") for c in SIMPLE_COLUMNS}
    return DatasetInfo(name, FeaturesDict(feats))


def load(name: str, split=None, as_supervised: bool = False, with_info: bool = False):
    """``tfds.load`` of the local penguins files."""
    if name not in ("penguins/simple", "penguins/processed"):
        raise ValueError(f"local_tfds has no dataset {name!r}")
    split = split or "train"
    ds = ([_dataset(name, s, as_supervised) for s in split] if isinstance(split, (list, tuple))
          else _dataset(name, split, as_supervised))
    return (ds, _info(name)) if with_info else ds


class DataFrame:
    """The rows of ``tfds.as_dataframe``, printed as a plain table (pandas is not required)."""

    def __init__(self, columns: list, rows: list):
        self.columns, self.rows = columns, rows

    def __repr__(self) -> str:
        cells = [[""] + self.columns] + [[str(i)] + r for i, r in enumerate(self.rows)]
        widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
        return "\n".join("  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells)

    __str__ = __repr__


def _flat(prefix: str, value, out: dict) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flat(f"{prefix}/{k}" if prefix else k, v, out)
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            _flat(f"{prefix}/{i}" if prefix else str(i), v, out)
    else:
        out[prefix] = np.asarray(value)


def _fmt(a: np.ndarray) -> str:
    return np.array2string(a, precision=4) if a.ndim else (
        f"{a.item():.4f}" if a.dtype.kind == "f" else str(a.item()))


def as_dataframe(ds, info=None) -> DataFrame:
    """``tfds.as_dataframe``: one row per element, one column per (flattened) feature."""
    rows, columns = [], None
    for element in ds:
        flat: dict = {}
        _flat("", element, flat)
        columns = columns or list(flat)
        rows.append([_fmt(flat[c]) for c in columns])
    return DataFrame(columns or [], rows)
