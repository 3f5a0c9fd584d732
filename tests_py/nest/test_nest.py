"""Tests of fn.nest against TensorFlow 2.21's tf.nest.

EXPECTED (at the end of this file) was produced once by running every
expression of nest_cases.CASES under real TensorFlow (_gen_tf_expected.py) and
is hard-coded here: the repr of the result, or the exception type and message.
"""
import collections

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nest_cases
from fn import nest


def _run(expr):
    env = dict(vars(nest_cases))
    env.update(nest=nest, paths=nest.flatten_with_joined_string_paths)
    try:
        return ("ok", repr(eval(expr, env)))
    except Exception as e:  # noqa: BLE001
        return ("raise", type(e).__name__, str(e))


@pytest.mark.parametrize("expr", nest_cases.CASES)
def test_matches_tensorflow(expr):
    if "attr.s" in expr and nest_cases.attr is None:
        pytest.skip("attrs is not installed")
    assert _run(expr) == EXPECTED[expr]


def test_every_case_has_an_expected_value():
    assert set(EXPECTED) == set(nest_cases.CASES)


# --- behaviour that repr() comparisons above do not pin down -----------------

def test_pack_rebuilds_original_types():
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    packed = nest.pack_sequence_as(od, ["x", "y"])
    assert type(packed) is collections.OrderedDict
    assert list(packed.items()) == [("b", "y"), ("a", "x")]

    dd = collections.defaultdict(set, {"b": 1, "a": 2})
    packed = nest.pack_sequence_as(dd, [3, 4])
    assert type(packed) is collections.defaultdict and packed.default_factory is set
    assert dict(packed) == {"b": 4, "a": 3}

    nt = nest_cases.P(1, [2])
    packed = nest.pack_sequence_as(nt, [5, 6])
    assert type(packed) is nest_cases.P and packed == (5, [6])

    lst = nest_cases.L([1, 2])
    assert type(nest.pack_sequence_as(lst, [3, 4])) is nest_cases.L
    assert type(nest.pack_sequence_as(nest_cases.T((1,)), [3])) is nest_cases.T


def test_pack_returns_fresh_containers():
    s = [1, [2]]
    out = nest.pack_sequence_as(s, [1, 2])
    assert out == s and out is not s and out[1] is not s[1]


def test_custom_protocol_round_trip():
    cn = nest_cases.CN(1, {"b": [2], "a": 3})
    assert nest.flatten(cn) == [1, 3, 2]
    assert nest.pack_sequence_as(cn, [7, 8, 9]) == nest_cases.CN(7, {"b": [9], "a": 8})


def test_map_structure_calls_func_in_flatten_order():
    seen = []
    nest.map_structure(seen.append, {"b": 1, "a": [2, 3]})
    assert seen == [2, 3, 1]


def test_flatten_with_tuple_paths():
    assert nest.flatten_with_tuple_paths({"b": [1, {"c": 2}], "a": (3,)}) == [
        (("a", 0), 3), (("b", 0), 1), (("b", 1, "c"), 2)]
    assert nest.flatten_with_tuple_paths(5) == [((), 5)]


def test_deep_nesting():
    s = 0
    for _ in range(200):
        s = [s]
    assert nest.flatten(s) == [0]
    assert nest.pack_sequence_as(s, [1]) == nest.map_structure(lambda x: x + 1, s)


# --- property tests over random structures ------------------------------------

_leaves = st.one_of(st.none(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=3), st.binary(max_size=3))
_keys = st.text(max_size=4)


def _extend(children):
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(_keys, children, max_size=4),
        st.dictionaries(_keys, children, max_size=4).map(
            lambda d: collections.OrderedDict(reversed(list(d.items())))),
        st.tuples(children, children).map(lambda t: nest_cases.P(*t)),
    )


_structures = st.recursive(_leaves, _extend, max_leaves=25)


class _Tag:
    """A leaf wrapping a leaf (tuples would add nesting)."""

    def __init__(self, value):
        self.value = value


def _count_leaves(s):
    if isinstance(s, (list, tuple)):
        return sum(_count_leaves(c) for c in s)
    if isinstance(s, dict):
        return sum(_count_leaves(c) for c in s.values())
    return 1


@settings(max_examples=300, deadline=None)
@given(_structures)
def test_flatten_pack_round_trip(s):
    flat = nest.flatten(s)
    assert len(flat) == _count_leaves(s)
    packed = nest.pack_sequence_as(s, flat)
    assert packed == s
    assert repr(packed) == repr(s)  # same types, same key order
    nest.assert_same_structure(s, packed)


@settings(max_examples=300, deadline=None)
@given(_structures)
def test_map_structure_preserves_structure(s):
    tagged = nest.map_structure(_Tag, s)
    nest.assert_same_structure(s, tagged)
    assert [t.value for t in nest.flatten(tagged)] == nest.flatten(s)
    indices = nest.pack_sequence_as(s, list(range(len(nest.flatten(s)))))
    assert nest.flatten(indices) == list(range(len(nest.flatten(s))))


@settings(max_examples=200, deadline=None)
@given(_structures, _structures)
def test_assert_same_structure_agrees_with_flatten(a, b):
    try:
        nest.assert_same_structure(a, b, check_types=False)
    except (ValueError, TypeError):
        return
    assert len(nest.flatten(a)) == len(nest.flatten(b))
    nest.map_structure(lambda x, y: None, a, b, check_types=False)


# Generated by _gen_tf_expected.py under TensorFlow 2.21 -- do not edit by hand.
EXPECTED = {
    'nest.flatten(None)':
        ('ok', '[None]'),
    'nest.is_nested(None)':
        ('ok', 'False'),
    "nest.pack_sequence_as(None, ['v%d' % i for i in range(len(nest.flatten(None)))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), None)":
        ('ok', "('m', None)"),
    'paths(None)':
        ('ok', "[('', None)]"),
    'nest.flatten(1)':
        ('ok', '[1]'),
    'nest.is_nested(1)':
        ('ok', 'False'),
    "nest.pack_sequence_as(1, ['v%d' % i for i in range(len(nest.flatten(1)))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), 1)":
        ('ok', "('m', 1)"),
    'paths(1)':
        ('ok', "[('', 1)]"),
    "nest.flatten('ab')":
        ('ok', "['ab']"),
    "nest.is_nested('ab')":
        ('ok', 'False'),
    "nest.pack_sequence_as('ab', ['v%d' % i for i in range(len(nest.flatten('ab')))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), 'ab')":
        ('ok', "('m', 'ab')"),
    "paths('ab')":
        ('ok', "[('', 'ab')]"),
    "nest.flatten(b'x')":
        ('ok', "[b'x']"),
    "nest.is_nested(b'x')":
        ('ok', 'False'),
    "nest.pack_sequence_as(b'x', ['v%d' % i for i in range(len(nest.flatten(b'x')))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), b'x')":
        ('ok', "('m', b'x')"),
    "paths(b'x')":
        ('ok', "[('', b'x')]"),
    'nest.flatten(2.5)':
        ('ok', '[2.5]'),
    'nest.is_nested(2.5)':
        ('ok', 'False'),
    "nest.pack_sequence_as(2.5, ['v%d' % i for i in range(len(nest.flatten(2.5)))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), 2.5)":
        ('ok', "('m', 2.5)"),
    'paths(2.5)':
        ('ok', "[('', 2.5)]"),
    'nest.flatten(O())':
        ('ok', '[O()]'),
    'nest.is_nested(O())':
        ('ok', 'False'),
    "nest.pack_sequence_as(O(), ['v%d' % i for i in range(len(nest.flatten(O())))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), O())":
        ('ok', "('m', O())"),
    'paths(O())':
        ('ok', "[('', O())]"),
    'nest.flatten(np.array([1, 2]))':
        ('ok', '[array([1, 2])]'),
    'nest.is_nested(np.array([1, 2]))':
        ('ok', 'False'),
    "nest.pack_sequence_as(np.array([1, 2]), ['v%d' % i for i in range(len(nest.flatten(np.array([1, 2]))))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), np.array([1, 2]))":
        ('ok', "('m', array([1, 2]))"),
    'paths(np.array([1, 2]))':
        ('ok', "[('', array([1, 2]))]"),
    'nest.flatten({1, 2})':
        ('ok', '[{1, 2}]'),
    'nest.is_nested({1, 2})':
        ('ok', 'False'),
    "nest.pack_sequence_as({1, 2}, ['v%d' % i for i in range(len(nest.flatten({1, 2})))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), {1, 2})":
        ('ok', "('m', {1, 2})"),
    'paths({1, 2})':
        ('ok', "[('', {1, 2})]"),
    'nest.flatten([1, [2, 3]])':
        ('ok', '[1, 2, 3]'),
    'nest.is_nested([1, [2, 3]])':
        ('ok', 'True'),
    "nest.pack_sequence_as([1, [2, 3]], ['v%d' % i for i in range(len(nest.flatten([1, [2, 3]])))])":
        ('ok', "['v0', ['v1', 'v2']]"),
    "nest.map_structure(lambda v: ('m', v), [1, [2, 3]])":
        ('ok', "[('m', 1), [('m', 2), ('m', 3)]]"),
    'paths([1, [2, 3]])':
        ('ok', "[('0', 1), ('1/0', 2), ('1/1', 3)]"),
    'nest.flatten((1, (2,)))':
        ('ok', '[1, 2]'),
    'nest.is_nested((1, (2,)))':
        ('ok', 'True'),
    "nest.pack_sequence_as((1, (2,)), ['v%d' % i for i in range(len(nest.flatten((1, (2,)))))])":
        ('ok', "('v0', ('v1',))"),
    "nest.map_structure(lambda v: ('m', v), (1, (2,)))":
        ('ok', "(('m', 1), (('m', 2),))"),
    'paths((1, (2,)))':
        ('ok', "[('0', 1), ('1/0', 2)]"),
    'nest.flatten([])':
        ('ok', '[]'),
    'nest.is_nested([])':
        ('ok', 'True'),
    "nest.pack_sequence_as([], ['v%d' % i for i in range(len(nest.flatten([])))])":
        ('ok', '[]'),
    "nest.map_structure(lambda v: ('m', v), [])":
        ('ok', '[]'),
    'paths([])':
        ('ok', '[]'),
    'nest.flatten(())':
        ('ok', '[]'),
    'nest.is_nested(())':
        ('ok', 'True'),
    "nest.pack_sequence_as((), ['v%d' % i for i in range(len(nest.flatten(())))])":
        ('ok', '()'),
    "nest.map_structure(lambda v: ('m', v), ())":
        ('ok', '()'),
    'paths(())':
        ('ok', '[]'),
    'nest.flatten({})':
        ('ok', '[]'),
    'nest.is_nested({})':
        ('ok', 'True'),
    "nest.pack_sequence_as({}, ['v%d' % i for i in range(len(nest.flatten({})))])":
        ('ok', '{}'),
    "nest.map_structure(lambda v: ('m', v), {})":
        ('ok', '{}'),
    'paths({})':
        ('ok', '[]'),
    'nest.flatten([[], ()])':
        ('ok', '[]'),
    'nest.is_nested([[], ()])':
        ('ok', 'True'),
    "nest.pack_sequence_as([[], ()], ['v%d' % i for i in range(len(nest.flatten([[], ()])))])":
        ('ok', '[[], ()]'),
    "nest.map_structure(lambda v: ('m', v), [[], ()])":
        ('ok', '[[], ()]'),
    'paths([[], ()])':
        ('ok', '[]'),
    'nest.flatten([None, (None,)])':
        ('ok', '[None, None]'),
    'nest.is_nested([None, (None,)])':
        ('ok', 'True'),
    "nest.pack_sequence_as([None, (None,)], ['v%d' % i for i in range(len(nest.flatten([None, (None,)])))])":
        ('ok', "['v0', ('v1',)]"),
    "nest.map_structure(lambda v: ('m', v), [None, (None,)])":
        ('ok', "[('m', None), (('m', None),)]"),
    'paths([None, (None,)])':
        ('ok', "[('0', None), ('1/0', None)]"),
    "nest.flatten({'b': 1, 'a': 2, 'c': [3, 4]})":
        ('ok', '[2, 1, 3, 4]'),
    "nest.is_nested({'b': 1, 'a': 2, 'c': [3, 4]})":
        ('ok', 'True'),
    "nest.pack_sequence_as({'b': 1, 'a': 2, 'c': [3, 4]}, ['v%d' % i for i in range(len(nest.flatten({'b': 1, 'a': 2, 'c': [3, 4]})))])":
        ('ok', "{'b': 'v1', 'a': 'v0', 'c': ['v2', 'v3']}"),
    "nest.map_structure(lambda v: ('m', v), {'b': 1, 'a': 2, 'c': [3, 4]})":
        ('ok', "{'b': ('m', 1), 'a': ('m', 2), 'c': [('m', 3), ('m', 4)]}"),
    "paths({'b': 1, 'a': 2, 'c': [3, 4]})":
        ('ok', "[('a', 2), ('b', 1), ('c/0', 3), ('c/1', 4)]"),
    "nest.flatten({'b': {'y': 1, 'x': 2}, 'a': [3, {'z': 4}]})":
        ('ok', '[3, 4, 2, 1]'),
    "nest.is_nested({'b': {'y': 1, 'x': 2}, 'a': [3, {'z': 4}]})":
        ('ok', 'True'),
    "nest.pack_sequence_as({'b': {'y': 1, 'x': 2}, 'a': [3, {'z': 4}]}, ['v%d' % i for i in range(len(nest.flatten({'b': {'y': 1, 'x': 2}, 'a': [3, {'z': 4}]})))])":
        ('ok', "{'b': {'y': 'v3', 'x': 'v2'}, 'a': ['v0', {'z': 'v1'}]}"),
    "nest.map_structure(lambda v: ('m', v), {'b': {'y': 1, 'x': 2}, 'a': [3, {'z': 4}]})":
        ('ok', "{'b': {'y': ('m', 1), 'x': ('m', 2)}, 'a': [('m', 3), {'z': ('m', 4)}]}"),
    "paths({'b': {'y': 1, 'x': 2}, 'a': [3, {'z': 4}]})":
        ('ok', "[('a/0', 3), ('a/1/z', 4), ('b/x', 2), ('b/y', 1)]"),
    "nest.flatten({10: 'a', 9: 'b', -1: 'c'})":
        ('ok', "['c', 'b', 'a']"),
    "nest.is_nested({10: 'a', 9: 'b', -1: 'c'})":
        ('ok', 'True'),
    "nest.pack_sequence_as({10: 'a', 9: 'b', -1: 'c'}, ['v%d' % i for i in range(len(nest.flatten({10: 'a', 9: 'b', -1: 'c'})))])":
        ('ok', "{10: 'v2', 9: 'v1', -1: 'v0'}"),
    "nest.map_structure(lambda v: ('m', v), {10: 'a', 9: 'b', -1: 'c'})":
        ('ok', "{10: ('m', 'a'), 9: ('m', 'b'), -1: ('m', 'c')}"),
    "paths({10: 'a', 9: 'b', -1: 'c'})":
        ('ok', "[('-1', 'c'), ('9', 'b'), ('10', 'a')]"),
    "nest.flatten({(1, 'b'): 1, (1, 'a'): 2})":
        ('ok', '[2, 1]'),
    "nest.is_nested({(1, 'b'): 1, (1, 'a'): 2})":
        ('ok', 'True'),
    "nest.pack_sequence_as({(1, 'b'): 1, (1, 'a'): 2}, ['v%d' % i for i in range(len(nest.flatten({(1, 'b'): 1, (1, 'a'): 2})))])":
        ('ok', "{(1, 'b'): 'v1', (1, 'a'): 'v0'}"),
    "nest.map_structure(lambda v: ('m', v), {(1, 'b'): 1, (1, 'a'): 2})":
        ('ok', "{(1, 'b'): ('m', 1), (1, 'a'): ('m', 2)}"),
    "paths({(1, 'b'): 1, (1, 'a'): 2})":
        ('ok', '[("(1, \'a\')", 2), ("(1, \'b\')", 1)]'),
    "nest.flatten(od(('b', 1), ('a', 2)))":
        ('ok', '[2, 1]'),
    "nest.is_nested(od(('b', 1), ('a', 2)))":
        ('ok', 'True'),
    "nest.pack_sequence_as(od(('b', 1), ('a', 2)), ['v%d' % i for i in range(len(nest.flatten(od(('b', 1), ('a', 2)))))])":
        ('ok', "OrderedDict([('b', 'v1'), ('a', 'v0')])"),
    "nest.map_structure(lambda v: ('m', v), od(('b', 1), ('a', 2)))":
        ('ok', "OrderedDict([('b', ('m', 1)), ('a', ('m', 2))])"),
    "paths(od(('b', 1), ('a', 2)))":
        ('ok', "[('a', 2), ('b', 1)]"),
    'nest.flatten(dd(b=1, a=2))':
        ('ok', '[2, 1]'),
    'nest.is_nested(dd(b=1, a=2))':
        ('ok', 'True'),
    "nest.pack_sequence_as(dd(b=1, a=2), ['v%d' % i for i in range(len(nest.flatten(dd(b=1, a=2))))])":
        ('ok', "defaultdict(<class 'list'>, {'b': 'v1', 'a': 'v0'})"),
    "nest.map_structure(lambda v: ('m', v), dd(b=1, a=2))":
        ('ok', "defaultdict(<class 'list'>, {'b': ('m', 1), 'a': ('m', 2)})"),
    'paths(dd(b=1, a=2))':
        ('ok', "[('a', 2), ('b', 1)]"),
    'nest.flatten(D(b=1, a=2))':
        ('ok', '[2, 1]'),
    'nest.is_nested(D(b=1, a=2))':
        ('ok', 'True'),
    "nest.pack_sequence_as(D(b=1, a=2), ['v%d' % i for i in range(len(nest.flatten(D(b=1, a=2))))])":
        ('ok', "{'b': 'v1', 'a': 'v0'}"),
    "nest.map_structure(lambda v: ('m', v), D(b=1, a=2))":
        ('ok', "{'b': ('m', 1), 'a': ('m', 2)}"),
    'paths(D(b=1, a=2))':
        ('ok', "[('a', 2), ('b', 1)]"),
    "nest.flatten(collections.UserDict({'b': 1, 'a': 2}))":
        ('ok', '[2, 1]'),
    "nest.is_nested(collections.UserDict({'b': 1, 'a': 2}))":
        ('ok', 'True'),
    "nest.pack_sequence_as(collections.UserDict({'b': 1, 'a': 2}), ['v%d' % i for i in range(len(nest.flatten(collections.UserDict({'b': 1, 'a': 2}))))])":
        ('ok', "{'b': 'v1', 'a': 'v0'}"),
    "nest.map_structure(lambda v: ('m', v), collections.UserDict({'b': 1, 'a': 2}))":
        ('ok', "{'b': ('m', 1), 'a': ('m', 2)}"),
    "paths(collections.UserDict({'b': 1, 'a': 2}))":
        ('ok', "[('a', 2), ('b', 1)]"),
    'nest.flatten(P(1, [2, 3]))':
        ('ok', '[1, 2, 3]'),
    'nest.is_nested(P(1, [2, 3]))':
        ('ok', 'True'),
    "nest.pack_sequence_as(P(1, [2, 3]), ['v%d' % i for i in range(len(nest.flatten(P(1, [2, 3]))))])":
        ('ok', "P(x='v0', y=['v1', 'v2'])"),
    "nest.map_structure(lambda v: ('m', v), P(1, [2, 3]))":
        ('ok', "P(x=('m', 1), y=[('m', 2), ('m', 3)])"),
    'paths(P(1, [2, 3]))':
        ('ok', "[('x', 1), ('y/0', 2), ('y/1', 3)]"),
    "nest.flatten([P(x=(1, 2), y={'k': 3})])":
        ('ok', '[1, 2, 3]'),
    "nest.is_nested([P(x=(1, 2), y={'k': 3})])":
        ('ok', 'True'),
    "nest.pack_sequence_as([P(x=(1, 2), y={'k': 3})], ['v%d' % i for i in range(len(nest.flatten([P(x=(1, 2), y={'k': 3})])))])":
        ('ok', "[P(x=('v0', 'v1'), y={'k': 'v2'})]"),
    "nest.map_structure(lambda v: ('m', v), [P(x=(1, 2), y={'k': 3})])":
        ('ok', "[P(x=(('m', 1), ('m', 2)), y={'k': ('m', 3)})]"),
    "paths([P(x=(1, 2), y={'k': 3})])":
        ('ok', "[('0/x/0', 1), ('0/x/1', 2), ('0/y/k', 3)]"),
    'nest.flatten(L([1, 2]))':
        ('ok', '[1, 2]'),
    'nest.is_nested(L([1, 2]))':
        ('ok', 'True'),
    "nest.pack_sequence_as(L([1, 2]), ['v%d' % i for i in range(len(nest.flatten(L([1, 2]))))])":
        ('ok', "['v0', 'v1']"),
    "nest.map_structure(lambda v: ('m', v), L([1, 2]))":
        ('ok', "[('m', 1), ('m', 2)]"),
    'paths(L([1, 2]))':
        ('ok', "[('0', 1), ('1', 2)]"),
    'nest.flatten(T((1, 2)))':
        ('ok', '[1, 2]'),
    'nest.is_nested(T((1, 2)))':
        ('ok', 'True'),
    "nest.pack_sequence_as(T((1, 2)), ['v%d' % i for i in range(len(nest.flatten(T((1, 2)))))])":
        ('ok', "('v0', 'v1')"),
    "nest.map_structure(lambda v: ('m', v), T((1, 2)))":
        ('ok', "(('m', 1), ('m', 2))"),
    'paths(T((1, 2)))':
        ('ok', "[('0', 1), ('1', 2)]"),
    'nest.flatten(range(3))':
        ('ok', '[0, 1, 2]'),
    'nest.is_nested(range(3))':
        ('ok', 'True'),
    "nest.pack_sequence_as(range(3), ['v%d' % i for i in range(len(nest.flatten(range(3))))])":
        ('ok', "['v0', 'v1', 'v2']"),
    "nest.map_structure(lambda v: ('m', v), range(3))":
        ('ok', "[('m', 0), ('m', 1), ('m', 2)]"),
    'paths(range(3))':
        ('ok', "[('0', 0), ('1', 1), ('2', 2)]"),
    'nest.flatten(collections.deque([1, 2]))':
        ('ok', '[1, 2]'),
    'nest.is_nested(collections.deque([1, 2]))':
        ('ok', 'True'),
    "nest.pack_sequence_as(collections.deque([1, 2]), ['v%d' % i for i in range(len(nest.flatten(collections.deque([1, 2]))))])":
        ('ok', "deque(['v0', 'v1'])"),
    "nest.map_structure(lambda v: ('m', v), collections.deque([1, 2]))":
        ('ok', "deque([('m', 1), ('m', 2)])"),
    'paths(collections.deque([1, 2]))':
        ('ok', "[('0', 1), ('1', 2)]"),
    "nest.flatten(bytearray(b'ab'))":
        ('ok', '[97, 98]'),
    "nest.is_nested(bytearray(b'ab'))":
        ('ok', 'True'),
    "nest.pack_sequence_as(bytearray(b'ab'), ['v%d' % i for i in range(len(nest.flatten(bytearray(b'ab'))))])":
        ('raise', 'TypeError', "'str' object cannot be interpreted as an integer"),
    "nest.map_structure(lambda v: ('m', v), bytearray(b'ab'))":
        ('raise', 'TypeError', "'tuple' object cannot be interpreted as an integer"),
    "paths(bytearray(b'ab'))":
        ('ok', "[('0', 97), ('1', 98)]"),
    "nest.flatten({'b': 1, 'a': 2}.keys())":
        ('ok', "['b', 'a']"),
    "nest.is_nested({'b': 1, 'a': 2}.keys())":
        ('ok', 'True'),
    "nest.pack_sequence_as({'b': 1, 'a': 2}.keys(), ['v%d' % i for i in range(len(nest.flatten({'b': 1, 'a': 2}.keys())))])":
        ('ok', "['v0', 'v1']"),
    "nest.map_structure(lambda v: ('m', v), {'b': 1, 'a': 2}.keys())":
        ('ok', "[('m', 'b'), ('m', 'a')]"),
    "paths({'b': 1, 'a': 2}.keys())":
        ('ok', "[('0', 'b'), ('1', 'a')]"),
    "nest.flatten({'b': 1, 'a': 2}.values())":
        ('ok', '[1, 2]'),
    "nest.is_nested({'b': 1, 'a': 2}.values())":
        ('ok', 'True'),
    "nest.pack_sequence_as({'b': 1, 'a': 2}.values(), ['v%d' % i for i in range(len(nest.flatten({'b': 1, 'a': 2}.values())))])":
        ('ok', "['v0', 'v1']"),
    "nest.map_structure(lambda v: ('m', v), {'b': 1, 'a': 2}.values())":
        ('ok', "[('m', 1), ('m', 2)]"),
    "paths({'b': 1, 'a': 2}.values())":
        ('ok', "[('0', 1), ('1', 2)]"),
    "nest.flatten({'b': 1, 'a': 2}.items())":
        ('ok', "['b', 1, 'a', 2]"),
    "nest.is_nested({'b': 1, 'a': 2}.items())":
        ('ok', 'True'),
    "nest.pack_sequence_as({'b': 1, 'a': 2}.items(), ['v%d' % i for i in range(len(nest.flatten({'b': 1, 'a': 2}.items())))])":
        ('ok', "[('v0', 'v1'), ('v2', 'v3')]"),
    "nest.map_structure(lambda v: ('m', v), {'b': 1, 'a': 2}.items())":
        ('ok', "[(('m', 'b'), ('m', 1)), (('m', 'a'), ('m', 2))]"),
    "paths({'b': 1, 'a': 2}.items())":
        ('ok', "[('0/0', 'b'), ('0/1', 1), ('1/0', 'a'), ('1/1', 2)]"),
    'nest.flatten(CN(1, [2, 3]))':
        ('ok', '[1, 2, 3]'),
    'nest.is_nested(CN(1, [2, 3]))':
        ('ok', 'True'),
    "nest.pack_sequence_as(CN(1, [2, 3]), ['v%d' % i for i in range(len(nest.flatten(CN(1, [2, 3]))))])":
        ('ok', "CN('v0', ['v1', 'v2'])"),
    "nest.map_structure(lambda v: ('m', v), CN(1, [2, 3]))":
        ('ok', "CN(('m', 1), [('m', 2), ('m', 3)])"),
    'paths(CN(1, [2, 3]))':
        ('ok', "[('0', 1), ('1/0', 2), ('1/1', 3)]"),
    "nest.flatten([CN(1, {'b': 2, 'a': 3})])":
        ('ok', '[1, 3, 2]'),
    "nest.is_nested([CN(1, {'b': 2, 'a': 3})])":
        ('ok', 'True'),
    "nest.pack_sequence_as([CN(1, {'b': 2, 'a': 3})], ['v%d' % i for i in range(len(nest.flatten([CN(1, {'b': 2, 'a': 3})])))])":
        ('ok', "[CN('v0', {'b': 'v2', 'a': 'v1'})]"),
    "nest.map_structure(lambda v: ('m', v), [CN(1, {'b': 2, 'a': 3})])":
        ('ok', "[CN(('m', 1), {'b': ('m', 2), 'a': ('m', 3)})]"),
    "paths([CN(1, {'b': 2, 'a': 3})])":
        ('ok', "[('0/0', 1), ('0/1/a', 3), ('0/1/b', 2)]"),
    "nest.flatten(np.str_('ab'))":
        ('ok', "[np.str_('ab')]"),
    "nest.is_nested(np.str_('ab'))":
        ('ok', 'False'),
    "nest.pack_sequence_as(np.str_('ab'), ['v%d' % i for i in range(len(nest.flatten(np.str_('ab'))))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), np.str_('ab'))":
        ('ok', "('m', np.str_('ab'))"),
    "paths(np.str_('ab'))":
        ('ok', "[('', np.str_('ab'))]"),
    'nest.flatten(frozenset([1]))':
        ('ok', '[frozenset({1})]'),
    'nest.is_nested(frozenset([1]))':
        ('ok', 'False'),
    "nest.pack_sequence_as(frozenset([1]), ['v%d' % i for i in range(len(nest.flatten(frozenset([1]))))])":
        ('ok', "'v0'"),
    "nest.map_structure(lambda v: ('m', v), frozenset([1]))":
        ('ok', "('m', frozenset({1}))"),
    'paths(frozenset([1]))':
        ('ok', "[('', frozenset({1}))]"),
    "nest.flatten(attr.s and A(1, [2, {'q': 3}]))":
        ('ok', '[1, 2, 3]'),
    "nest.is_nested(attr.s and A(1, [2, {'q': 3}]))":
        ('ok', 'True'),
    "nest.pack_sequence_as(attr.s and A(1, [2, {'q': 3}]), ['v%d' % i for i in range(len(nest.flatten(attr.s and A(1, [2, {'q': 3}]))))])":
        ('ok', "A(b='v0', a=['v1', {'q': 'v2'}])"),
    "nest.map_structure(lambda v: ('m', v), attr.s and A(1, [2, {'q': 3}]))":
        ('ok', "A(b=('m', 1), a=[('m', 2), {'q': ('m', 3)}])"),
    "paths(attr.s and A(1, [2, {'q': 3}]))":
        ('ok', "[('b', 1), ('a/0', 2), ('a/1/q', 3)]"),
    "nest.flatten({1: 'a', 'b': 2})":
        ('raise', 'TypeError', "'<' not supported between instances of 'str' and 'int'"),
    'nest.flatten([1, (2,)], expand_composites=True)':
        ('ok', '[1, 2]'),
    'nest.flatten(S())':
        ('ok', '[1, 2]'),
    'nest.pack_sequence_as(S(), [1, 2])':
        ('raise', 'TypeError', 'S() takes no arguments'),
    "nest.pack_sequence_as(types.MappingProxyType({'b': 1, 'a': 2}), [1, 2])":
        ('raise', 'TypeError', "Error creating an object of type <class 'mappingproxy'> like {'b': 1, 'a': 2}. Note that it must accept a single positional argument representing an iterable of key-value pairs, in addition to self. Cause: mappingproxy() argument must be a mapping, not generator"),
    "nest.pack_sequence_as(memoryview(b'ab'), [1, 2])":
        ('raise', 'TypeError', "memoryview: a bytes-like object is required, not 'list'"),
    'nest.pack_sequence_as([1, 2], [1])':
        ('raise', 'ValueError', 'Could not pack sequence. Structure had 2 atoms, but flat_sequence had 1 items.  Structure: [1, 2], flat_sequence: [1].'),
    'nest.pack_sequence_as([1, 2], [1, 2, 3])':
        ('raise', 'ValueError', 'Could not pack sequence. Structure had 2 atoms, but flat_sequence had 3 items.  Structure: [1, 2], flat_sequence: [1, 2, 3].'),
    'nest.pack_sequence_as(1, [1, 2])':
        ('raise', 'ValueError', "The target structure is of type `<class 'int'>`\n  1\nHowever the input is a sequence (<class 'list'>) of length 2.\n  [1, 2]\nnest cannot guarantee that it is safe to map one to the other."),
    'nest.pack_sequence_as(1, [])':
        ('raise', 'ValueError', "The target structure is of type `<class 'int'>`\n  1\nHowever the input is a sequence (<class 'list'>) of length 0.\n  []\nnest cannot guarantee that it is safe to map one to the other."),
    'nest.pack_sequence_as(1, [5])':
        ('ok', '5'),
    'nest.pack_sequence_as(1, 5)':
        ('raise', 'TypeError', "Attempted to pack value:\n  5\ninto a structure, but found incompatible type `<class 'int'>` instead."),
    "nest.pack_sequence_as(1, 'a')":
        ('raise', 'TypeError', "Attempted to pack value:\n  a\ninto a structure, but found incompatible type `<class 'str'>` instead."),
    'nest.pack_sequence_as(None, [None])':
        ('ok', 'None'),
    "nest.pack_sequence_as('ab', ['x'])":
        ('ok', "'x'"),
    'nest.pack_sequence_as([1], 5)':
        ('raise', 'TypeError', "Attempted to pack value:\n  5\ninto a structure, but found incompatible type `<class 'int'>` instead."),
    "nest.pack_sequence_as([1], 'ab')":
        ('raise', 'TypeError', "Attempted to pack value:\n  ab\ninto a structure, but found incompatible type `<class 'str'>` instead."),
    'nest.pack_sequence_as([1, 2], None)':
        ('raise', 'TypeError', "Attempted to pack value:\n  None\ninto a structure, but found incompatible type `<class 'NoneType'>` instead."),
    'nest.pack_sequence_as([1, [2, 3]], np.array([4, 5, 6]))':
        ('raise', 'TypeError', "Attempted to pack value:\n  [4 5 6]\ninto a structure, but found incompatible type `<class 'numpy.ndarray'>` instead."),
    'nest.pack_sequence_as(1, np.array([1]))':
        ('raise', 'TypeError', "Attempted to pack value:\n  [1]\ninto a structure, but found incompatible type `<class 'numpy.ndarray'>` instead."),
    'nest.pack_sequence_as([], [])':
        ('ok', '[]'),
    'nest.pack_sequence_as([], [1])':
        ('raise', 'ValueError', 'Could not pack sequence. Structure had 0 atoms, but flat_sequence had 1 items.  Structure: [], flat_sequence: [1].'),
    "nest.pack_sequence_as({'a': 1}, [1, 2])":
        ('raise', 'ValueError', "Could not pack sequence. Structure had 1 atoms, but flat_sequence had 2 items.  Structure: {'a': 1}, flat_sequence: [1, 2]."),
    'nest.pack_sequence_as([1, [2, 3]], [4, 5, 6])':
        ('ok', '[4, [5, 6]]'),
    'nest.pack_sequence_as([1, [2, 3]], (4, 5, 6))':
        ('ok', '[4, [5, 6]]'),
    'nest.pack_sequence_as([1, [2, 3]], range(3))':
        ('ok', '[0, [1, 2]]'),
    "nest.pack_sequence_as([1], {'a': 7})":
        ('raise', 'KeyError', '0'),
    'nest.pack_sequence_as(CN(1, [2]), [7, 8])':
        ('ok', 'CN(7, [8])'),
    'nest.pack_sequence_as(1, list(range(300)))':
        ('raise', 'ValueError', "The target structure is of type `<class 'int'>`\n  1\nHowever the input is a sequence (<class 'list'>) of length 300.\n  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 2...\nnest cannot guarantee that it is safe to map one to the other."),
    'nest.pack_sequence_as([1], list(range(300)))':
        ('raise', 'ValueError', 'Could not pack sequence. Structure had 1 atoms, but flat_sequence had 300 items.  Structure: [1], flat_sequence: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299].'),
    "nest.pack_sequence_as([1], 'x' * 3000)":
        ('raise', 'TypeError', "Attempted to pack value:\n  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\ninto a structure, but found incompatible type `<class 'str'>` instead."),
    'nest.map_structure(lambda x, y: (x, y), [1, 2], (1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=tuple str=(1, 2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[1, 2] has type list, while second structure type=tuple str=(1, 2) has type tuple\nEntire first structure:\n[., .]\nEntire second structure:\n(., .)"),
    'nest.map_structure(lambda x, y: (x, y), [1, 2], (3, 4), check_types=False)':
        ('ok', '[(1, 3), (2, 4)]'),
    'nest.map_structure(lambda x, y: (x, y), (1, 2), [3, 4], check_types=False)':
        ('ok', '((1, 3), (2, 4))'),
    'nest.map_structure(lambda x, y: (x, y), 1, [1])':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=int str=1\n\nSecond structure: type=list str=[1]\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=int str=1" is not\nEntire first structure:\n.\nEntire second structure:\n[.]'),
    'nest.map_structure(lambda x, y: (x, y), [1, 2], [1, 2, 3])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=list str=[1, 2, 3]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]\nEntire first structure:\n[., .]\nEntire second structure:\n[., ., .]"),
    "nest.map_structure(lambda x, y: (x, y), {'a': 1}, {'b': 2})":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': 1}\n\nSecond structure: type=dict str={'b': 2}\n\nMore specifically: The two dictionaries don't have the same set of keys. First structure has keys type=list str=['a'], while second structure has keys type=list str=['b']\nEntire first structure:\n{'a': .}\nEntire second structure:\n{'b': .}"),
    "nest.map_structure(lambda x, y: (x, y), {'a': 1}, {'b': 2}, check_types=False)":
        ('ok', "{'a': (1, 2)}"),
    'nest.map_structure(lambda x, y: (x, y), P(1, 2), Q(3, 4))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=P str=P(x=1, y=2)\n\nSecond structure: type=Q str=Q(x=3, y=4)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=P str=P(x=1, y=2) has type P, while second structure type=Q str=Q(x=3, y=4) has type Q\nEntire first structure:\nP(x=., y=.)\nEntire second structure:\nQ(x=., y=.)"),
    'nest.map_structure(lambda x, y: (x, y), P(1, 2), Q(3, 4), check_types=False)':
        ('ok', 'P(x=(1, 3), y=(2, 4))'),
    'nest.map_structure(lambda x, y: (x, y), P(1, 2), P2(3, 4))':
        ('ok', 'P(x=(1, 3), y=(2, 4))'),
    "nest.map_structure(lambda x, y: (x, y), {'b': 1, 'a': 2}, {'a': 3, 'b': 4})":
        ('ok', "{'b': (1, 4), 'a': (2, 3)}"),
    "nest.map_structure(lambda x, y: (x, y), od(('b', 1), ('a', 2)), {'a': 3, 'b': 4})":
        ('ok', "OrderedDict([('b', (1, 4)), ('a', (2, 3))])"),
    'nest.map_structure(lambda x, y: (x, y), [1, [2]], [1, 2])':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=list str=[1, [2]]\n\nSecond structure: type=list str=[1, 2]\n\nMore specifically: Substructure "type=list str=[2]" is a sequence, while substructure "type=int str=2" is not\nEntire first structure:\n[., [.]]\nEntire second structure:\n[., .]'),
    'nest.map_structure(lambda x, y, z: x + y + z, [1, (2,)], [1, (2,)], [1, (2,)])':
        ('ok', '[3, (6,)]'),
    'nest.map_structure(lambda x: None, [1, (2,)])':
        ('ok', '[None, (None,)]'),
    'nest.map_structure(lambda x: 5, None)':
        ('ok', '5'),
    'nest.map_structure(lambda x: 5, [])':
        ('ok', '[]'),
    'nest.map_structure(lambda x: x, [1], expand_composites=True)':
        ('ok', '[1]'),
    'nest.map_structure(lambda: 1)':
        ('raise', 'ValueError', 'Must provide at least one structure'),
    'nest.map_structure(lambda x: 1, [1], foo=1)':
        ('raise', 'ValueError', 'Only valid keyword arguments are `check_types` and `expand_composites`, not: `foo`'),
    'nest.map_structure(lambda x: 1, [1], foo=1, bar=2)':
        ('raise', 'ValueError', 'Only valid keyword arguments are `check_types` and `expand_composites`, not: `foo`, `bar`'),
    'nest.map_structure(1, [1])':
        ('raise', 'TypeError', 'func must be callable, got: 1'),
    "paths({'b': [1, {'c': 2}], 'a': (3,), 'd': P(4, 5)})":
        ('ok', "[('a/0', 3), ('b/0', 1), ('b/1/c', 2), ('d/x', 4), ('d/y', 5)]"),
    "paths({'b': [1, {'c': 2}]}, separator='.')":
        ('ok', "[('b.0', 1), ('b.1.c', 2)]"),
    'paths({2: 1, 1: [5]})':
        ('ok', "[('1/0', 5), ('2', 1)]"),
    'paths([[], {}])':
        ('ok', '[]'),
    'nest.assert_same_structure([1, 2], [1, 2, 3])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=list str=[1, 2, 3]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]\nEntire first structure:\n[., .]\nEntire second structure:\n[., ., .]"),
    'nest.assert_same_structure([1, 2], (1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=tuple str=(1, 2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[1, 2] has type list, while second structure type=tuple str=(1, 2) has type tuple\nEntire first structure:\n[., .]\nEntire second structure:\n(., .)"),
    'nest.assert_same_structure([1, [2]], [1, 2])':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=list str=[1, [2]]\n\nSecond structure: type=list str=[1, 2]\n\nMore specifically: Substructure "type=list str=[2]" is a sequence, while substructure "type=int str=2" is not\nEntire first structure:\n[., [.]]\nEntire second structure:\n[., .]'),
    'nest.assert_same_structure([1, 2], [1, [2]])':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=list str=[1, [2]]\n\nMore specifically: Substructure "type=list str=[2]" is a sequence, while substructure "type=int str=2" is not\nEntire first structure:\n[., .]\nEntire second structure:\n[., [.]]'),
    'nest.assert_same_structure(1, [1])':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=int str=1\n\nSecond structure: type=list str=[1]\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=int str=1" is not\nEntire first structure:\n.\nEntire second structure:\n[.]'),
    'nest.assert_same_structure([1], 1)':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=list str=[1]\n\nSecond structure: type=int str=1\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=int str=1" is not\nEntire first structure:\n[.]\nEntire second structure:\n.'),
    'nest.assert_same_structure(None, [1])':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=NoneType str=None\n\nSecond structure: type=list str=[1]\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=NoneType str=None" is not\nEntire first structure:\n.\nEntire second structure:\n[.]'),
    'nest.assert_same_structure(None, 1)':
        ('ok', 'None'),
    "nest.assert_same_structure('ab', ['a'])":
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=str str=ab\n\nSecond structure: type=list str=[\'a\']\n\nMore specifically: Substructure "type=list str=[\'a\']" is a sequence, while substructure "type=str str=ab" is not\nEntire first structure:\n.\nEntire second structure:\n[.]'),
    "nest.assert_same_structure('abc', 'de')":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, {'b': 1})":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': 1}\n\nSecond structure: type=dict str={'b': 1}\n\nMore specifically: The two dictionaries don't have the same set of keys. First structure has keys type=list str=['a'], while second structure has keys type=list str=['b']\nEntire first structure:\n{'a': .}\nEntire second structure:\n{'b': .}"),
    "nest.assert_same_structure({'a': 1}, {'a': 1, 'b': 2})":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': 1}\n\nSecond structure: type=dict str={'a': 1, 'b': 2}\n\nMore specifically: The two dictionaries don't have the same set of keys. First structure has keys type=list str=['a'], while second structure has keys type=list str=['a', 'b']\nEntire first structure:\n{'a': .}\nEntire second structure:\n{'a': ., 'b': .}"),
    "nest.assert_same_structure({'b': 1, 'a': 2}, {'c': 1, 'a': 2})":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'b': 1, 'a': 2}\n\nSecond structure: type=dict str={'c': 1, 'a': 2}\n\nMore specifically: The two dictionaries don't have the same set of keys. First structure has keys type=list str=['b', 'a'], while second structure has keys type=list str=['c', 'a']\nEntire first structure:\n{'b': ., 'a': .}\nEntire second structure:\n{'c': ., 'a': .}"),
    "nest.assert_same_structure({'b': 1, 'a': 2}, {'c': 1, 'd': 2, 'a': 3})":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'b': 1, 'a': 2}\n\nSecond structure: type=dict str={'c': 1, 'd': 2, 'a': 3}\n\nMore specifically: The two dictionaries don't have the same set of keys. First structure has keys type=list str=['b', 'a'], while second structure has keys type=list str=['c', 'd', 'a']\nEntire first structure:\n{'b': ., 'a': .}\nEntire second structure:\n{'c': ., 'd': ., 'a': .}"),
    "nest.assert_same_structure({'a': 1}, od(('a', 1)))":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, dd(a=1))":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, collections.UserDict(a=1))":
        ('ok', 'None'),
    'nest.assert_same_structure(P(1, 2), Q(1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=P str=P(x=1, y=2)\n\nSecond structure: type=Q str=Q(x=1, y=2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=P str=P(x=1, y=2) has type P, while second structure type=Q str=Q(x=1, y=2) has type Q\nEntire first structure:\nP(x=., y=.)\nEntire second structure:\nQ(x=., y=.)"),
    'nest.assert_same_structure(P(1, 2), P2(1, 2))':
        ('ok', 'None'),
    'nest.assert_same_structure(P(1, 2), P3(1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=P str=P(x=1, y=2)\n\nSecond structure: type=P str=P(x=1, z=2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=P str=P(x=1, y=2) has type P, while second structure type=P str=P(x=1, z=2) has type P\nEntire first structure:\nP(x=., y=.)\nEntire second structure:\nP(x=., z=.)"),
    'nest.assert_same_structure(P(1, 2), R(1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=P str=P(x=1, y=2)\n\nSecond structure: type=R str=R(a=1, b=2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=P str=P(x=1, y=2) has type P, while second structure type=R str=R(a=1, b=2) has type R\nEntire first structure:\nP(x=., y=.)\nEntire second structure:\nR(a=., b=.)"),
    'nest.assert_same_structure(P(1, 2), (1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=P str=P(x=1, y=2)\n\nSecond structure: type=tuple str=(1, 2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=P str=P(x=1, y=2) has type P, while second structure type=tuple str=(1, 2) has type tuple\nEntire first structure:\nP(x=., y=.)\nEntire second structure:\n(., .)"),
    'nest.assert_same_structure((1, 2), P(1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=tuple str=(1, 2)\n\nSecond structure: type=P str=P(x=1, y=2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=tuple str=(1, 2) has type tuple, while second structure type=P str=P(x=1, y=2) has type P\nEntire first structure:\n(., .)\nEntire second structure:\nP(x=., y=.)"),
    'nest.assert_same_structure([1, 2], L([1, 2]))':
        ('ok', 'None'),
    'nest.assert_same_structure((1, 2), T((1, 2)))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=tuple str=(1, 2)\n\nSecond structure: type=T str=(1, 2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=tuple str=(1, 2) has type tuple, while second structure type=T str=(1, 2) has type T\nEntire first structure:\n(., .)\nEntire second structure:\n(., .)"),
    'nest.assert_same_structure([1, 2], (1, 2, 3))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=tuple str=(1, 2, 3)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[1, 2] has type list, while second structure type=tuple str=(1, 2, 3) has type tuple\nEntire first structure:\n[., .]\nEntire second structure:\n(., ., .)"),
    'nest.assert_same_structure((1, 2, 3), [1, 2])':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=tuple str=(1, 2, 3)\n\nSecond structure: type=list str=[1, 2]\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=tuple str=(1, 2, 3) has type tuple, while second structure type=list str=[1, 2] has type list\nEntire first structure:\n(., ., .)\nEntire second structure:\n[., .]"),
    'nest.assert_same_structure([[1, 2], 3], [[1, 2, 3]])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1, 2], 3]\n\nSecond structure: type=list str=[[1, 2, 3]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]\nEntire first structure:\n[[., .], .]\nEntire second structure:\n[[., ., .]]"),
    'nest.assert_same_structure([], ())':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[]\n\nSecond structure: type=tuple str=()\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[] has type list, while second structure type=tuple str=() has type tuple\nEntire first structure:\n[]\nEntire second structure:\n()"),
    'nest.assert_same_structure([], [])':
        ('ok', 'None'),
    'nest.assert_same_structure({}, [])':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={}\n\nSecond structure: type=list str=[]\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=dict str={} has type dict, while second structure type=list str=[] has type list\nEntire first structure:\n{}\nEntire second structure:\n[]"),
    'nest.assert_same_structure([1, (2, 3)], [1, [2, 3]])':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, (2, 3)]\n\nSecond structure: type=list str=[1, [2, 3]]\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=tuple str=(2, 3) has type tuple, while second structure type=list str=[2, 3] has type list\nEntire first structure:\n[., (., .)]\nEntire second structure:\n[., [., .]]"),
    'nest.assert_same_structure((1,), [1])':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=tuple str=(1,)\n\nSecond structure: type=list str=[1]\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=tuple str=(1,) has type tuple, while second structure type=list str=[1] has type list\nEntire first structure:\n(.,)\nEntire second structure:\n[.]"),
    "nest.assert_same_structure({'a': [1]}, {'a': (1,)})":
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': [1]}\n\nSecond structure: type=dict str={'a': (1,)}\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[1] has type list, while second structure type=tuple str=(1,) has type tuple\nEntire first structure:\n{'a': [.]}\nEntire second structure:\n{'a': (.,)}"),
    "nest.assert_same_structure({'a': 1}, {'a': [1]})":
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=dict str={\'a\': 1}\n\nSecond structure: type=dict str={\'a\': [1]}\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=int str=1" is not\nEntire first structure:\n{\'a\': .}\nEntire second structure:\n{\'a\': [.]}'),
    "nest.assert_same_structure([1, 2], {'a': 1, 'b': 2})":
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=dict str={'a': 1, 'b': 2}\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[1, 2] has type list, while second structure type=dict str={'a': 1, 'b': 2} has type dict\nEntire first structure:\n[., .]\nEntire second structure:\n{'a': ., 'b': .}"),
    "nest.assert_same_structure((1, 2), {'a': 1, 'b': 2})":
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=tuple str=(1, 2)\n\nSecond structure: type=dict str={'a': 1, 'b': 2}\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=tuple str=(1, 2) has type tuple, while second structure type=dict str={'a': 1, 'b': 2} has type dict\nEntire first structure:\n(., .)\nEntire second structure:\n{'a': ., 'b': .}"),
    "nest.assert_same_structure({'a': 1}, P(1, 2))":
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': 1}\n\nSecond structure: type=P str=P(x=1, y=2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=dict str={'a': 1} has type dict, while second structure type=P str=P(x=1, y=2) has type P\nEntire first structure:\n{'a': .}\nEntire second structure:\nP(x=., y=.)"),
    'nest.assert_same_structure(np.array([1, 2]), [1, 2])':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=ndarray str=[1 2]\n\nSecond structure: type=list str=[1, 2]\n\nMore specifically: Substructure "type=list str=[1, 2]" is a sequence, while substructure "type=ndarray str=[1 2]" is not\nEntire first structure:\n.\nEntire second structure:\n[., .]'),
    'nest.assert_same_structure([1, [2, 3], 4], [1, [2, 3, 5], 4])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, [2, 3], 4]\n\nSecond structure: type=list str=[1, [2, 3, 5], 4]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[2, 3]. Second structure: type=list str=[2, 3, 5]\nEntire first structure:\n[., [., .], .]\nEntire second structure:\n[., [., ., .], .]"),
    'nest.assert_same_structure([[1], [2, 3]], [[1, 2], [3]])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1], [2, 3]]\n\nSecond structure: type=list str=[[1, 2], [3]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, 2]\nEntire first structure:\n[[.], [., .]]\nEntire second structure:\n[[., .], [.]]"),
    "nest.assert_same_structure({'a': 1}.keys(), ['a'])":
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict_keys str=dict_keys(['a'])\n\nSecond structure: type=list str=['a']\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=dict_keys str=dict_keys(['a']) has type dict_keys, while second structure type=list str=['a'] has type list\nEntire first structure:\n[.]\nEntire second structure:\n[.]"),
    "nest.assert_same_structure({'a': 1}.values(), [1])":
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict_values str=dict_values([1])\n\nSecond structure: type=list str=[1]\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=dict_values str=dict_values([1]) has type dict_values, while second structure type=list str=[1] has type list\nEntire first structure:\n[.]\nEntire second structure:\n[.]"),
    'nest.assert_same_structure([[[1]]], [[[1, 2]]])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[[1]]]\n\nSecond structure: type=list str=[[[1, 2]]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, 2]\nEntire first structure:\n[[[.]]]\nEntire second structure:\n[[[., .]]]"),
    "nest.assert_same_structure({'a': [1, 2]}, {'a': [1]})":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': [1, 2]}\n\nSecond structure: type=dict str={'a': [1]}\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1]\nEntire first structure:\n{'a': [., .]}\nEntire second structure:\n{'a': [.]}"),
    "nest.assert_same_structure({'b': (1,), 'a': [1]}, {'b': [1], 'a': (1,)})":
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'b': (1,), 'a': [1]}\n\nSecond structure: type=dict str={'b': [1], 'a': (1,)}\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[1] has type list, while second structure type=tuple str=(1,) has type tuple\nEntire first structure:\n{'b': (.,), 'a': [.]}\nEntire second structure:\n{'b': [.], 'a': (.,)}"),
    'nest.assert_same_structure(CN(1, 2), CN(1, 2))':
        ('ok', 'None'),
    'nest.assert_same_structure(CN(1, 2), CN2(1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=CN str=CN(1, 2)\n\nSecond structure: type=CN2 str=CN(1, 2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=CN str=CN(1, 2) has type CN, while second structure type=CN2 str=CN(1, 2) has type CN2\nEntire first structure:\nCN(., .)\nEntire second structure:\nCN(., .)"),
    'nest.assert_same_structure(CN(1, 2), (1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=CN str=CN(1, 2)\n\nSecond structure: type=tuple str=(1, 2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=CN str=CN(1, 2) has type CN, while second structure type=tuple str=(1, 2) has type tuple\nEntire first structure:\nCN(., .)\nEntire second structure:\n(., .)"),
    'nest.assert_same_structure(CN(1, [2]), CN(1, 2))':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=CN str=CN(1, [2])\n\nSecond structure: type=CN str=CN(1, 2)\n\nMore specifically: Substructure "type=list str=[2]" is a sequence, while substructure "type=int str=2" is not\nEntire first structure:\nCN(., [.])\nEntire second structure:\nCN(., .)'),
    "nest.assert_same_structure({'x': [1, (2, 3)], 'y': P(4, [5])}, {'x': [1, (2, 3)], 'y': P(4, [5, 6])})":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'x': [1, (2, 3)], 'y': P(x=4, y=[5])}\n\nSecond structure: type=dict str={'x': [1, (2, 3)], 'y': P(x=4, y=[5, 6])}\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[5]. Second structure: type=list str=[5, 6]\nEntire first structure:\n{'x': [., (., .)], 'y': P(x=., y=[.])}\nEntire second structure:\n{'x': [., (., .)], 'y': P(x=., y=[., .])}"),
    'nest.assert_same_structure(list(range(300)), list(range(301)))':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299]\n\nSecond structure: type=list str=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299, 300]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299]. Second structure: type=list str=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299, 300]\nEntire first structure:\n[., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., .]\nEntire second structure:\n[., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., .]"),
    'nest.assert_same_structure(attr.s and A(1, 2), attr.s and A(1, 2))':
        ('ok', 'None'),
    'nest.assert_same_structure(attr.s and A(1, 2), attr.s and B(1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=A str=A(b=1, a=2)\n\nSecond structure: type=B str=B(b=1, a=2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=A str=A(b=1, a=2) has type A, while second structure type=B str=B(b=1, a=2) has type B\nEntire first structure:\nA(b=., a=.)\nEntire second structure:\nB(b=., a=.)"),
    'nest.assert_same_structure(attr.s and A(1, 2), (1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=A str=A(b=1, a=2)\n\nSecond structure: type=tuple str=(1, 2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=A str=A(b=1, a=2) has type A, while second structure type=tuple str=(1, 2) has type tuple\nEntire first structure:\nA(b=., a=.)\nEntire second structure:\n(., .)"),
    'nest.assert_same_structure(P(1, 2), attr.s and A(1, 2))':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=P str=P(x=1, y=2)\n\nSecond structure: type=A str=A(b=1, a=2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=P str=P(x=1, y=2) has type P, while second structure type=A str=A(b=1, a=2) has type A\nEntire first structure:\nP(x=., y=.)\nEntire second structure:\nA(b=., a=.)"),
    "nest.assert_same_structure({'a': 1, 'b': 2}, attr.s and A(1, 2))":
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': 1, 'b': 2}\n\nSecond structure: type=A str=A(b=1, a=2)\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=dict str={'a': 1, 'b': 2} has type dict, while second structure type=A str=A(b=1, a=2) has type A\nEntire first structure:\n{'a': ., 'b': .}\nEntire second structure:\nA(b=., a=.)"),
    'nest.assert_same_structure([[1], 2], [(1,)])':
        ('raise', 'TypeError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1], 2]\n\nSecond structure: type=list str=[(1,)]\n\nMore specifically: The two namedtuples don't have the same sequence type. First structure type=list str=[1] has type list, while second structure type=tuple str=(1,) has type tuple\nEntire first structure:\n[[.], .]\nEntire second structure:\n[(.,)]"),
    'nest.assert_same_structure([[1], 2], [[1, 2]])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1], 2]\n\nSecond structure: type=list str=[[1, 2]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, 2]\nEntire first structure:\n[[.], .]\nEntire second structure:\n[[., .]]"),
    'nest.assert_same_structure([1, [2]], [1])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, [2]]\n\nSecond structure: type=list str=[1]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, [2]]. Second structure: type=list str=[1]\nEntire first structure:\n[., [.]]\nEntire second structure:\n[.]"),
    'nest.assert_same_structure([1], [1, [2]])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1]\n\nSecond structure: type=list str=[1, [2]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, [2]]\nEntire first structure:\n[.]\nEntire second structure:\n[., [.]]"),
    "nest.assert_same_structure({'a': [1], 'b': 2}, {'a': [1, 2]})":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': [1], 'b': 2}\n\nSecond structure: type=dict str={'a': [1, 2]}\n\nMore specifically: The two dictionaries don't have the same set of keys. First structure has keys type=list str=['a', 'b'], while second structure has keys type=list str=['a']\nEntire first structure:\n{'a': [.], 'b': .}\nEntire second structure:\n{'a': [., .]}"),
    'nest.assert_same_structure([[1, 2]], [[1, 2, 3], 3])':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1, 2]]\n\nSecond structure: type=list str=[[1, 2, 3], 3]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]\nEntire first structure:\n[[., .]]\nEntire second structure:\n[[., ., .], .]"),
    'nest.assert_same_structure([1, 2], [1, 2, 3], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=list str=[1, 2, 3]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]\nEntire first structure:\n[., .]\nEntire second structure:\n[., ., .]"),
    'nest.assert_same_structure([1, 2], (1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure([1, [2]], [1, 2], check_types=False)':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=list str=[1, [2]]\n\nSecond structure: type=list str=[1, 2]\n\nMore specifically: Substructure "type=list str=[2]" is a sequence, while substructure "type=int str=2" is not\nEntire first structure:\n[., [.]]\nEntire second structure:\n[., .]'),
    'nest.assert_same_structure([1, 2], [1, [2]], check_types=False)':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=list str=[1, [2]]\n\nMore specifically: Substructure "type=list str=[2]" is a sequence, while substructure "type=int str=2" is not\nEntire first structure:\n[., .]\nEntire second structure:\n[., [.]]'),
    'nest.assert_same_structure(1, [1], check_types=False)':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=int str=1\n\nSecond structure: type=list str=[1]\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=int str=1" is not\nEntire first structure:\n.\nEntire second structure:\n[.]'),
    'nest.assert_same_structure([1], 1, check_types=False)':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=list str=[1]\n\nSecond structure: type=int str=1\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=int str=1" is not\nEntire first structure:\n[.]\nEntire second structure:\n.'),
    'nest.assert_same_structure(None, [1], check_types=False)':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=NoneType str=None\n\nSecond structure: type=list str=[1]\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=NoneType str=None" is not\nEntire first structure:\n.\nEntire second structure:\n[.]'),
    'nest.assert_same_structure(None, 1, check_types=False)':
        ('ok', 'None'),
    "nest.assert_same_structure('ab', ['a'], check_types=False)":
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=str str=ab\n\nSecond structure: type=list str=[\'a\']\n\nMore specifically: Substructure "type=list str=[\'a\']" is a sequence, while substructure "type=str str=ab" is not\nEntire first structure:\n.\nEntire second structure:\n[.]'),
    "nest.assert_same_structure('abc', 'de', check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, {'b': 1}, check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, {'a': 1, 'b': 2}, check_types=False)":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': 1}\n\nSecond structure: type=dict str={'a': 1, 'b': 2}\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=dict str={'a': 1}. Second structure: type=dict str={'a': 1, 'b': 2}\nEntire first structure:\n{'a': .}\nEntire second structure:\n{'a': ., 'b': .}"),
    "nest.assert_same_structure({'b': 1, 'a': 2}, {'c': 1, 'a': 2}, check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure({'b': 1, 'a': 2}, {'c': 1, 'd': 2, 'a': 3}, check_types=False)":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'b': 1, 'a': 2}\n\nSecond structure: type=dict str={'c': 1, 'd': 2, 'a': 3}\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=dict str={'b': 1, 'a': 2}. Second structure: type=dict str={'c': 1, 'd': 2, 'a': 3}\nEntire first structure:\n{'b': ., 'a': .}\nEntire second structure:\n{'c': ., 'd': ., 'a': .}"),
    "nest.assert_same_structure({'a': 1}, od(('a', 1)), check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, dd(a=1), check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, collections.UserDict(a=1), check_types=False)":
        ('ok', 'None'),
    'nest.assert_same_structure(P(1, 2), Q(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(P(1, 2), P2(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(P(1, 2), P3(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(P(1, 2), R(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(P(1, 2), (1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure((1, 2), P(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure([1, 2], L([1, 2]), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure((1, 2), T((1, 2)), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure([1, 2], (1, 2, 3), check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, 2]\n\nSecond structure: type=tuple str=(1, 2, 3)\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=tuple str=(1, 2, 3)\nEntire first structure:\n[., .]\nEntire second structure:\n(., ., .)"),
    'nest.assert_same_structure((1, 2, 3), [1, 2], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=tuple str=(1, 2, 3)\n\nSecond structure: type=list str=[1, 2]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=tuple str=(1, 2, 3). Second structure: type=list str=[1, 2]\nEntire first structure:\n(., ., .)\nEntire second structure:\n[., .]"),
    'nest.assert_same_structure([[1, 2], 3], [[1, 2, 3]], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1, 2], 3]\n\nSecond structure: type=list str=[[1, 2, 3]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]\nEntire first structure:\n[[., .], .]\nEntire second structure:\n[[., ., .]]"),
    'nest.assert_same_structure([], (), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure([], [], check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure({}, [], check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure([1, (2, 3)], [1, [2, 3]], check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure((1,), [1], check_types=False)':
        ('ok', 'None'),
    "nest.assert_same_structure({'a': [1]}, {'a': (1,)}, check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, {'a': [1]}, check_types=False)":
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=dict str={\'a\': 1}\n\nSecond structure: type=dict str={\'a\': [1]}\n\nMore specifically: Substructure "type=list str=[1]" is a sequence, while substructure "type=int str=1" is not\nEntire first structure:\n{\'a\': .}\nEntire second structure:\n{\'a\': [.]}'),
    "nest.assert_same_structure([1, 2], {'a': 1, 'b': 2}, check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure((1, 2), {'a': 1, 'b': 2}, check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}, P(1, 2), check_types=False)":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': 1}\n\nSecond structure: type=P str=P(x=1, y=2)\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=dict str={'a': 1}. Second structure: type=P str=P(x=1, y=2)\nEntire first structure:\n{'a': .}\nEntire second structure:\nP(x=., y=.)"),
    'nest.assert_same_structure(np.array([1, 2]), [1, 2], check_types=False)':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=ndarray str=[1 2]\n\nSecond structure: type=list str=[1, 2]\n\nMore specifically: Substructure "type=list str=[1, 2]" is a sequence, while substructure "type=ndarray str=[1 2]" is not\nEntire first structure:\n.\nEntire second structure:\n[., .]'),
    'nest.assert_same_structure([1, [2, 3], 4], [1, [2, 3, 5], 4], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, [2, 3], 4]\n\nSecond structure: type=list str=[1, [2, 3, 5], 4]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[2, 3]. Second structure: type=list str=[2, 3, 5]\nEntire first structure:\n[., [., .], .]\nEntire second structure:\n[., [., ., .], .]"),
    'nest.assert_same_structure([[1], [2, 3]], [[1, 2], [3]], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1], [2, 3]]\n\nSecond structure: type=list str=[[1, 2], [3]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, 2]\nEntire first structure:\n[[.], [., .]]\nEntire second structure:\n[[., .], [.]]"),
    "nest.assert_same_structure({'a': 1}.keys(), ['a'], check_types=False)":
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1}.values(), [1], check_types=False)":
        ('ok', 'None'),
    'nest.assert_same_structure([[[1]]], [[[1, 2]]], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[[1]]]\n\nSecond structure: type=list str=[[[1, 2]]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, 2]\nEntire first structure:\n[[[.]]]\nEntire second structure:\n[[[., .]]]"),
    "nest.assert_same_structure({'a': [1, 2]}, {'a': [1]}, check_types=False)":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': [1, 2]}\n\nSecond structure: type=dict str={'a': [1]}\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1]\nEntire first structure:\n{'a': [., .]}\nEntire second structure:\n{'a': [.]}"),
    "nest.assert_same_structure({'b': (1,), 'a': [1]}, {'b': [1], 'a': (1,)}, check_types=False)":
        ('ok', 'None'),
    'nest.assert_same_structure(CN(1, 2), CN(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(CN(1, 2), CN2(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(CN(1, 2), (1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(CN(1, [2]), CN(1, 2), check_types=False)':
        ('raise', 'ValueError', 'The two structures don\'t have the same nested structure.\n\nFirst structure: type=CN str=CN(1, [2])\n\nSecond structure: type=CN str=CN(1, 2)\n\nMore specifically: Substructure "type=list str=[2]" is a sequence, while substructure "type=int str=2" is not\nEntire first structure:\nCN(., [.])\nEntire second structure:\nCN(., .)'),
    "nest.assert_same_structure({'x': [1, (2, 3)], 'y': P(4, [5])}, {'x': [1, (2, 3)], 'y': P(4, [5, 6])}, check_types=False)":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'x': [1, (2, 3)], 'y': P(x=4, y=[5])}\n\nSecond structure: type=dict str={'x': [1, (2, 3)], 'y': P(x=4, y=[5, 6])}\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[5]. Second structure: type=list str=[5, 6]\nEntire first structure:\n{'x': [., (., .)], 'y': P(x=., y=[.])}\nEntire second structure:\n{'x': [., (., .)], 'y': P(x=., y=[., .])}"),
    'nest.assert_same_structure(list(range(300)), list(range(301)), check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299]\n\nSecond structure: type=list str=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299, 300]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299]. Second structure: type=list str=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267, 268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283, 284, 285, 286, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 298, 299, 300]\nEntire first structure:\n[., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., .]\nEntire second structure:\n[., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., ., .]"),
    'nest.assert_same_structure(attr.s and A(1, 2), attr.s and A(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(attr.s and A(1, 2), attr.s and B(1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(attr.s and A(1, 2), (1, 2), check_types=False)':
        ('ok', 'None'),
    'nest.assert_same_structure(P(1, 2), attr.s and A(1, 2), check_types=False)':
        ('ok', 'None'),
    "nest.assert_same_structure({'a': 1, 'b': 2}, attr.s and A(1, 2), check_types=False)":
        ('ok', 'None'),
    'nest.assert_same_structure([[1], 2], [(1,)], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1], 2]\n\nSecond structure: type=list str=[(1,)]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[[1], 2]. Second structure: type=list str=[(1,)]\nEntire first structure:\n[[.], .]\nEntire second structure:\n[(.,)]"),
    'nest.assert_same_structure([[1], 2], [[1, 2]], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1], 2]\n\nSecond structure: type=list str=[[1, 2]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, 2]\nEntire first structure:\n[[.], .]\nEntire second structure:\n[[., .]]"),
    'nest.assert_same_structure([1, [2]], [1], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1, [2]]\n\nSecond structure: type=list str=[1]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, [2]]. Second structure: type=list str=[1]\nEntire first structure:\n[., [.]]\nEntire second structure:\n[.]"),
    'nest.assert_same_structure([1], [1, [2]], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[1]\n\nSecond structure: type=list str=[1, [2]]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, [2]]\nEntire first structure:\n[.]\nEntire second structure:\n[., [.]]"),
    "nest.assert_same_structure({'a': [1], 'b': 2}, {'a': [1, 2]}, check_types=False)":
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={'a': [1], 'b': 2}\n\nSecond structure: type=dict str={'a': [1, 2]}\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1]. Second structure: type=list str=[1, 2]\nEntire first structure:\n{'a': [.], 'b': .}\nEntire second structure:\n{'a': [., .]}"),
    'nest.assert_same_structure([[1, 2]], [[1, 2, 3], 3], check_types=False)':
        ('raise', 'ValueError', "The two structures don't have the same nested structure.\n\nFirst structure: type=list str=[[1, 2]]\n\nSecond structure: type=list str=[[1, 2, 3], 3]\n\nMore specifically: The two structures don't have the same number of elements. First structure: type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]\nEntire first structure:\n[[., .]]\nEntire second structure:\n[[., ., .], .]"),
}
