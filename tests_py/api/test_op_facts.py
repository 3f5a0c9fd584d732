"""fn's op definitions state TensorFlow's facts: each OpDef (read through ``fn._core.op_def``) names
its outputs and index-like inputs as TF's op registry does (``tf_op_defs.json``, saved from TF 2.21
by ``gen_tf_op_defs.py``). The GraphDef/FunctionDef writers and the argument checks read these
facts, so a wrong one would show as a wrong ``node:arg:index`` or a wrong error message."""
from __future__ import annotations

import json
import os

import pytest

pytestmark = pytest.mark.fn_only

with open(os.path.join(os.path.dirname(__file__), "tf_op_defs.json")) as _f:
    TF_OPS = json.load(_f)

# fn's own ops (no TF op of that name): the executor's and the bindings' helpers, gradients TF
# computes in Python, fn's fused kernels and its MPI collectives.
FN_ONLY = {"CollectiveAllGather", "CollectiveAllReduce", "CollectiveAllReduceDone", "CollectiveAllReduceStart",
           "CollectiveBroadcast", "CustomGradient", "LogSoftmaxGrad",
           "PyCall", "SoftmaxGrad"}


def _fn_ops():
    from fn import _core

    return {name: _core.op_def(name) for name in _core.op_names()}


def test_every_op_is_tfs_or_a_known_fn_op():
    ops = _fn_ops()
    assert {n for n in ops if n not in TF_OPS} == FN_ONLY


def test_output_arg_names_are_tfs():
    wrong = [(name, d["output_args"], TF_OPS[name]["out"]) for name, d in _fn_ops_cached().items()
             if name in TF_OPS and TF_OPS[name]["out"] and d["output_args"] != TF_OPS[name]["out"]]
    assert not wrong


def test_index_input_names_and_type_attrs_are_tfs():
    wrong = []
    for name, d in _fn_ops_cached().items():
        tf_inputs = TF_OPS.get(name, {}).get("in", [])
        for t in d["input_types"]:
            arg = tf_inputs[t["input"]] if tf_inputs else ""
            param, _, attr = arg.partition(":")
            if param != t["param"] or (attr and attr != t["attr"]):
                wrong.append((name, t["input"], t["param"], t["attr"], arg))
    assert not wrong


_CACHE: dict = {}


def _fn_ops_cached():
    if not _CACHE:
        _CACHE.update(_fn_ops())
    return _CACHE


def test_function_def_names_outputs_by_the_op_definition():
    """A cond branch returning Unique's second output names it ``unique/idx:0`` as TF does."""
    import fn

    @fn.function
    def f(x):
        return fn.cond(x[0] > 0, lambda: fn.unique(x)[1], lambda: fn.zeros_like(x, fn.int32))

    text = str(f.get_concrete_function(fn.TensorSpec([3], fn.float32)).graph.as_graph_def())
    assert ':idx:0"' in text
