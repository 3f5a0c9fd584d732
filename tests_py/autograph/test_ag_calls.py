"""converted_call, unconvertible functions (warned once), error locations."""

import traceback
import warnings

import pytest

from fn import autograph as ag
from fn._autograph import converter
from fn._autograph import operators


def inner(x):
    if x > 0:
        return 'pos'
    return 'neg'


def outer(x):
    return inner(x), inner(-x)


def test_converted_call_converts_user_functions():
    calls = []
    real = converter.callable_for_call

    def spy(f):
        out = real(f)
        calls.append((f, out))
        return out
    converter.callable_for_call = spy
    try:
        assert ag.to_graph(outer)(1) == ('pos', 'neg')
    finally:
        converter.callable_for_call = real
    converted = [out for f, out in calls if f is inner]
    assert converted and all(c is not inner and converter.is_converted_code(c.__code__)
                             for c in converted)


def test_converted_call_passes_library_and_builtins_through():
    assert operators.converted_call(len, ([1, 2],)) == 2
    assert operators.converted_call(sorted, ([3, 1],), {'reverse': True}) == [3, 1]
    assert operators.converted_call(max, (1, 5, 2)) == 5
    assert operators.converted_call(dict, (), {'a': 1}) == {'a': 1}
    assert list(operators.converted_call(range, (3,))) == [0, 1, 2]
    import math
    assert converter.callable_for_call(math.sqrt) is math.sqrt
    import json
    assert converter.callable_for_call(json.loads) is json.loads


def test_no_source_warns_once_and_runs_unconverted():
    ns = {}
    exec('def g(x):\n    return x + 1\n', ns)
    g = ns['g']
    with pytest.warns(UserWarning, match='could not convert g.*source code is not available'):
        conv = ag.to_graph(g)
    assert conv is g and conv(1) == 2
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert ag.to_graph(g) is g  # no second warning


two = (lambda x: x + 1, lambda y: y * 2)  # noqa: E731
same_args = [lambda x: x + 1, lambda x: x * 2]  # noqa: E731


def test_lambdas_on_one_line():
    # Different parameter names tell them apart.
    assert ag.to_graph(two[0])(1) == 2 and ag.to_graph(two[1])(3) == 6
    assert converter.is_converted_code(ag.to_graph(two[1]).__code__)
    # Same parameters: the body's column tells them apart in CPython 3.11+.
    a, b = (ag.to_graph(f) for f in same_args)
    assert a(1) == 2 and b(3) == 6


def gen_fn(n):
    for i in range(n):
        yield i


def test_generator_functions_run_unconverted_with_a_warning():
    with pytest.warns(UserWarning, match='generators are not supported'):
        assert ag.to_graph(gen_fn) is gen_fn
    assert list(ag.to_graph(gen_fn)(3)) == [0, 1, 2]


def calls_generator(n):
    return sum(gen_fn(n))


def test_generator_called_from_converted_code():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert ag.to_graph(calls_generator)(4) == 6


def raises_inside(x):
    total = 0
    for i in range(x):
        if i == 2:
            total += undefined_helper(i)  # noqa: F821
        total += i
    return total


def test_errors_point_at_user_file_and_line():
    conv = ag.to_graph(raises_inside)
    with pytest.raises(NameError) as e:
        conv(5)
    frames = [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(e.value.__traceback__)]
    line = raises_inside.__code__.co_firstlineno + 4
    assert (__file__, line, 'if_body') in frames
    # The loop and the if statement lines appear too.
    assert (__file__, raises_inside.__code__.co_firstlineno + 2, 'raises_inside') in frames
    text = ''.join(traceback.format_tb(e.value.__traceback__))
    assert 'total += undefined_helper(i)' in text


class Callable:
    def __init__(self):
        self.n = 0

    def __call__(self, x):
        if x:
            self.n += 1
        return self.n


def test_callable_objects_and_bound_methods():
    c = Callable()
    bound = converter.callable_for_call(c)
    assert bound is not c and bound(1) == 1 and c.n == 1
    method = converter.callable_for_call(c.__call__)
    assert method(1) == 2 and method.__self__ is c


def test_classes_are_called_directly():
    assert converter.callable_for_call(Callable) is Callable


def test_undefined_value():
    u = operators.Undefined('q')
    assert repr(u) == "Undefined('q')"
    for use in (lambda: u + 1, lambda: bool(u), lambda: u.attr, lambda: u[0], lambda: len(u)):
        with pytest.raises(UnboundLocalError, match="'q'"):
            use()
    assert not hasattr(u, '__array__')
    assert operators.retval(operators.UndefinedReturnValue()) is None
    assert operators.retval(3) == 3
