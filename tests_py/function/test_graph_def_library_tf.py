"""``as_graph_def()`` of AutoGraph ``if`` statements and the order of the ``library`` functions,
compared with TensorFlow 2.21's text. Function-name numbers (TF's uid) are masked; the golden
texts in ``graph_def_golden/`` are TF's own output (this module passes under TF too)."""
from __future__ import annotations

import importlib.util
import pathlib
import re

import pytest

from _graph_text import functions_sorted as _functions_sorted
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

HERE = pathlib.Path(__file__).parent
_FUNC = r"(?:\w+_)?(?:cond_true|cond_false|while_body|while_cond)"


def _text(f, *args):
    return str(f.get_concrete_function(*args).graph.as_graph_def())


def _masked(text):
    return re.sub(rf"\b({_FUNC})_\d+\b", r"\1_N", text)


def _golden(name):
    return (HERE / "graph_def_golden" / name).read_text().rstrip("\n")


def _flat_map_order():
    """fn's model of TF's library order, loaded from its file (runs under TF too: no fn import)."""
    path = HERE.parents[1] / "python" / "fn" / "_function" / "flat_map_order.py"
    spec = importlib.util.spec_from_file_location("_graph_def_library_model", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.flat_map_order


def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


def test_autograph_if_return_graph_def_is_tensorflows():
    # The guide's intro_to_graphs example: each branch returns (do_return, retval_) through an
    # Identity per output; the else branch keeps the constants TF's dtype check converts.
    text = _masked(_text(tf.function(simple_relu), tf.constant(1))).rstrip("\n")
    assert _functions_sorted(text) == _functions_sorted(_golden("autograph_if_return.txt"))


def test_autograph_if_assign_graph_def_is_tensorflows():
    @tf.function
    def f(x):
        if x > 0:
            y = x * 2
        else:
            y = 3
        return y + 1
    text = _masked(_text(f, tf.constant(1))).rstrip("\n")
    assert _functions_sorted(text) == _functions_sorted(_golden("autograph_if_assign.txt"))


def test_branch_node_names_are_unique():
    text = _text(tf.function(simple_relu), tf.constant(1))
    for block in re.split(r"(?m)^  function \{", text)[1:]:
        names = re.findall(r'(?m)^    node_def \{\n      name: "([^"]+)"', block)
        assert len(names) == len(set(names)), names
    assert 'name: "cond_identity_1_x"' in text


def _library_order(text):
    return re.findall(r'(?m)^    signature \{\n      name: "(\w+)"', text)


def _insertion_order(text):
    """Functions as TF adds them to the graph: each control-flow node's functions in attr order,
    a function before the functions its own nodes call."""
    blocks = {n: b for b in re.split(r"(?m)^  function \{", text)[1:]
              for n in re.findall(r'^\n    signature \{\n      name: "(\w+)"', b)}
    main = text.partition("library {")[0]
    out = []

    def visit(body):
        for name in re.findall(r'func \{\n\s*name: "(\w+)"', body):
            if name not in out:
                out.append(name)
                visit(blocks[name])
    visit(main)
    return out



def _while_with_if(x):
    while x < 10:
        if x > 3:
            x = x * 2
        else:
            x = x + 1
    return x

def test_library_order_is_tensorflows_hash_map_order():
    model = _flat_map_order()

    def chain(n):
        @tf.function
        def f(x):
            for i in range(n):
                x = tf.cond(x > i, lambda: x + 1, lambda: x - 1)
            return x
        return f

    @tf.function
    def nested(x):
        return tf.cond(x > 0, lambda: tf.cond(x > 5, lambda: x, lambda: x * 2), lambda: x - 1)

    loop = tf.function(_while_with_if)
    for f in [chain(n) for n in (1, 2, 4, 7)] + [nested, loop]:
        text = _text(f, tf.constant(1))
        order = _library_order(text)
        assert sorted(order) == sorted(_insertion_order(text))
        assert order == model(_insertion_order(text))


def test_flat_map_model_matches_observed_tensorflow_orders():
    # Orders TF 2.21 printed for these names (inserted in this order).
    model = _flat_map_order()
    assert model(["cond_true_6", "cond_false_7"]) == ["cond_true_6", "cond_false_7"]
    assert model(["cond_true_30", "cond_false_31"]) == ["cond_false_31", "cond_true_30"]
    assert model(["while_cond_35", "while_body_36", "while_cond_true_52", "while_cond_false_53"]) == [
        "while_body_36", "while_cond_false_53", "while_cond_true_52", "while_cond_35"]


def test_while_first_test_leaves_no_node_in_the_graph():
    # TF evaluates a while statement's first test in a throwaway graph to decide how to run it.
    @tf.function
    def f(x):
        while x < 10:
            x = x * 2
        return x
    nodes = f.get_concrete_function(tf.constant(1)).graph.as_graph_def().node
    assert [n.op for n in nodes] == ["Placeholder", "Const", "Const", "StatelessWhile", "Identity"]


def test_function_body_returns_a_nested_if_through_its_identity():
    text = _text(tf.function(_while_with_if), tf.constant(1))
    body = text[text.index('    signature {\n      name: "while_body_'):]
    body = body[:body.index("\n  function {") if "\n  function {" in body else len(body)]
    assert ('name: "while/Identity_2"\n      op: "Identity"\n      input: "while/cond/Identity:output:0"'
            in body)
