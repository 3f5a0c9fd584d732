"""Inputs shared by test_nest.py and the TF generator (_gen_tf_expected.py).

Each case is a Python expression over ``nest`` (tf.nest or fn.nest),
``paths`` (flatten_with_joined_string_paths of either) and the helper types
below.  The generator evaluates them under TensorFlow once; the literal results
are pasted into test_nest.py.  Nothing here computes expected values.
"""
import collections
import collections.abc
import types  # noqa: F401  (used by case expressions)

try:
    import attr
except ImportError:  # attrs is optional; attrs cases are skipped without it
    attr = None

import numpy as np  # noqa: F401  (used by case expressions)

P = collections.namedtuple("P", "x y")
P2 = collections.namedtuple("P", "x y")   # same name and fields as P, other class
P3 = collections.namedtuple("P", "x z")   # same name, other fields
Q = collections.namedtuple("Q", "x y")
R = collections.namedtuple("R", "a b")


class L(list):
    pass


class T(tuple):
    pass


class D(dict):
    pass


class S(collections.abc.Sequence):
    """A Sequence whose constructor takes no arguments (TF fails to pack it)."""

    def __getitem__(self, i):
        return [1, 2][i]

    def __len__(self):
        return 2


class CN:
    """An object using the __tf_flatten__ / __tf_unflatten__ protocol."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __tf_flatten__(self):
        return ("meta", (self.a, self.b))

    @classmethod
    def __tf_unflatten__(cls, metadata, components):
        assert metadata == "meta"
        return cls(*components)

    def __repr__(self):
        return f"CN({self.a!r}, {self.b!r})"

    def __eq__(self, other):
        return type(self) is type(other) and (self.a, self.b) == (other.a, other.b)


class CN2(CN):
    pass


class O:
    def __repr__(self):
        return "O()"


if attr is not None:
    @attr.s
    class A:
        b = attr.ib()
        a = attr.ib()

    @attr.s
    class B:
        b = attr.ib()
        a = attr.ib()


def od(*pairs):
    return collections.OrderedDict(pairs)


def dd(**kw):
    return collections.defaultdict(list, kw)


# Structures exercised by flatten / is_nested / pack_sequence_as / map_structure.
STRUCTURES = [
    "None", "1", "'ab'", "b'x'", "2.5", "O()", "np.array([1, 2])", "{1, 2}",
    "[1, [2, 3]]", "(1, (2,))", "[]", "()", "{}", "[[], ()]", "[None, (None,)]",
    "{'b': 1, 'a': 2, 'c': [3, 4]}", "{'b': {'y': 1, 'x': 2}, 'a': [3, {'z': 4}]}",
    "{10: 'a', 9: 'b', -1: 'c'}", "{(1, 'b'): 1, (1, 'a'): 2}",
    "od(('b', 1), ('a', 2))", "dd(b=1, a=2)", "D(b=1, a=2)",
    "collections.UserDict({'b': 1, 'a': 2})",
    "P(1, [2, 3])", "[P(x=(1, 2), y={'k': 3})]", "L([1, 2])", "T((1, 2))",
    "range(3)", "collections.deque([1, 2])", "bytearray(b'ab')",
    "{'b': 1, 'a': 2}.keys()", "{'b': 1, 'a': 2}.values()", "{'b': 1, 'a': 2}.items()",
    "CN(1, [2, 3])", "[CN(1, {'b': 2, 'a': 3})]", "np.str_('ab')", "frozenset([1])",
    "attr.s and A(1, [2, {'q': 3}])",
]

_FUNCS = [
    "nest.flatten({s})",
    "nest.is_nested({s})",
    "nest.pack_sequence_as({s}, ['v%d' % i for i in range(len(nest.flatten({s})))])",
    "nest.map_structure(lambda v: ('m', v), {s})",
    "paths({s})",
]

CASES = [f.format(s=s) for s in STRUCTURES for f in _FUNCS]

CASES += [
    # flatten / is_nested edge cases
    "nest.flatten({1: 'a', 'b': 2})",
    "nest.flatten([1, (2,)], expand_composites=True)",
    "nest.flatten(S())",
    "nest.pack_sequence_as(S(), [1, 2])",
    "nest.pack_sequence_as(types.MappingProxyType({'b': 1, 'a': 2}), [1, 2])",
    "nest.pack_sequence_as(memoryview(b'ab'), [1, 2])",
    # pack_sequence_as errors and flat_sequence types
    "nest.pack_sequence_as([1, 2], [1])",
    "nest.pack_sequence_as([1, 2], [1, 2, 3])",
    "nest.pack_sequence_as(1, [1, 2])",
    "nest.pack_sequence_as(1, [])",
    "nest.pack_sequence_as(1, [5])",
    "nest.pack_sequence_as(1, 5)",
    "nest.pack_sequence_as(1, 'a')",
    "nest.pack_sequence_as(None, [None])",
    "nest.pack_sequence_as('ab', ['x'])",
    "nest.pack_sequence_as([1], 5)",
    "nest.pack_sequence_as([1], 'ab')",
    "nest.pack_sequence_as([1, 2], None)",
    "nest.pack_sequence_as([1, [2, 3]], np.array([4, 5, 6]))",
    "nest.pack_sequence_as(1, np.array([1]))",
    "nest.pack_sequence_as([], [])",
    "nest.pack_sequence_as([], [1])",
    "nest.pack_sequence_as({'a': 1}, [1, 2])",
    "nest.pack_sequence_as([1, [2, 3]], [4, 5, 6])",
    "nest.pack_sequence_as([1, [2, 3]], (4, 5, 6))",
    "nest.pack_sequence_as([1, [2, 3]], range(3))",
    "nest.pack_sequence_as([1], {'a': 7})",
    "nest.pack_sequence_as(CN(1, [2]), [7, 8])",
    "nest.pack_sequence_as(1, list(range(300)))",
    "nest.pack_sequence_as([1], list(range(300)))",
    "nest.pack_sequence_as([1], 'x' * 3000)",
    # map_structure
    "nest.map_structure(lambda x, y: (x, y), [1, 2], (1, 2))",
    "nest.map_structure(lambda x, y: (x, y), [1, 2], (3, 4), check_types=False)",
    "nest.map_structure(lambda x, y: (x, y), (1, 2), [3, 4], check_types=False)",
    "nest.map_structure(lambda x, y: (x, y), 1, [1])",
    "nest.map_structure(lambda x, y: (x, y), [1, 2], [1, 2, 3])",
    "nest.map_structure(lambda x, y: (x, y), {'a': 1}, {'b': 2})",
    "nest.map_structure(lambda x, y: (x, y), {'a': 1}, {'b': 2}, check_types=False)",
    "nest.map_structure(lambda x, y: (x, y), P(1, 2), Q(3, 4))",
    "nest.map_structure(lambda x, y: (x, y), P(1, 2), Q(3, 4), check_types=False)",
    "nest.map_structure(lambda x, y: (x, y), P(1, 2), P2(3, 4))",
    "nest.map_structure(lambda x, y: (x, y), {'b': 1, 'a': 2}, {'a': 3, 'b': 4})",
    "nest.map_structure(lambda x, y: (x, y), od(('b', 1), ('a', 2)), {'a': 3, 'b': 4})",
    "nest.map_structure(lambda x, y: (x, y), [1, [2]], [1, 2])",
    "nest.map_structure(lambda x, y, z: x + y + z, [1, (2,)], [1, (2,)], [1, (2,)])",
    "nest.map_structure(lambda x: None, [1, (2,)])",
    "nest.map_structure(lambda x: 5, None)",
    "nest.map_structure(lambda x: 5, [])",
    "nest.map_structure(lambda x: x, [1], expand_composites=True)",
    "nest.map_structure(lambda: 1)",
    "nest.map_structure(lambda x: 1, [1], foo=1)",
    "nest.map_structure(lambda x: 1, [1], foo=1, bar=2)",
    "nest.map_structure(1, [1])",
    # paths
    "paths({'b': [1, {'c': 2}], 'a': (3,), 'd': P(4, 5)})",
    "paths({'b': [1, {'c': 2}]}, separator='.')",
    "paths({2: 1, 1: [5]})",
    "paths([[], {}])",
]

_PAIRS = [
    "[1, 2], [1, 2, 3]", "[1, 2], (1, 2)", "[1, [2]], [1, 2]", "[1, 2], [1, [2]]",
    "1, [1]", "[1], 1", "None, [1]", "None, 1", "'ab', ['a']", "'abc', 'de'",
    "{'a': 1}, {'b': 1}", "{'a': 1}, {'a': 1, 'b': 2}",
    "{'b': 1, 'a': 2}, {'c': 1, 'a': 2}", "{'b': 1, 'a': 2}, {'c': 1, 'd': 2, 'a': 3}",
    "{'a': 1}, od(('a', 1))", "{'a': 1}, dd(a=1)", "{'a': 1}, collections.UserDict(a=1)",
    "P(1, 2), Q(1, 2)", "P(1, 2), P2(1, 2)", "P(1, 2), P3(1, 2)", "P(1, 2), R(1, 2)",
    "P(1, 2), (1, 2)", "(1, 2), P(1, 2)", "[1, 2], L([1, 2])", "(1, 2), T((1, 2))",
    "[1, 2], (1, 2, 3)", "(1, 2, 3), [1, 2]",
    "[[1, 2], 3], [[1, 2, 3]]", "[], ()", "[], []", "{}, []", "[1, (2, 3)], [1, [2, 3]]",
    "(1,), [1]", "{'a': [1]}, {'a': (1,)}", "{'a': 1}, {'a': [1]}",
    "[1, 2], {'a': 1, 'b': 2}", "(1, 2), {'a': 1, 'b': 2}", "{'a': 1}, P(1, 2)",
    "np.array([1, 2]), [1, 2]", "[1, [2, 3], 4], [1, [2, 3, 5], 4]",
    "[[1], [2, 3]], [[1, 2], [3]]", "{'a': 1}.keys(), ['a']", "{'a': 1}.values(), [1]",
    "[[[1]]], [[[1, 2]]]", "{'a': [1, 2]}, {'a': [1]}",
    "{'b': (1,), 'a': [1]}, {'b': [1], 'a': (1,)}",
    "CN(1, 2), CN(1, 2)", "CN(1, 2), CN2(1, 2)", "CN(1, 2), (1, 2)", "CN(1, [2]), CN(1, 2)",
    "{'x': [1, (2, 3)], 'y': P(4, [5])}, {'x': [1, (2, 3)], 'y': P(4, [5, 6])}",
    "list(range(300)), list(range(301))",
    "attr.s and A(1, 2), attr.s and A(1, 2)", "attr.s and A(1, 2), attr.s and B(1, 2)",
    "attr.s and A(1, 2), (1, 2)", "P(1, 2), attr.s and A(1, 2)",
    "{'a': 1, 'b': 2}, attr.s and A(1, 2)",
    "[[1], 2], [(1,)]", "[[1], 2], [[1, 2]]", "[1, [2]], [1]", "[1], [1, [2]]",
    "{'a': [1], 'b': 2}, {'a': [1, 2]}", "[[1, 2]], [[1, 2, 3], 3]",
]

CASES += [f"nest.assert_same_structure({p})" for p in _PAIRS]
CASES += [f"nest.assert_same_structure({p}, check_types=False)" for p in _PAIRS]
