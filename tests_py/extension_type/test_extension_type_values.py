"""tf.experimental.ExtensionType values: fields and their conversion, defaults, constructors,
__validate__, immutability, equality, repr, Spec, type_spec_from_value, bad inputs (TF's
classes and messages). The same code runs under TensorFlow 2.21 (--against-tf)."""
from typing import Mapping, Optional, Tuple, Union

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _r(x):
    return repr(x).replace("fn.", "tf.")


class MaskedTensor(tf.experimental.ExtensionType):
    values: tf.Tensor
    mask: tf.Tensor

    def __validate__(self):
        self.values.shape.assert_is_compatible_with(self.mask.shape)
        assert self.mask.dtype.is_bool, "mask.dtype must be bool"


class Pencil(tf.experimental.ExtensionType):
    color: str = "black"
    has_erasor: bool = True
    length: tf.Tensor = 1.0


class Player(tf.experimental.ExtensionType):
    name: tf.Tensor
    attributes: Mapping[str, tf.Tensor]


class Node(tf.experimental.ExtensionType):
    value: tf.Tensor
    children: Tuple["Node", ...] = ()


class Misc(tf.experimental.ExtensionType):
    shape: tf.TensorShape
    dtype: tf.DType
    size: Union[int, float]
    tag: Optional[str] = None


def test_fields_are_converted():
    mt = MaskedTensor([[1, 2, 3], [4, 5, 6]], [[True, True, False], [True, False, True]])
    assert tf.is_tensor(mt.values) and mt.values.dtype == tf.int32 and mt.mask.dtype == tf.bool
    p = Player("Anne", {"height": 8.3, "speed": 28.1})
    assert p.attributes["height"].dtype == tf.float32 and sorted(p.attributes) == ["height", "speed"]
    n = Node(3, [Node(5), Node(2)])
    assert isinstance(n.children, tuple) and int(n.children[1].value) == 2
    m = Misc([2, None], "float32", 3)
    assert m.shape.as_list() == [2, None] and m.dtype == tf.float32 and m.size == 3 and m.tag is None


def test_defaults_and_keyword_only():
    assert _r(Pencil()) == ("Pencil(color='black', has_erasor=True, length=<tf.Tensor: shape=(), dtype=float32, "
                            "numpy=1.0>)")
    p = Pencil(length=0.5, color="blue")
    assert p.color == "blue" and float(p.length) == 0.5


def test_bad_field_values():
    with pytest.raises(TypeError, match="^mask: expected a Tensor, got 'NoneType'$"):
        MaskedTensor([1, 2, 3], None)
    with pytest.raises(TypeError, match="^color: expected 'str', got 'int'$"):
        Pencil(color=3)
    with pytest.raises(TypeError, match=r"^attributes: expected mapping, got 'list'$"):
        Player("x", [1])
    with pytest.raises(TypeError, match=r"^shape: expected 'tf.TensorShape', got 'str'$"):
        Misc("abc", tf.float32, 1)
    with pytest.raises(TypeError, match=r"^size: expected typing.Union\[int, float\], got 'str'$"):
        Misc([1], tf.float32, "big")
    with pytest.raises(TypeError, match="missing a required argument: 'mask'"):
        MaskedTensor([1])
    with pytest.raises(TypeError):
        MaskedTensor([1], [True], [False])


def test_validate():
    with pytest.raises(AssertionError, match="mask.dtype must be bool"):
        MaskedTensor([1, 2, 3], [0, 1, 0])
    with pytest.raises(ValueError):
        MaskedTensor([1, 2, 3], [True, False])


def test_immutable():
    mt = MaskedTensor([1, 2, 3], [True, False, True])
    with pytest.raises(AttributeError, match="Cannot mutate attribute `mask` outside the custom constructor of "
                                             "ExtensionType."):
        mt.mask = [True, True, True]
    with pytest.raises(TypeError):
        mt.mask[0] = False
    with pytest.raises(AttributeError, match="Cannot mutate attribute `mask`"):
        del mt.mask
    p = Player("Anne", {"height": 8.3})
    with pytest.raises(TypeError):
        p.attributes["height"] = 1.0


def test_equality():
    a = MaskedTensor([1, 2], [True, False])
    b = MaskedTensor([[3, 4], [5, 6]], [[False, True], [True, True]])
    assert bool(a == a) and not bool(a != a)
    assert (a == b) is False and (a == a.values) is False
    c = MaskedTensor([1, 3], [True, False])
    assert not bool(a == c) and bool(a != c)


def test_custom_constructor_and_methods():
    class Toy(tf.experimental.ExtensionType):
        name: str
        price: tf.Tensor

        def __init__(self, name, price, discount=0):
            self.name = name
            self.price = price * (1 - discount)

        @property
        def dtype(self):
            return self.price.dtype

    t = Toy("ball", 5.0, discount=0.2)
    assert t.name == "ball" and abs(float(t.price) - 4.0) < 1e-6 and t.dtype == tf.float32
    with pytest.raises(AttributeError):
        t.name = "x"


def test_reserved_and_unannotated_fields():
    with pytest.raises(ValueError, match="Field 'value_type' is reserved"):
        class Bad(tf.experimental.ExtensionType):
            value_type: tf.Tensor
    with pytest.raises(ValueError, match="Field x is missing a type annotation"):
        class Bad2(tf.experimental.ExtensionType):
            x = 3
    with pytest.raises(TypeError, match="In field 'x': Unsupported type annotation 'list'"):
        class Bad3(tf.experimental.ExtensionType):
            x: list
        Bad3([1])
    with pytest.raises(AssertionError, match="Cannot create an instance of ExtensionType"):
        tf.experimental.ExtensionType()


def test_spec():
    anne = Player("Anne", {"height": 8.3, "speed": 28.1})
    spec = tf.type_spec_from_value(anne)
    assert _r(spec.name) == "TensorSpec(shape=(), dtype=tf.string, name=None)"
    assert spec == Player.Spec(name=tf.TensorSpec([], tf.string),
                               attributes={"height": tf.TensorSpec([], tf.float32),
                                           "speed": tf.TensorSpec([], tf.float32)})
    assert hash(spec) == hash(tf.type_spec_from_value(Player("Bart", {"height": 8.1, "speed": 25.3})))
    assert spec != tf.type_spec_from_value(Player("Chuck", {"height": 11.0, "jump": 5.3}))
    assert spec.value_type is Player
    assert _r(MaskedTensor.Spec(tf.TensorSpec([2]), tf.TensorSpec([2], tf.bool))) == (
        "MaskedTensor.Spec(values=TensorSpec(shape=(2,), dtype=tf.float32, name=None), "
        "mask=TensorSpec(shape=(2,), dtype=tf.bool, name=None))")
    with pytest.raises(TypeError, match="^values: expected a TensorSpec, got 'int'$"):
        MaskedTensor.Spec(1, tf.TensorSpec([2], tf.bool))
    with pytest.raises(AttributeError, match="outside the custom constructor of ExtensionTypeSpec"):
        spec.name = tf.TensorSpec([])


def test_spec_subtyping():
    s1 = MaskedTensor.Spec(tf.TensorSpec([2]), tf.TensorSpec([2], tf.bool))
    s2 = MaskedTensor.Spec(tf.TensorSpec([None]), tf.TensorSpec([None], tf.bool))
    s3 = MaskedTensor.Spec(tf.TensorSpec([3]), tf.TensorSpec([3], tf.bool))
    assert s1.is_subtype_of(s2) and not s2.is_subtype_of(s1)
    assert s1.most_specific_common_supertype([s3]) == s2
    assert s1.is_compatible_with(s2) and not s1.is_compatible_with(s3)


def test_custom_spec_class():
    class MT(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

        class Spec:
            def __init__(self, shape, dtype=tf.float32):
                self.values = tf.TensorSpec(shape, dtype)
                self.mask = tf.TensorSpec(shape, tf.bool)

            shape = property(lambda self: self.values.shape)

    s = MT.Spec([None, 2])
    assert s.shape.as_list() == [None, 2] and s.mask.dtype == tf.bool


def test_as_dict():
    d = tf.experimental.extension_type.as_dict(MaskedTensor([1], [True]))
    assert sorted(d) == ["mask", "values"]
