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


# -- the readers of an op's class facts: the ONNX exporter and ragged dispatch --------------------

def _elementwise_ops():
    return {n: d for n, d in _core.op_defs().items() if d["op_class"] in ("unary", "binary")}


def _operands(op, arity):
    """Inputs an elementwise op takes: float32 (positive, for log/sqrt), else bool, else int32."""
    import numpy as np

    rng = np.random.default_rng(0)
    for make in (lambda: rng.uniform(0.5, 2.0, (2, 3)).astype(np.float32),
                 lambda: rng.uniform(size=(2, 3)) > 0.5,
                 lambda: rng.integers(1, 5, (2, 3)).astype(np.int32)):
        values = [make() for _ in range(arity)]
        try:
            _core.execute(op, [fn.constant(v) for v in values])
        except Exception:
            continue
        return values
    raise AssertionError(f"no operands for {op}")


def test_every_op_whose_definition_names_an_onnx_operator_exports_to_it(tmp_path):
    """fn.onnx.export takes an elementwise op's ONNX operator from its definition: every such op
    exports (no exporter code names it) and ONNX Runtime computes fn's values."""
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    import numpy as np

    import fn.onnx

    ops = {n: d for n, d in _elementwise_ops().items() if d["onnx"]}
    assert {"AddV2", "Neg", "Tanh", "LogicalAnd", "Greater"} <= set(ops)
    for op, d in sorted(ops.items()):
        values = _operands(op, 1 if d["op_class"] == "unary" else 2)
        specs = [fn.TensorSpec(v.shape, fn.as_dtype(v.dtype)) for v in values]
        body = (lambda x, op=op: _core.execute(op, [x])[0]) if len(values) == 1 else \
            (lambda x, y, op=op: _core.execute(op, [x, y])[0])
        concrete = fn.function(body).get_concrete_function(*specs)
        path = str(tmp_path / f"{op}.onnx")
        model = fn.onnx.export(concrete, path)
        assert d["onnx"] in {n.op_type for n in model.graph.node}, op
        sess = ort.InferenceSession(path)
        got = sess.run(None, {i.name: v for i, v in zip(sess.get_inputs(), values)})[0]
        np.testing.assert_allclose(got, concrete(*[fn.constant(v) for v in values]).numpy(), rtol=1e-5,
                                   err_msg=op)


def test_the_onnx_exporter_follows_the_definitions_answer(tmp_path, monkeypatch):
    """The exporter asks _core, never a table of its own: told that Sub is ONNX's Add, it emits Add."""
    pytest.importorskip("onnx")
    from fn.onnx import _export

    real = _core.op_def
    monkeypatch.setattr(_export, "_FACTS", {})
    monkeypatch.setattr(_export._core, "op_def", lambda n: dict(real(n), onnx="Add") if n == "Sub" else real(n))
    spec = fn.TensorSpec([2], fn.float32)
    concrete = fn.function(lambda x, y: x - y).get_concrete_function(spec, spec)
    model = _export.export(concrete, str(tmp_path / "m.onnx"))
    ops = [n.op_type for n in model.graph.node]
    assert "Add" in ops and "Sub" not in ops


def test_every_public_wrapper_of_an_elementwise_op_accepts_ragged_tensors():
    """Ragged dispatch wraps each public function marked as one op's wrapper (``_fn_op``) whose
    definition is unary or binary: a new op's wrapper needs no entry in a ragged list."""
    import fn.bitwise
    import fn.math
    import fn.nn

    elementwise = _elementwise_ops()
    found = 0
    for mod in (fn, fn.math, fn.nn, fn.bitwise):
        for name in mod.__all__:
            f = getattr(mod, name)
            if getattr(f, "_fn_op", None) in elementwise:
                found += 1
                inner, ragged = f, False
                while inner is not None and not ragged:
                    ragged = hasattr(inner, "_fn_ragged_original")
                    inner = getattr(inner, "_fn_dispatch_api", None)
                assert ragged, f"{mod.__name__}.{name}"
    assert found > 40
    rt = fn.ragged.constant([[1.0, -2.0], [7.0]])
    assert fn.nn.relu6(rt).to_list() == [[1.0, 0.0], [6.0]]


def test_the_function_def_writer_follows_the_definitions_answer(monkeypatch):
    """FunctionDefs name a node's results by the output arguments _core reports for its op."""
    from fn._function import graph_def_library as lib

    real = _core.op_def
    monkeypatch.setattr(lib._core, "op_def", lambda n: dict(real(n), output_args=["w"]) if n == "AddV2" else real(n))
    lib._output_args.cache_clear()
    try:
        assert lib.output_ref("AddV2", 0) == "w:0"
        assert lib.output_ref("Sub", 0) == "z:0"
    finally:
        monkeypatch.undo()
        lib._output_args.cache_clear()
    assert lib.output_ref("AddV2", 0) == "z:0"
