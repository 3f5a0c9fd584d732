"""Regenerate the EXPECTED table of test_nest.py by running real TensorFlow.

Run once with the reference interpreter (attrs must be importable there, e.g.
PYTHONPATH pointing at a directory holding copies of the attr/attrs packages):
    TF_CPP_MIN_LOG_LEVEL=3 ~/.cache/fn/tfref/bin/python tests_py/nest/_gen_tf_expected.py
and paste the printed literal into test_nest.py.  Only TensorFlow computes the
expected values.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorflow as tf  # noqa: E402
from tensorflow.python.util import nest as _tf_internal_nest  # noqa: E402

import nest_cases  # noqa: E402


def run(expr):
    env = dict(vars(nest_cases))
    env.update(nest=tf.nest, paths=_tf_internal_nest.flatten_with_joined_string_paths)
    try:
        return ("ok", repr(eval(expr, env)))
    except Exception as e:  # noqa: BLE001
        return ("raise", type(e).__name__, str(e))


if __name__ == "__main__":
    print("EXPECTED = {")
    for expr in nest_cases.CASES:
        print(f"    {expr!r}:\n        {run(expr)!r},")
    print("}")
