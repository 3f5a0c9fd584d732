"""``ConcreteFunction.function_type`` and ``.inference_fn`` as TensorFlow 2.21 has them; the
signature text in binding errors names TensorSpecs as the caller did (``name=None``)."""
from __future__ import annotations

import inspect
import re

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _masked(text):
    return re.sub(r"(?m)^  \d+: ", "  ID: ", text)


def test_function_type_of_a_string_trace():
    @tf.function
    def double(a):
        return a + a
    cf = double.get_concrete_function(tf.constant("a"))
    ft = cf.function_type
    assert str(ft) == ("(a: TensorSpec(shape=(), dtype=tf.string, name=None)) -> "
                       "TensorSpec(shape=(), dtype=tf.string, name=None)").replace("tf.", _prefix())
    assert repr(ft) == ("Input Parameters:\n"
                        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.string, name=None)\n"
                        "Output Type:\n"
                        "  TensorSpec(shape=(), dtype=tf.string, name=None)\n"
                        "Captures:\n"
                        "  None").replace("tf.", _prefix())
    p = ft.parameters["a"]
    assert (p.name, p.kind, p.optional) == ("a", inspect.Parameter.POSITIONAL_OR_KEYWORD, False)
    assert repr(ft.output) == repr(tf.TensorSpec([], tf.string))


def _prefix():
    return tf.__name__.split(".")[0].replace("tensorflow", "tf") + "."


def test_function_type_literals_containers_kinds_and_captures():
    c0 = tf.constant(5.0)
    v = tf.Variable(2.0)

    @tf.function
    def f(a, b=None, *, k=3):
        return a + c0 + v, [a], {"x": a}
    ft = f.get_concrete_function(tf.TensorSpec([2], tf.float32, name="foo"), (1, "a")).function_type
    spec, out = "TensorSpec(shape=(2,), dtype=tf.float32, name={})", "TensorSpec(shape=(2,), dtype=tf.float32, name=None)"
    expected = (f"(a: {spec.format(repr('foo'))}, b: Tuple[Literal[1], Literal['a']], *, k: Literal[3]) -> "
                f"Tuple[{out}, List[{out}], Dict[['x', {out}]]]")
    assert str(ft) == expected.replace("tf.", _prefix())
    assert _masked(repr(ft)).endswith(
        "Captures:\n  ID: TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "  ID: TensorSpec(shape=(), dtype=tf.resource, name=None)".replace("tf.", _prefix()))

    @tf.function
    def n(x):
        pass
    assert str(n.get_concrete_function(1).function_type) == "(x: Literal[1]) -> Literal[None]"

    @tf.function
    def g(x, y=3, *args, z, **kw):
        return x
    assert str(g.get_concrete_function(tf.constant(1.0), z=tf.constant(2)).function_type) == (
        "(x: TensorSpec(shape=(), dtype=tf.float32, name=None), y: Literal[3], /, *, "
        "z: TensorSpec(shape=(), dtype=tf.int32, name=None)) -> "
        "TensorSpec(shape=(), dtype=tf.float32, name=None)").replace("tf.", _prefix())


def test_inference_fn_runs_the_graph():
    @tf.function
    def double(a):
        return a + a
    cf = double.get_concrete_function(tf.TensorSpec([], tf.string))
    atomic = cf.inference_fn
    assert atomic(tf.constant("a")).numpy() == b"aa"
    assert re.fullmatch(rb"__inference_double_\d+", atomic.name)
    assert str(atomic.function_type) == str(cf.function_type)

    c0 = tf.constant(1.0)

    @tf.function
    def add_c(a):
        return a + c0
    with pytest.raises(ValueError, match="The FunctionType defines captured inputs. Use call_with_captures"):
        add_c.get_concrete_function(tf.constant(1.0)).inference_fn(tf.constant(1.0))


def test_binding_error_names_the_signature_as_traced():
    @tf.function
    def pow(a, b):
        return a ** b
    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    with pytest.raises(TypeError) as info:
        square(tf.constant(10.0), b=3)
    assert ("for signature: (a: TensorSpec(shape=<unknown>, dtype=tf.float32, name=None), b: Literal[2]) -> "
            "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None).").replace("tf.", _prefix()) in str(info.value)
