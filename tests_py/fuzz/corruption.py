"""File-corruption cases for fn's on-disk formats (issue 25): a Checkpoint or SavedModel is
written, one of its files is damaged (truncated, bytes flipped, replaced by another file, removed,
extended), and the restore/load either raises one of TF's error classes or gives back exactly the
saved values. Used by ``test_file_corruption.py`` (CI: a few hundred cases) and by
``python corruption.py --cases 1000`` (the long run)."""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
from typing import Callable, List, Tuple

import numpy as np

import fn as tf

# What a damaged file may raise: TF's classes (fn.errors.OpError's family) and the Python classes
# TF raises for unreadable inputs. Anything else (IndexError, KeyError, struct.error, UnicodeError,
# json's ValueError subclasses leaking, RecursionError...) is a failure.
_ALLOWED = (tf.errors.OpError, ValueError, TypeError, FileNotFoundError, IOError)
_INTERNAL = (IndexError, KeyError, AttributeError, ZeroDivisionError, OverflowError, RecursionError,
             UnicodeDecodeError, MemoryError, AssertionError)


def _files(root: str) -> List[str]:
    out = []
    for d, _, names in os.walk(root):
        out.extend(os.path.join(d, n) for n in sorted(names))
    return sorted(out)


def _mutate(rng: random.Random, files: List[str]) -> str:
    """Damages one file in place; returns what was done (for the failure report)."""
    path = rng.choice(files)
    data = open(path, "rb").read()
    kind = rng.choice(["truncate", "flip", "flip_many", "replace", "remove", "append", "zero_run"])
    if kind == "truncate":
        cut = rng.randrange(0, max(len(data), 1))
        data = data[:cut]
    elif kind in ("flip", "flip_many") and data:
        b = bytearray(data)
        for _ in range(1 if kind == "flip" else rng.randint(2, 16)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        data = bytes(b)
    elif kind == "replace":
        other = rng.choice(files)
        data = open(other, "rb").read() if other != path else b"\x00" * rng.randint(0, 64)
    elif kind == "remove":
        os.remove(path)
        return f"remove {os.path.basename(path)}"
    elif kind == "append":
        data = data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 32)))
    elif kind == "zero_run" and data:
        i = rng.randrange(len(data))
        n = rng.randint(1, 64)
        data = data[:i] + b"\x00" * min(n, len(data) - i) + data[i + n:]
    with open(path, "wb") as f:
        f.write(data)
    return f"{kind} {os.path.basename(path)}"


class _Net(tf.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 7)
        self.b = tf.Variable(np.array([1.5, -2.25, 3.0], np.float64))
        self.n = tf.Variable(np.int64(42))
        self.parts = [tf.Variable([True, False]), {"s": tf.Variable(np.int32(-7))}]

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return tf.matmul(x, self.w) + tf.cast(self.b, tf.float32)


def _values(net: _Net) -> List[np.ndarray]:
    return [v.numpy() for v in (net.w, net.b, net.n, net.parts[0], net.parts[1]["s"])]


def _same(a: List[np.ndarray], b: List[np.ndarray]) -> bool:
    return all(x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b))


def _checkpoint_case(rng: random.Random, work: str) -> Tuple[str, str]:
    src = _Net()
    prefix = tf.train.Checkpoint(net=src).write(os.path.join(work, "ckpt"))
    saved = _values(src)
    what = _mutate(rng, _files(work))
    dst = _Net()
    for v in (dst.w, dst.b, dst.n, dst.parts[0], dst.parts[1]["s"]):
        v.assign(tf.zeros_like(v))
    before = _values(dst)
    try:
        tf.train.Checkpoint(net=dst).read(prefix).assert_existing_objects_matched()
    except _INTERNAL as e:
        return "FAIL", f"checkpoint {what}: internal {type(e).__name__}: {e}"
    except _ALLOWED:
        return "raised", what
    got = _values(dst)
    if _same(got, saved):
        return "ok", what
    if _same(got, before):
        return "FAIL", f"checkpoint {what}: restore returned without restoring and without an error"
    return "FAIL", f"checkpoint {what}: silently wrong values {got}"


def _saved_model_case(rng: random.Random, work: str) -> Tuple[str, str]:
    src = _Net()
    path = os.path.join(work, "sm")
    tf.saved_model.save(src, path)
    x = tf.constant([[1.0, 2.0], [3.0, -4.0]])
    want = src(x).numpy()
    saved = _values(src)
    what = _mutate(rng, _files(path))
    try:
        loaded = tf.saved_model.load(path)
        got = loaded(x).numpy()
        vals = [loaded.w.numpy(), loaded.b.numpy(), loaded.n.numpy(), loaded.parts[0].numpy(),
                loaded.parts[1]["s"].numpy()]
    except _INTERNAL as e:
        return "FAIL", f"saved_model {what}: internal {type(e).__name__}: {e}"
    except _ALLOWED:
        return "raised", what
    if np.array_equal(got, want) and _same(vals, saved):
        return "ok", what
    return "FAIL", f"saved_model {what}: silently wrong result {got} vs {want}"


CASES: List[Callable[[random.Random, str], Tuple[str, str]]] = [_checkpoint_case, _saved_model_case]


def run(seed: int, n: int) -> Tuple[dict, List[str]]:
    counts = {"ok": 0, "raised": 0, "FAIL": 0}
    failures: List[str] = []
    for i in range(n):
        rng = random.Random(seed * 1_000_003 + i)
        work = tempfile.mkdtemp(prefix="fn-corrupt-")
        try:
            outcome, what = CASES[i % len(CASES)](rng, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        counts[outcome] += 1
        if outcome == "FAIL":
            failures.append(f"case {i} (seed {seed}): {what}")
    return counts, failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=1000)
    a = ap.parse_args()
    counts, failures = run(a.seed, a.cases)
    print(counts)
    print("\n".join(failures[:50]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
