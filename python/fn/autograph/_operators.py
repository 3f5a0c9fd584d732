"""Runtime operators that converted code calls as ``fn__.<name>``.

Each operator decides at run time: when the condition (or iterable) is a
tensor it stages graph control flow through ``_backend``; otherwise it runs
plain Python semantics, so code over Python values behaves exactly as the
original (Python loops unroll while tracing).

State protocol (shared by ``if_stmt``, ``while_stmt``, ``for_stmt``):
``get_state()`` returns a tuple with the current values of ``names``;
``set_state(values)`` assigns them (through ``nonlocal``). The first
``n_out`` (for loops ``n_vars``) names are the statement's outputs: the
variables live after an ``if``, or carried around a loop. The remaining names
are modified but dead; staged control flow restores them afterwards so no
value from inside a branch or loop body leaks out. ``get_state``/``set_state``
are None when the statement modifies nothing.
"""

import sys

from . import _backend

__all__ = [
    'Undefined', 'UndefinedReturnValue', 'ld', 'ldu', 'set_item', 'set_attr', 'retval', 'if_stmt', 'while_stmt',
    'for_stmt', 'and_', 'or_', 'not_', 'if_exp', 'converted_call',
]


# Undefined values -----------------------------------------------------------------
class Undefined:
    """Value of a variable that has not been assigned yet on this path."""

    __slots__ = ('symbol_name',)

    def __init__(self, symbol_name):
        object.__setattr__(self, 'symbol_name', symbol_name)

    def __repr__(self):
        return "Undefined(%r)" % (self.symbol_name,)

    def read(self):
        raise UnboundLocalError(
            "local variable '%s' referenced before assignment" % self.symbol_name)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        self.read()

    def _use(self, *args, **kwargs):
        self.read()


for _dunder in ('bool', 'len', 'iter', 'call', 'getitem', 'setitem', 'neg', 'pos', 'abs',
                'invert', 'index', 'int', 'float', 'add', 'radd', 'sub', 'rsub', 'mul',
                'rmul', 'truediv', 'rtruediv', 'floordiv', 'rfloordiv', 'mod', 'rmod',
                'pow', 'rpow', 'matmul', 'rmatmul', 'and', 'rand', 'or', 'ror', 'xor',
                'rxor', 'lshift', 'rlshift', 'rshift', 'rrshift', 'lt', 'le', 'gt', 'ge',
                'contains'):
    setattr(Undefined, '__%s__' % _dunder, Undefined._use)
del _dunder


class UndefinedReturnValue(Undefined):
    """Value of ``retval_`` before any ``return`` statement ran."""

    __slots__ = ()

    def __init__(self):
        super().__init__('retval_')


def ld(value):
    """Reads a variable that may still be Undefined (raises if it is)."""
    if isinstance(value, Undefined):
        value.read()
    return value


def ldu(load, name):
    """Reads a composite name (``d['a']``, ``o.x``): Undefined when it does not exist."""
    try:
        return load()
    except (KeyError, AttributeError, NameError):
        return Undefined(name)


def set_item(container, key, value):
    """``container[key] = value``; an Undefined value removes the item instead."""
    if isinstance(value, Undefined):
        try:
            del container[key]
        except (KeyError, IndexError, TypeError):
            pass
    else:
        container[key] = value


def set_attr(obj, name, value):
    """``setattr(obj, name, value)``; an Undefined value removes the attribute instead."""
    if isinstance(value, Undefined):
        try:
            delattr(obj, name)
        except AttributeError:
            pass
    else:
        setattr(obj, name, value)


def retval(value):
    """The function's return value: None when no return statement ran."""
    return None if isinstance(value, UndefinedReturnValue) else value


# Error helpers --------------------------------------------------------------------
def _user_frame():
    from . import _converter as converter
    frame = sys._getframe(1)
    while frame is not None:
        if converter.is_converted_code(frame.f_code):
            return frame
        frame = frame.f_back
    return None


def _error(cls, message):
    err = cls(message)
    frame = _user_frame()
    if frame is not None:
        err.add_note('  File "%s", line %d, in %s' % (
            frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
    return err


def _check_branch(values, names, branch):
    for name, value in zip(names, values):
        if isinstance(value, UndefinedReturnValue):
            raise _error(ValueError,
                         'the %s branch must also have a return statement.' % branch)
        if isinstance(value, Undefined):
            raise _error(ValueError,
                         "'%s' must also be initialized in the %s branch" % (name, branch))


def _check_loop_init(values, names):
    for name, value in zip(names, values):
        if isinstance(value, UndefinedReturnValue):
            raise _error(NotImplementedError,
                         'a return statement cannot be placed inside this fn loop;'
                         ' this may happen if a return statement depends on a'
                         ' static Python condition such as a hyperparameter')
        if value is None:
            raise _error(ValueError, "'%s' is not allowed to be None before the loop" % name)
        if isinstance(value, Undefined):
            raise _error(ValueError, "'%s' must be defined before the loop" % name)


def _state(get_state):
    return tuple(get_state()) if get_state is not None else ()


def _restore(set_state, values):
    if set_state is not None:
        set_state(tuple(values))


def _as_outputs(result, n):
    if n == 0:
        return ()
    if isinstance(result, (tuple, list)) and len(result) == n:
        return tuple(result)
    if n == 1:
        return (result,)
    raise TypeError('expected %d outputs from staged control flow, got %r' % (n, result))


# if -------------------------------------------------------------------------------
def if_stmt(cond, body, orelse, get_state, set_state, names=(), n_out=0):
    """``if cond: body() else: orelse()``; ``orelse`` may be None."""
    if _backend.is_tensor(cond):
        _staged_if(cond, body, orelse, get_state, set_state, names, n_out)
    elif cond:
        body()
    elif orelse is not None:
        orelse()


def _staged_if(cond, body, orelse, get_state, set_state, names, n_out):
    init = _state(get_state)
    out_names = names[:n_out]

    def branch(fn, which):
        def run():
            _restore(set_state, init)
            if fn is not None:
                fn()
            values = _state(get_state)[:n_out]
            _check_branch(values, out_names, which)
            return values if n_out else None
        return run

    result = _backend.cond(cond, branch(body, 'main'), branch(orelse, 'else'),
                           names=_names_of(names, n_out))
    _restore(set_state, _as_outputs(result, n_out) + init[n_out:])


def _names_of(names, n):
    """The first `n` statement variable names, or None when they are not all known strings."""
    try:
        out = tuple(names)[:n]
    except TypeError:
        return None
    return out if all(isinstance(x, str) for x in out) else None


def if_exp(cond, if_true, if_false, expr_repr=None):
    """``if_true() if cond else if_false()``."""
    if _backend.is_tensor(cond):
        return _backend.cond(cond, if_true, if_false)
    return if_true() if cond else if_false()


# Logical operators ----------------------------------------------------------------
def and_(a_fn, b_fn):
    """Lazy ``a and b``: ``b_fn`` runs only when needed (staged for tensors)."""
    a = a_fn()
    if _backend.is_tensor(a):
        return _backend.cond(a, b_fn, lambda: a)
    return b_fn() if a else a


def or_(a_fn, b_fn):
    """Lazy ``a or b``."""
    a = a_fn()
    if _backend.is_tensor(a):
        return _backend.cond(a, lambda: a, b_fn)
    return a if a else b_fn()


def not_(a):
    if _backend.is_tensor(a):
        return _backend.logical_not(a)
    return not a


def _and_tests(c, extra):
    """Loop condition ``c and extra`` where ``c`` is a tensor."""
    if _backend.is_tensor(extra):
        return _backend.logical_and(c, extra)
    return _backend.logical_and(c, bool(extra))


# while ----------------------------------------------------------------------------
def while_stmt(test, body, get_state, set_state, names=(), n_vars=0, opts=None):
    """``while test(): body()``, staged once the test yields a tensor."""
    c = test()
    while True:
        if _backend.is_tensor(c):
            _staged_while(test, body, get_state, set_state, names, n_vars, opts or {})
            return
        if not c:
            return
        body()
        c = test()


def _staged_while(test, body, get_state, set_state, names, n_vars, opts):
    init = _state(get_state)
    _check_loop_init(init[:n_vars], names[:n_vars])
    rest = init[n_vars:]

    def cond_fn(*values):
        _restore(set_state, values + rest)
        return test()

    def body_fn(*values):
        _restore(set_state, values + rest)
        body()
        return _state(get_state)[:n_vars]

    final = _backend.while_loop(cond_fn, body_fn, init[:n_vars], names=_names_of(names, n_vars), **opts)
    _restore(set_state, _as_outputs(final, n_vars) + rest)


# for ------------------------------------------------------------------------------
def for_stmt(iterable, extra_test, body, get_state, set_state, names=(), n_vars=0,
             opts=None):
    """``for x in iterable: body(x)``, checking ``extra_test()`` (if any)
    before each iteration, as break/return flags require."""
    opts = opts or {}
    if _backend.is_tensor(iterable):
        bounds = _backend.range_loop_bounds(iterable)
        if bounds is not None:
            _staged_range_for(bounds, extra_test, body, get_state, set_state, names, n_vars,
                              opts)
        else:
            _staged_tensor_for(iterable, extra_test, body, get_state, set_state, names,
                               n_vars, opts)
    elif _backend.is_dataset(iterable):
        _dataset_for(iterable, extra_test, body, get_state, set_state, names, n_vars)
    else:
        _py_for(iterable, extra_test, body, get_state, set_state, names, n_vars)


def _py_for(iterable, extra_test, body, get_state, set_state, names, n_vars):
    it = iter(iterable)
    while True:
        if extra_test is not None:
            go = extra_test()
            if _backend.is_tensor(go):
                _py_for_guarded(iterable, it, go, extra_test, body, get_state, set_state,
                                names, n_vars)
                return
            if not go:
                return
        try:
            item = next(it)
        except StopIteration:
            return
        body(item)


def _py_for_guarded(iterable, it, go, extra_test, body, get_state, set_state, names,
                    n_vars):
    """A Python loop whose break/return became data-dependent: the remaining
    iterations unroll, each staged under ``if not break_``."""
    if not hasattr(iterable, '__len__'):
        raise _error(NotImplementedError,
                     'break and return statements which depend on a tensor condition are'
                     ' only supported in Python for loops over sized collections (lists,'
                     ' tuples, ranges, dicts); iterate over a tensor or fn.range instead')
    for item in it:
        _staged_if(go, lambda: body(item), None, get_state, set_state, names, n_vars)
        go = extra_test()


def _loop_pieces(get_state, set_state, names, n_vars):
    init = _state(get_state)
    _check_loop_init(init[:n_vars], names[:n_vars])
    return init[:n_vars], init[n_vars:]


def _staged_counted_loop(start, step, test, item_of, extra_test, body, get_state,
                         set_state, names, n_vars, opts):
    loop_vars, rest = _loop_pieces(get_state, set_state, names, n_vars)

    def cond_fn(i, *values):
        _restore(set_state, values + rest)
        c = test(i)
        if extra_test is not None:
            c = _and_tests(c, extra_test())
        return c

    def body_fn(i, *values):
        _restore(set_state, values + rest)
        body(item_of(i))
        return (_backend.add(i, step),) + _state(get_state)[:n_vars]

    counted = _names_of(names, n_vars)
    final = _backend.while_loop(cond_fn, body_fn, (start,) + loop_vars,
                                names=None if counted is None else ('',) + counted, **opts)
    final = _as_outputs(final, n_vars + 1)
    _restore(set_state, final[1:] + rest)


def _staged_tensor_for(tensor, extra_test, body, get_state, set_state, names, n_vars,
                       opts):
    n = _backend.shape0(tensor)
    _staged_counted_loop(0, 1, lambda i: _backend.less(i, n),
                         lambda i: _backend.gather_first_axis(tensor, i), extra_test, body,
                         get_state, set_state, names, n_vars, opts)


def _staged_range_for(bounds, extra_test, body, get_state, set_state, names, n_vars, opts):
    start, limit, delta = bounds

    if _backend.is_tensor(delta):
        def test(i):
            up = _backend.logical_and(_backend.greater(delta, 0), _backend.less(i, limit))
            down = _backend.logical_and(_backend.less(delta, 0), _backend.greater(i, limit))
            return _backend.logical_or(up, down)
    elif delta > 0:
        def test(i):
            return _backend.less(i, limit)
    else:
        def test(i):
            return _backend.greater(i, limit)

    _staged_counted_loop(start, delta, test, lambda i: i, extra_test, body, get_state,
                         set_state, names, n_vars, opts)


def _dataset_for(ds, extra_test, body, get_state, set_state, names, n_vars):
    loop_vars, rest = _loop_pieces(get_state, set_state, names, n_vars)

    def body_fn(element, state):
        _restore(set_state, tuple(state) + rest)
        body(element)
        return _state(get_state)[:n_vars]

    test_fn = None
    if extra_test is not None:
        def test_fn(state):
            _restore(set_state, tuple(state) + rest)
            return extra_test()

    final = _backend.dataset_loop(ds, body_fn, loop_vars, test_fn)
    _restore(set_state, _as_outputs(final, n_vars) + rest)


# Calls ----------------------------------------------------------------------------
def _len(obj):
    if _backend.is_tensor(obj):
        return _backend.tensor_len(obj)
    return len(obj)


def _range(*args):
    if any(_backend.is_tensor(a) for a in args):
        return _backend.range_(*args)
    return range(*args)


def _int(x=0, *args, **kwargs):
    if _backend.is_tensor(x) and not args and not kwargs:
        return _backend.cast(x, 'int32')
    return int(x, *args, **kwargs)


def _float(x=0.0):
    if _backend.is_tensor(x):
        return _backend.cast(x, 'float32')
    return float(x)


_BUILTIN_OVERRIDES = {id(f): (f, g) for f, g in
                      ((len, _len), (range, _range), (int, _int), (float, _float))}


def converted_call(f, args, kwargs=None):
    """Calls ``f(*args, **kwargs)``, converting ``f`` first if it is user code."""
    if kwargs is None:
        kwargs = {}
    override = _BUILTIN_OVERRIDES.get(id(f))
    if override is not None and override[0] is f:
        return override[1](*args, **kwargs)
    from . import _converter as converter
    return converter.callable_for_call(f)(*args, **kwargs)
