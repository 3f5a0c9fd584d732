"""Each traced node records the user's source line (leaked-tensor and op errors name it). The
walk over Python frames is C++ (`_core.set_location_skip`); it must agree with the rule written
in Python (`fn._function.function._user_location`): the innermost frame outside fn and importlib."""
import fn
from fn import _core
from fn._function import function as _function


def test_location_matches_the_python_rule():
    here, there = _core._current_location(), _function._user_location()
    assert here == there
    assert __file__ in here and "in test_location_matches_the_python_rule" in here


def _nested_helper():
    return _core._current_location(), _function._user_location()


def test_location_of_a_nested_frame():
    got, expected = _nested_helper()
    assert got == expected and "in _nested_helper" in got


def test_nodes_record_the_line_that_made_them():
    @fn.function(autograph=False)
    def f(x):
        y = fn.tanh(x)   # through fn's own Python wrapper: its frame is skipped
        return y * 2.0

    g = f.get_concrete_function(fn.constant(1.0)).graph._core
    where = {g.node_op(i): g.node_defined_at(i) for i in range(g.num_nodes())}
    assert __file__ in where["Tanh"] and "in f" in where["Tanh"]
    assert where["Tanh"] != where["Mul"]
    line = int(where["Tanh"].split("line ")[1].split(",")[0])
    assert "fn.tanh(x)" in open(__file__).read().splitlines()[line - 1]


def test_leaked_tensor_error_names_where_it_was_defined():
    leaked = []

    @fn.function
    def leak(x):
        y = x + x
        leaked.append(y)
        return y
    leak(fn.constant(1))

    @fn.function
    def use():
        return leaked[0] + 1
    try:
        use()
    except TypeError as e:
        assert "was defined here:\n" in str(e) and __file__ in str(e) and "in leak" in str(e)
    else:
        raise AssertionError("expected TypeError")


def _helper_a():
    return _core._current_location()


def _helper_b():
    return _core._current_location()


def test_repeated_and_alternating_locations():
    # Same instruction again (a loop): the same answer; another code object at the same
    # instruction offset: its own answer.
    seen = [_helper_a() for _ in range(3)] + [_helper_b(), _helper_a()]
    assert seen[0] == seen[1] == seen[2]
    assert seen[0] == seen[4] and "in _helper_a" in seen[0]
    assert "in _helper_b" in seen[3] and seen[3] != seen[0]
    lines = [_core._current_location() for _ in range(2)]
    assert lines[0] == lines[1]
