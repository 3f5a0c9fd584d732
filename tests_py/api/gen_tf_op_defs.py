"""Saves TensorFlow's op definitions (argument names, input type attrs) to ``tf_op_defs.json``.

Run under the TensorFlow venv: ``~/.cache/fn/tfref/bin/python tests_py/api/gen_tf_op_defs.py``.
``test_op_facts.py`` checks fn's OpDefs (``fn._core.op_def``) against the file, so the fn run
needs no TensorFlow. Every op of ``tf.raw_ops`` is saved, so an op fn adds later is checked without regenerating.
"""
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow  # noqa: E402,F401  (registers the ops)
from tensorflow.python.framework import op_def_registry  # noqa: E402


# TF's internal ops (not in tf.raw_ops) that fn also defines.
_INTERNAL = ["_FusedMatMul", "_FusedConv2D", "_FusedBatchMatMulV2"]


def _args(args) -> list:
    """``name`` or ``name:type_attr`` per argument."""
    return [a.name + (":" + a.type_attr if a.type_attr else "") for a in args]


def main() -> None:
    out = {}
    names = [n for n in dir(tensorflow.raw_ops) if not n.startswith("_")] + _INTERNAL
    for name in sorted(names):
        d = op_def_registry.get(name)
        if d is not None:
            out[name] = {"in": _args(d.input_arg), "out": [a.name for a in d.output_arg]}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_op_defs.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(out)} ops -> {path}")


if __name__ == "__main__":
    main()
