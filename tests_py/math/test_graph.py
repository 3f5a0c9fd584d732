"""Math ops while tracing (fn.function): node names as TensorFlow gives them, shape rules on
partial shapes and with constant axes, graph-time errors, and gradients computed inside and
through Functions."""
import numpy as np
import pytest

import fn


def ops_of(f, *specs):
    g = f.get_concrete_function(*specs).graph
    return [(op.name, op.type) for op in g.get_operations() if op.type not in ("Placeholder", "Identity")]


def test_node_names_match_tensorflow():
    s = fn.TensorSpec([2, 2])
    si = fn.TensorSpec([2, 2], fn.int32)
    sb = fn.TensorSpec([2, 2], fn.bool)

    @fn.function
    def f(x, y, i, j, b, c):
        return [x - y, x * y, x / y, x // y, x % y, x ** y, -x, abs(x), x < y, x <= y, x > y, x >= y,
                x == y, x != y, b & c, b | c, ~b, fn.subtract(x, y), fn.multiply(x, y), fn.math.floormod(x, y),
                fn.pow(x, y), fn.maximum(x, y), fn.math.squared_difference(x, y), fn.sqrt(x), fn.nn.relu(x),
                fn.add_n([x, y, x]), fn.cast(x, fn.int32), fn.math.is_nan(x)]

    names = ops_of(f, s, s, si, si, sb, sb)
    assert names[:16] == [("sub", "Sub"), ("mul", "Mul"), ("truediv", "RealDiv"), ("floordiv", "FloorDiv"),
                          ("mod", "FloorMod"), ("pow", "Pow"), ("Neg", "Neg"), ("Abs", "Abs"), ("Less", "Less"),
                          ("LessEqual", "LessEqual"), ("Greater", "Greater"), ("GreaterEqual", "GreaterEqual"),
                          ("Equal", "Equal"), ("NotEqual", "NotEqual"), ("and", "LogicalAnd"), ("or", "LogicalOr")]
    assert ("Sub", "Sub") in names and ("Mul", "Mul") in names and ("FloorMod", "FloorMod") in names
    assert ("Pow", "Pow") in names and ("Maximum", "Maximum") in names and ("AddN", "AddN") in names
    assert ("SquaredDifference", "SquaredDifference") in names and ("Sqrt", "Sqrt") in names
    assert ("Relu", "Relu") in names and ("Cast", "Cast") in names and ("IsNan", "IsNan") in names
    assert ("LogicalNot", "LogicalNot") in names


def test_integer_truediv_traces_casts():
    @fn.function
    def f(i, j):
        return i / j

    names = ops_of(f, fn.TensorSpec([], fn.int32), fn.TensorSpec([], fn.int32))
    assert [t for _, t in names] == ["Cast", "Cast", "RealDiv"]
    assert f(fn.constant(7), fn.constant(2)).numpy() == 3.5


def test_partial_shapes_and_constant_axes():
    @fn.function
    def f(x, a):
        return (fn.reduce_sum(x, a), fn.reduce_sum(x, a, keepdims=True), fn.reduce_sum(x),
                fn.reduce_sum(x, [0, -1]), fn.argmax(x, a), fn.argmax(x, 1), fn.reduce_mean(x, 1, keepdims=True),
                x + fn.ones([3, 1]), fn.tanh(x), x == 1.0)

    c = f.get_concrete_function(fn.TensorSpec([None, 3, 4]), fn.TensorSpec([], fn.int32))
    shapes = [o.shape for o in c.graph.outputs] if hasattr(c.graph, "outputs") else None
    out = f(fn.ones([2, 3, 4]), fn.constant(1))
    assert [tuple(o.shape.as_list()) for o in out] == [(2, 4), (2, 1, 4), (), (3,), (2, 4), (2, 4), (2, 1, 4),
                                                       (2, 3, 4), (2, 3, 4), (2, 3, 4)]
    del shapes
    text = c.graph.to_text()
    assert "float32(None, 3, 4)" in text or "(None, 3, 4)" in text   # partial shapes propagate
    assert "Sum" in text and "ArgMax" in text


def test_static_shapes_while_tracing():
    seen = {}

    @fn.function
    def f(x, a):
        seen["sum_axis"] = fn.reduce_sum(x, 1).shape
        seen["sum_dyn"] = fn.reduce_sum(x, a).shape
        seen["sum_dyn_keep"] = fn.reduce_sum(x, a, keepdims=True).shape
        seen["sum_all"] = fn.reduce_sum(x).shape
        seen["argmax_dyn"] = fn.argmax(x, a).shape
        seen["bcast"] = (x * fn.ones([4])).shape
        seen["cmp"] = (x < 0.0).shape
        seen["eq_incompatible"] = (x == fn.ones([5])).shape
        return x

    f.get_concrete_function(fn.TensorSpec([None, 3, 4]), fn.TensorSpec([], fn.int32))
    assert seen["sum_axis"].as_list() == [None, 4]
    assert seen["sum_dyn"].rank is None
    assert seen["sum_dyn_keep"].as_list() == [None, None, None]
    assert seen["sum_all"].as_list() == []
    assert seen["argmax_dyn"].as_list() == [None, None]
    assert seen["bcast"].as_list() == [None, 3, 4]
    assert seen["cmp"].as_list() == [None, 3, 4]
    assert seen["eq_incompatible"].rank is None


def test_graph_time_errors_are_tensorflow_classes():
    with pytest.raises(TypeError, match=r"Value passed to parameter 'x' has DataType int32 not in list of allowed values: bfloat16, float16, float32, float64"):
        fn.function(lambda x: fn.sqrt(x)).get_concrete_function(fn.TensorSpec([], fn.int32))
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 2 and 3 for '\{\{node Sub\}\}.*with input shapes: \[2\], \[3\]"):
        fn.function(lambda x, y: x - y).get_concrete_function(fn.TensorSpec([2]), fn.TensorSpec([3]))
    with pytest.raises(TypeError, match=r"Input 'y' of 'Sub' Op has type int32 that does not match type float32 of argument 'x'."):
        fn.function(lambda x, y: x - y).get_concrete_function(fn.TensorSpec([2]), fn.TensorSpec([2], fn.int32))
    with pytest.raises(ValueError, match=r"Invalid reduction dimension 2 for input with 2 dimensions."):
        fn.function(lambda x: fn.reduce_sum(x, 2)).get_concrete_function(fn.TensorSpec([2, 3]))
    with pytest.raises(TypeError, match=r"Input 'x' of 'LogicalNot' Op has type float32 that does not match expected type of bool."):
        fn.function(lambda x: fn.logical_not(x)).get_concrete_function(fn.TensorSpec([2, 3]))
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 3"):
        fn.function(lambda x, y: fn.add_n([x, y])).get_concrete_function(fn.TensorSpec([2]), fn.TensorSpec([3]))
    with pytest.raises(ValueError, match=r"Dimension \(2\) must be in the range \[-2, 2\), where 2 is the number of dimensions in the input."):
        fn.function(lambda x: fn.argmax(x, 2)).get_concrete_function(fn.TensorSpec([2, 3]))


def test_gradient_tape_inside_a_function():
    @fn.function
    def grad(x):
        with fn.GradientTape() as tape:
            tape.watch(x)
            y = fn.reduce_sum(fn.tanh(x) * x, axis=-1)
        return tape.gradient(y, x)

    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    want = (1 - np.tanh(x) ** 2) * x + np.tanh(x)
    np.testing.assert_allclose(grad(fn.constant(x)).numpy(), want, rtol=1e-5)
    # partially unknown shapes: broadcasting gradients and reductions still build
    c = grad.get_concrete_function(fn.TensorSpec([None, 4]))
    np.testing.assert_allclose(c(fn.constant(x)).numpy(), want, rtol=1e-5)


def test_gradient_with_broadcasting_inside_a_function():
    @fn.function
    def grads(x, b):
        with fn.GradientTape() as tape:
            tape.watch([x, b])
            y = fn.reduce_mean((x * b - 1.0) ** 2)
        return tape.gradient(y, [x, b])

    x, b = np.ones((2, 3), np.float32), np.full((3,), 2.0, np.float32)
    gx, gb = grads(fn.constant(x), fn.constant(b))
    np.testing.assert_allclose(gx.numpy(), np.full((2, 3), 2 * 1 * 2 / 6), rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), np.full((3,), 2 * 2 * 1 * 1 / 6), rtol=1e-6)   # 2 rows


def test_tape_outside_a_function_and_variables():
    v = fn.Variable([1.0, 2.0])

    @fn.function
    def loss(x):
        return fn.reduce_sum(v * x * x)

    x = fn.constant([3.0, 4.0])
    with fn.GradientTape() as tape:
        tape.watch(x)
        y = loss(x)
    gv, gx = tape.gradient(y, [v, x])
    assert gv.numpy().tolist() == [9, 16] and gx.numpy().tolist() == [6, 16]
    assert tape.watched_variables() == (v,)
    with fn.GradientTape() as tape:
        z = fn.reduce_sum(v * v)
    assert tape.gradient(z, v).numpy().tolist() == [2, 4]
    assert tape.watched_variables()[0] is v
