"""fn.data sources (tf.data.Dataset.from_tensor_slices/from_tensors/range/from_generator), eagerly.

Expected values and messages were checked against TensorFlow 2.21; reprs use the guide's class
names (``FlatMapDataset``, not TF 2.21's ``_FlatMapDataset``)."""
from __future__ import annotations

import numpy as np
import pytest

import fn

D = fn.data.Dataset


def values(ds):
    return list(ds.as_numpy_iterator())


def test_from_tensor_slices_nested_structure():
    ds = D.from_tensor_slices({"a": [1, 2, 3], "b": ([1., 2., 3.], ["x", "y", "z"])})
    assert repr(ds) == (
        "<_TensorSliceDataset element_spec={'a': TensorSpec(shape=(), dtype=fn.int32, name=None), "
        "'b': (TensorSpec(shape=(), dtype=fn.float32, name=None), TensorSpec(shape=(), dtype=fn.string, name=None))}>")
    got = values(ds)
    assert got == [{"a": 1, "b": (1.0, b"x")}, {"a": 2, "b": (2.0, b"y")}, {"a": 3, "b": (3.0, b"z")}]
    assert got[0]["a"].dtype == np.int32 and got[0]["b"][0].dtype == np.float32


def test_from_tensor_slices_rows_and_dtypes():
    ds = D.from_tensor_slices(np.arange(6, dtype=np.float64).reshape(3, 2))
    assert ds.element_spec == fn.TensorSpec([2], fn.float64)
    rows = values(ds)
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]] and rows[0].dtype == np.float64
    assert D.from_tensor_slices([]).element_spec == fn.TensorSpec([], fn.float32)
    assert values(D.from_tensor_slices(fn.constant([[1, 2], [3, 4]])))[1].tolist() == [3, 4]


def test_from_tensor_slices_elements_are_eager_tensors():
    elems = list(D.from_tensor_slices(([1, 2], ["a", "b"])))
    assert len(elems) == 2
    x, s = elems[1]
    assert isinstance(x, fn.EagerTensor) and repr(x) == "<fn.Tensor: shape=(), dtype=int32, numpy=2>"
    assert s.numpy() == b"b"


@pytest.mark.parametrize("value, cls, message", [
    ([[1, 2], [3]], ValueError, "Can't convert non-rectangular Python sequence to Tensor."),
    (([1, 2], [3, 4, 5]), ValueError, "Dimensions 2 and 3 are not compatible"),
    (1, ValueError, "Unbatching a tensor is only supported for rank >= 1"),
])
def test_from_tensor_slices_bad_input(value, cls, message):
    with pytest.raises(cls) as e:
        D.from_tensor_slices(value)
    assert str(e.value) == message


def test_from_tensors():
    ds = D.from_tensors({"a": [1, 2]})
    assert repr(ds) == "<_TensorDataset element_spec={'a': TensorSpec(shape=(2,), dtype=fn.int32, name=None)}>"
    assert [v["a"].tolist() for v in values(ds)] == [[1, 2]]
    assert int(ds.cardinality()) == 1


def test_range():
    assert repr(D.range(5)) == "<_RangeDataset element_spec=TensorSpec(shape=(), dtype=fn.int64, name=None)>"
    assert values(D.range(5)) == [0, 1, 2, 3, 4]
    assert values(D.range(2, 8, 2)) == [2, 4, 6]
    assert values(D.range(5, 0, -2)) == [5, 3, 1]
    ds = D.range(3, output_type=fn.int32)
    assert ds.element_spec.dtype == fn.int32 and values(ds)[0].dtype == np.int32
    assert values(D.range(2))[0].dtype == np.int64
    with pytest.raises(fn.errors.InvalidArgumentError):
        D.range(0, 5, 0)


def test_from_generator_guide_repr_and_values():
    small = [(1, 1)] * 3
    ds = D.from_generator(lambda: small, (fn.int32, fn.int32))
    assert str(ds) == ("<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, dtype=fn.int32, name=None), "
                       "TensorSpec(shape=<unknown>, dtype=fn.int32, name=None))>")
    assert values(ds) == [(1, 1)] * 3
    # The generator is called afresh for each iteration.
    assert values(ds) == [(1, 1)] * 3


def test_from_generator_signature_and_shapes():
    ds = D.from_generator(lambda: iter([1, 2]), output_signature=fn.TensorSpec((), fn.int32))
    assert repr(ds) == "<_FlatMapDataset element_spec=TensorSpec(shape=(), dtype=fn.int32, name=None)>"
    ds = D.from_generator(lambda: iter([[1, 2], [3, 4]]), output_types=fn.int32, output_shapes=[2])
    assert [v.tolist() for v in values(ds)] == [[1, 2], [3, 4]]
    calls = []

    def gen(n):
        calls.append(n)
        yield from range(int(n))
    assert values(D.from_generator(gen, fn.int64, args=(3,))) == [0, 1, 2] and calls == [3]


_GET_NEXT = "{{function_node __wrapped__IteratorGetNext_output_types_%d_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


@pytest.mark.parametrize("gen, types, shapes, message", [
    (lambda: iter([1.5]), fn.int32, None,
     "TypeError: `generator` yielded an element that did not match the expected structure. The expected "
     "structure was TensorSpec(shape=<unknown>, dtype=fn.int32, name=None), but the yielded element was 1.5."),
    (lambda: iter(["a"]), fn.int32, None,
     "TypeError: `generator` yielded an element that did not match the expected structure. The expected "
     "structure was TensorSpec(shape=<unknown>, dtype=fn.int32, name=None), but the yielded element was a."),
    (lambda: iter([[1, 2, 3]]), fn.int32, [2],
     "TypeError: `generator` yielded an element of shape (3,) where an element of shape (2,) was expected."),
    (lambda: iter([1]), (fn.int32, fn.int32), None,
     "TypeError: `generator` yielded an element that did not match the expected structure. The expected "
     "structure was (fn.int32, fn.int32), but the yielded element was 1."),
])
def test_from_generator_bad_elements_fail_when_iterated(gen, types, shapes, message):
    ds = D.from_generator(gen, output_types=types, output_shapes=shapes)
    with pytest.raises(fn.errors.InvalidArgumentError) as e:
        values(ds)
    # TF's eager IteratorGetNext wrapper (TF adds the py_func's Python traceback after the message)
    head = _GET_NEXT % (len(types) if isinstance(types, tuple) else 1)
    assert str(e.value) == f"{head}{message} [Op:IteratorGetNext] name: "


def test_from_generator_bad_arguments():
    with pytest.raises(TypeError, match="either the `output_signature` argument or the `output_types`"):
        D.from_generator(lambda: iter([1]))
    with pytest.raises(TypeError, match="`generator` must be a Python callable."):
        D.from_generator(iter([1]), fn.int32)
    with pytest.raises(TypeError, match="can not be used together"):
        D.from_generator(lambda: iter([1]), fn.int32, output_signature=fn.TensorSpec([], fn.int32))

