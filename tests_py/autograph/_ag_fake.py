"""A fake tensor backend for AutoGraph tests.

``FakeTensor`` behaves like a graph tensor that happens to carry a concrete
value: arithmetic and comparisons give FakeTensors, and using one as a Python
bool raises (as a graph tensor would). The fake ``cond`` traces both branches
(calls both, once) and returns the outputs of the branch the concrete
predicate selects. The fake ``while_loop`` has two modes: ``run`` (iterate in
Python, checking values) and ``trace`` (call cond and body once each, like
tracing a graph loop, and return the body's outputs). Every call is recorded
in ``FakeBackend.log``.
"""

import operator


class FakeTensor:
    def __init__(self, value, static_len=True):
        self.value = value
        self.static_len = static_len

    def __repr__(self):
        return 'FakeTensor(%r)' % (self.value,)

    def __bool__(self):
        raise TypeError('using a FakeTensor as a Python bool is not allowed')

    def __iter__(self):
        raise TypeError('iterating over a FakeTensor is not allowed')

    __hash__ = object.__hash__

    @property
    def shape(self):
        if isinstance(self.value, (list, tuple)):
            return (len(self.value) if self.static_len else None,)
        return ()

    def __getitem__(self, i):
        return FakeTensor(self.value[unwrap(i)])


def unwrap(x):
    return x.value if isinstance(x, FakeTensor) else x


def wrap(x):
    return x if isinstance(x, FakeTensor) else FakeTensor(x)


def _binary(op):
    def f(a, b):
        return FakeTensor(op(unwrap(a), unwrap(b)))
    return f


def _rbinary(op):
    def f(a, b):
        return FakeTensor(op(unwrap(b), unwrap(a)))
    return f


for _name in ('add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow', 'lt', 'le', 'gt',
              'ge', 'eq', 'ne'):
    _op = getattr(operator, _name)
    setattr(FakeTensor, '__%s__' % _name, _binary(_op))
    if _name in ('add', 'sub', 'mul', 'truediv', 'floordiv', 'mod', 'pow'):
        setattr(FakeTensor, '__r%s__' % _name, _rbinary(_op))
FakeTensor.__neg__ = lambda self: FakeTensor(-self.value)


class FakeRange(FakeTensor):
    """Result of the fake ``range_``: carries its bounds, never materialised."""

    def __init__(self, start, limit, delta=1):
        super().__init__(None)
        self._fn_range_bounds = (wrap(start), wrap(limit), wrap(delta))

    @property
    def shape(self):
        return (None,)

    def __getitem__(self, i):
        raise AssertionError('a range tensor must not be materialised')


class FakeDataset:
    def __init__(self, elements):
        self.elements = elements
        self.loops = 0

    def _fn_dataset_loop(self, body, init_state, extra_test=None):
        self.loops += 1
        state = tuple(wrap(s) for s in init_state)
        for element in self.elements:
            if extra_test is not None and not unwrap(extra_test(state)):
                break
            state = tuple(wrap(s) for s in body(element, state))
        return state


def _to_tensors(out):
    if out is None:
        return None
    if isinstance(out, tuple):
        return tuple(_to_tensors(o) for o in out)
    if isinstance(out, (FakeTensor, list)):
        return out
    if isinstance(out, (bool, int, float, str)):
        return FakeTensor(out)
    raise TypeError('branch output %r is not a tensor' % (out,))


class FakeBackend:
    muted = 0  # > 0 while running a branch that a real graph would not execute

    def __init__(self, mode='run'):
        self.mode = mode
        self.log = []
        self.printed = []

    def count(self, kind):
        return sum(1 for entry in self.log if entry == kind)

    # Backend functions ------------------------------------------------------------
    def is_tensor(self, x):
        return isinstance(x, FakeTensor)

    def cond(self, pred, true_fn, false_fn, names=None):
        self.log.append('cond')
        taken = bool(unwrap(pred))
        FakeBackend.muted += not taken
        try:
            t = _to_tensors(true_fn())
        finally:
            FakeBackend.muted -= not taken
        FakeBackend.muted += taken
        try:
            f = _to_tensors(false_fn())
        finally:
            FakeBackend.muted -= taken
        if isinstance(t, tuple) != isinstance(f, tuple) or (
                isinstance(t, tuple) and len(t) != len(f)):
            raise ValueError('branches return different structures: %r vs %r' % (t, f))
        return t if unwrap(pred) else f

    def while_loop(self, cond, body, loop_vars, maximum_iterations=None, names=None):
        self.log.append('while_loop')
        values = tuple(wrap(v) for v in loop_vars)
        if self.mode == 'trace':
            cond(*values)
            out = tuple(wrap(v) for v in body(*values))
            assert len(out) == len(values)
            return out
        while unwrap(cond(*values)):
            out = tuple(wrap(v) for v in body(*values))
            assert len(out) == len(values), (out, values)
            values = out
        return values

    def logical_and(self, a, b):
        return FakeTensor(bool(unwrap(a)) and bool(unwrap(b)))

    def logical_or(self, a, b):
        return FakeTensor(bool(unwrap(a)) or bool(unwrap(b)))

    def logical_not(self, a):
        return FakeTensor(not unwrap(a))

    def shape0(self, x):
        n = len(x.value)
        return n if x.static_len else FakeTensor(n)

    def gather_first_axis(self, x, i):
        self.log.append('gather')
        return x[i]

    def tensor_len(self, x):
        return self.shape0(x)

    def range_(self, *args):
        self.log.append('range')
        if len(args) == 1:
            return FakeRange(0, args[0])
        return FakeRange(*args)

    def cast(self, x, dtype_name):
        return FakeTensor((int if dtype_name.startswith('int') else float)(unwrap(x)))

    def print(self, *args):
        """Stand-in for fn.print: runs when the staged code executes."""
        if FakeBackend.muted:
            return
        self.printed.append(' '.join(str(unwrap(a)) for a in args))

    def install(self, monkeypatch, backend_module):
        for name in ('is_tensor', 'cond', 'while_loop', 'logical_and', 'logical_or',
                     'logical_not', 'shape0', 'gather_first_axis', 'tensor_len', 'range_',
                     'cast'):
            monkeypatch.setattr(backend_module, name, getattr(self, name))
