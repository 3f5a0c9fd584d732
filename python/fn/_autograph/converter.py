"""Converting Python functions: source, transformation, compilation, cache.

``convert(func)`` parses the function's source, runs ``transformer`` over
its AST and compiles the result with the original file name and line
numbers, so tracebacks of errors raised while tracing point at the user's
file and line. The new function is rebuilt around the same globals (the live
module dict), the same closure cells (so free variables still resolve to the
live objects) and the same defaults, keyword defaults, name, qualname,
module, docstring and attributes.

Functions and methods defined inside a converted function are converted
with it (inline), so calling them later needs no second conversion.

The compiled code is cached per original code object; each function object
(one per closure) gets its own converted function, cached weakly.

``callable_for_call(f)`` is what ``ag__.converted_call`` uses: it converts
user functions (and methods, callable objects, ``functools.partial``) at call
time, and leaves alone library code (fn, numpy, the standard library, ...),
functions marked ``do_not_convert`` and code that is already converted. A
function that cannot be converted runs unconverted with one warning saying
why.
"""

import ast
import functools
import inspect
import linecache
import os
import sys
import textwrap
import threading
import types
import warnings
import weakref

from fn._autograph import operators
from fn._autograph import transformer

DO_NOT_CONVERT_ATTR = '__fn_do_not_convert__'

# Top-level packages whose functions are never converted.
_LIBRARY_PACKAGES = frozenset(
    [
        'fn',
        'numpy',
        'scipy',
        'pandas',
        'tensorflow',
        'jax',
        'jaxlib',
        'torch',
        'keras',
        'six',
        'absl',
        'google',
        'pytest',
        '_pytest',
        'pluggy',
        'IPython',
        'ipykernel',
        'traitlets',
        'tornado',
        'zmq',
        'wrapt',
        'typing_extensions',
        'attr',
        'attrs',
    ]
)
_STDLIB = frozenset(getattr(sys, 'stdlib_module_names', ())) | {'__builtin__', 'builtins'}

_lock = threading.RLock()
_code_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # original code -> _Entry
_function_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # original function -> converted
_converted_codes: weakref.WeakSet = weakref.WeakSet()  # every code object we compiled
_warned: weakref.WeakSet = weakref.WeakSet()  # code objects already warned about
_OPS_CELL = types.CellType(operators)


class ConversionError(Exception):
    """The function cannot be converted (the message says why)."""


class UnsupportedLanguageElementError(ConversionError, NotImplementedError):
    """The function uses Python that AutoGraph does not convert (TensorFlow's class of that
    name): generators, loops with an else clause."""


def _strict():
    """TensorFlow's AUTOGRAPH_STRICT_CONVERSION: a function that cannot be converted raises
    instead of running unconverted."""
    return os.environ.get('AUTOGRAPH_STRICT_CONVERSION', '') not in ('', '0')


class _Entry:
    __slots__ = ('code', 'node', 'error', 'error_class')

    def __init__(self, code=None, node=None, error=None):
        self.code, self.node, self.error = code, node, error
        self.error_class = None


def is_converted_code(code):
    return code in _converted_codes


def _register(code):
    _converted_codes.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _register(const)


# Library detection ----------------------------------------------------------------
def _is_library_module(module_name):
    if not module_name:
        return False
    top = module_name.split('.')[0]
    return top in _LIBRARY_PACKAGES or top in _STDLIB


def is_library_function(f):
    return _is_library_module(getattr(f, '__module__', None))


# Source -----------------------------------------------------------------------------
def _parse_snippet(source):
    """Parses possibly indented source; returns (tree, line_offset)."""
    try:
        return ast.parse(textwrap.dedent(source)), 0
    except SyntaxError:
        pass
    try:
        return ast.parse('if 1:\n' + source), -1
    except SyntaxError as e:
        raise ConversionError('could not parse its source code: %s' % e) from None


def _function_node(f):
    code = f.__code__
    try:
        source = inspect.getsource(code)
    except (OSError, TypeError) as e:
        raise ConversionError('its source code is not available (%s)' % e) from None
    tree, offset = _parse_snippet(source)
    ast.increment_lineno(tree, code.co_firstlineno - 1 + offset)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == code.co_name:
            return node
        if isinstance(node, ast.AsyncFunctionDef) and node.name == code.co_name:
            raise ConversionError('async functions are not supported')
    raise ConversionError('its source code does not define %r' % code.co_name)


def _lambda_node(f):
    code = f.__code__
    lines = linecache.getlines(code.co_filename)
    if not lines:
        raise ConversionError('its source code is not available')
    try:
        tree = ast.parse(''.join(lines))
    except SyntaxError as e:
        raise ConversionError('could not parse its source file: %s' % e) from None
    params = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    candidates = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
            a = node.args
            if [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs] == params:
                candidates.append(node)
    if len(candidates) > 1:
        # Several lambdas on one line: try the column of the body's code.
        cols = {p[2] for p in code.co_positions() if p[2] is not None and p[0] == p[1]}
        narrowed = [c for c in candidates if c.body.col_offset in cols]
        candidates = narrowed if len(narrowed) == 1 else candidates
    if len(candidates) != 1:
        raise ConversionError(
            'it is a lambda defined on the same line as other lambdas, so its source'
            ' cannot be identified; define it with def or on its own line'
        )
    lam = candidates[0]
    fdef = ast.FunctionDef(
        name='__fn_lambda__',
        args=lam.args,
        body=[ast.copy_location(ast.Return(value=lam.body), lam.body)],
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    return ast.copy_location(fdef, lam)


# Compilation ------------------------------------------------------------------------
def _find_code(code, name):
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise ConversionError('internal error: compiled code for %r not found' % name)


def _compile(f):
    code = f.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR):
        raise UnsupportedLanguageElementError('generators are not supported')
    if code.co_flags & inspect.CO_COROUTINE:
        raise UnsupportedLanguageElementError('async functions are not supported')
    is_lambda = code.co_name == '<lambda>'
    node = _lambda_node(f) if is_lambda else _function_node(f)
    for sub in ast.walk(node):
        # TensorFlow's AutoGraph refuses loops with an else clause: the function runs as-is.
        if isinstance(sub, (ast.For, ast.While)) and sub.orelse:
            raise UnsupportedLanguageElementError(
                '%s/else statement not yet supported' % ('for' if isinstance(sub, ast.For) else 'while')
            )
    freevars = code.co_freevars
    node = transformer.transform_function(node, freevars)
    # Inside the factory the def must not bind the function's own name: that
    # would turn a recursive global reference into a closure variable.
    node.name = '__fn_converted__'
    factory = ast.FunctionDef(
        name='__fn_factory__',
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=transformer.OPS)] + [ast.arg(arg=n) for n in freevars],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=[node],
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    module = ast.Module(body=[ast.copy_location(factory, node)], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        compiled = compile(module, code.co_filename, 'exec', dont_inherit=True)
    except SyntaxError as e:
        raise ConversionError('the converted code does not compile: %s' % e) from None
    new_code = _find_code(_find_code(compiled, '__fn_factory__'), node.name)
    replace = {'co_name': code.co_name}
    if hasattr(code, 'co_qualname'):
        replace['co_qualname'] = code.co_qualname
    new_code = new_code.replace(**replace)
    for name in new_code.co_freevars:
        if name != transformer.OPS and name not in freevars:
            raise ConversionError('internal error: unexpected free variable %r' % name)
    _register(new_code)
    return _Entry(code=new_code, node=node)


def _entry(f):
    code = f.__code__
    entry = _code_cache.get(code)
    if entry is None:
        with _lock:
            entry = _code_cache.get(code)
            if entry is None:
                try:
                    entry = _compile(f)
                except ConversionError as e:
                    entry = _Entry(error=str(e))
                    entry.error_class = type(e)
                # Anything else (a RecursionError from a user's infinite
                # recursion while tracing, say) propagates and is not cached.
                _code_cache[code] = entry
    return entry


def _instantiate(entry, f):
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
    closure = tuple(_OPS_CELL if n == transformer.OPS else cells[n] for n in entry.code.co_freevars)
    new = types.FunctionType(entry.code, f.__globals__, f.__name__, f.__defaults__, closure or None)
    new.__kwdefaults__ = dict(f.__kwdefaults__) if f.__kwdefaults__ else None
    new.__dict__.update(f.__dict__)
    new.__doc__ = f.__doc__
    new.__module__ = f.__module__
    new.__qualname__ = f.__qualname__
    new.__annotations__ = dict(getattr(f, '__annotations__', {}) or {})
    return new


def _warn(f, reason):
    code = getattr(f, '__code__', None)
    if code is not None:
        if code in _warned:
            return
        _warned.add(code)
    where = ''
    if code is not None:
        where = ' (%s, line %d)' % (code.co_filename, code.co_firstlineno)
    warnings.warn(
        'fn.autograph could not convert %s%s and will run it as-is. Cause: %s'
        % (getattr(f, '__qualname__', repr(f)), where, reason),
        stacklevel=4,
    )


def _convert_function(f, warn=True):
    """Converted version of plain function ``f``, or ``f`` itself."""
    if getattr(f, DO_NOT_CONVERT_ATTR, False) or is_converted_code(f.__code__):
        return f
    if is_library_function(f):
        return f
    cached = _function_cache.get(f)
    if cached is not None:
        return cached
    entry = _entry(f)
    if entry.error is not None:
        if _strict():
            raise (entry.error_class or ConversionError)(entry.error)
        if warn:
            _warn(f, entry.error)
        return f
    new = _instantiate(entry, f)
    with _lock:
        return _function_cache.setdefault(f, new)


# Public ------------------------------------------------------------------------------
def callable_for_call(f):
    """What ``converted_call`` should call in place of ``f``."""
    if isinstance(f, types.FunctionType):
        return _convert_function(f)
    if isinstance(f, types.MethodType):
        func = f.__func__
        if isinstance(func, types.FunctionType):
            conv = _convert_function(func)
            if conv is not func:
                return types.MethodType(conv, f.__self__)
        return f
    if isinstance(f, functools.partial):
        conv = callable_for_call(f.func)
        if conv is f.func:
            return f
        return functools.partial(conv, *f.args, **f.keywords)
    if isinstance(f, type) or not callable(f):
        return f
    if getattr(f, DO_NOT_CONVERT_ATTR, False):
        return f
    call = getattr(type(f), '__call__', None)  # noqa: B004  (the class's own method, to convert it)
    if isinstance(call, types.FunctionType) and not is_library_function(call):
        conv = _convert_function(call)
        if conv is not call:
            return types.MethodType(conv, f)
    return f


def convert(func):
    """Returns the AutoGraph-converted version of ``func``.

    Works on functions, bound methods, ``functools.partial`` objects and
    callable objects. Library code, ``do_not_convert`` functions and
    already-converted functions come back unchanged; a function that cannot be
    converted comes back unchanged after one warning.
    """
    return callable_for_call(func)


def _unwrap_for_code(func):
    func = getattr(func, 'python_function', func)
    if isinstance(func, types.MethodType):
        func = func.__func__
    if isinstance(func, functools.partial):
        return _unwrap_for_code(func.func)
    if not isinstance(func, types.FunctionType):
        call = getattr(type(func), '__call__', None)  # noqa: B004  (the class's own method)
        if isinstance(call, types.FunctionType):
            return call
        raise TypeError('to_code expects a Python function, got %r' % (func,))
    return func


def to_code(func):
    """The converted source of ``func`` as a string."""
    func = _unwrap_for_code(func)
    entry = _entry(func)
    if entry.error is not None:
        raise ConversionError('fn.autograph could not convert %s: %s' % (func.__qualname__, entry.error))
    node = entry.node
    shown = ast.FunctionDef(
        name='tf__' + func.__name__.strip('<>'),
        args=node.args,
        body=node.body,
        decorator_list=[],
        returns=None,
        type_comment=None,
    )
    return ast.unparse(ast.fix_missing_locations(ast.copy_location(shown, node))) + '\n'


operators.use_converter(sys.modules[__name__])  # converted code's calls convert through this module
