"""fn.while_loop: eager, traced into While nodes, nesting, options, side effects, errors."""
import pytest

import fn


def value(t):
    return t.numpy().tolist() if hasattr(t, "numpy") else t


def ops_of(f, *args):
    return [op.type for op in f.get_concrete_function(*args).graph.get_operations()]


# ---------------------------------------------------------------- eager

def test_eager_while_is_a_python_loop_converting_python_values():
    out = fn.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    assert isinstance(out, tuple) and [value(v) for v in out] == [4, 6]
    assert fn.is_tensor(out[0])
    out = fn.while_loop(lambda i: i < 3, lambda i: i + 1, [fn.constant(0)])
    assert isinstance(out, list) and value(out[0]) == 3
    assert value(fn.while_loop(lambda i: i < 30, lambda i: i + 1, [0], maximum_iterations=5)[0]) == 5


def test_eager_while_checks_arguments():
    with pytest.raises(TypeError, match="cond must be callable"):
        fn.while_loop(1, lambda i: i, [0])
    with pytest.raises(TypeError, match="body must be callable"):
        fn.while_loop(lambda i: i < 1, None, [0])
    with pytest.raises(ValueError, match="'loop_vars' must be provided"):
        fn.while_loop(lambda: True, lambda: (), [])


# ---------------------------------------------------------------- traced

def test_traced_loop_runs_in_one_while_node_traced_once():
    traced = []

    @fn.function
    def f(n):
        def body(i, s):
            traced.append(1)
            return i + 1, s + i
        return fn.while_loop(lambda i, s: i < n, body, [0, 0])

    i, s = f(fn.constant(10))
    assert (value(i), value(s)) == (10, 45)
    i, s = f(fn.constant(100))
    assert value(s) == 4950 and traced == [1]
    assert "StatelessWhile" in ops_of(f, fn.constant(1))


def test_nested_loop_vars_keep_their_structure():
    @fn.function
    def f(x):
        def body(state):
            return {"i": state["i"] + 1, "acc": (state["acc"][0] * 2.0, [state["acc"][1][0] + x])}
        return fn.while_loop(lambda st: st["i"] < 3, body, [{"i": 0, "acc": (x, [x])}])

    (out,) = f(fn.constant(1.5))
    assert value(out["i"]) == 3
    assert value(out["acc"][0]) == 12.0 and value(out["acc"][1][0]) == 6.0


def test_single_loop_var_may_be_returned_bare():
    @fn.function
    def f(x):
        return fn.while_loop(lambda v: v < 100, lambda v: v * 3, [x])

    assert value(f(fn.constant(2))[0]) == 162


def test_captures_of_function_tensors_and_eager_tensors():
    step = fn.constant(3)

    @fn.function
    def f(n, x):
        limit = n * 2
        return fn.while_loop(lambda i, a: i < limit, lambda i, a: (i + step, a + x), [0, fn.zeros_like(x)])

    i, a = f(fn.constant(5), fn.constant([1.0, 2.0]))
    assert value(i) == 12 and value(a) == [4.0, 8.0]


def test_nested_loops_and_loops_inside_conds_and_conds_inside_loops():
    @fn.function
    def triangle(n, flag):
        def outer_body(i, total):
            inner = fn.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + 1), [0, total])
            bump = fn.cond(i % 2 == 0, lambda: fn.constant(100), lambda: fn.constant(0))
            return i + 1, inner[1] + bump
        return fn.cond(flag, lambda: fn.while_loop(lambda i, t: i < n, outer_body, [0, 0])[1],
                       lambda: fn.constant(-1))

    # sum_{i<5} i = 10, plus 100 for i in {0, 2, 4}
    assert value(triangle(fn.constant(5), fn.constant(True))) == 310
    assert value(triangle(fn.constant(5), fn.constant(False))) == -1


def test_maximum_iterations_static_and_tensor():
    @fn.function
    def f(m):
        a = fn.while_loop(lambda i: i < 1000, lambda i: i + 1, [0], maximum_iterations=7)[0]
        b = fn.while_loop(lambda i: i < 1000, lambda i: i + 1, [0], maximum_iterations=m)[0]
        c = fn.while_loop(lambda i: i < 2, lambda i: i + 1, [0], maximum_iterations=m)[0]
        return a, b, c

    assert [value(v) for v in f(fn.constant(4))] == [7, 4, 2]
    with pytest.raises(ValueError, match="non-negative"):
        fn.function(lambda: fn.while_loop(lambda i: i < 3, lambda i: i + 1, [0], maximum_iterations=-1))()


def test_shape_invariants_relax_a_growing_loop_var():
    @fn.function
    def f(x):
        return fn.while_loop(lambda v: fn.reduce_sum(v) < 100.0, lambda v: fn.concat([v, v], 0), [x],
                             shape_invariants=[fn.TensorShape([None])])

    (out,) = f(fn.constant([1.0, 2.0]))
    assert value(out) == [1.0, 2.0] * 64
    (spec,) = f.get_concrete_function(fn.constant([1.0, 2.0])).structured_outputs
    assert spec.shape.as_list() == [None]

    @fn.function
    def g(x):
        return fn.while_loop(lambda v: v[0] < 3.0, lambda v: v + 1.0, [x], shape_invariants=[fn.TensorShape([3])])

    with pytest.raises(ValueError, match=r"is not compatible with the initial shape.*\(2,\).*\(3,\)"):
        g(fn.constant([1.0, 2.0]))


def test_shape_change_without_invariant_names_the_tensor_or_the_variable():
    @fn.function
    def f(x):
        return fn.while_loop(lambda v: fn.reduce_sum(v) < 10.0, lambda v: fn.concat([v, v], 0), [x])

    with pytest.raises(ValueError, match=r"Input tensor `x:0` enters the loop with shape \(1,\), but has shape "
                                         r"\(2,\) after one iteration.*shape_invariants"):
        f(fn.constant([1.0]))

    @fn.function
    def g(x):
        while fn.reduce_sum(x) < 10:
            x = fn.concat([x, x], 0)
        return x

    with pytest.raises(ValueError, match=r"'x' has shape \(1,\) before the loop, but shape \(2,\) after one iteration"):
        g(fn.constant([1.0]))


def test_dtype_change_names_the_tensor_or_the_variable():
    @fn.function
    def f(x):
        return fn.while_loop(lambda v: v < 10, lambda v: fn.cast(v, fn.float32) + 1, [x])

    with pytest.raises(TypeError, match="Loop var x:0 enters the loop with type int32 but has type float32"):
        f(fn.constant(1))

    @fn.function
    def g(x):
        i = fn.constant(0)
        while x < 3:
            i = fn.cast(i, fn.float32)
            x += 1
        return i

    with pytest.raises(TypeError, match="'i' has dtype int32 before the loop, but dtype float32 after one iteration"):
        g(fn.constant(1))


def test_structure_change_is_an_error():
    @fn.function
    def f(x):
        return fn.while_loop(lambda v, w: v < 10, lambda v, w: (v + 1,), [x, x])

    with pytest.raises(ValueError, match="same structure as loop_vars"):
        f(fn.constant(1))


def test_cond_must_return_a_bool_scalar():
    @fn.function
    def f(x):
        return fn.while_loop(lambda v: v, lambda v: v - 1, [x])

    with pytest.raises(TypeError, match="must return a boolean scalar"):
        f(fn.constant(3))


def test_stateful_ops_run_every_iteration_in_order(capsys):
    v = fn.Variable(0)

    @fn.function
    def f(n):
        def body(i):
            fn.print("step", i)
            v.assign_add(i)
            fn.cond(i % 2 == 0, lambda: fn.print("even"), lambda: None)
            return i + 1
        fn.while_loop(lambda i: i < n, body, [0])   # result unused: kept because it has effects
        fn.print("done")
        return v.read_value()

    assert value(f(fn.constant(4))) == 6
    assert capsys.readouterr().err.splitlines() == ["step 0", "even", "step 1", "step 2", "even", "step 3", "done"]
    assert "While" in ops_of(f, fn.constant(1))


def test_print_in_autograph_loops(capsys):
    @fn.function
    def f(n):
        for i in fn.range(n):
            fn.print(i)
        x = n
        while x > 0:
            fn.print("x", x)
            x -= 2
        return x

    assert value(f(fn.constant(3))) == -1
    assert capsys.readouterr().err.splitlines() == ["0", "1", "2", "x 3", "x 1"]
    assert value(f(fn.constant(0))) == 0
    assert capsys.readouterr().err == ""


def test_autograph_for_over_range_counts_without_materialising_it():
    @fn.function
    def f(n):
        s = 0
        for i in fn.range(2, n, 3):
            s += i
        return s

    assert value(f(fn.constant(12))) == 2 + 5 + 8 + 11
    ops = ops_of(f, fn.constant(1))
    assert "StatelessWhile" in ops and "StridedSlice" not in ops and "GatherV2" not in ops
    plan_steps = f.get_concrete_function(fn.constant(1))._core.num_plan_steps()
    assert plan_steps <= 4   # two constants, the While, the output Identity: the Range is pruned


def test_autograph_break_continue_and_tensor_for():
    @fn.function
    def f(xs):
        s = 0.0
        for x in xs:
            if x < 0:
                continue
            if x > 100:
                break
            s += x
        return s

    assert value(f(fn.constant([1.0, -5.0, 2.0, 500.0, 7.0]))) == 3.0


def test_while_gradient():
    # (More, checked against TensorFlow: test_tf_while_gradients.py.)
    @fn.function
    def f(x):
        with fn.GradientTape() as tape:
            tape.watch(x)
            r = fn.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])[1]
        return tape.gradient(r, x)

    assert value(f(fn.constant(2.0))) == 32.0   # d/dx x**4


def test_loop_not_on_the_gradient_path_does_not_block_gradients():
    @fn.function
    def f(x):
        with fn.GradientTape() as tape:
            tape.watch(x)
            n = fn.while_loop(lambda i: i < 3, lambda i: i + 1, [0])[0]
            r = x * x * fn.cast(n, fn.float32)
        return tape.gradient(r, x)

    assert value(f(fn.constant(2.0))) == 12.0


def test_run_functions_eagerly_runs_loops_in_python(capsys):
    @fn.function
    def f(n):
        s = fn.constant(0)
        for i in fn.range(n):
            s += i
        return s

    fn.config.run_functions_eagerly(True)
    try:
        assert value(f(fn.constant(5))) == 10
    finally:
        fn.config.run_functions_eagerly(False)
    assert value(f(fn.constant(5))) == 10


def test_many_iterations_run_without_python():
    calls = []

    @fn.function
    def f(n):
        calls.append(1)
        return fn.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 2), [0, 0])[1]

    assert value(f(fn.constant(100000))) == 200000 and calls == [1]


def test_concurrent_calls_share_the_compiled_loop():
    import threading

    @fn.function
    def f(n):
        s = fn.constant(0)
        for i in fn.range(n):
            if i % 3 == 0:
                s += i
        return s

    expect = sum(i for i in range(300) if i % 3 == 0)
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(value(f(fn.constant(300))))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [expect] * 80


def test_an_error_while_tracing_a_body_leaves_no_graph_context_behind():
    @fn.function
    def f(x):
        def body(v):
            raise RuntimeError("boom")
        return fn.while_loop(lambda v: v < 3, body, [x])

    with pytest.raises(RuntimeError, match="boom"):
        f(fn.constant(1))
    assert fn.executing_eagerly() if hasattr(fn, "executing_eagerly") else fn._core.executing_eagerly()
    assert value(fn.constant(1) + 1) == 2

