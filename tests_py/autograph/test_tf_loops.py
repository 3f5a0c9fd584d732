"""AutoGraph loops as TensorFlow converts them: variables first assigned in a loop body,
break/continue/return, set_loop_options, and the programs TensorFlow refuses (tf_oracle)."""
import warnings

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _py(x):
    return tf.nest.map_structure(lambda t: t.numpy().tolist() if hasattr(t, 'numpy') else t, x)


# Variables first assigned inside a staged loop ----------------------------------------------
def test_variable_first_assigned_in_for_body():
    @tf.function
    def f(n):
        for i in tf.range(n):
            x = i * 2
        return x
    assert _py(f(tf.constant(3))) == 4
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match='loop must iterate at least once to initialize x'):
        f(tf.constant(0))


def test_variable_first_assigned_in_while_body():
    @tf.function
    def f(n):
        i = 0
        while i < n:
            y = tf.cast(i, tf.float32) * 0.5
            i += 1
        return y
    assert _py(f(tf.constant(4))) == 1.5


def test_python_scalar_first_assigned_in_body():
    @tf.function
    def f(n):
        for i in tf.range(n):
            k = 7
        return k
    assert _py(f(tf.constant(2))) == 7


def test_none_before_loop_becomes_tensor():
    @tf.function
    def f(n):
        x = None
        for i in tf.range(n):
            x = i + 1
        return x
    assert _py(f(tf.constant(3))) == 3


def test_local_of_the_body_is_not_a_loop_variable():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            x = i * 2
            s += x
        return s
    assert _py(f(tf.constant(3))) == 6


def test_variable_read_before_assigned_in_body_raises():
    @tf.function
    def f(n):
        for i in tf.range(n):
            if i > 0:
                y = x + 1  # noqa: F841
            x = i
        return x
    with pytest.raises(ValueError, match="'x' must be defined before the loop") as info:
        f(tf.constant(3))
    assert "AutoGraph tried to define it automatically, but ran into a UnboundLocalError" in str(info.value)
    assert "'x' is used before assignment" in str(info.value)


def test_undefined_after_one_branch_raises():
    @tf.function
    def f(c):
        if c > 0:
            x = 1
        return x
    with pytest.raises(ValueError, match="'x' must also be initialized in the else branch"):
        f(tf.constant(1))


# return, break, continue -------------------------------------------------------------------
def test_conditional_return_inside_tensor_loop_is_rejected():
    @tf.function
    def f(n):
        for i in tf.range(n):
            if i > 2:
                return i
        return -1
    with pytest.raises(NotImplementedError, match='a return statement cannot be placed inside this'):
        f(tf.constant(5))


def test_conditional_return_inside_tensor_while_is_rejected():
    @tf.function
    def f(n):
        i = 0
        while i < n:
            i += 1
            if i > 2:
                return i * 10
        return i
    with pytest.raises(NotImplementedError, match='a return statement cannot be placed inside this'):
        f(tf.constant(5))


def test_break_and_continue_in_tensor_loop():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            if i % 2 == 0:
                continue
            if i > 6:
                break
            s += i
        return s
    assert _py(f(tf.constant(10))) == 9
    assert _py(f(tf.constant(4))) == 4


def test_break_at_end_and_continue_at_start_of_while_body():
    @tf.function
    def f(n):
        i = 0
        s = 0
        while i < n:
            i += 1
            if i == 2:
                continue
            s += i
            if s > 6:
                break
        return i, s
    assert _py(f(tf.constant(10))) == [4, 8] or _py(f(tf.constant(10))) == (4, 8)


def test_break_in_nested_tensor_loops():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            for j in tf.range(n):
                if j > i:
                    break
                s += 1
        return s
    assert _py(f(tf.constant(4))) == 10


def test_tensor_break_in_python_loop_is_rejected():
    @tf.function
    def f(n):
        s = 0
        for i in range(5):
            s += 1
            if s > n:
                break
        return s
    with pytest.raises(NotImplementedError, match='not supported in Python for loops'):
        f(tf.constant(3))


def test_python_while_whose_condition_becomes_tensor_is_rejected():
    @tf.function
    def f(n):
        c = True
        i = 0
        while c:
            i += 1
            c = i < n
        return i
    with pytest.raises(NotImplementedError,
                       match='The condition of while loop started as non-Tensor, then changed to Tensor'):
        f(tf.constant(3))


def test_python_loop_with_python_break_unrolls():
    @tf.function
    def f(x):
        for i in range(10):
            if i == 3:
                break
            x = x + 1
        return x
    assert _py(f(tf.constant(0))) == 3


# Loop variables keep their type ------------------------------------------------------------
def test_loop_variable_changing_dtype_raises_type_error():
    @tf.function
    def f(n):
        x = tf.constant(0)
        for i in tf.range(n):
            x = tf.cast(x, tf.float32)
        return x
    with pytest.raises(TypeError, match="'x' has dtype int32 before the loop, but dtype float32 after one iteration"):
        f(tf.constant(3))


def test_loop_variable_changing_structure_raises_type_error():
    @tf.function
    def f(n):
        x = (1, 2)
        for i in tf.range(n):
            x = (1, 2, 3)
        return x
    with pytest.raises(TypeError, match="'x' does not have the same nested structure after one iteration"):
        f(tf.constant(3))


def test_branch_outputs_with_different_structure_raise_type_error():
    @tf.function
    def f(c):
        if c > 0:
            x = (1, 2)
        else:
            x = (1,)
        return x
    with pytest.raises(TypeError, match="'x' must have the same nested structure in the main and else branches"):
        f(tf.constant(3))


def test_loop_variable_shape_change_needs_invariant():
    @tf.function
    def f(n):
        x = tf.constant([0])
        for i in tf.range(n):
            x = tf.concat([x, tf.reshape(i, [1])], 0)
        return x
    with pytest.raises(ValueError, match=r"'x' has shape \(1,\) before the loop, but shape \(2,\) after one iteration"):
        f(tf.constant(3))


# set_loop_options --------------------------------------------------------------------------
def test_set_loop_options_shape_invariants_and_maximum_iterations():
    @tf.function
    def f(n):
        s = tf.constant([0])
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(s, tf.TensorShape([None]))], parallel_iterations=3,
                maximum_iterations=4)
            s = tf.concat([s, tf.reshape(i, [1])], 0)
        return s
    assert _py(f(tf.constant(10))) == [0, 0, 1, 2, 3]


def test_set_loop_options_in_while_loop():
    @tf.function
    def f(n):
        i = tf.constant(0)
        while i < n:
            tf.autograph.experimental.set_loop_options(maximum_iterations=2, swap_memory=False)
            i += 1
        return i
    assert _py(f(tf.constant(10))) == 2


def test_set_loop_options_called_directly_does_nothing():
    assert tf.autograph.experimental.set_loop_options(maximum_iterations=3) is None


# What TensorFlow's AutoGraph refuses to convert ----------------------------------------------
@pytest.fixture(autouse=True)
def _quiet():
    # fn warns (TensorFlow logs) when it runs a function unconverted.
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        yield


def test_for_else_over_tensor_is_not_converted():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            s += i
        else:
            s = s + 100
        return s
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match='Iterating over a symbolic'):
        f(tf.constant(3))


def test_while_else_over_tensor_is_not_converted():
    @tf.function
    def f(n):
        s = 0
        while s < n:
            s += 1
        else:
            s = s + 100
        return s
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match='as a Python `bool` is not allowed'):
        f(tf.constant(3))


def test_for_else_over_python_values_runs_unconverted():
    @tf.function
    def f(x):
        for i in range(3):
            x = x + i
        else:
            x = x * 10
        return x
    assert _py(f(tf.constant(1))) == 40


def test_generator_over_tensor_is_not_converted():
    @tf.function
    def f(n):
        def g():
            for i in tf.range(n):
                yield i
        s = 0
        for v in g():
            s += v
        return s
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match='Iterating over a symbolic'):
        f(tf.constant(3))


# The tf.autograph module -------------------------------------------------------------------
def test_autograph_module_surface():
    names = {n for n in dir(tf.autograph) if not n.startswith('_')}
    assert names == {'experimental', 'set_verbosity', 'to_code', 'to_graph', 'trace'}
    exp = {n for n in dir(tf.autograph.experimental) if not n.startswith('_')}
    assert exp == {'Feature', 'do_not_convert', 'set_loop_options'}
    assert [f.name for f in tf.autograph.experimental.Feature] == [
        'ALL', 'AUTO_CONTROL_DEPS', 'ASSERT_STATEMENTS', 'BUILTIN_FUNCTIONS',
        'EQUALITY_OPERATORS', 'LISTS', 'NAME_SCOPES']


def test_to_graph_and_to_code():
    def f(x):
        if x > 0:
            x = x * 2
        return x
    g = tf.autograph.to_graph(f)
    assert _py(g(tf.constant(3))) == 6
    assert _py(g(tf.constant(-3))) == -3
    code = tf.autograph.to_code(f, recursive=True)
    assert 'def ' in code and 'if_stmt' in code


def test_do_not_convert_keeps_python_semantics():
    @tf.autograph.experimental.do_not_convert
    def g(x):
        return x + 1

    @tf.function
    def f(x):
        return g(x)
    assert _py(f(tf.constant(1))) == 2


# Loop variables over datasets, iterators, and shape invariants -------------------------------
def test_shape_invariant_violation():
    @tf.function
    def f(n):
        t = tf.constant([1])
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(shape_invariants=((t, tf.TensorShape([1])),))
            t = tf.range(n)
        return t
    with pytest.raises(ValueError, match=r"'t' has shape \(None,\) after one iteration, which does not conform "
                                         r"with the shape invariant \(1,\)"):
        f(tf.constant(3))


def test_shape_erasure_needs_invariant():
    @tf.function
    def f(n):
        t = tf.constant([1])
        while n > 0:
            t = tf.range(n)
            n -= 1
        return t
    with pytest.raises(ValueError, match=r"'t' has shape \(1,\) before the loop, but shape \(None,\) after one "
                                         r"iteration. Use (tf|fn).autograph.experimental.set_loop_options"):
        f(tf.constant(3))


def test_dataset_loop_variable_changing_dtype():
    @tf.function
    def f(ds):
        n = tf.constant(0, dtype=tf.int32)
        for _ in ds:
            n = tf.constant(0, dtype=tf.float32)
        return n
    with pytest.raises(TypeError, match="'n' has dtype int32 before the loop, but dtype float32 after one iteration"):
        f(tf.data.Dataset.from_tensor_slices([1, 2, 3]))


def test_dataset_loop_variable_changing_structure():
    @tf.function
    def f(ds):
        s = [tf.constant(0)]
        for _ in ds:
            s = s + [tf.constant(0)]
        return s
    with pytest.raises(TypeError, match="'s' does not have the same nested structure after one iteration"):
        f(tf.data.Dataset.from_tensor_slices([1, 2, 3]))


def test_dataset_loop_allows_shape_change_but_iterator_loop_does_not():
    def body(it):
        t = tf.constant([1])
        for _ in it:
            t = tf.constant([1, 1])
        return t
    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    assert _py(tf.function(body)(ds)) == [1, 1]
    with pytest.raises(ValueError, match=r"'t' has shape \(1,\) before the loop, but shape \(2,\) after one iteration"):
        tf.function(body)(iter(ds))


def test_loop_target_after_range_loop():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            s = s * 10 + i
        return i, s
    assert [int(x) for x in f(tf.constant(0))] == [0, 0]   # TF: the target starts at the range's start
    assert [int(x) for x in f(tf.constant(3))] == [2, 12]


def test_loop_target_after_tensor_loop_needs_one_iteration():
    @tf.function
    def f(xs):
        s = 0
        for x in xs:
            s = s * 10 + x
        return x, s
    assert [int(v) for v in f(tf.constant([4, 5]))] == [5, 45]
    with pytest.raises(tf.errors.InvalidArgumentError, match='loop must iterate at least once to initialize x'):
        f(tf.zeros([0], tf.int32))


def test_loop_target_reused_and_altered():
    @tf.function
    def f(n):
        i = 7
        s = 0
        for i in tf.range(n):
            i = 3 * i + 1
            s = s * 10 + i
        return i, s
    assert [int(x) for x in f(tf.constant(0))] == [7, 0]
    assert [int(x) for x in f(tf.constant(2))] == [4, 14]


def test_undefined_after_python_control_flow_wording():
    def after_if(x):
        if x > 0:
            y = 1
        return y

    def after_for(x):
        for i in range(x):
            y = i
        return y

    def after_while(x):
        while x > 10:
            y = 1
            x -= 1
        return y

    for f in (after_if, after_for, after_while):
        with pytest.raises(UnboundLocalError, match="'y' is used before assignment"):
            tf.function(f)(0)


# AUTOGRAPH_STRICT_CONVERSION: what cannot be converted raises instead of running as-is -------
def _for_else(xs):
    s = 0
    for x in xs:
        s += x
    else:
        s = -1
    return s


def _while_else(n):
    while n > 0:
        n -= 1
    else:
        n = -1
    return n


def _generator():
    yield 1


@pytest.mark.parametrize('f,args,message', [
    (_for_else, ([1, 2],), 'for/else statement not yet supported'),
    (_while_else, (2,), 'while/else statement not yet supported'),
    (_generator, (), 'generators are not supported'),
])
def test_strict_conversion_raises_not_implemented(monkeypatch, f, args, message):
    monkeypatch.setenv('AUTOGRAPH_STRICT_CONVERSION', '1')
    with pytest.raises(NotImplementedError, match=message):
        tf.function(f)(*args)


def test_without_strict_conversion_loop_else_runs_as_python():
    assert _py(tf.function(_for_else)([1, 2])) == -1
    assert _py(tf.function(_while_else)(2)) == -1
