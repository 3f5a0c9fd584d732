"""fn._core.op_def / op_defs: an op's facts, read from its one C++ definition (issue 20).

The dispatch checks and the node names these tests observe come from the same OpDef the facts
are read from, so a fact restated elsewhere (a Python table) would show up as a mismatch."""
import pytest

import fn
from fn import _core

pytestmark = pytest.mark.fn_only


def test_every_registered_op_has_its_facts():
    defs = _core.op_defs()
    assert sorted(defs) == sorted(_core.op_names())
    for name, d in defs.items():
        assert d["name"] == name
        assert d["default_name"]
        assert d["num_inputs"] >= -1
        assert d["min_inputs"] >= 0
    assert _core.op_def("AddV2") == defs["AddV2"]


def test_unknown_op_is_not_found():
    with pytest.raises(fn.errors.NotFoundError, match="Op type not registered 'NoSuchOp'"):
        _core.op_def("NoSuchOp")


def test_index_input_dtypes_are_the_ones_dispatch_checks():
    (perm,) = [t for t in _core.op_def("Transpose")["input_types"] if t["param"] == "perm"]
    assert perm["attr"] == "Tperm"
    x = fn.zeros([2, 3])
    with pytest.raises(fn.errors.InvalidArgumentError) as e:
        _core.execute("Transpose", [x, fn.constant([1.0, 0.0])])
    assert "of float is not in the list of allowed values: " + ", ".join(perm["allowed"]) in str(e.value)


@pytest.mark.parametrize("op, make_inputs", [
    ("AddV2", lambda: [fn.constant(1.0), fn.constant(2.0)]),
    ("Transpose", lambda: [fn.zeros([2, 3]), fn.constant([1, 0])]),
    ("Identity", lambda: [fn.constant(1.0)]),
])
def test_nodes_take_the_definitions_default_name(op, make_inputs):
    names = []

    @fn.function
    def f():
        names.append(_core.execute(op, make_inputs())[0].name)

    f()
    assert names == [_core.op_def(op)["default_name"] + ":0"]


def test_attr_minimums_are_the_ones_dispatch_checks():
    assert _core.op_def("Split")["attr_mins"] == {"num_split": 1}
    assert _core.op_def("ConcatV2")["min_inputs"] == 3
