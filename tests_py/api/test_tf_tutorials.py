"""tools/tf_tutorials.py: the tutorials' downloads become local files of the same format, and
nothing else in the notebooks changes; ``nb_diff --fn-run`` runs the fn side unchanged under
``python -m fn.run`` (here on a two-cell notebook of our own)."""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.fn_only

_TOOLS = os.path.join(os.path.dirname(__file__), "..", "..", "tools")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


tt = _load("tf_tutorials", os.path.join(_TOOLS, "tf_tutorials.py"))


def _nb(*cells):
    return {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells]
            + [{"cell_type": "markdown", "source": "mnist.load_data()"}]}


def test_localize_replaces_only_the_downloads():
    cells = ["mnist = tf.keras.datasets.mnist\n(x_train, y_train), (x_test, y_test) = mnist.load_data()\n",
             "import tensorflow_datasets as tfds\nprint(tfds.__version__)", "x = 1  # unchanged"]
    out = tt.localize(_nb(*cells), "/data/mnist.npz")
    src = [c["source"] for c in out["cells"]]
    assert "load_data()" not in src[0]
    assert "'/data/mnist.npz'" in src[0] and src[0].startswith("mnist = tf.keras.datasets.mnist\n")
    assert src[1] == "import local_tfds as tfds\nprint(tfds.__version__)"
    assert src[2] == cells[2]
    assert src[3] == "mnist.load_data()"   # markdown untouched


def test_local_data_has_the_original_formats(tmp_path):
    rng = np.random.default_rng(0)
    path = str(tmp_path / "mnist.npz")
    tt.make_mnist(path, rng)
    with np.load(path) as d:
        assert sorted(d.files) == ["x_test", "x_train", "y_test", "y_train"]
        assert d["x_train"].dtype == np.uint8 and d["x_train"].shape[1:] == (28, 28)
        assert d["y_train"].dtype == np.uint8 and set(np.unique(d["y_train"])) == set(range(10))
        assert len(d["x_test"]) == len(d["y_test"])
    tt.make_penguins(str(tmp_path), rng)
    proc = np.loadtxt(tmp_path / "penguins_processed.csv", delimiter=",", skiprows=1)
    assert proc.shape[1] == 5 and proc[:, :4].min() >= 0 and proc[:, :4].max() <= 1
    assert set(proc[:, 4].astype(int)) == {0, 1, 2}
    with open(tmp_path / "penguins_simple.csv") as f:
        assert f.readline().strip().split(",")[-1] == "species"


def test_nb_diff_fn_run_runs_cells_unchanged(tmp_path):
    nb = tmp_path / "t.ipynb"
    nb.write_text(json.dumps(_nb("import tensorflow as tf\nimport sys",
                                 "print(tf.__name__, type(tf.constant(1.0) + 1).__module__.split('.')[0])")))
    import fn
    fn_path = os.path.dirname(os.path.dirname(fn.__file__))
    out = subprocess.run([sys.executable, os.path.join(_TOOLS, "nb_diff.py"), "--fn-run", "--cache", "",
                          "--tf-python", sys.executable, "--fn-python", sys.executable, "--fn-path", fn_path,
                          "--json", str(tmp_path / "r.json"), str(nb)],
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": ""})
    report = json.loads((tmp_path / "r.json").read_text())[0]
    fn_side = report["cells"][1]["fn"]
    assert fn_side == "fn fn", (fn_side, out.stdout, out.stderr)   # `import tensorflow` was fn
