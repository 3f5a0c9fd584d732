"""Damaged Keras weight files (``.weights.h5``) and Keras archives (``.keras``), loaded by the real
Keras on fn and, for the same damaged bytes, by Keras on TensorFlow 2.21 (the oracle).

HDF5 keeps no checksum of a dataset's bytes, so a flipped bit inside a weight changes that weight in
any reader, TF's included: "loads different values" alone proves nothing. A case passes when fn
either raises (one of TF's classes, never a Python-internal one) where TF raises, or loads exactly
the values TF's Keras loads from the same bytes; and when the file is undamaged in what Keras reads,
those are the saved values. A silent load where TF raises, or values TF would not give, fail. (Keras's
h5 reader itself raises KeyError for some damaged object headers, under TF as under fn: counted as
``raised_internal_as_tf``, a Keras behaviour, not fn's.)

    python keras_corruption.py --cases 200 [--seed 1]      (needs keras and TF's venv for the oracle)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

HERE = Path(__file__).resolve().parent
TF_PYTHON = os.path.expanduser("~/.cache/fn/tfref/bin/python")
KINDS = ("weights.h5", "keras")
INTERNAL = (
    "IndexError",
    "KeyError",
    "AttributeError",
    "ZeroDivisionError",
    "OverflowError",
    "RecursionError",
    "UnicodeDecodeError",
    "AssertionError",
    "SystemError",
    "InternalError",
)


def _model(keras):
    m = keras.Sequential([keras.layers.Dense(3, activation="tanh"), keras.layers.Dense(2)])
    m.build((None, 4))
    return m


def _outcome(keras, kind: str, path: str) -> str:
    """'ok <digest>' (the loaded weights' bytes, hashed) or the exception's class name."""
    import hashlib

    try:
        if kind == "weights.h5":
            m = _model(keras)
            for v in m.weights:
                v.assign(np.zeros(v.shape, v.dtype))
            m.load_weights(path)
        else:
            m = keras.models.load_model(path, compile=False)
        h = hashlib.sha256()
        for w in m.get_weights():
            h.update(str((w.dtype, w.shape)).encode())
            h.update(np.ascontiguousarray(w).tobytes())
        return "ok " + h.hexdigest()[:16]
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        return type(e).__name__


def _child(backend: str, listing: str) -> None:
    """Loads every (kind, path) of ``listing`` and prints the outcomes as JSON."""
    import warnings

    warnings.simplefilter("ignore")
    if backend == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import keras
    else:
        import fn

        keras = fn.keras
    items = json.load(open(listing))
    print(json.dumps([_outcome(keras, kind, path) for kind, path in items]))


def _mutate(rng: random.Random, path: str) -> str:
    """Damages the file in place (the same kinds as corruption.py, flips weighted toward the
    file's header and metadata, where a reader can notice them)."""
    data = bytearray(open(path, "rb").read())
    kind = rng.choice(["truncate", "flip", "flip_many", "zero_run", "append", "empty", "garbage"])
    if kind == "truncate":
        data = data[: rng.randrange(0, max(len(data), 1))]
    elif kind in ("flip", "flip_many"):
        for _ in range(1 if kind == "flip" else rng.randint(2, 16)):
            i = rng.randrange(min(len(data), 4096)) if rng.random() < 0.7 else rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif kind == "zero_run":
        i = rng.randrange(len(data))
        n = rng.randint(1, 64)
        data[i : i + n] = b"\x00" * len(data[i : i + n])
    elif kind == "append":
        data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 32)))
    elif kind == "empty":
        data = bytearray()
    else:
        data = bytearray(rng.randrange(256) for _ in range(rng.randint(1, 512)))
    with open(path, "wb") as f:
        f.write(bytes(data))
    return kind


def _run_child(python: str, backend: str, items: List[Tuple[str, str]], env: Dict[str, str]) -> List[str]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(items, f)
    try:
        out = subprocess.run(
            [python, str(Path(__file__).resolve()), "--child", backend, f.name],
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
    finally:
        os.unlink(f.name)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("[")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"{backend} child failed ({out.returncode}): {out.stderr[-2000:]}")
    return json.loads(lines[-1])


def run(seed: int, n: int, tf_python: str = TF_PYTHON) -> Tuple[Dict[str, int], List[str]]:
    """Writes the saved files under fn's Keras, damages n copies, loads them under fn and TF."""
    import fn

    keras = fn.keras
    work = tempfile.mkdtemp(prefix="fn-keras-corrupt-")
    try:
        keras.utils.set_random_seed(seed)
        m = _model(keras)
        originals = {"weights.h5": os.path.join(work, "m.weights.h5"), "keras": os.path.join(work, "m.keras")}
        m.save_weights(originals["weights.h5"])
        m.save(originals["keras"])
        items, what = [], []
        for i in range(n):
            rng = random.Random(seed * 1_000_003 + i)
            kind = KINDS[i % len(KINDS)]
            path = os.path.join(work, f"c{i}.{kind}")
            shutil.copyfile(originals[kind], path)
            what.append(f"{kind} {_mutate(rng, path)}")
            items.append((kind, path))
        clean = [(k, p) for k, p in originals.items()]
        env = dict(os.environ)
        fn_out = _run_child(sys.executable, "fn", clean + items, env)
        tf_env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "LD_PRELOAD")}
        tf_out = _run_child(tf_python, "tf", clean + items, tf_env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failures: List[str] = []
    if fn_out[:2] != tf_out[:2] or not all(o.startswith("ok") for o in fn_out[:2]):
        failures.append(f"undamaged files: fn {fn_out[:2]} vs TF {tf_out[:2]}")
    saved = dict(zip(KINDS, fn_out[:2]))
    counts = {"raised": 0, "raised_internal_as_tf": 0, "ok_saved": 0, "ok_as_tf": 0, "FAIL": 0}
    for i, (f, t) in enumerate(zip(fn_out[2:], tf_out[2:])):
        kind = items[i][0]
        if f.split(" ")[0] in INTERNAL and f != t:  # Keras's own h5 reader raises KeyError under TF too
            bad = f"internal {f}"
        elif not f.startswith("ok"):
            bad = "" if not t.startswith("ok") else f"fn raises {f} where TF loads"
        elif not t.startswith("ok"):
            bad = f"fn loads silently where TF raises {t}"
        else:
            bad = "" if f == t else "fn loads other values than TF"
        if bad:
            counts["FAIL"] += 1
            failures.append(f"case {i} (seed {seed}) {what[i]}: {bad} (fn {f}, TF {t})")
        elif not f.startswith("ok"):
            counts["raised_internal_as_tf" if f.split(" ")[0] in INTERNAL else "raised"] += 1
        else:
            counts["ok_saved" if f == saved[kind] else "ok_as_tf"] += 1
    return counts, failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", nargs=2, metavar=("BACKEND", "LISTING"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=200)
    a = ap.parse_args()
    if a.child:
        _child(*a.child)
        return 0
    counts, failures = run(a.seed, a.cases)
    print(counts)
    print("\n".join(failures[:50]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
