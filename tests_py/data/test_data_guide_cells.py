"""Cells of TensorFlow's tf.data guides (tensorflow/docs ``site/en/guide/data.ipynb`` and
``data_performance.ipynb``) with local data in place of downloads; expected values are what
TensorFlow 2.21 prints for the same code. Also the behaviours those cells rely on: a returned
list is a tuple of components, ``tf.numpy_function``'s NumPy arguments and dtype checks,
``tf.io.read_file``/``write_file``, and ``tensor[bool mask]``."""

import itertools
import os
import re

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def _np(ds):
    return list(ds.as_numpy_iterator())


def test_data_performance_time_measured_dataset_and_naive_map(monkeypatch):
    """The guide's TimeMeasuredDataset (from_generator with output_types/output_shapes, nested
    tuples of lists) mapped through its ``map_decorator`` (py_function with a tuple Tout) and
    batch/unbatch: the function returns py_function's list, which tf.data takes as a tuple."""
    counter = itertools.count()

    def generator(instance_idx, num_samples):
        epoch_idx = next(counter)
        for sample_idx in range(num_samples):
            yield (
                [("Open",), ("Read",)],
                [(1.5, 0.25), (2.5, 0.5)],
                [(instance_idx, epoch_idx, -1), (instance_idx, epoch_idx, sample_idx)],
            )

    def dataset_generator_fun(*args):
        return tf.data.Dataset.from_generator(
            generator,
            output_types=(tf.dtypes.string, tf.dtypes.float32, tf.dtypes.int32),
            output_shapes=((2, 1), (2, 2), (2, 3)),
            args=(7, 3),
        )

    def map_decorator(func):
        def wrapper(steps, times, values):
            return tf.py_function(func, inp=(steps, times, values), Tout=(steps.dtype, times.dtype, values.dtype))

        return wrapper

    @map_decorator
    def naive_map(steps, times, values):
        return (
            tf.concat((steps, [["Map"]]), axis=0),
            tf.concat((times, [[3.0, 0.125]]), axis=0),
            tf.concat((values, [values[-1]]), axis=0),
        )

    ds = tf.data.Dataset.range(2).flat_map(dataset_generator_fun).map(naive_map).batch(3, drop_remainder=True).unbatch()
    spec = ds.element_spec
    assert isinstance(spec, tuple) and [s.dtype for s in spec] == [tf.string, tf.float32, tf.int32]
    out = _np(ds)
    assert len(out) == 6
    steps, times, values = out[4]
    assert steps.tolist() == [[b"Open"], [b"Read"], [b"Map"]]
    assert times.tolist() == [[1.5, 0.25], [2.5, 0.5], [3.0, 0.125]]
    assert values.tolist() == [[7, 1, -1], [7, 1, 1], [7, 1, 1]]


def test_returned_list_is_a_tuple_of_components():
    ds = tf.data.Dataset.range(2)
    mixed = ds.map(lambda x: [x, tf.strings.as_string(x)])
    assert mixed.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.string))
    assert _np(mixed) == [(0, b"0"), (1, b"1")]
    nested = ds.map(lambda x: [[x, x], [x, x + 1]])
    assert nested.element_spec == (tf.TensorSpec([2], tf.int64), tf.TensorSpec([2], tf.int64))
    constants = ds.map(lambda x: [1, 2.5])
    assert constants.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32))
    inner = ds.map(lambda x: {"a": [x, x]})
    assert inner.element_spec == {"a": tf.TensorSpec([2], tf.int64)}
    scanned = ds.scan(tf.constant(0, tf.int64), lambda s, x: [s + x, [s, x]])
    assert scanned.element_spec == tf.TensorSpec([2], tf.int64)
    assert [v.tolist() for v in _np(scanned)] == [[0, 0], [0, 1]]


def test_numpy_function_gets_ndarrays_and_checks_result_dtypes():
    seen = []

    def f(*args):
        seen.extend((type(a).__name__, a.dtype.kind, a.shape) for a in args)
        return args[0] * 2.0

    out = tf.numpy_function(f, [tf.constant(3.0), tf.constant([1, 2]), tf.constant("s")], tf.float32)
    assert seen == [("ndarray", "f", ()), ("ndarray", "i", (2,)), ("ndarray", "O", ())]
    assert out.dtype == tf.float32 and float(out) == 6.0
    pair = tf.data.Dataset.range(3).map(lambda x: tf.numpy_function(lambda a: (a, a * 2.0), [x], (tf.int64, tf.float64)))
    assert _np(pair) == [(0, 0.0), (1, 2.0), (2, 4.0)]
    strings = tf.function(lambda x: tf.numpy_function(lambda v: (v, "abc"), [x], (tf.int32, tf.string)))
    assert [t.numpy() for t in strings(tf.constant(1))] == [1, b"abc"]
    bad = tf.data.Dataset.range(2).map(lambda x: tf.numpy_function(lambda v: v + 1, [x], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"0-th value returned by pyfunc_\d+ is int64, but expects int32"):
        _np(bad)
    wrong_float = tf.function(lambda x: tf.numpy_function(lambda v: v.astype(np.float64), [x], tf.float32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"0-th value returned by pyfunc_\d+ is double, but expects float"):
        wrong_float(tf.constant(1.0))


def _flowers(tmp_path):
    root = tmp_path / "flower_photos"
    for cls in ("daisy", "roses"):
        (root / cls).mkdir(parents=True)
        (root / cls / f"{cls}0.jpg").write_bytes(b"\xff\xd8\xff\xe0" + cls.encode())
    return root


def test_data_guide_consuming_sets_of_files(tmp_path):
    """The guide's ``list_files`` + ``process_path`` cells (tf.strings.split, tf.io.read_file)."""
    flowers_root = _flowers(tmp_path)
    list_ds = tf.data.Dataset.list_files(str(flowers_root / "*/*"), shuffle=False)

    def process_path(file_path):
        label = tf.strings.split(file_path, os.sep)[-2]
        return tf.io.read_file(file_path), label

    labeled_ds = list_ds.map(process_path)
    assert labeled_ds.element_spec == (tf.TensorSpec([], tf.string), tf.TensorSpec([], tf.string))
    assert _np(labeled_ds) == [(b"\xff\xd8\xff\xe0daisy", b"daisy"), (b"\xff\xd8\xff\xe0roses", b"roses")]


def test_read_file_and_write_file(tmp_path):
    p = str(tmp_path / "a.bin")
    assert tf.io.write_file(p, b"ab\x00c") is None
    assert tf.io.read_file(p).numpy() == b"ab\x00c"
    assert tf.io.read_file(tf.constant(p), name="rf").numpy() == b"ab\x00c"
    nested = str(tmp_path / "no" / "sub" / "x")
    tf.io.write_file(nested, "q")  # the missing directories are made
    assert open(nested, "rb").read() == b"q"

    @tf.function
    def roundtrip(x):
        tf.io.write_file(x, "graph-written")
        y = tf.io.read_file(x)
        assert y.shape == [] and y.dtype == tf.string
        return y

    assert roundtrip(tf.constant(str(tmp_path / "g.txt"))).numpy() == b"graph-written"
    assert tf.data.Dataset.from_tensors(p).map(tf.io.read_file).element_spec == tf.TensorSpec([], tf.string)


def test_read_file_and_write_file_errors(tmp_path):
    p = str(tmp_path / "a.bin")
    tf.io.write_file(p, "x")
    device = re.escape("{{function_node __wrapped__ReadFile_device_/job:localhost/replica:0/task:0/device:CPU:0}} ")
    with pytest.raises(tf.errors.InvalidArgumentError, match=device + re.escape("Input filename tensor must be scalar, but had shape: [2] [Op:ReadFile]")):
        tf.io.read_file([p, p])
    with pytest.raises(tf.errors.NotFoundError, match=device + re.escape(f"{tmp_path}/missing; No such file or directory [Op:ReadFile]")):
        tf.io.read_file(str(tmp_path / "missing"))
    with pytest.raises(tf.errors.FailedPreconditionError, match=re.escape(f"{tmp_path}; Is a directory [Op:ReadFile]")):
        tf.io.read_file(str(tmp_path))
    with pytest.raises(tf.errors.NotFoundError, match=re.escape(f"{tmp_path}/missing; No such file or directory")):
        tf.function(tf.io.read_file)(tf.constant(str(tmp_path / "missing")))
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape("Contents tensor must be scalar, but had shape: [2] [Op:WriteFile]")):
        tf.io.write_file(p, ["a", "b"])
    with pytest.raises(TypeError, match="Cannot convert 3 to EagerTensor of dtype string"):
        tf.io.read_file(3)


def test_tensor_indexed_by_a_bool_mask():
    """data_performance's ``draw_timeline``: ``timeline['steps'][np_bool_mask]``."""
    t = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    m = np.array([True, False, True])
    assert t[m].numpy().tolist() == [[1.0, 2.0], [5.0, 6.0]]
    assert t[tf.constant(m)].numpy().tolist() == [[1.0, 2.0], [5.0, 6.0]]
    assert t[np.array([[True, False], [False, True], [True, True]])].numpy().tolist() == [1.0, 4.0, 5.0, 6.0]
    assert tf.function(lambda x, k: x[k])(t, tf.constant(m)).numpy().tolist() == [[1.0, 2.0], [5.0, 6.0]]
    times = tf.constant([[0.5, 0.1], [-1.0, -1.0]])
    steps = tf.constant([[b"Open"], [b""]])
    valid = np.logical_and(times > 0, steps != b"")[:, 0]
    assert steps[valid].numpy().tolist() == [[b"Open"]]
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        t[True]
    with pytest.raises(ValueError, match=re.escape("Shapes (3,) and (2,) are incompatible")):
        t[np.array([True, False])]
