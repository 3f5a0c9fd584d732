"""An op error while a dataset is iterated eagerly reads as TF 2.21's: the eager
``IteratorGetNext`` wrapper, and for an error in a user function "Error in user-defined function
passed to <Op>:<N> transformation with iterator: <path>: " naming the transformation and the
iterator path TF's default rewrites leave (stateless map parallelised, map + batch fused, no-op
take/skip/repeat/shard removed, shuffle + repeat fused, a Prefetch injected above a synchronous
root). Also ``tf.data.experimental.assert_cardinality``."""
from __future__ import annotations

import re

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

D = tf.data.Dataset
_HEAD = r"\{\{function_node __wrapped__IteratorGetNext_output_types_%d_device_/job:localhost/replica:0/task:0/device:CPU:0\}\} "
_TAIL = r" \[Op:IteratorGetNext\] name: $"


def _bad(x):
    return tf.gather(tf.constant([1]), x + 4)


def _mapped():
    return D.range(3).map(_bad)


def _error(make, cls=tf.errors.InvalidArgumentError):
    with pytest.raises(cls) as e:
        for _ in make():  # not list(): it asks len(), which a negative cardinality refuses
            pass
    return str(e.value)


def _prefixed(op, path, n=1):
    return re.compile(
        _HEAD % n + f"Error in user-defined function passed to {op}:\\d+ transformation with iterator: "
        f"{re.escape(path)}: indices = \\d is not in \\[0, 1\\)\n\t \\[\\[\\{{\\{{node GatherV2\\}}\\}}\\]\\]" + _TAIL
    )


@pytest.mark.parametrize("make, op, path", [
    (_mapped, "MapDataset", "Iterator::Root::ParallelMapV2"),
    (lambda: _mapped().map(lambda x: x + 1), "MapDataset", "Iterator::Root::ParallelMapV2::ParallelMapV2"),
    (lambda: _mapped().take(2), "MapDataset", "Iterator::Root::Prefetch::FiniteTake::ParallelMapV2"),
    (lambda: _mapped().take(-1), "MapDataset", "Iterator::Root::ParallelMapV2"),
    (lambda: _mapped().skip(1), "MapDataset", "Iterator::Root::Prefetch::FiniteSkip::ParallelMapV2"),
    (lambda: _mapped().skip(0), "MapDataset", "Iterator::Root::ParallelMapV2"),
    (lambda: _mapped().repeat(1), "MapDataset", "Iterator::Root::ParallelMapV2"),
    (lambda: _mapped().repeat().take(3), "MapDataset",
     "Iterator::Root::Prefetch::FiniteTake::ForeverRepeat[0]::ParallelMapV2"),
    (lambda: _mapped().repeat(2).batch(2), "MapDataset",
     "Iterator::Root::Prefetch::BatchV2::FiniteRepeat[0]::ParallelMapV2"),
    (lambda: _mapped().prefetch(2), "MapDataset", "Iterator::Root::Prefetch::ParallelMapV2"),
    (lambda: _mapped().shuffle(2), "MapDataset", "Iterator::Root::Prefetch::Shuffle::ParallelMapV2"),
    (lambda: _mapped().shuffle(2).repeat(2), "MapDataset",
     "Iterator::Root::Prefetch::ShuffleAndRepeat::ParallelMapV2"),
    (lambda: _mapped().cache(), "MapDataset", "Iterator::Root::Prefetch::MemoryCacheImpl::ParallelMapV2"),
    (lambda: _mapped().padded_batch(2), "MapDataset", "Iterator::Root::Prefetch::PaddedBatchV2::ParallelMapV2"),
    (lambda: _mapped().shard(1, 0), "MapDataset", "Iterator::Root::ParallelMapV2"),
    (lambda: _mapped().unique(), "MapDataset", "Iterator::Root::Prefetch::Unique::ParallelMapV2"),
    (lambda: _mapped().window(2).flat_map(lambda w: w), "MapDataset",
     "Iterator::Root::Prefetch::FlatMap::Window::ParallelMapV2"),
    (lambda: _mapped().scan(tf.constant(0, tf.int32), lambda s, x: (s + x, x)), "MapDataset",
     "Iterator::Root::Prefetch::Scan::ParallelMapV2"),
    (lambda: D.range(3).map(_bad, num_parallel_calls=2), "ParallelMapDatasetV2", "Iterator::Root::ParallelMapV2"),
    (lambda: D.range(2).flat_map(lambda x: D.from_tensors(_bad(x))), "FlatMapDataset",
     "Iterator::Root::Prefetch::FlatMap"),
    (lambda: D.range(2).interleave(lambda x: D.from_tensors(_bad(x))), "InterleaveDataset",
     "Iterator::Root::Prefetch::Interleave"),
    (lambda: D.range(2).interleave(lambda x: D.from_tensors(_bad(x)), num_parallel_calls=2),
     "ParallelInterleaveDatasetV4", "Iterator::Root::ParallelInterleaveV4"),
    # datasets made inside a function are not rewritten: a plain Map, under the cycle's slot
    (lambda: D.range(3).interleave(lambda x: _mapped(), cycle_length=2), "MapDataset",
     "Iterator::Root::Prefetch::Interleave[0]::Map"),
])
def test_user_function_error_names_transformation_and_path(make, op, path):
    text = _error(make)
    assert _prefixed(op, path).match(text), text


@pytest.mark.parametrize("make", [lambda: _mapped().enumerate(), lambda: D.zip((D.range(3), _mapped()))])
def test_zip_names_the_input_index(make):
    text = _error(make)
    assert _prefixed("MapDataset", "Iterator::Root::Prefetch::Zip[1]::ParallelMapV2", 2).match(text), text


def _pick(x):
    return tf.gather(tf.constant([True]), x)


def test_filter_at_the_root_gets_a_prefetch():
    text = _error(lambda: D.range(3).filter(_pick))
    assert "FilterDataset" in text and "Iterator::Root::Prefetch::Filter: indices = 1 is not in [0, 1)" in text


def test_stateful_map_is_not_parallelised():
    def stateful(x):
        return tf.gather(tf.constant([1]), x + 4 + tf.cast(tf.random.uniform([], 0, 1), tf.int64))

    text = _error(lambda: D.range(3).map(stateful))
    assert _prefixed("MapDataset", "Iterator::Root::Prefetch::Map").match(text), text


def _plus_one(x):
    return x + 1


def test_filter_below_a_map_keeps_the_maps_place():
    text = _error(lambda: D.range(3).filter(_pick).map(_plus_one))
    assert "FilterDataset" in text and "Iterator::Root::ParallelMapV2::Filter: indices = 1" in text


def test_structure_counts_components_and_every_entry_point_wraps():
    two = lambda: D.range(3).map(lambda x: (_bad(x), x))  # noqa: E731
    assert _prefixed("MapDataset", "Iterator::Root::ParallelMapV2", 2).match(_error(two))
    three = lambda: D.range(3).map(lambda x: {"a": _bad(x), "b": x, "c": x})  # noqa: E731
    assert _prefixed("MapDataset", "Iterator::Root::ParallelMapV2", 3).match(_error(three))
    for get in (lambda: iter(_mapped()).get_next(), lambda: next(iter(_mapped())),
                lambda: next(_mapped().as_numpy_iterator())):
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            get()
        assert _prefixed("MapDataset", "Iterator::Root::ParallelMapV2").match(str(e.value)), str(e.value)


def _rows(x):
    return tf.fill([x + 1, 2], x)


def test_map_then_batch_is_fused_and_unprefixed():
    text = _error(lambda: _mapped().batch(2))
    # (TF's MapAndBatch runs the map calls in parallel: whichever element fails first is reported)
    assert re.match(_HEAD % 1 + r"indices = [456] is not in \[0, 1\)\n\t \[\[\{\{node GatherV2\}\}\]\]" + _TAIL,
                    text), text
    # TF's MapAndBatch words a shape mismatch its own way
    text = _error(lambda: D.range(3).map(_rows).batch(3))
    assert re.match(_HEAD % 1 + re.escape("Cannot add tensor to the batch: number of elements does not match. "
                                          "Shapes are: [tensor]: [") + "[23]" + re.escape(",2], [batch]: [1,2]") + _TAIL,
                    text), text


def test_batch_of_different_shapes_without_a_map():
    make = lambda: D.from_generator(lambda: iter([[1, 2], [1, 2, 3]]), tf.int32).batch(2)  # noqa: E731
    text = _error(make)
    assert re.match(_HEAD % 1 + re.escape("Cannot batch tensors with different shapes in component 0. First "
                                          "element had shape [2] and element 1 had shape [3].") + _TAIL, text), text


_AC = tf.data.experimental.assert_cardinality


@pytest.mark.parametrize("make, found", [
    (lambda: D.range(3).apply(_AC(5)), "expected to contain 5 elements but contained only 3 elements."),
    (lambda: D.range(3).take(1).apply(_AC(2)), "expected to contain 2 elements but contained only 1 element."),
    (lambda: D.range(3).apply(_AC(2)), "expected to contain 2 elements but contained at least 3 elements."),
    (lambda: D.range(3).apply(_AC(1)), "expected to contain 1 element but contained at least 2 elements."),
    (lambda: D.range(3).apply(_AC(0)), "expected to contain 0 elements but contained at least 1 element."),
    (lambda: D.range(3).apply(_AC(-5)), "expected to contain -5 elements but contained at least 1 element."),
    (lambda: D.range(3).apply(_AC(tf.data.INFINITE_CARDINALITY)),
     "expected to contain an infinite number of elements but contained only 3 elements."),
])
def test_assert_cardinality_fails_on_another_count(make, found):
    text = _error(make, tf.errors.FailedPreconditionError)
    assert re.match(_HEAD % 1 + re.escape("Input dataset was " + found) + _TAIL, text), text


def test_assert_cardinality_declares_the_count():
    assert [int(x) for x in D.range(3).apply(_AC(3))] == [0, 1, 2]
    assert int(D.range(3).filter(lambda x: True).apply(_AC(3)).cardinality()) == 3
    assert int(D.range(3).apply(_AC(tf.data.UNKNOWN_CARDINALITY)).cardinality()) == -2
    assert int(D.range(3).repeat().apply(_AC(tf.data.INFINITE_CARDINALITY)).cardinality()) == -1
    assert repr(D.range(3).apply(_AC(3))).startswith("<_AssertCardinalityDataset element_spec=TensorSpec(shape=()")
    with pytest.raises(TypeError, match="Cannot convert 3.0 to EagerTensor of dtype int64"):
        D.range(3).apply(_AC(3.0))


def test_assert_cardinality_in_a_function_fails_at_run_time():
    @tf.function
    def f():
        s = tf.constant(0, tf.int64)
        for x in D.range(3).apply(_AC(4)):
            s += x
        return s

    with pytest.raises(tf.errors.FailedPreconditionError,
                       match="Input dataset was expected to contain 4 elements but contained only 3 elements."):
        f()


def test_in_a_function_next_names_the_iterator_op():
    @tf.function
    def next_of(it):
        return next(it)

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        next_of(iter(_mapped()))
    assert re.match(
        r"Graph execution error:\n\nDetected at node GatherV2 defined at \(most recent call last\):\n"
        r"<stack traces unavailable>\nError in user-defined function passed to MapDataset:\d+ transformation with "
        r"iterator: Iterator::Root::ParallelMapV2: indices = 4 is not in \[0, 1\)\n\t \[\[\{\{node GatherV2\}\}\]\]\n"
        r"\t \[\[IteratorGetNext\]\] \[Op:__inference_next_of_\d+\]$", str(e.value)), str(e.value)


def test_a_functions_for_loop_over_a_dataset_reads_as_tfs_scan_and_reduce():
    @tf.function
    def total():
        s = tf.constant(0, tf.int32)
        for x in _mapped():
            s += x
        return s

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        total()
    text = str(e.value)
    assert text.startswith("Graph execution error:\n\nDetected at node GatherV2 defined at (most recent call last):\n"
                           "<stack traces unavailable>\nError in user-defined function passed to MapDataset:"), text
    # fn's loop reads the iterator in a While (TF: a ReduceDataset op), so the last line differs
    assert re.search(r"transformation with iterator: ReduceIterator::Root::Prefetch::Scan::ParallelMapV2: "
                     r"indices = 4 is not in \[0, 1\)\n\t \[\[\{\{node GatherV2\}\}\]\]\n\t \[\[", text), text
