"""fn's one binding of call arguments (``fn._function.function_args.binding_spec``, executed in
C++ by the call fast path, the slow path and ConcreteFunction's structured binding): every call
binds as Python's ``inspect.Signature.bind`` + ``apply_defaults`` does, and fails where it fails."""
import inspect
import itertools

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _f1(a, b=2):
    pass


def _f2(a, /, b, *, c=3):
    pass


def _f3(a, *args):
    pass


def _f4(a, *args, k, **kw):
    pass


def _f5(*args, **kwargs):
    pass


def _f6(a=1, /, b=2, *args, c, d=4, **kw):
    pass


def _f7():
    pass


def _f8(a, b, /, **kw):
    pass


def _f9(x, *, k=None):
    pass


SIGNATURES = [_f1, _f2, _f3, _f4, _f5, _f6, _f7, _f8, _f9]
# Keywords naming parameters of every kind, the *args/**kwargs names themselves and strangers.
KEYWORDS = ["a", "b", "c", "d", "k", "x", "args", "kw", "kwargs", "zz"]


def _python_binding(sig, args, kwargs):
    """The canonical form by inspect: positional values then *args items; keyword-only values then
    the **kwargs items as passed. None where Python raises TypeError."""
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    P = inspect.Parameter
    pos, kw = [], {}
    for p in sig.parameters.values():
        v = bound.arguments[p.name]
        if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            pos.append(v)
        elif p.kind is P.VAR_POSITIONAL:
            pos.extend(v)
        elif p.kind is P.KEYWORD_ONLY:
            kw[p.name] = v
        else:
            kw.update(v)
    return tuple(pos), list(kw.items())


def _calls():
    for n in range(4):
        args = tuple(f"p{i}" for i in range(n))
        for m in range(3):
            for names in itertools.combinations(KEYWORDS, m):
                yield args, {k: f"k_{k}" for k in names}
                if m == 2:  # the same keywords in the other order: **kwargs keep the call's order
                    yield args, {k: f"k_{k}" for k in reversed(names)}


@pytest.mark.fn_only
@pytest.mark.parametrize("func", SIGNATURES, ids=lambda f: f.__name__)
def test_the_spec_binds_every_call_as_python_does(func):
    from fn._function.function_args import binding_spec

    sig = inspect.signature(func)
    spec = binding_spec(list(sig.parameters.values()))
    checked = failing = 0
    for args, kwargs in _calls():
        want = _python_binding(sig, args, kwargs)
        got = spec.bind(args, kwargs)
        positional_only = {p.name for p in sig.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_ONLY}
        if want is None:
            assert got is None, (func.__name__, args, kwargs, got)
            failing += 1
        elif got is None:  # left to inspect (whose answer differs between Python versions)
            assert positional_only & set(kwargs), (func.__name__, args, kwargs, want)
        else:
            assert got is not None, (func.__name__, args, kwargs, want)
            assert (got[0], list(got[1].items())) == want, (func.__name__, args, kwargs)
        checked += 1
    assert checked > 100 and 0 < failing < checked or func is _f5


@pytest.mark.fn_only
def test_varargs_with_keyword_only_parameters_take_the_fast_path():
    """f(a, *args, k=..., **kw) has one binding too: its cached calls no longer go through Python."""
    traces = []

    @tf.function
    def f(a, *args, k=1.0, **kw):
        traces.append(1)
        return a * k + sum(args) + kw.get("s", 0.0)

    x, y = tf.constant(1.0), tf.constant(2.0)
    assert float(f(x, y, k=3.0, s=y)) == 7.0
    before = f._fast_hits
    for _ in range(3):
        assert float(f(x, y, k=3.0, s=y)) == 7.0
        assert float(f(x, y, s=y, k=3.0)) == 7.0  # keyword order: the same trace
    assert f._fast_hits == before + 6
    assert len(traces) == 1


def test_a_call_that_does_not_bind_raises_pythons_error():
    @tf.function
    def f(a, /, b, *, c=3):
        return a + b + c

    with pytest.raises(TypeError, match="positional only"):
        f(a=1, b=2)
    with pytest.raises(TypeError, match="multiple values"):
        f(1, 2, b=2)
    with pytest.raises(TypeError, match="unexpected keyword"):
        f(1, 2, d=4)
    assert int(f(tf.constant(1), b=tf.constant(2))) == 6
