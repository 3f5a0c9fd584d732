"""Runtime operators that converted code calls as ``ag__.<name>`` (TensorFlow's names).

Each operator decides at run time: when the condition (or iterable) is a
tensor it stages graph control flow through ``_backend``; otherwise it runs
plain Python semantics, so code over Python values behaves exactly as the
original (Python loops unroll while tracing).

State protocol (shared by ``if_stmt``, ``while_stmt``, ``for_stmt``):
``get_state()`` returns a tuple with the current values of ``names``;
``set_state(values)`` assigns them (through ``nonlocal``). The first
``n_out`` names of an ``if`` are its outputs (the variables live after it); the remaining
names are modified but dead, and staged control flow restores them afterwards so no value
from inside a branch leaks out. A loop's names are all carried around it.
"""

import sys
import types

from fn._autograph import backend as _backend
from fn._tensor.composite import type_spec_mismatch
from fn._autograph.variables import (
    STD,
    ConversionOptions,
    FunctionScope,
    Undefined,
    UndefinedReturnValue,
    autograph_artifact,
    ld,
    ldu,
    retval,
    set_attr,
    set_item,
)

__all__ = [
    'Undefined',
    'UndefinedReturnValue',
    'ld',
    'ldu',
    'set_item',
    'set_attr',
    'retval',
    'if_stmt',
    'while_stmt',
    'for_stmt',
    'and_',
    'or_',
    'not_',
    'if_exp',
    'converted_call',
    'ConversionOptions',
    'STD',
    'FunctionScope',
    'autograph_artifact',
]


# Error helpers --------------------------------------------------------------------
def _user_frame():
    frame = sys._getframe(1)
    while frame is not None:
        if _converter_module is not None and _converter_module.is_converted_code(frame.f_code):
            return frame
        frame = frame.f_back
    return None


def _error(cls, message):
    err = cls(message)
    frame = _user_frame()
    if frame is not None:
        err.add_note('  File "%s", line %d, in %s' % (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
    return err


def _check_branch(values, names, branch):
    for name, value in zip(names, values):
        if isinstance(value, UndefinedReturnValue):
            raise _error(ValueError, 'the %s branch must also have a return statement.' % branch)
        if isinstance(value, Undefined):
            raise _error(ValueError, "'%s' must also be initialized in the %s branch" % (name, branch))


def _check_branch_pair(main, orelse, names):
    """TensorFlow's checks of a staged if's outputs: same nested structure, no None."""
    for name, a, b in zip(names, main, orelse):
        try:
            _backend.assert_same_structure(_structure_of(a), _structure_of(b))
        except (ValueError, TypeError) as err:
            raise _error(
                TypeError, "'%s' must have the same nested structure in the main and else branches:\n\n%s" % (name, err)
            ) from None
        nested = isinstance(a, (list, tuple, dict))
        for x, y in zip(_backend.flatten(a) if nested else [a], _backend.flatten(b) if nested else [b]):
            mismatch = type_spec_mismatch(x, y)  # datasets of incompatible element specs
            if mismatch is not None:
                raise _error(
                    TypeError,
                    "'%s' must have the same nested structure in the main and else branches:\n\n%s" % (name, mismatch),
                )
            if x is None:
                raise _error(ValueError, "'%s' is None at the end of the main branch." % name)
            if y is None:
                raise _error(ValueError, "'%s' is None at the end of the else branch." % name)
            _check_dtypes(name, x, y)


def _is_literal(x):
    np = sys.modules.get('numpy')
    return isinstance(x, (bool, int, float, str)) or (np is not None and isinstance(x, np.ndarray))


def _check_dtypes(name, x, y):
    """TF's ``verify_single_cond_var``: Python values are converted (in the else branch's graph,
    where TF leaves those constants too) and a tensor's dtype must agree between the branches."""
    if _is_literal(x):
        x = _backend.to_tensor(x)
    if _is_literal(y):
        y = _backend.to_tensor(y)
    if not (_backend.is_tensor(x) and _backend.is_tensor(y)):
        return
    if getattr(x, 'dtype', None) is None or getattr(y, 'dtype', None) is None:
        return
    if x.dtype != y.dtype:
        raise _error(
            TypeError,
            "'%s' has dtype %s in the main branch, but dtype %s in the else"
            ' branch' % (name, x.dtype.name, y.dtype.name),
        )


def _check_loop_init(values, names, first=None, note=None):
    """TensorFlow's checks of a staged loop's initial values."""
    first = first if first is not None else (None,) * len(values)
    for name, value, first_value in zip(names, values, first):
        if isinstance(value, UndefinedReturnValue):
            if first_value is not None and not isinstance(first_value, Undefined):
                raise _error(
                    ValueError,
                    'the return value from a fn loop may only be'
                    ' a tensor or a nested structure of tensors; got %s' % type(first_value),
                )
            raise _error(
                NotImplementedError,
                'a return statement cannot be placed inside this fn loop;'
                ' this may happen if a return statement depends on a'
                ' static Python condition such as a hyperparameter',
            )
        if value is None:
            raise _error(ValueError, "'%s' is not allowed to be None before the loop" % name)
        if isinstance(value, Undefined):
            message = "'%s' must be defined before the loop" % name
            if note:
                message += '\n' + note
            raise _error(ValueError, message)


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

    main_values = []

    def branch(fn, which):
        def run():
            _restore(set_state, init)
            if fn is not None:
                fn()
            values = _state(get_state)[:n_out]
            _check_branch(values, out_names, which)
            if which == 'main':
                main_values[:] = [values]
            elif main_values:
                _check_branch_pair(main_values[0], values, out_names)
            return values if n_out else None

        return run

    result = _backend.cond(cond, branch(body, 'main'), branch(orelse, 'else'), names=_names_of(names, n_out))
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
_LIMITATIONS = (
    '\nSee https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/'
    'autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types'
    ' for more info.'
)


def while_stmt(test, body, get_state, set_state, symbol_names=(), opts=None):
    """``while test(): body()``: staged when the first test yields a tensor, else Python.
    ``symbol_names`` are the loop variables (TensorFlow's signature)."""
    names, n_vars = symbol_names, len(symbol_names)
    with _backend.isolated_graph():  # TF dispatches on a first test evaluated in a throwaway graph
        c = test()
    if _backend.is_tensor(c):
        _staged_while(test, body, get_state, set_state, names, n_vars, opts or {})
        return
    while True:
        if _backend.is_tensor(c):
            raise _error(
                NotImplementedError,
                'The condition of while loop started as non-Tensor, then changed to'
                ' Tensor. This may happen either because variables changed type, or'
                ' when a break or return statement inside the loop depends on a'
                ' Tensor condition. In both cases, changing to a TF loop should'
                ' remove the error.' + _LIMITATIONS,
            )
        if not c:
            return
        body()
        c = test()


def _staged_while(test, body, get_state, set_state, names, n_vars, opts):
    rest = _state(get_state)[n_vars:]

    def get_vars():
        return _state(get_state)[:n_vars]

    def set_vars(values):
        _restore(set_state, tuple(values) + rest)

    _staged_loop(test, body, get_vars, set_vars, tuple(names[:n_vars]), opts)


def _is_null(value):
    return value is None or isinstance(value, Undefined)


def _staged_loop(test, body, get_vars, set_vars, names, opts):
    """TensorFlow's staged ``while``: ``test()``/``body()`` read and write the loop variables
    through ``get_vars``/``set_vars``. Variables first assigned in the body get a placeholder
    value of the type one traced iteration gives them; the loop must then run at least once."""
    opts = dict(opts or {})
    init = tuple(get_vars())
    invariants = _positional_invariants(opts.pop('shape_invariants', None), init)
    user_invariants = invariants
    nulls = [_is_null(v) for v in init]
    orig = init
    require_once = False
    if any(nulls):
        require_once, init, extra = _define_in_body(body, get_vars, set_vars, init, nulls, invariants, names)
        if any(x is not None for x in extra):
            invariants = [e if i is None else i for i, e in zip(invariants or [None] * len(init), extra)]
    _check_loop_init(init, names)
    flag = (False,) if require_once else ()

    def cond_fn(*values):
        set_vars(values[len(flag) :])
        return test()

    def body_fn(*values):
        entry = values[len(flag) :]
        set_vars(entry)
        body()
        out = tuple(get_vars())
        _check_iteration(init, entry, out, names, user_invariants)
        return (True,) * len(flag) + out

    loop_names = _names_of(('',) * len(flag) + tuple(names), len(flag) + len(names))
    if invariants is not None:
        opts['shape_invariants'] = _full_invariants([None] * len(flag) + list(invariants), flag + init)
    final = _backend.while_loop(cond_fn, body_fn, flag + init, names=loop_names, **opts)
    final = _as_outputs(final, len(flag) + len(init))
    if require_once:
        message = 'loop must iterate at least once to initialize ' + ', '.join(
            'the function return value' if isinstance(v, UndefinedReturnValue) else n
            for n, v, null in zip(names, orig, nulls)
            if null
        )
        final = _as_outputs(_backend.require_true(final[0], message, tuple(final[1:])), len(init))
    set_vars(final)


def _positional_invariants(pairs, init):
    """``set_loop_options(shape_invariants=[(var, shape), ...])`` as one entry per loop var."""
    if not pairs:
        return None
    by_id = {id(v): shape for v, shape in pairs}
    return [by_id.get(id(v)) for v in init]


def _full_invariants(invariants, values):
    """Shape invariants with the structure of ``values`` (None leaves where unset)."""
    out = []
    for inv, v in zip(invariants, values):
        if inv is None:
            out.append(_backend.map_structure(lambda _: None, v) if isinstance(v, (list, tuple, dict)) else None)
        else:
            out.append(inv)
    return out


def _placeholder_value(like, invariant, original):
    """A stand-in initial value of the type of ``like`` (a variable's value after one
    iteration); the traced iteration showed it is overwritten before it is read."""
    if like is None or isinstance(like, Undefined):
        return original, None
    if isinstance(like, (bool, int, float)):
        return type(like)(0), None
    if _backend.is_tensor(like) and hasattr(like, 'dtype') and hasattr(like, 'shape'):
        shape = invariant if invariant is not None else like.shape
        dims = None if shape is None else getattr(shape, 'dims', shape)
        if dims is None:
            return _backend.zeros([], like.dtype), shape
        inv_dims = list(getattr(shape, 'dims', shape))
        concrete, dynamic = [], False
        for d, i in zip(list(like.shape), inv_dims):
            d = getattr(d, 'value', d)
            i = getattr(i, 'value', i)
            if d is None:
                dynamic = True
                concrete.append(0 if i is None else i)
            else:
                concrete.append(d)
        return (_backend.zeros(concrete, like.dtype), _backend.tensor_shape(list(like.shape)) if dynamic else None)
    if isinstance(like, (list, tuple, dict)):
        leaves = _backend.flatten(like)
        pairs = [_placeholder_value(v, None, None) for v in leaves]
        return (
            _backend.pack_sequence_as(like, [p[0] for p in pairs]),
            None if all(p[1] is None for p in pairs) else _backend.pack_sequence_as(like, [p[1] for p in pairs]),
        )
    raise TypeError(
        "Found an unsupported type '%s' while creating placeholder for %r."
        ' Supported types include Tensor, int, float, bool, list, tuple, dict.' % (type(like), like)
    )


def _define_in_body(body, get_vars, set_vars, init, nulls, invariants, names):
    """Traces one iteration in a throwaway graph to give the variables the body defines
    (``nulls``) a placeholder initial value. Returns (must iterate once, the new initial
    values, extra shape invariants)."""
    invariants = invariants or [None] * len(init)
    extra = [None] * len(init)
    first = None
    failure = None
    modified = False
    try:
        with _backend.trial_graph() as g:

            def autocast(v):
                return g.placeholder_like(v) if _backend.is_python_literal(v) else v

            set_vars(tuple(_backend.map_structure(autocast, v) if not _is_null(v) else v for v in init))
            modified = True
            body()
            first = tuple(get_vars())
        pairs = [
            (_placeholder_value(f, inv, v) if null else (v, None))
            for v, null, f, inv in zip(init, nulls, first, invariants)
        ]
        new_init = tuple(p[0] for p in pairs)
        extra = [p[1] for p in pairs]
    except (UnboundLocalError, TypeError, ValueError, KeyError) as e:
        failure = 'Note: AutoGraph tried to define it automatically, but ran into a %s: %s' % (type(e).__name__, e)
        new_init = init
    finally:
        if modified:
            set_vars(init)
    _check_loop_init(new_init, names, first, failure)
    return True, new_init, extra


def _check_iteration(init, entry, out, names, invariants=None, check_shapes=True):
    """TensorFlow's checks of one iteration's loop variables: nested structure, then per
    tensor its dtype and its shape (against the entry shape, or the user's shape invariant)."""
    invariants = invariants or [None] * len(names)
    for name, i, e, o, inv in zip(names, init, entry, out, invariants):
        if o is None and not _is_null(e):
            raise _error(ValueError, "'%s' is None at the end of the iteration." % name)
        for a, b in ((i, e), (e, o)):
            try:
                _backend.assert_same_structure(_structure_of(a), _structure_of(b))
            except (ValueError, TypeError) as err:
                raise _error(
                    TypeError, "'%s' does not have the same nested structure after one iteration.\n\n%s" % (name, err)
                ) from None
        if not isinstance(e, (list, tuple, dict)) or not isinstance(o, (list, tuple, dict)):
            triples = [(i, e, o)]
        else:
            triples = zip(_backend.flatten(i), _backend.flatten(e), _backend.flatten(o))
        inv_leaves = (
            [inv]
            if not isinstance(inv, (list, tuple, dict)) or not isinstance(e, (list, tuple, dict))
            else _backend.flatten(inv)
        )
        for (iv, ev, ov), lv in zip(triples, inv_leaves + [None] * 1000):
            _check_leaf(name, iv, ev, ov, lv if check_shapes else None, check_shapes)


def _spec(v):
    """(dtype, shape) of a tensor or a Python literal (converted as a loop converts it)."""
    if _backend.is_python_literal(v) and not isinstance(v, (list, tuple)):
        try:
            v = _backend.to_tensor(v)
        except Exception:  # not convertible: the loop reports it
            return None
    if _backend.is_tensor(v) and hasattr(v, 'dtype') and hasattr(v, 'shape'):
        return v.dtype, v.shape
    return None


def _check_leaf(name, init, entry, exit_, invariant, check_shapes):
    se, so = _spec(entry), _spec(exit_)
    if se is None or so is None:
        return
    if se[0] != so[0]:
        raise _error(
            TypeError,
            "'%s' has dtype %s before the loop, but dtype %s after one iteration" % (name, se[0].name, so[0].name),
        )
    if not check_shapes:
        return
    if invariant is None:
        if not _backend.is_subshape(so[1], se[1]):
            raise _error(
                ValueError,
                "'%s' has shape %s before the loop, but shape %s after one"
                ' iteration. Use fn.autograph.experimental.set_loop_options to set'
                ' shape invariants.' % (name, se[1], so[1]),
            )
        return
    invariant = _backend.tensor_shape(invariant)
    si = _spec(init)
    if si is not None and not _backend.is_subshape(si[1], invariant):
        raise _error(
            ValueError,
            "'%s' has shape %s before the loop, which does not conform with"
            ' the shape invariant %s.' % (name, si[1], invariant),
        )
    if not _backend.is_subshape(so[1], invariant):
        raise _error(
            ValueError,
            "'%s' has shape %s after one iteration, which does not conform"
            ' with the shape invariant %s.' % (name, so[1], invariant),
        )


def _structure_of(v):
    return v if isinstance(v, (list, tuple, dict)) else 0


# for ------------------------------------------------------------------------------
def for_stmt(iterable, extra_test, body, get_state, set_state, symbol_names=(), opts=None):
    """``for x in iterable: body(x)``, checking ``extra_test()`` (if any)
    before each iteration, as break/return flags require. ``symbol_names`` are the loop
    variables (TensorFlow's signature)."""
    names, n_vars = symbol_names, len(symbol_names)
    opts = opts or {}
    if _backend.is_tensor(iterable):
        bounds = _backend.range_loop_bounds(iterable)
        if bounds is not None:
            _staged_range_for(bounds, extra_test, body, get_state, set_state, names, n_vars, opts)
        else:
            _staged_tensor_for(iterable, extra_test, body, get_state, set_state, names, n_vars, opts)
    elif _backend.is_dataset(iterable):
        _dataset_for(iterable, extra_test, body, get_state, set_state, names, n_vars, opts)
    else:
        _py_for(iterable, extra_test, body)


def _py_for(iterable, extra_test, body):
    """A Python loop; a break/return flag is tested before the first iteration and after each
    (so no extra item is taken from the iterator), and must stay a Python value."""
    if extra_test is None:
        for item in iterable:
            body(item)
        return
    if not _python_test(extra_test()):
        return
    for item in iterable:
        body(item)
        if not _python_test(extra_test()):
            return


def _python_test(go):
    if _backend.is_tensor(go):
        raise _error(
            NotImplementedError,
            'break and return statements which depend on a TF condition are not'
            ' supported in Python for loops. Did you intend to make it a TF loop?' + _LIMITATIONS,
        )
    return go


def _loop_pieces(get_state, set_state, names, n_vars):
    init = _state(get_state)
    _check_loop_init(init[:n_vars], names[:n_vars])
    return init[:n_vars], init[n_vars:]


def _staged_counted_loop(
    start, step, test, item_of, extra_test, body, get_state, set_state, names, n_vars, opts, target_default=False
):
    rest = _state(get_state)[n_vars:]
    counter = [start]
    opts = dict(opts or {})
    target = opts.pop('iterate_names', None) if target_default else None
    opts.pop('iterate_names', None)

    def get_vars():
        values = _state(get_state)[:n_vars]
        if target is not None:
            # An undefined loop target starts as the range's start (no run-time check).
            values = tuple(counter[0] if n == target and isinstance(v, Undefined) else v for n, v in zip(names, values))
        return (counter[0],) + values

    def set_vars(values):
        counter[0] = values[0]
        _restore(set_state, tuple(values[1:]) + rest)

    def loop_test():
        c = test(counter[0])
        if extra_test is not None:
            c = _and_tests(c, extra_test())
        return c

    def loop_body():
        i = counter[0]
        body(item_of(i))
        counter[0] = _backend.add(i, step)

    _staged_loop(loop_test, loop_body, get_vars, set_vars, ('',) + tuple(names[:n_vars]), opts)


def _staged_tensor_for(tensor, extra_test, body, get_state, set_state, names, n_vars, opts):
    n = _backend.shape0(tensor)
    _staged_counted_loop(
        0,
        1,
        lambda i: _backend.less(i, n),
        lambda i: _backend.gather_first_axis(tensor, i),
        extra_test,
        body,
        get_state,
        set_state,
        names,
        n_vars,
        opts,
    )


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

    _staged_counted_loop(
        start,
        delta,
        test,
        lambda i: i,
        extra_test,
        body,
        get_state,
        set_state,
        names,
        n_vars,
        opts,
        target_default=True,
    )


def _dataset_for(ds, extra_test, body, get_state, set_state, names, n_vars, opts=None):
    loop_vars, rest = _loop_pieces(get_state, set_state, names, n_vars)
    # A dataset lets shapes vary from one element to the next; a loop over an iterator is a
    # while loop and keeps them (or its shape invariants), as in TensorFlow.
    over_iterator = not _backend.is_dataset_object(ds)
    invariants = _positional_invariants((opts or {}).get('shape_invariants'), loop_vars)

    def body_fn(element, state):
        entry = tuple(state)
        _restore(set_state, entry + rest)
        body(element)
        out = _state(get_state)[:n_vars]
        _check_iteration(loop_vars, entry, out, names[:n_vars], invariants, check_shapes=over_iterator)
        return out

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


_BUILTIN_OVERRIDES = {id(f): (f, g) for f, g in ((len, _len), (range, _range), (int, _int), (float, _float))}


# Library functions (fn's ops, the standard library) and module-level builtins that
# converted_call runs unconverted: id -> the callable itself (held, so the id stays its own).
# A traced model calls the same few thousands of times; this skips the conversion checks.
# Bounded: a library making closures per call fills it once, then it stops growing.
_PASSTHROUGH: dict = {}
_PASSTHROUGH_MAX = 4096
# The converter module: fn._autograph.converter imports this module and installs itself here, so
# converted code's calls convert their callees without this module importing the converter back.
_converter_module = None


def use_converter(converter):
    global _converter_module
    _converter_module = converter


def _remember_passthrough(f, target):
    if target is not f or len(_PASSTHROUGH) >= _PASSTHROUGH_MAX:
        return
    t = type(f)
    if t is types.FunctionType:
        if not _converter_module.is_library_function(f):
            return
    elif t is types.BuiltinFunctionType:
        if not isinstance(getattr(f, '__self__', None), types.ModuleType):
            return  # bound builtin methods are new objects on every attribute access
    else:
        return
    _PASSTHROUGH[id(f)] = f


def converted_call(f, args, kwargs=None, caller_fn_scope=None, options=None):
    """Calls ``f(*args, **kwargs)``, converting ``f`` first if it is user code (TensorFlow's
    signature; the caller's scope and options do not change what fn does)."""
    if _PASSTHROUGH.get(id(f)) is f:
        return f(*args, **kwargs) if kwargs else f(*args)
    if kwargs is None:
        kwargs = {}
    override = _BUILTIN_OVERRIDES.get(id(f))
    if override is not None and override[0] is f:
        return override[1](*args, **kwargs)
    target = _converter_module.callable_for_call(f)
    _remember_passthrough(f, target)
    return target(*args, **kwargs)
