"""Dict/list items and attributes assigned in staged control flow are state, as in TF's AutoGraph.

Regression tests of a silent wrong answer: fn applied the body's effect once (``{'a': 1}`` where
TensorFlow gives ``{'a': 3}``). Every expectation runs under TensorFlow too (tf_oracle).
"""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _py(x):
    return tf.nest.map_structure(lambda t: t.numpy().tolist() if hasattr(t, 'numpy') else t, x)


def test_dict_item_in_while_loop():
    @tf.function
    def f(n):
        d = {'a': 0}
        i = 0
        while i < n:
            d['a'] = d['a'] + 1
            i += 1
        return d
    assert _py(f(tf.constant(3))) == {'a': 3}


def test_list_item_in_for_loop():
    @tf.function
    def f(n):
        l = [0, 10]
        for i in tf.range(n):
            l[0] = l[0] + i
        return l
    assert _py(f(tf.constant(4))) == [6, 10]


def test_dict_item_augmented_assignment():
    @tf.function
    def f(n):
        d = {'a': 0}
        for _ in tf.range(n):
            d['a'] += 2
        return d
    assert _py(f(tf.constant(4))) == {'a': 8}


def test_dict_item_with_variable_key_and_nested_item():
    @tf.function
    def f(n):
        d = {'x': {'y': 0}, 'a': 1}
        k = 'a'
        for _ in tf.range(n):
            d[k] = d[k] * 2
            d['x']['y'] = d['x']['y'] + 3
        return d
    assert _py(f(tf.constant(3))) == {'x': {'y': 9}, 'a': 8}


def test_list_item_with_python_index_variable():
    @tf.function
    def f(n):
        l = [0, 10]
        i = 1
        for _ in tf.range(n):
            l[i] = l[i] + 1
        return l
    assert _py(f(tf.constant(3))) == [0, 13]


def test_attribute_in_for_loop():
    class Box:
        pass

    @tf.function
    def f(n):
        b = Box()
        b.total = 0
        for j in tf.range(n):
            b.total = b.total + j
        return b.total
    assert _py(f(tf.constant(5))) == 10


def test_dict_item_in_loop_condition():
    @tf.function
    def f(n):
        d = {'a': 0}
        while d['a'] < n:
            d['a'] = d['a'] + 1
        return d
    assert _py(f(tf.constant(4))) == {'a': 4}


def test_dict_item_in_both_branches_of_tensor_if():
    @tf.function
    def f(c):
        d = {'a': 1}
        if c > 0:
            d['a'] = 2
        else:
            d['a'] = 3
        return d
    assert _py(f(tf.constant(1))) == {'a': 2}
    assert _py(f(tf.constant(-1))) == {'a': 3}


def test_dict_item_in_one_branch_of_tensor_if():
    @tf.function
    def f(c):
        d = {'a': 1}
        if c > 0:
            d['a'] = 2
        return d['a']
    assert _py(f(tf.constant(1))) == 2
    assert _py(f(tf.constant(0))) == 1


def test_item_created_in_both_branches():
    @tf.function
    def f(c):
        d = {}
        if c > 0:
            d['b'] = 2
        else:
            d['b'] = 3
        return d
    assert _py(f(tf.constant(0))) == {'b': 3}


def test_item_created_in_only_one_branch_raises():
    @tf.function
    def f(c):
        d = {}
        if c > 0:
            d['b'] = 2
        return d
    with pytest.raises(ValueError, match=r"'d\['b'\]' must also be initialized in the else branch"):
        f(tf.constant(1))


def test_item_created_in_loop_body():
    @tf.function
    def f(n):
        d = {}
        for i in tf.range(n):
            d['b'] = i
        return d
    assert _py(f(tf.constant(3))) == {'b': 2}


def test_attribute_of_object_made_in_the_body_is_not_state():
    class Box:
        pass

    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            b = Box()
            b.v = i * 2
            s = s + b.v
        return s
    assert _py(f(tf.constant(4))) == 12


def test_item_created_only_in_else_branch_raises():
    @tf.function
    def f(c):
        cfg = {'k': c}
        if cfg['k'] > 0:
            pass
        else:
            cfg['new'] = 5
        return cfg
    with pytest.raises(ValueError, match=r"'cfg\['new'\]' must also be initialized in the main branch"):
        f(tf.constant(2))


def test_nested_item_created_in_one_branch_raises():
    @tf.function
    def f(c):
        cfg = {'inner': {'k': c}}
        if cfg['inner']['k'] > 0:
            cfg['inner']['extra'] = 1
        return cfg
    with pytest.raises(ValueError, match=r"'cfg\['inner'\]\['extra'\]' must also be initialized in the else branch"):
        f(tf.constant(0))


def test_item_of_a_missing_item_raises_key_error():
    @tf.function
    def f(c):
        cfg = {'inner': {'k': c}}
        if c > 0:
            cfg['missing']['k'] = 1
        else:
            cfg['missing']['k'] = -1
        return cfg
    with pytest.raises(KeyError, match="'missing'"):
        f(tf.constant(1))


def test_item_first_set_in_while_loop_and_loop_not_run():
    @tf.function
    def f(b):
        y = {'b': b}
        while y['b'] <= 10:
            y['a'] = y['b'] + 1
            y['b'] *= 2
        return y
    assert _py(f(tf.constant(5))) == {'a': 11, 'b': 20}
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"loop must iterate at least once to initialize y\[\\'a\\'\]"):
        f(tf.constant(11))


def test_list_items_as_the_only_loop_state():
    @tf.function
    def f(b):
        y = [0, b]
        while y[1] <= 10:
            y[0] += 1
            y[1] *= 2
        return y
    assert _py(f(tf.constant(3))) == [2, 12]
