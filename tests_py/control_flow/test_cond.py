"""fn.cond (and fn.case / fn.switch_case): eager, traced into If nodes, errors, gradients."""
import numpy as np
import pytest

import fn


def value(t):
    return t.numpy().tolist() if hasattr(t, "numpy") else t


def ops_of(f, *args):
    return [op.type for op in f.get_concrete_function(*args).graph.get_operations()]


# ---------------------------------------------------------------- eager

def test_eager_cond_runs_only_the_taken_branch():
    ran = []
    out = fn.cond(fn.constant(True), lambda: ran.append("t") or 1, lambda: ran.append("f") or 2)
    assert out == 1 and ran == ["t"]
    out = fn.cond(fn.constant(False), lambda: ran.append("t") or 1, lambda: ran.append("f") or 2)
    assert out == 2 and ran == ["t", "f"]


def test_eager_cond_accepts_python_bool_and_requires_callables():
    assert fn.cond(True, lambda: 1, lambda: 2) == 1
    with pytest.raises(TypeError, match="true_fn must be callable"):
        fn.cond(True, 1, lambda: 2)
    with pytest.raises(TypeError, match="false_fn must be callable"):
        fn.cond(True, lambda: 1)


# ---------------------------------------------------------------- traced

def test_traced_cond_traces_both_branches_once_and_runs_the_taken_one():
    traced = []

    @fn.function
    def f(p, x):
        def t():
            traced.append("t")
            return x * 2
        def e():
            traced.append("e")
            return x - 1
        return fn.cond(p, t, e)

    assert value(f(fn.constant(True), fn.constant(5))) == 10
    assert value(f(fn.constant(False), fn.constant(5))) == 4
    assert traced == ["t", "e"]
    assert "StatelessIf" in ops_of(f, fn.constant(True), fn.constant(5))


def test_nested_structures_python_scalars_and_none():
    @fn.function
    def f(p, x):
        return fn.cond(p, lambda: {"a": (x + 1.0, 1), "b": None, "c": [x]},
                       lambda: {"a": (x - 1.0, 2), "b": None, "c": [x * x]})

    out = f(fn.constant(True), fn.constant(3.0))
    assert value(out["a"][0]) == 4.0 and value(out["a"][1]) == 1 and out["b"] is None
    assert value(out["c"][0]) == 3.0
    out = f(fn.constant(False), fn.constant(3.0))
    assert value(out["a"][0]) == 2.0 and value(out["a"][1]) == 2 and value(out["c"][0]) == 9.0
    assert out["a"][1].dtype == fn.int32


def test_captures_of_outer_graph_and_eager_tensors():
    big = fn.constant([10.0, 20.0])   # an eager tensor captured by both the Function and the branch

    @fn.function
    def f(p, x):
        y = x * 2.0                    # a tensor of the function's graph, used in a branch
        return fn.cond(p, lambda: y + big, lambda: big - x)

    assert value(f(fn.constant(True), fn.constant([1.0, 2.0]))) == [12.0, 24.0]
    assert value(f(fn.constant(False), fn.constant([1.0, 2.0]))) == [9.0, 18.0]


def test_branch_shapes_merge_to_the_most_specific_common_shape():
    @fn.function
    def f(p, x):
        return fn.cond(p, lambda: x, lambda: fn.concat([x, x], 0))

    c = f.get_concrete_function(fn.constant(True), fn.constant([1, 2]))
    assert c.structured_outputs.shape.as_list() == [None]
    assert value(f(fn.constant(False), fn.constant([1, 2]))) == [1, 2, 1, 2]


def test_nested_conds_and_cond_returning_a_branch_input_unchanged():
    @fn.function
    def sign(x):
        return fn.cond(x > 0, lambda: fn.constant(1), lambda: fn.cond(x < 0, lambda: fn.constant(-1), lambda: x))

    assert [value(sign(fn.constant(v))) for v in (5, -3, 0)] == [1, -1, 0]


def test_stateful_branches_make_a_stateful_if_that_is_never_pruned(capsys):
    @fn.function
    def f(p):
        fn.cond(p, lambda: fn.print("yes"), lambda: fn.print("no"))
        return fn.constant(0)

    f(fn.constant(True))
    f(fn.constant(False))
    assert capsys.readouterr().err.split() == ["yes", "no"]
    assert "If" in ops_of(f, fn.constant(True))


def test_pred_from_a_python_bool_while_tracing_is_refused():
    @fn.function
    def f(x):
        return fn.cond(True, lambda: x, lambda: x + 1)

    with pytest.raises(TypeError, match="pred must not be a Python bool"):
        f(fn.constant(1))


def test_pred_must_be_a_bool_scalar():
    @fn.function
    def f(x):
        return fn.cond(x, lambda: x, lambda: x + 1)

    with pytest.raises(TypeError, match="pred must be a bool tensor"):
        f(fn.constant(1))

    @fn.function
    def g(x):
        return fn.cond(x > 0, lambda: x, lambda: x + 1)

    with pytest.raises(ValueError, match=r"pred must be a scalar, but it has shape \(2,\)"):
        g(fn.constant([1, 2]))


def test_dtype_mismatch_names_both_branches():
    @fn.function
    def f(x):
        return fn.cond(x > 0, lambda: x, lambda: fn.cast(x, fn.float32))

    with pytest.raises(TypeError) as e:
        f(fn.constant(1))
    msg = str(e.value)
    assert "true_fn and false_fn arguments to fn.cond must have the same number, type" in msg
    assert "true_fn output:" in msg and "false_fn output:" in msg
    assert "dtype=int32" in msg and "dtype=float32" in msg and "have different types" in msg


def test_structure_mismatch_names_both_structures():
    @fn.function
    def f(x):
        return fn.cond(x > 0, lambda: (x, x), lambda: x)

    with pytest.raises(TypeError, match=r"true_fn output: .*\n\s*false_fn output: "):
        f(fn.constant(1))

    @fn.function
    def g(x):
        return fn.cond(x > 0, lambda: {"a": x}, lambda: {"b": x})

    with pytest.raises(TypeError, match="same nested structure"):
        g(fn.constant(1))


def test_autograph_if_errors_name_the_variable():
    @fn.function
    def f(x):
        if x > 0:
            y = x
        else:
            y = fn.cast(x, fn.float32)
        return y

    with pytest.raises(TypeError, match="'y' has dtype int32 in the main branch, but dtype float32 in the else branch"):
        f(fn.constant(1))


def test_case_and_switch_case():
    @fn.function
    def f(x):
        return fn.case([(x < 0, lambda: fn.constant(-1)), (x > 10, lambda: fn.constant(1))],
                       default=lambda: fn.constant(0))

    assert [value(f(fn.constant(v))) for v in (-5, 50, 5)] == [-1, 1, 0]

    @fn.function
    def g(i):
        return fn.switch_case(i, [lambda: fn.constant(10), lambda: fn.constant(11)], default=lambda: fn.constant(-1))

    assert [value(g(fn.constant(v))) for v in (0, 1, 7)] == [10, 11, -1]
    assert value(fn.switch_case(1, [lambda: 10, lambda: 11])) == 11
    assert fn.case([(fn.constant(False), lambda: 1)], default=lambda: 2) == 2


# ---------------------------------------------------------------- gradients

def _numeric_grad(f, x, eps=1e-3):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("take", [True, False])
def test_gradient_through_traced_cond_matches_finite_differences(take):
    @fn.function
    def f(p, x, y):
        return fn.cond(p, lambda: fn.reduce_sum(x * x * y), lambda: fn.reduce_sum(fn.sin(x) + y * 3.0))

    p = fn.constant(take)
    x0, y0 = np.array([0.3, -1.2, 2.0]), np.array([1.5, 0.5, -0.25])

    def run(xv, yv):
        return float(f(p, fn.constant(xv, fn.float64), fn.constant(yv, fn.float64)))

    x, y = fn.constant(x0, fn.float64), fn.constant(y0, fn.float64)
    with fn.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        r = f(p, x, y)
    gx, gy = tape.gradient(r, [x, y])
    np.testing.assert_allclose(gx.numpy(), _numeric_grad(lambda v: run(v, y0), x0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gy.numpy(), _numeric_grad(lambda v: run(x0, v), y0), rtol=1e-5, atol=1e-6)


def test_gradient_taken_inside_a_function_and_of_a_variable():
    @fn.function
    def f(p, x):
        with fn.GradientTape() as tape:
            tape.watch(x)
            r = fn.cond(p, lambda: x * x, lambda: 3.0 * x)
        return tape.gradient(r, x)

    assert value(f(fn.constant(True), fn.constant(2.0))) == 4.0
    assert value(f(fn.constant(False), fn.constant(2.0))) == 3.0

    v = fn.Variable(2.0)

    @fn.function
    def g(p, x):
        with fn.GradientTape() as tape:
            r = fn.cond(p, lambda: v * v, lambda: x + 1.0)   # v is read in one branch only
        return tape.gradient(r, v)

    assert value(g(fn.constant(True), fn.constant(1.0))) == 4.0
    assert value(g(fn.constant(False), fn.constant(1.0))) == 0.0


def test_nested_cond_gradient():
    @fn.function
    def f(x):
        with fn.GradientTape() as tape:
            tape.watch(x)
            r = fn.cond(x > 0, lambda: fn.cond(x > 2, lambda: x * x * x, lambda: x * x), lambda: -x)
        return tape.gradient(r, x)

    assert [value(f(fn.constant(v))) for v in (3.0, 1.0, -1.0)] == [27.0, 2.0, -1.0]


def test_outer_tape_through_a_function_with_a_loop_and_a_cond():
    @fn.function
    def f(x):
        n = fn.while_loop(lambda i: i < 3, lambda i: i + 1, [0])[0]   # off the gradient path
        y = fn.cond(x > 0, lambda: x * x, lambda: -x)
        return y * fn.cast(n, fn.float32)

    for v, grad in ((2.0, 12.0), (-1.0, -3.0)):
        x = fn.constant(v)
        with fn.GradientTape() as tape:
            tape.watch(x)
            r = f(x)
        assert value(tape.gradient(r, x)) == grad
