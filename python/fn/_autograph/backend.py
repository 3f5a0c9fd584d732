"""The only module of ``fn.autograph`` that touches the rest of ``fn``.

Everything is resolved at call time in the namespace installed with ``use(api)``:
``fn/__init__.py`` installs the ``fn`` package itself (the public, TensorFlow-named API), so
AutoGraph imports no other part of fn; a cross-check installs TensorFlow's ops instead
(tests_py/autograph/_tf_backend_check.py). Before ``use`` nothing is a tensor. Tests replace these functions with a fake backend by monkeypatching
this module's attributes; ``operators`` always calls them as
``_backend.name(...)``.

Contract (TensorFlow semantics, the public fn API underneath):

``is_tensor(x) -> bool``
    ``fn.is_tensor(x)``: eager or graph tensor (or tensor-like such as a
    Variable). False for everything when fn is not importable yet.
``cond(pred, true_fn, false_fn)``
    ``fn.cond``: traces both zero-argument branches once, returns the nested
    outputs of the taken branch (same structure as the branch outputs;
    Python scalars among the outputs are converted to tensors).
``while_loop(cond, body, loop_vars, maximum_iterations=None) -> tuple``
    ``fn.while_loop``: ``cond(*vars)`` and ``body(*vars)``; ``body`` returns a
    tuple of the same structure; returns the final tuple. Python values in
    ``loop_vars`` are converted to tensors. An empty ``loop_vars`` is allowed
    here (a dummy counter is added for fn.while_loop).
``logical_and(a, b)``, ``logical_or(a, b)``, ``logical_not(a)``
``less(a, b)``, ``greater(a, b)``, ``add(a, b)``
    Elementwise ops on tensors (or a tensor and a Python scalar).
``range_loop_bounds(x) -> (start, limit, delta) | None``
    If tensor ``x`` is the result of ``fn.range`` (x.op.type == 'Range', or
    a ``_fn_range_bounds`` attribute), its three scalar inputs, so a loop can
    count without materialising the range. Otherwise None.
``shape0(x)``
    The length of the first axis: a Python int when static, else a scalar
    int32 tensor. Raises TypeError for a scalar.
``gather_first_axis(x, i)``
    ``x[i]``.
``tensor_len(x)``
    ``len()`` of a tensor (TensorFlow's rule: static int if known).
``range_(*args)``, ``cast(x, dtype_name)``
    ``fn.range(*args)``; ``fn.cast(x, getattr(fn, dtype_name))``.
``is_dataset(x) -> bool``, ``dataset_loop(ds, body, init_state, extra_test)``
    Datasets (and their iterators) loop through their own hook
    ``ds._fn_dataset_loop(body, init_state, extra_test=None)`` where
    ``body(element, state_tuple) -> state_tuple`` and
    ``extra_test(state_tuple) -> bool tensor`` (stop when false); objects
    without the hook fall back to ``ds.reduce(init_state, fn)``.
"""

import contextlib

import numpy as np


# The TensorFlow-API namespace AutoGraph stages with (see the module docstring).
_api = None


def use(api):
    """Installs the namespace whose ``cond``, ``while_loop``, ``is_tensor``... converted code calls."""
    global _api
    _api = api


def _fn():
    return _api


def _require(name):
    mod = _fn()
    attr = getattr(mod, name, None) if mod is not None else None
    if attr is None:
        raise NotImplementedError('fn.autograph needs fn.%s, which is not available yet' % name)
    return attr


def is_tensor(x):
    mod = _api
    # fn's own backend tests dense tensors only (a RaggedTensor or Variable condition stays
    # Python's); another backend's is_tensor is used as it is.
    check = getattr(mod, '_is_dense_tensor', None) or getattr(mod, 'is_tensor', None) if mod is not None else None
    if check is None:
        return False
    return bool(check(x))


def _named(fn, names):
    code = getattr(fn, '__code__', None)
    if names and code is not None and '_names' in code.co_varnames[code.co_argcount :]:
        return {'_names': names}
    return {}


def cond(pred, true_fn, false_fn, names=None):
    """fn.cond; `names` are the statement's output variables (for error messages)."""
    fn_cond = _require('cond')
    return fn_cond(pred, true_fn, false_fn, **_named(fn_cond, names))


def while_loop(cond_fn, body_fn, loop_vars, maximum_iterations=None, names=None, **opts):
    """fn.while_loop; `names` are the loop variables' names (for error messages); `opts` are
    further while_loop options (shape_invariants, parallel_iterations, swap_memory)."""
    loop = _require('while_loop')
    loop_vars = tuple(loop_vars)
    kwargs = dict(_named(loop, names))
    if maximum_iterations is not None:
        kwargs['maximum_iterations'] = maximum_iterations
    for key in ('parallel_iterations', 'swap_memory'):
        if key in opts:
            kwargs[key] = opts[key]
    if not loop_vars:
        loop(lambda _: cond_fn(), lambda d: (body_fn(), (d,))[1], (0,), **kwargs)
        return ()
    if opts.get('shape_invariants') is not None:
        kwargs['shape_invariants'] = list(opts['shape_invariants'])
    out = loop(cond_fn, body_fn, loop_vars, **kwargs)
    if isinstance(out, (tuple, list)) and len(out) == len(loop_vars):
        return tuple(out)
    return (out,)


def logical_and(a, b):
    return _require('logical_and')(a, b)


def logical_or(a, b):
    return _require('logical_or')(a, b)


def logical_not(a):
    return _require('logical_not')(a)


def less(a, b):
    return a < b


def greater(a, b):
    return a > b


def add(a, b):
    return a + b


def range_loop_bounds(x):
    try:
        bounds = getattr(x, '_fn_range_bounds', None)
        if bounds is not None:
            return tuple(bounds() if callable(bounds) else bounds)
        op = getattr(x, 'op', None)
        if op is not None and getattr(op, 'type', None) == 'Range':
            inputs = tuple(op.inputs)
            if len(inputs) == 3:
                return inputs
    except Exception:  # eager tensors may refuse .op
        return None
    return None


def _static_dim0(x):
    shape = getattr(x, 'shape', None)
    if shape is None:
        return None, None
    rank = getattr(shape, 'rank', None)
    if rank is None:
        try:
            rank = len(shape)
        except (TypeError, ValueError):
            return None, None
    if rank == 0:
        return 0, None
    dim = shape[0]
    dim = getattr(dim, 'value', dim)
    return rank, dim if isinstance(dim, int) else None


def shape0(x):
    rank, dim = _static_dim0(x)
    if rank == 0:
        raise TypeError('Cannot iterate over a scalar tensor.')
    if dim is not None:
        return dim
    return _require('shape')(x)[0]


def gather_first_axis(x, i):
    return x[i]


def tensor_len(x):
    rank, dim = _static_dim0(x)
    if rank == 0:
        raise ValueError('len requires a non-scalar tensor, got one of shape %s' % (x.shape,))
    if dim is not None:
        return dim
    return _require('shape')(x)[0]


def range_(*args):
    return _require('range')(*args)


def cast(x, dtype_name):
    mod = _fn()
    return _require('cast')(x, getattr(mod, dtype_name))


def is_dataset(x):
    if hasattr(type(x), '_fn_dataset_loop'):
        return True
    mod = _api
    data = getattr(mod, 'data', None) if mod is not None else None
    ds_type = getattr(data, 'Dataset', None)
    return isinstance(ds_type, type) and isinstance(x, ds_type)


def is_dataset_object(x):
    """A Dataset (not an iterator over one)."""
    data = getattr(_api, 'data', None)
    ds_type = getattr(data, 'Dataset', None)
    return isinstance(ds_type, type) and isinstance(x, ds_type)


def dataset_loop(ds, body, init_state, extra_test=None):
    hook = getattr(ds, '_fn_dataset_loop', None)
    if hook is not None:
        if extra_test is None:
            return tuple(hook(body, tuple(init_state)))
        return tuple(hook(body, tuple(init_state), extra_test=extra_test))

    def reduce_fn(state, element):
        state = tuple(state)
        if extra_test is None:
            return tuple(body(element, state))
        return tuple(cond(extra_test(state), lambda: tuple(body(element, state)), lambda: state))

    return tuple(ds.reduce(tuple(init_state), reduce_fn))


# Loops whose variables are first assigned inside the body --------------------------------
class trial_graph:
    """A throwaway graph in which one loop iteration is traced to learn the types of the
    variables it defines (TensorFlow stages it in a temporary FuncGraph)."""

    def __enter__(self):
        core = _api._core
        self._builder = core.GraphBuilder(core.Graph('tmp'))
        self._scope = core.ContextScope(self._builder)
        self._scope.__enter__()
        return self

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)

    def placeholder_like(self, value):
        """A placeholder of a Python value's tensor type (its static value is lost in a loop)."""
        t = _require('convert_to_tensor')(value)
        return self._builder.add_placeholder('Placeholder', t.dtype, t.shape)


def isolated_graph():
    """A throwaway graph for a ``while`` loop's first test (TF evaluates it in a temporary
    FuncGraph); no isolation for a backend without fn's graphs."""
    if getattr(_fn(), '_core', None) is None:
        return contextlib.nullcontext()
    return trial_graph()


def is_python_literal(x):
    return isinstance(x, (int, float, bool, str, list, tuple, np.ndarray, np.generic))


def map_structure(f, *structures):
    return _require('nest').map_structure(f, *structures)


def flatten(structure):
    return _require('nest').flatten(structure)


def pack_sequence_as(structure, flat):
    return _require('nest').pack_sequence_as(structure, flat)


def assert_same_structure(a, b):
    _require('nest').assert_same_structure(a, b)


def to_tensor(value):
    return _require('convert_to_tensor')(value)


def is_subshape(shape, of):
    """Whether every value of ``shape`` has a shape ``of`` allows (TensorShape semantics)."""
    TensorShape = _require('TensorShape')
    shape, of = TensorShape(shape), TensorShape(of)
    if of.rank is None:
        return True
    if shape.rank is None or shape.rank != of.rank:
        return False
    return all(b is None or a == b for a, b in zip(shape.as_list(), of.as_list()))


def zeros(shape, dtype):
    return _require('zeros')(shape, dtype)


def tensor_shape(dims):
    return _require('TensorShape')(dims)


def require_true(flag, message, values):
    """``values``, after a run-time check that the bool tensor ``flag`` holds (else
    InvalidArgumentError ``assertion failed: [message]``, TensorFlow's Assert)."""
    fn = _fn()
    # Assert prints its string data C-escaped: y['a'] reads y[\'a\'].
    escaped = ''.join({'\\': '\\\\', "'": "\\'", '"': '\\"', '\n': '\\n'}.get(c, c) for c in message)

    def fail():
        def raise_():
            raise fn.errors.InvalidArgumentError(None, None, 'assertion failed: [%s]' % escaped)

        if getattr(fn, "__name__", "") == "fn":  # fn's host op keeps the error's class
            from fn._ops.script_ops import host_py_function

            host_py_function(raise_, [], [])
        else:
            fn.py_function(raise_, [], [])
        return values

    return fn.cond(flag, lambda: values, fail)
