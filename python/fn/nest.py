"""Nested structure utilities, mirroring ``tf.nest`` (TensorFlow 2.21).

A *structure* is an arbitrarily nested combination of

* ``list`` / ``tuple`` and their subclasses, ``namedtuple`` s, and any other
  ``collections.abc.Sequence`` except ``str`` / ``bytes`` (e.g. ``range``,
  ``deque``, ``bytearray``);
* mappings (``dict``, ``OrderedDict``, ``defaultdict``, any
  ``collections.abc.Mapping``), flattened in **sorted key order** and rebuilt
  with their original type and key order;
* mapping views (``d.keys()``, ``d.values()``, ``d.items()``), rebuilt as lists;
* ``attrs`` classes (anything whose type has ``__attrs_attrs__``), flattened in
  field-definition order;
* objects implementing TF's custom nest protocol: ``__tf_flatten__(self) ->
  (metadata, components)`` and classmethod ``__tf_unflatten__(cls, metadata,
  components)``.

Everything else (``None``, numbers, strings, NumPy arrays, sets, tensors) is a
leaf.  Error types and messages follow TensorFlow's word for word.

``expand_composites=True`` expands RaggedTensors into their component tensors
(flat_values, then the row splits) in ``flatten``, ``pack_sequence_as`` and
``map_structure``; elsewhere it is accepted for signature compatibility.
"""

from __future__ import annotations

import collections
import collections.abc as _abc
from typing import Any, Callable, Iterator, List, Sequence, Tuple

from fn._tensor import composite

__all__ = [
    "flatten",
    "pack_sequence_as",
    "map_structure",
    "assert_same_structure",
    "is_nested",
]  # also flatten_with_joined_string_paths/flatten_with_tuple_paths (tf.nest keeps them private)

# Kinds of node.  Leaves are 0 so `if kind:` means "is nested".
_LEAF = 0
_LIST = 1  # list and list subclasses
_TUPLE = 2  # tuple and non-namedtuple tuple subclasses
_NAMEDTUPLE = 3
_MAPPING = 4  # collections.abc.Mapping
_VIEW = 5  # collections.abc.MappingView (keys/values/items)
_ATTRS = 6
_CUSTOM = 7  # __tf_flatten__ / __tf_unflatten__
_SEQUENCE = 8  # any other collections.abc.Sequence (range, deque, ...)

# type -> kind.  The common types are pre-seeded so the hot loop is one lookup.
_KIND_CACHE: dict = {
    list: _LIST,
    tuple: _TUPLE,
    dict: _MAPPING,
    collections.OrderedDict: _MAPPING,
    collections.defaultdict: _MAPPING,
    int: _LEAF,
    float: _LEAF,
    bool: _LEAF,
    str: _LEAF,
    bytes: _LEAF,
    complex: _LEAF,
    type(None): _LEAF,
}
_KIND_CACHE_LIMIT = 4096  # dynamically created types must not grow it forever


def _is_namedtuple_type(t: type) -> bool:
    fields = getattr(t, "_fields", None)
    return isinstance(fields, _abc.Sequence) and all(isinstance(f, str) for f in fields)


def _compute_kind(t: type) -> int:
    if issubclass(t, (str, bytes)):
        return _LEAF
    if issubclass(t, _abc.Mapping):
        return _MAPPING
    if issubclass(t, _abc.MappingView):
        return _VIEW
    if getattr(t, "__attrs_attrs__", None) is not None:
        return _ATTRS
    if hasattr(t, "__tf_flatten__") and hasattr(t, "__tf_unflatten__"):
        return _CUSTOM
    if issubclass(t, tuple):
        return _NAMEDTUPLE if _is_namedtuple_type(t) else _TUPLE
    if issubclass(t, list):
        return _LIST
    if issubclass(t, _abc.Sequence):
        return _SEQUENCE
    return _LEAF


def _kind(x: Any) -> int:
    t = type(x)
    k = _KIND_CACHE.get(t)
    if k is None:
        k = _compute_kind(t)
        if len(_KIND_CACHE) > _KIND_CACHE_LIMIT:
            _KIND_CACHE.clear()
        _KIND_CACHE[t] = k
    return k


def _sorted_keys(mapping: Any) -> list:
    # TF lets the TypeError of an unsortable key set propagate unchanged.
    return sorted(mapping.keys())


def _children(x: Any, kind: int) -> Sequence[Any]:
    """The direct sub-structures of a nested `x`, in flattening order."""
    if kind == _LIST or kind == _TUPLE or kind == _NAMEDTUPLE:
        return x
    if kind == _MAPPING:
        return [x[k] for k in _sorted_keys(x)]
    if kind == _ATTRS:
        return [getattr(x, a.name) for a in type(x).__attrs_attrs__]
    if kind == _CUSTOM:
        return tuple(x.__tf_flatten__()[1])
    return list(x)  # mapping views, generic sequences


def _child_keys(x: Any, kind: int) -> list:
    """Path components of the children of `x` (for the *_paths functions)."""
    if kind == _MAPPING:
        return _sorted_keys(x)
    if kind == _NAMEDTUPLE:
        return list(type(x)._fields)
    if kind == _ATTRS:
        return [a.name for a in type(x).__attrs_attrs__]
    return list(range(len(_children(x, kind))))


def _sequence_like(instance: Any, kind: int, args: list) -> Any:
    """Rebuild a node of the same type as `instance` from its children."""
    if kind == _LIST:
        return args if type(instance) is list else type(instance)(args)
    if kind == _TUPLE:
        return tuple(args) if type(instance) is tuple else type(instance)(args)
    if kind == _MAPPING:
        # `args` are in sorted-key order; the result keeps the instance's order.
        result = dict(zip(_sorted_keys(instance), args))
        t = type(instance)
        if t is dict:
            return {k: result[k] for k in instance}
        if t is collections.defaultdict:
            d: collections.defaultdict = collections.defaultdict(instance.default_factory)
            for k in instance:
                d[k] = result[k]
            return d
        try:
            return t((k, result[k]) for k in instance)
        except TypeError as err:
            raise TypeError(
                f"Error creating an object of type {t} like {instance}. Note that "
                "it must accept a single positional argument representing an "
                "iterable of key-value pairs, in addition to self. Cause: "
                f"{err}"
            ) from None
    if kind == _NAMEDTUPLE or kind == _ATTRS:
        return type(instance)(*args)
    if kind == _CUSTOM:
        metadata = instance.__tf_flatten__()[0]
        return type(instance).__tf_unflatten__(metadata, tuple(args))
    if kind == _VIEW or isinstance(instance, range):
        return list(args)
    return type(instance)(args)


# ---------------------------------------------------------------------------
# flatten / is_nested


def is_nested(seq: Any) -> bool:
    """Mirrors ``tf.nest.is_nested``: True for the container types listed in
    the module docstring, False for leaves (including ``str`` and ``None``)."""
    return _kind(seq) != _LEAF


def _flatten_into(x: Any, kind: int, out: list) -> None:
    append = out.append
    for c in _children(x, kind):
        k = _KIND_CACHE.get(type(c))
        if k is None:
            k = _kind(c)
        if k:
            _flatten_into(c, k, out)
        else:
            append(c)


def flatten(structure: Any, expand_composites: bool = False) -> list:
    """Mirrors ``tf.nest.flatten``: the leaves of `structure`, depth first,
    mappings in sorted key order.  A leaf (including ``None``) gives
    ``[structure]``."""
    if expand_composites:
        structure = composite.to_parts(structure)
    kind = _kind(structure)
    if not kind:
        return [structure]
    out: list = []
    _flatten_into(structure, kind, out)
    return out


# ---------------------------------------------------------------------------
# pack_sequence_as

_TRUNCATE_AT = 100


def _truncate(obj: Any) -> str:
    s = str(obj)
    return s[:_TRUNCATE_AT] + "..." if len(s) > _TRUNCATE_AT else s


def _pack(structure: Any, kind: int, it: Iterator[Any]) -> Any:
    args = []
    for c in _children(structure, kind):
        k = _kind(c)
        args.append(_pack(c, k, it) if k else next(it))
    return _sequence_like(structure, kind, args)


def pack_sequence_as(structure: Any, flat_sequence: Any, expand_composites: bool = False) -> Any:
    """Mirrors ``tf.nest.pack_sequence_as``: rebuild `structure` with its leaves
    replaced, in order, by the items of `flat_sequence`."""
    if expand_composites:
        return composite.from_parts(pack_sequence_as(composite.to_parts(structure), flat_sequence))
    if not is_nested(flat_sequence):
        raise TypeError(
            f"Attempted to pack value:\n  {_truncate(flat_sequence)}\ninto a "
            f"structure, but found incompatible type `{type(flat_sequence)}` "
            "instead."
        )
    kind = _kind(structure)
    if not kind:
        if len(flat_sequence) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  "
                f"{_truncate(structure)}\nHowever the input is a sequence "
                f"({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                f"{_truncate(flat_sequence)}\nnest cannot guarantee that it is "
                "safe to map one to the other."
            )
        return flat_sequence[0]
    if type(flat_sequence) is not list and type(flat_sequence) is not tuple:
        # Index like TF does (a dict flat_sequence raises KeyError(0)).
        flat_sequence = [flat_sequence[i] for i in range(len(flat_sequence))]
    it = iter(flat_sequence)
    try:
        packed = _pack(structure, kind, it)
        exhausted = next(it, _SENTINEL) is _SENTINEL
    except StopIteration:
        exhausted = False
    if not exhausted:
        raise ValueError(
            f"Could not pack sequence. Structure had {len(flatten(structure))} "
            f"atoms, but flat_sequence had {len(flat_sequence)} items.  "
            f"Structure: {structure}, flat_sequence: {flat_sequence}."
        )
    return packed


_SENTINEL = object()


# ---------------------------------------------------------------------------
# assert_same_structure


class _Dot:
    """Leaf placeholder printed as ``.`` in "Entire ... structure" messages."""

    def __repr__(self) -> str:
        return "."


_DOT = _Dot()


def _describe(x: Any) -> str:
    return f"type={type(x).__name__} str={x}"


class _Mismatch(Exception):
    def __init__(self, exc_type: type, detail: str):
        super().__init__(detail)
        self.exc_type = exc_type
        self.detail = detail


def _same_type(a: Any, ka: int, b: Any, kb: int) -> bool:
    ta, tb = type(a), type(b)
    if ta is tb:
        return True
    if ka == _NAMEDTUPLE and kb == _NAMEDTUPLE:
        # Namedtuples with the same name and fields count as the same type.
        return ta.__name__ == tb.__name__ and tuple(ta._fields) == tuple(tb._fields)
    # Any two lists (subclasses included) or two mappings are compatible.
    return (ka == _LIST and kb == _LIST) or (ka == _MAPPING and kb == _MAPPING)


def _check(a: Any, b: Any, check_types: bool) -> None:
    ka, kb = _kind(a), _kind(b)
    if bool(ka) != bool(kb):
        seq, non = (a, b) if ka else (b, a)
        raise _Mismatch(
            ValueError, f'Substructure "{_describe(seq)}" is a sequence, while substructure "{_describe(non)}" is not'
        )
    if not ka:
        return
    if check_types:
        if not _same_type(a, ka, b, kb):
            raise _Mismatch(
                TypeError,
                "The two namedtuples don't have the same sequence "
                f"type. First structure {_describe(a)} has type "
                f"{type(a).__name__}, while second structure {_describe(b)} has "
                f"type {type(b).__name__}",
            )
        if ka == _MAPPING and kb == _MAPPING and set(a.keys()) != set(b.keys()):
            raise _Mismatch(
                ValueError,
                "The two dictionaries don't have the same set of "
                f"keys. First structure has keys {_describe(list(a.keys()))}, "
                f"while second structure has keys {_describe(list(b.keys()))}",
            )
    ca, cb = _children(a, ka), _children(b, kb)
    # Like TF, the common prefix is compared before the lengths.
    for x, y in zip(ca, cb):
        _check(x, y, check_types)
    if len(ca) != len(cb):
        raise _Mismatch(
            ValueError,
            "The two structures don't have the same number of "
            f"elements. First structure: {_describe(a)}. Second structure: "
            f"{_describe(b)}",
        )


def _dots(structure: Any) -> str:
    return str(pack_sequence_as(structure, [_DOT] * len(flatten(structure))))


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True, expand_composites: bool = False) -> None:
    """Mirrors ``tf.nest.assert_same_structure``.

    Raises ``ValueError`` when the nesting or the number of elements differs
    (or two mappings have different keys), and ``TypeError`` when
    `check_types` and two sequences have different types (any two lists, any
    two mappings, and namedtuples with equal name and fields are compatible).
    """
    try:
        _check(nest1, nest2, check_types)
    except _Mismatch as m:
        raise m.exc_type(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {_describe(nest1)}\n\n"
            f"Second structure: {_describe(nest2)}\n\n"
            f"More specifically: {m.detail}\n"
            f"Entire first structure:\n{_dots(nest1)}\n"
            f"Entire second structure:\n{_dots(nest2)}"
        ) from None


# ---------------------------------------------------------------------------
# map_structure


def map_structure(func: Callable[..., Any], *structure: Any, **kwargs: bool) -> Any:
    """Mirrors ``tf.nest.map_structure(func, *structure, check_types=True,
    expand_composites=False)``: apply `func` to corresponding leaves and pack
    the results into the structure of ``structure[0]``."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: `" + "`, `".join(kwargs) + "`"
        )
    first = structure[0]
    if len(structure) == 1:
        return pack_sequence_as(first, [func(x) for x in flatten(first, expand)], expand)
    for other in structure[1:]:
        assert_same_structure(first, other, check_types=check_types)
    flats = [flatten(s, expand) for s in structure]
    return pack_sequence_as(first, [func(*xs) for xs in zip(*flats)], expand)


# ---------------------------------------------------------------------------
# paths


def _paths_into(x: Any, kind: int, prefix: Tuple[Any, ...], out: List[Tuple[Tuple[Any, ...], Any]]) -> None:
    for key, c in zip(_child_keys(x, kind), _children(x, kind)):
        k = _kind(c)
        if k:
            _paths_into(c, k, prefix + (key,), out)
        else:
            out.append((prefix + (key,), c))


def flatten_with_tuple_paths(structure: Any, expand_composites: bool = False) -> List[Tuple[Tuple[Any, ...], Any]]:
    """Mirrors ``tf.nest.flatten_with_tuple_paths`` (TF's internal
    ``nest.flatten_with_tuple_paths``): ``[(path_tuple, leaf), ...]`` where a
    path holds mapping keys, namedtuple/attrs field names and sequence
    indices."""
    kind = _kind(structure)
    if not kind:
        return [((), structure)]
    out: List[Tuple[Tuple[Any, ...], Any]] = []
    _paths_into(structure, kind, (), out)
    return out


def flatten_with_joined_string_paths(
    structure: Any, separator: str = "/", expand_composites: bool = False
) -> List[Tuple[str, Any]]:
    """Mirrors TF's ``nest.flatten_with_joined_string_paths``:
    ``[("a/0", leaf), ...]``; a leaf structure gives ``[("", leaf)]``."""
    return [(separator.join(str(p) for p in path), leaf) for path, leaf in flatten_with_tuple_paths(structure)]


from fn._public import export as _export

_export(globals(), hide=["flatten_with_joined_string_paths", "flatten_with_tuple_paths"])
