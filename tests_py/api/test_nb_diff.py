"""tools/nb_diff.py: which cells are skipped or random, and how outputs are normalized."""
import importlib.util
import os

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "nb_diff.py")
_spec = importlib.util.spec_from_file_location("nb_diff", _PATH)
nb_diff = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nb_diff)


def _rec(stdout="", stderr="", display=None, error=None):
    return {"stdout": stdout, "stderr": stderr, "display": display, "error": error}


def test_classify_skips_and_random_data_flow():
    cells = ["# only a comment", "!pip install x", "x = tf.random.normal([3])", "y = x * 2",
             "z = tf.constant(1)", "print(y, z)", "import timeit\ntimeit.timeit(f)"]
    c = nb_diff.classify(cells)
    assert [k["skip"] is not None for k in c] == [True, True, False, False, False, False, False]
    assert [k["random"] for k in c] == [False, False, True, True, False, True, False]
    assert c[6]["timing"]


def test_normalize_masks_addresses_prefix_and_random_values():
    plain = {"timing": False, "random": False}
    rnd = {"timing": False, "random": True}
    a = nb_diff.normalize(_rec("<function f at 0x7f00ab>\nfn.Tensor(1, shape=(), dtype=int32)"), plain, "fn")
    assert a == "<function f at 0x?>\ntf.Tensor(1, shape=(), dtype=int32)"
    b = nb_diff.normalize(_rec("tf.Tensor([ 0.5 -1.25], shape=(2,), dtype=float32)"), rnd, "tf")
    c = nb_diff.normalize(_rec("fn.Tensor([-2.5  3.  ], shape=(2,), dtype=float32)"), rnd, "fn")
    assert b == c == "tf.Tensor([FF],shape=(2,),dtype=float32)"
    assert nb_diff.normalize(_rec("t", stderr="WARNING:fn:careful"), plain, "fn") == \
        nb_diff.normalize(_rec("t", stderr="WARNING:tensorflow:careful"), plain, "tf")
    assert nb_diff.normalize(None, plain, "tf") == "<not run>"



def test_shell_lines_dropped_rest_of_cell_runs(tmp_path):
    # ragged_tensor.ipynb's first code cell mixes `!pip install` with the imports.
    assert nb_diff.strip_shell_lines("!pip install -U tensorflow\nimport math\nimport tensorflow as tf") == \
        "import math\nimport tensorflow as tf"
    assert nb_diff.strip_shell_lines("%matplotlib inline\nx = 1\n  !ls") == "x = 1\n"
    magic = "%%timeit\nf(x)"
    assert nb_diff.strip_shell_lines(magic) == magic
    import json
    nb = {"cells": [{"cell_type": "code", "source": ["!pip install x\n", "import tensorflow as tf"]},
                    {"cell_type": "code", "source": ["%%bash\n", "ls"]}]}
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(nb))
    cells = nb_diff.code_cells(str(path))
    assert cells[0] == "import tensorflow as tf"
    assert [c["skip"] is not None for c in nb_diff.classify(cells)] == [False, True]
