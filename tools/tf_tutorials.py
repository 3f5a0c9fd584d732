#!/usr/bin/env python3
"""TensorFlow's own Keras tutorials, unchanged, under TensorFlow 2.21 and under ``python -m fn.run``,
compared cell for cell (``tools/nb_diff.py --fn-run``).

    python tools/tf_tutorials.py DOCS [--out DIR] [--show] [--json OUT] [--only NAME ...]

DOCS is a tensorflow/docs checkout (a work tree, or a bare git directory: its HEAD is read). The
notebooks (``NOTEBOOKS``) are copied with only their downloads replaced by local files of the same
format: ``tf.keras.datasets.mnist.load_data()`` reads a synthetic ``mnist.npz`` (uint8 28x28
images, uint8 labels; a learnable pattern per class, 6,000/1,000 examples) and
``tensorflow_datasets`` is ``tools/guide_data/local_tfds.py`` over synthetic penguins CSVs (TFDS'
``penguins/simple`` and ``penguins/processed`` structures). Everything else runs as written.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = {
    "beginner": "site/en/tutorials/quickstart/beginner.ipynb",
    "advanced": "site/en/tutorials/quickstart/advanced.ipynb",
    "custom_layers": "site/en/tutorials/customization/custom_layers.ipynb",
    "basics": "site/en/tutorials/customization/basics.ipynb",
    "custom_training_walkthrough": "site/en/tutorials/customization/custom_training_walkthrough.ipynb",
    "basic_training_loops": "site/en/guide/basic_training_loops.ipynb",
    "distribute_custom_training": "site/en/tutorials/distribute/custom_training.ipynb",
    "distribute_input": "site/en/tutorials/distribute/input.ipynb",
    "distributed_training": "site/en/guide/distributed_training.ipynb",
    "distribute_keras": "site/en/tutorials/distribute/keras.ipynb",
    "distribute_save_and_load": "site/en/tutorials/distribute/save_and_load.ipynb",
    "multi_worker_with_ctl": "site/en/tutorials/distribute/multi_worker_with_ctl.ipynb",
    "multi_worker_with_keras": "site/en/tutorials/distribute/multi_worker_with_keras.ipynb",
    "parameter_server_training": "site/en/tutorials/distribute/parameter_server_training.ipynb",
}


def make_mnist(path: str, rng: np.random.Generator) -> None:
    """An ``mnist.npz`` of Keras' format: x uint8 (N, 28, 28), y uint8 (N,)."""
    yy, xx = np.mgrid[0:28, 0:28]
    templates = []
    for _ in range(10):   # a few bright strokes per class
        t = np.zeros((28, 28))
        for cy, cx, s in zip(rng.uniform(6, 22, 4), rng.uniform(6, 22, 4), rng.uniform(1.5, 3.5, 4)):
            t += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s))
        templates.append(t / t.max())

    def draw(n: int):
        y = rng.integers(0, 10, n).astype(np.uint8)
        x = np.stack([templates[c] for c in y]) * 220 + rng.normal(0, 30, (n, 28, 28))
        return np.clip(x, 0, 255).astype(np.uint8), y

    (x_train, y_train), (x_test, y_test) = draw(6000), draw(1000)
    np.savez_compressed(path, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)


def make_penguins(out: str, rng: np.random.Generator) -> None:
    """``penguins_simple.csv`` / ``penguins_processed.csv`` (334 birds, 3 species), the columns of
    TFDS' ``penguins/simple`` and ``penguins/processed``."""
    species = rng.choice(3, 334, p=[0.44, 0.2, 0.36])
    means = np.array([[3700, 18.3, 38.8, 190], [3730, 18.4, 48.8, 196], [5080, 15.0, 47.5, 217]])
    sds = np.array([460, 1.2, 2.7, 6.5])
    raw = means[species] + rng.normal(size=(334, 4)) * sds   # mass, depth, length, flipper
    island = np.where(species == 2, 0, rng.integers(0, 3, 334))
    sex = rng.integers(0, 2, 334)
    with open(os.path.join(out, "penguins_simple.csv"), "w") as f:
        f.write("body_mass_g,culmen_depth_mm,culmen_length_mm,flipper_length_mm,island,sex,species\n")
        for r, i, s, c in zip(raw, island, sex, species):
            f.write(f"{r[0]:.0f},{r[1]:.1f},{r[2]:.1f},{r[3]:.0f},{i},{s},{c}\n")
    # processed: culmen length, culmen depth, flipper length, body mass, each scaled to [0, 1]
    proc = raw[:, [2, 1, 3, 0]]
    proc = (proc - proc.min(0)) / (proc.max(0) - proc.min(0))
    with open(os.path.join(out, "penguins_processed.csv"), "w") as f:
        f.write("f0,f1,f2,f3,species\n")
        for r, c in zip(proc, species):
            f.write(",".join(f"{v:.6f}" for v in r) + f",{c}\n")


def read_notebook(docs: str, rel: str) -> dict:
    if os.path.isdir(os.path.join(docs, "site")):
        with open(os.path.join(docs, rel)) as f:
            return json.load(f)
    text = subprocess.run(["git", "--git-dir", docs, "show", f"HEAD:{rel}"], check=True,
                          capture_output=True, text=True).stdout
    return json.loads(text)


def localize(nb: dict, mnist: str) -> dict:
    """The notebook with its downloads pointed at the local files (nothing else changes)."""
    load = ("(lambda d: ((d['x_train'], d['y_train']), (d['x_test'], d['y_test'])))"
            f"(__import__('numpy').load({mnist!r}))")
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        src = src.replace("fashion_mnist.load_data()", load).replace("mnist.load_data()", load)
        src = src.replace("import tensorflow_datasets as tfds", "import local_tfds as tfds")
        cell["source"] = src
    return nb


def prepare(docs: str, out: str, names: list) -> list:
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    mnist = os.path.join(out, "mnist.npz")
    make_mnist(mnist, rng)
    make_penguins(out, rng)
    shutil.copy(os.path.join(ROOT, "tools", "guide_data", "local_tfds.py"), out)
    paths = []
    for name in names:
        nb = localize(read_notebook(docs, NOTEBOOKS[name]), mnist)
        path = os.path.join(out, name + ".ipynb")
        with open(path, "w") as f:
            json.dump(nb, f)
        paths.append(path)
    return paths


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("docs", help="tensorflow/docs work tree or bare git directory")
    p.add_argument("--out", help="where the local notebooks and data go (default: a temp dir)")
    p.add_argument("--only", nargs="*", choices=sorted(NOTEBOOKS), help="these notebooks only")
    p.add_argument("--show", action="store_true")
    p.add_argument("--json")
    p.add_argument("--timeout", default="300", help="seconds per cell")
    args = p.parse_args(argv)
    out = args.out or tempfile.mkdtemp(prefix="tf_tutorials_")
    paths = prepare(args.docs, out, args.only or list(NOTEBOOKS))
    # local_tfds (and the data) are imported from `out` on both sides.
    os.environ["PYTHONPATH"] = out + os.pathsep + os.environ.get("PYTHONPATH", "")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import nb_diff

    extra = (["--show"] if args.show else []) + (["--json", args.json] if args.json else [])
    return nb_diff.main(["--fn-run", "--timeout", args.timeout] + extra + paths)


if __name__ == "__main__":
    sys.exit(main())
