"""Tensor conditions route to the backend's cond/while_loop (fake backend)."""

import sys
import traceback

import pytest

from fn import autograph as ag
from fn._autograph import backend as _backend

from _ag_fake import FakeBackend, FakeDataset, FakeRange, FakeTensor, unwrap

T = FakeTensor
REAL_SHAPE0 = _backend.shape0


@pytest.fixture
def fake(monkeypatch):
    backend = FakeBackend('run')
    backend.install(monkeypatch, _backend)
    return backend


@pytest.fixture
def tracer(monkeypatch):
    backend = FakeBackend('trace')
    backend.install(monkeypatch, _backend)
    return backend


FAKE = FakeBackend()  # module-level name the converted functions call for fn.print


def tprint(*args):
    FAKE.print(*args)


@pytest.fixture(autouse=True)
def _reset_printed():
    FAKE.printed.clear()
    yield


# if --------------------------------------------------------------------------------
def sign(x):
    if x > 0:
        print('Tracing positive branch')
        r = 1
    else:
        print('Tracing other branch')
        r = -1
    return r


def test_tensor_if_traces_both_branches_once(fake, capsys):
    conv = ag.to_graph(sign)
    assert unwrap(conv(T(5))) == 1
    assert capsys.readouterr().out == 'Tracing positive branch\nTracing other branch\n'
    assert unwrap(conv(T(-5))) == -1
    assert fake.count('cond') == 2
    # Python values keep plain Python semantics: one branch, no cond.
    assert conv(3) == 1
    assert capsys.readouterr().out.count('Tracing') == 2 + 1
    assert fake.count('cond') == 2


def fizzbuzz(n):
    for i in ag_range(1, n + 1):
        print('Tracing for loop')
        if i % 15 == 0:
            print('Tracing fizzbuzz branch')
            tprint('fizzbuzz')
        elif i % 3 == 0:
            print('Tracing fizz branch')
            tprint('fizz')
        elif i % 5 == 0:
            print('Tracing buzz branch')
            tprint('buzz')
        else:
            print('Tracing default branch')
            tprint(i)


def ag_range(*args):
    return FakeRange(*args) if len(args) > 1 else FakeRange(0, args[0])


def test_fizzbuzz_traces_each_branch_once(tracer, capsys):
    ag.to_graph(fizzbuzz)(T(5))
    assert capsys.readouterr().out.splitlines() == [
        'Tracing for loop', 'Tracing fizzbuzz branch', 'Tracing fizz branch',
        'Tracing buzz branch', 'Tracing default branch']
    assert tracer.count('while_loop') == 1 and tracer.count('cond') == 3


def test_fizzbuzz_runs(fake, capsys):
    ag.to_graph(fizzbuzz)(T(15))
    assert FAKE.printed == ['1', '2', 'fizz', '4', 'buzz', 'fizz', '7', '8', 'fizz', 'buzz',
                            '11', 'fizz', '13', '14', 'fizzbuzz']
    assert 'gather' not in fake.log  # the range was never materialised


def only_live_outputs(x):
    y = 0
    if x > 0:
        tmp = x * 2
        y = tmp + 1
    else:
        y = x
    return y


def test_if_outputs_are_the_live_names(fake):
    outputs = []
    real_cond = fake.cond

    def spy(pred, t, f, names=None):
        result = real_cond(pred, t, f)
        outputs.append(result)
        return result
    fake.cond = spy
    _backend.cond = spy
    assert unwrap(ag.to_graph(only_live_outputs)(T(3))) == 7
    assert len(outputs[0]) == 1  # only y: tmp is dead after the if
    # tmp is local to the branches (TF's rule): not part of the if's state
    assert "get_state, set_state, ('y',), 1)" in ag.to_code(only_live_outputs)


def early_return(x):
    if x > 0:
        return x * 10
    return -x


def test_early_return_in_tensor_if(fake):
    conv = ag.to_graph(early_return)
    assert unwrap(conv(T(2))) == 20
    assert unwrap(conv(T(-3))) == 3
    assert fake.count('cond') == 2


def classify(x):
    if x > 0 and x < 10:
        return x * 10
    elif not x > -5:
        return x - 100
    return x


def test_elif_chain_of_returns(fake):
    conv = ag.to_graph(classify)
    assert [unwrap(conv(T(v))) for v in (3, -7, -2, 50)] == [30, -107, -2, 50]


def defined_in_one_branch(x):
    if x > 0:
        z = 1
    return z


def return_in_one_branch(x):
    if x > 0:
        return 1


def test_undefined_in_one_branch_names_the_variable(fake):
    with pytest.raises(ValueError, match="'z' must also be initialized in the else branch") as e:
        ag.to_graph(defined_in_one_branch)(T(1))
    # The note and the traceback point at the user's `if` line.
    line = defined_in_one_branch.__code__.co_firstlineno + 1
    assert any(('line %d, in defined_in_one_branch' % line) in n for n in e.value.__notes__)
    frames = traceback.extract_tb(e.value.__traceback__)
    assert (__file__, line) in [(f.filename, f.lineno) for f in frames]
    with pytest.raises(ValueError, match='the else branch must also have a return statement'):
        ag.to_graph(return_in_one_branch)(T(1))
    # With a Python condition both are fine.
    assert ag.to_graph(defined_in_one_branch)(1) == 1
    assert ag.to_graph(return_in_one_branch)(0) is None


def cond_expr(x):
    return 'big' if x > 10 else 'small', not x > 3, (x > 1 and x < 5), (x < 1 or x > 5)


def test_logical_and_conditional_expressions(fake):
    big, notx, a, o = ag.to_graph(cond_expr)(T(4))
    assert [unwrap(v) for v in (big, notx, a, o)] == ['small', False, True, False]
    assert fake.count('cond') == 3  # if_exp, and_, or_ ; not_ is logical_not


# while -------------------------------------------------------------------------------
def collatz_steps(n):
    steps = 0
    while n > 1:
        half = n // 2
        if n % 2 == 0:
            n = half
        else:
            n = 3 * n + 1
        steps += 1
    return steps, n


def test_while_loop_vars_flow(fake):
    steps, n = ag.to_graph(collatz_steps)(T(6))
    assert (unwrap(steps), unwrap(n)) == collatz_steps(6)
    assert fake.count('while_loop') == 1


def test_while_loop_vars_exclude_body_temporaries(tracer):
    seen = []
    real = tracer.while_loop

    def spy(cond, body, loop_vars, maximum_iterations=None, names=None):
        seen.append(len(loop_vars))
        return real(cond, body, loop_vars, maximum_iterations)
    _backend.while_loop = spy
    ag.to_graph(collatz_steps)(T(6))
    assert seen == [2]  # n and steps; not `half`


def becomes_tensor(x, limit):
    i = 0
    while i < limit:
        i += 1
        x = x + i
    return i, x


def test_while_switches_to_staged_when_test_becomes_tensor(fake):
    # limit is a Python int but x is a tensor: the loop stays in Python.
    i, x = ag.to_graph(becomes_tensor)(T(0), 3)
    assert i == 3 and unwrap(x) == 6 and fake.count('while_loop') == 0
    # limit is a tensor: the test is a tensor from the start.
    i, x = ag.to_graph(becomes_tensor)(0, T(3))
    assert (unwrap(i), unwrap(x)) == (3, 6) and fake.count('while_loop') == 1


def breaks_and_continues(n):
    s = 0
    for i in ag_range(n):
        if i > 6:
            break
        if i % 2 == 0:
            continue
        s += i
    return s


def while_break(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if total > 10:
            break
        total += i
    return i, total


def test_break_continue_in_staged_loops(fake):
    assert unwrap(ag.to_graph(breaks_and_continues)(T(20))) == 1 + 3 + 5
    assert unwrap(ag.to_graph(breaks_and_continues)(T(4))) == 1 + 3
    i, total = ag.to_graph(while_break)(T(100))
    assert (unwrap(i), unwrap(total)) == while_break(100)


def loop_over_tensor(xs):
    total = 0
    for x in xs:
        total += x
    return total


def test_for_over_tensor_iterates_first_axis(fake):
    assert unwrap(ag.to_graph(loop_over_tensor)(T([1, 2, 3]))) == 6
    assert fake.count('gather') == 3
    assert unwrap(ag.to_graph(loop_over_tensor)(T([4, 5], static_len=False))) == 9
    # Python lists unroll with plain Python semantics.
    assert ag.to_graph(loop_over_tensor)([1, 2]) == 3
    assert fake.count('while_loop') == 2


def test_for_over_scalar_tensor_is_an_error(fake, monkeypatch):
    monkeypatch.setattr(_backend, 'shape0', REAL_SHAPE0)
    with pytest.raises(TypeError, match='scalar'):
        ag.to_graph(loop_over_tensor)(T(3))


def undefined_before_loop(n):
    for i in range(n):
        z = i
    return z


def none_before_loop(n):
    z = None
    for i in range(n):
        z = i
    return z


def return_inside_loop(n):
    for i in range(n):
        if i > 2:
            return i
    return -1


def test_loop_errors(fake):
    # (Variables first assigned in a staged loop: tests_py/autograph/test_tf_loops.py.)
    with pytest.raises(NotImplementedError, match='return statement cannot be placed'):
        ag.to_graph(return_inside_loop)(T(5))
    # The same functions over Python values are fine.
    assert ag.to_graph(undefined_before_loop)(3) == 2
    assert ag.to_graph(return_inside_loop)(5) == 3


def python_loop_tensor_break(xs, limit):
    total = 0
    for x in xs:
        if total > limit:
            break
        total += x
    return total


def test_python_loop_with_tensor_break_is_rejected(fake):
    # TensorFlow's AutoGraph: a break depending on a tensor cannot end a Python loop.
    with pytest.raises(NotImplementedError, match='not supported in Python for loops'):
        ag.to_graph(python_loop_tensor_break)([1, 2, 3, 4, 5], T(2))


# datasets ------------------------------------------------------------------------------
def train(dataset):
    loss = 0
    for x, y in dataset:
        loss += abs(y - x)
    return loss


def train_break(dataset):
    loss = 0
    for x in dataset:
        if loss > 2:
            break
        loss += x
    return loss


def test_dataset_loop_hook(fake):
    ds = FakeDataset([(1, 3), (2, 2), (5, 1)])
    assert unwrap(ag.to_graph(train)(ds)) == 6
    assert ds.loops == 1
    ds2 = FakeDataset([T(1), T(1), T(1), T(1), T(1)])
    assert unwrap(ag.to_graph(train_break)(ds2)) == 3
    # Python data unrolls.
    assert ag.to_graph(train)([(1, 1)] * 3) == 0


# builtins ---------------------------------------------------------------------------------
def uses_len_range(x, n):
    total = 0
    for i in range(n):
        total += i
    return len(x), total


def test_len_and_range_on_tensors(fake):
    length, total = ag.to_graph(uses_len_range)(T([1, 2, 3]), T(4))
    assert length == 3 and unwrap(total) == 6
    assert fake.count('range') == 1 and fake.count('while_loop') == 1
    length, _ = ag.to_graph(uses_len_range)(T([1, 2], static_len=False), 2)
    assert unwrap(length) == 2
    assert ag.to_graph(uses_len_range)([1], 3) == (1, 3)


def casts(x):
    return int(x), float(x)


def test_int_float_on_tensors(fake):
    i, f = ag.to_graph(casts)(T(2.7))
    assert unwrap(i) == 2 and unwrap(f) == 2.7
    assert ag.to_graph(casts)('5') == (5, 5.0)


# calls ------------------------------------------------------------------------------------
def helper_abs(x):
    if x < 0:
        x = -x
    return x


def calls_helper(x):
    return helper_abs(x) + 1


def test_user_functions_called_from_converted_code_are_converted(fake):
    assert unwrap(ag.to_graph(calls_helper)(T(-4))) == 5
    assert fake.count('cond') == 1


def defines_helpers(x):
    def clip(v, limit=5):
        if v > limit:
            v = limit
        return v

    class Scaler:
        def __init__(self, k):
            self.k = k

        def apply(self, v):
            if v < 0:
                return -v * self.k
            return v * self.k

    class Doubler(Scaler):
        def apply(self, v):
            return super().apply(v) * 2

    return clip(x), Doubler(3).apply(x), (lambda v: 'neg' if v < 0 else 'pos')(x)


def test_functions_defined_inside_are_converted_inline(fake):
    clipped, scaled, sign_ = ag.to_graph(defines_helpers)(T(-4))
    assert (unwrap(clipped), unwrap(scaled), unwrap(sign_)) == (-4, 24, 'neg')
    assert fake.count('cond') == 3
    clipped, scaled, sign_ = ag.to_graph(defines_helpers)(T(9))
    assert (unwrap(clipped), unwrap(scaled), unwrap(sign_)) == (5, 54, 'pos')
    assert ag.to_graph(defines_helpers)(-4) == defines_helpers(-4)
    code = ag.to_code(defines_helpers)
    assert code.count('ag__.if_stmt(') == 2 and 'def clip(v, limit=5):' in code


total_seen = 0


def bumps_global(x):
    global total_seen
    if x > 0:
        total_seen = total_seen + x
    return x


def test_globals_assigned_in_staged_branches_are_outputs(fake):
    global total_seen
    total_seen = 1
    ag.to_graph(bumps_global)(T(4))
    assert unwrap(total_seen) == 5
