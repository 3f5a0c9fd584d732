"""The values converted code reads and writes through (TensorFlow's ``autograph/operators/variables.py``
and its ``FunctionScope``/``ConversionOptions``): ``Undefined`` for a variable not assigned on this
path, the ``ld``/``ldu`` reads and ``set_item``/``set_attr`` writes that respect it, and the scope a
converted function runs in. ``fn._autograph.operators`` re-exports them as ``ag__.<name>``."""


# Undefined values -----------------------------------------------------------------
class Undefined:
    """Value of a variable that has not been assigned yet on this path."""

    __slots__ = ('symbol_name',)

    def __init__(self, symbol_name):
        object.__setattr__(self, 'symbol_name', symbol_name)

    def __repr__(self):
        return "Undefined(%r)" % (self.symbol_name,)

    def read(self):
        raise UnboundLocalError("'%s' is used before assignment" % self.symbol_name)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        self.read()

    def _use(self, *args, **kwargs):
        self.read()


for _dunder in (
    'bool',
    'len',
    'iter',
    'call',
    'getitem',
    'setitem',
    'neg',
    'pos',
    'abs',
    'invert',
    'index',
    'int',
    'float',
    'add',
    'radd',
    'sub',
    'rsub',
    'mul',
    'rmul',
    'truediv',
    'rtruediv',
    'floordiv',
    'rfloordiv',
    'mod',
    'rmod',
    'pow',
    'rpow',
    'matmul',
    'rmatmul',
    'and',
    'rand',
    'or',
    'ror',
    'xor',
    'rxor',
    'lshift',
    'rlshift',
    'rshift',
    'rrshift',
    'lt',
    'le',
    'gt',
    'ge',
    'contains',
):
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


class ConversionOptions:
    """``ag__.ConversionOptions``: how a function was converted (recorded, as TF's)."""

    __slots__ = ('recursive', 'user_requested', 'optional_features', 'internal_convert_user_code')

    def __init__(self, recursive=False, user_requested=False, internal_convert_user_code=True, optional_features=()):
        self.recursive = recursive
        self.user_requested = user_requested
        self.optional_features = optional_features
        self.internal_convert_user_code = internal_convert_user_code

    def __repr__(self):
        return (
            'ConversionOptions[recursive=%s, user_requested=%s, optional_features=%s, '
            'internal_convert_user_code=%s]'
            % (self.recursive, self.user_requested, self.optional_features, self.internal_convert_user_code)
        )


STD = ConversionOptions(recursive=True)


class FunctionScope:
    """``with ag__.FunctionScope(name, scope_name, options) as fscope:`` around a converted
    function's body (TensorFlow's); ``fscope.ret`` gives the function's return value."""

    __slots__ = ('name', 'context_name', 'callopts')

    def __init__(self, function_name, scope_name, options):
        self.name = function_name
        self.context_name = scope_name
        self.callopts = options

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False

    def ret(self, value, did_return):
        """The value a converted function returns: None when no return statement ran."""
        return None if isinstance(value, UndefinedReturnValue) else value


def autograph_artifact(entity):
    """Marks a function defined inside converted code (TF's decorator); fn knows them by code."""
    return entity
