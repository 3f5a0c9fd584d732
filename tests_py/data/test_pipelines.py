"""tf.data as input pipelines use it: padded_batch, window, interleave, shard, grouping,
bucketing, scan, unique, ignore_errors, take_while, choose/sample_from_datasets, options,
save/load, text and CSV files, and shuffle orders equal to TF's for a seed."""

import collections
import os

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def values(ds):
    return [tf.nest.map_structure(lambda t: np.asarray(t.numpy()).tolist(), e) for e in ds]


def test_shuffle_order_is_tfs():
    ds = tf.data.Dataset.range(10).shuffle(4, seed=42)
    assert values(ds) == [1, 4, 2, 3, 5, 0, 6, 8, 7, 9]
    assert values(ds) == [3, 4, 2, 0, 1, 8, 5, 7, 9, 6]  # reshuffled on the next iteration
    fixed = tf.data.Dataset.range(20).shuffle(100, seed=7, reshuffle_each_iteration=False).repeat(2)
    first = [7, 5, 9, 18, 4, 13, 16, 3, 6, 15, 10, 12, 1, 8, 2, 11, 0, 14, 19, 17]
    assert values(fixed) == first * 2
    tf.random.set_seed(5)
    assert values(tf.data.Dataset.range(8).shuffle(8)) == [1, 5, 2, 0, 3, 6, 4, 7]
    assert values(tf.data.Dataset.range(8).shuffle(3)) == [1, 0, 3, 2, 4, 5, 6, 7]
    assert values(tf.data.Dataset.range(12).shuffle(5).repeat(2)) == [
        3,
        5,
        4,
        7,
        0,
        1,
        2,
        6,
        8,
        10,
        9,
        11,
        1,
        3,
        5,
        7,
        0,
        6,
        4,
        2,
        9,
        8,
        11,
        10,
    ]
    tf.random.set_seed(None)


def test_padded_batch():
    ds = tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
    got = values(ds.padded_batch(2))
    assert got == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]], [[5, 5, 5, 5, 5]]]
    assert values(ds.padded_batch(2, padded_shapes=[6], padding_values=tf.constant(-1, tf.int64), drop_remainder=True))[
        0
    ] == [[1, -1, -1, -1, -1, -1], [2, 2, -1, -1, -1, -1]]
    assert ds.padded_batch(2, drop_remainder=True).element_spec == tf.TensorSpec([2, None], tf.int64)
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [[1.0, 2.0], [3.0, 4.0]])).padded_batch(2)
    assert values(pairs) == [([1, 2], [[1.0, 2.0], [3.0, 4.0]])]
    with pytest.raises(tf.errors.DataLossError, match="Attempted to pad to a smaller size than the input element"):
        list(ds.padded_batch(2, padded_shapes=[3]))


def test_window_and_flat_map():
    r = tf.data.Dataset.range(10)
    windows = r.window(3, shift=2)
    assert [values(w) for w in windows] == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8], [8, 9]]
    batched = r.window(4, shift=3, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(4))
    assert values(batched) == [[0, 2, 4, 6], [3, 5, 7, 9]]
    assert isinstance(windows.element_spec, tf.data.DatasetSpec)
    pairs = tf.data.Dataset.zip((r, r)).window(2)
    a, b = next(iter(pairs))
    assert values(a) == [0, 1] and values(b) == [0, 1]
    with pytest.raises(tf.errors.InvalidArgumentError):
        r.window(0)


def test_interleave_orders():
    r = tf.data.Dataset.range(1, 6)

    def rep(x):
        return tf.data.Dataset.from_tensors(x).repeat(x)

    expected = values(r.interleave(rep, cycle_length=2, block_length=2))
    assert expected == [1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 4, 4, 5, 5, 5]
    assert values(r.interleave(rep, cycle_length=2, block_length=2, num_parallel_calls=2)) == expected
    assert (
        values(
            r.interleave(rep, cycle_length=2, block_length=2, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
        )
        == expected
    )
    assert values(r.interleave(lambda x: tf.data.Dataset.range(x), cycle_length=3)) == [
        0,
        0,
        0,
        1,
        1,
        0,
        2,
        1,
        0,
        2,
        1,
        3,
        2,
        3,
        4,
    ]


def test_parallel_map_order():
    r = tf.data.Dataset.range(50)
    assert values(r.map(lambda x: x * x, num_parallel_calls=4)) == [i * i for i in range(50)]
    assert values(r.map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)) == list(range(1, 51))


def test_shard_scan_unique_take_while():
    r = tf.data.Dataset.range(10)
    assert values(r.shard(3, 1)) == [1, 4, 7]
    assert int(r.shard(3, 1).cardinality()) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="Index must be between 0 and 2"):
        r.shard(3, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Number of shards must be greater than zero"):
        r.shard(0, 0)
    assert values(r.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 2))) == [0, 0, 2, 6, 12, 20, 30, 42, 56, 72]
    assert values(tf.data.Dataset.from_tensor_slices([1, 3, 1, 2, 3]).unique()) == [1, 3, 2]
    assert values(tf.data.Dataset.from_tensor_slices(["a", "b", "a"]).unique()) == [b"a", b"b"]
    with pytest.raises(TypeError):
        tf.data.Dataset.from_tensor_slices([1.0, 2.0]).unique()
    assert values(r.take_while(lambda x: x < 4)) == [0, 1, 2, 3]
    assert values(tf.data.experimental.Counter(2, 3).take(3)) == [2, 5, 8]
    assert values(tf.data.Dataset.counter(start=1).take(2)) == [1, 2]


def test_group_by_window_and_bucketing():
    r = tf.data.Dataset.range(10)
    got = values(r.group_by_window(lambda x: x % 3, lambda k, w: w.batch(2), window_size=2))
    assert got == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]
    seqs = r.map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
    b = values(seqs.bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 6], [2, 2, 2]))
    assert b == [
        [[0], [1]],
        [[3, 3, 3, 0], [4, 4, 4, 4]],
        [[6, 6, 6, 6, 6, 6, 0], [7, 7, 7, 7, 7, 7, 7]],
        [[8] * 8 + [0], [9] * 9],
        [[2, 2]],
        [[5] * 5],
    ]


def test_ignore_errors():
    r = tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0])
    bad = r.map(lambda x: tf.debugging.check_numerics(1.0 / x, "inf"))
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(bad)
    assert values(bad.ignore_errors()) == [1.0, 0.5]
    assert values(bad.apply(tf.data.experimental.ignore_errors())) == [1.0, 0.5]


def test_choose_and_sample_from_datasets():
    a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)
    choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 0, 0], tf.int64))
    assert values(tf.data.Dataset.choose_from_datasets([a, b], choice)) == [0, 10, 11, 1, 2]
    assert values(tf.data.Dataset.choose_from_datasets([a, b], choice, stop_on_empty_dataset=False)) == [
        0,
        10,
        11,
        1,
        2,
    ]
    with pytest.raises(TypeError):
        tf.data.Dataset.choose_from_datasets([a, b], tf.data.Dataset.range(2).map(lambda x: tf.cast(x, tf.int32)))
    mixed = values(tf.data.Dataset.sample_from_datasets([a, b], [0.5, 0.5], seed=3))
    assert sorted(mixed) == [0, 1, 2, 10, 11, 12]
    assert [x for x in mixed if x < 10] == [0, 1, 2]


def test_rejection_resample_is_tfs():
    tf.random.set_seed(1)
    r = tf.data.Dataset.range(200).map(lambda x: tf.cast(x % 4 == 0, tf.int64))
    out = r.rejection_resample(lambda x: x, target_dist=[0.5, 0.5], initial_dist=[0.75, 0.25], seed=1)
    assert out.element_spec == (tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int64))
    got = values(out.take(30))
    assert all(c == x for c, x in got)
    assert [c for c, _ in got] == [
        1,
        0,
        1,
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        1,
        1,
        0,
        0,
        1,
        0,
        1,
        1,
        1,
        0,
        1,
        0,
        0,
        1,
        0,
        1,
        0,
        1,
        1,
        0,
    ]
    estimated = r.rejection_resample(lambda x: x, target_dist=[0.5, 0.5], seed=2)
    assert [c for c, _ in values(estimated.take(30))] == [
        1,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        1,
        0,
        1,
        0,
        0,
        1,
        0,
        0,
        0,
    ]
    tf.random.set_seed(None)


def test_options():
    ds = tf.data.Dataset.range(3)
    opts = tf.data.Options()
    opts.deterministic = False
    opts.threading.private_threadpool_size = 2
    ds2 = ds.with_options(opts)
    assert ds2.options().deterministic is False
    assert ds2.options().threading.private_threadpool_size == 2
    assert ds.options().deterministic is None
    assert values(ds2) == [0, 1, 2]
    with pytest.raises(AttributeError):
        opts.no_such_option = 1


def test_save_load_snapshot(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2, 3]}, ["x", "y", "z"]))
    path = str(tmp_path / "saved")
    ds.save(path)
    back = tf.data.Dataset.load(path)
    assert back.element_spec == ds.element_spec
    assert values(back) == values(ds)
    snap = tf.data.Dataset.range(4).map(lambda x: x * 3).snapshot(str(tmp_path / "snap"))
    assert values(snap) == [0, 3, 6, 9]
    assert values(snap) == [0, 3, 6, 9]


def test_text_and_csv_files(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"one\ntwo\r\n\nlast")
    assert values(tf.data.TextLineDataset(str(p))) == [b"one", b"two", b"", b"last"]
    c = tmp_path / "m.csv"
    c.write_text("1,2,3,4\n,2,3,4\n1,,3,4\n1,2,,4\n1,2,3,\n,,,\n")
    ds = tf.data.experimental.CsvDataset(str(c), [999, 999, 999, 999]).map(lambda *items: tf.stack(items))
    assert values(ds) == [
        [1, 2, 3, 4],
        [999, 2, 3, 4],
        [1, 999, 3, 4],
        [1, 2, 999, 4],
        [1, 2, 3, 999],
        [999, 999, 999, 999],
    ]
    sel = tf.data.experimental.CsvDataset(str(c), [999, 999], select_cols=[1, 3])
    assert values(sel)[:2] == [(2, 4), (2, 4)]
    req = tf.data.experimental.CsvDataset(str(c), [tf.int32, tf.int32, tf.int32, tf.int32])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required but missing in record!"):
        list(req)
    h = tmp_path / "h.csv"
    h.write_text("survived,sex,fare\n0,male,7.25\n1,female,71.5\n1,female,8.05\n")
    typed = tf.data.experimental.CsvDataset(str(h), [tf.int32, tf.string, tf.float32], header=True)
    assert values(typed) == [(0, b"male", 7.25), (1, b"female", 71.5), (1, b"female", 8.050000190734863)]
    batches = tf.data.experimental.make_csv_dataset(
        str(h), batch_size=2, label_name="survived", num_epochs=1, shuffle=False
    )
    feats, label = next(iter(batches))
    assert isinstance(feats, collections.OrderedDict) and list(feats) == ["sex", "fare"]
    assert label.numpy().tolist() == [0, 1] and label.dtype == tf.int32
    assert feats["fare"].dtype == tf.float32 and feats["sex"].numpy().tolist() == [b"male", b"female"]
    files = tf.data.Dataset.list_files(str(tmp_path / "*.csv"), shuffle=False)
    assert [os.path.basename(f.decode()) for f in values(files)] == ["h.csv", "m.csv"]


def test_dataset_in_function():
    ds = tf.data.Dataset.range(6).padded_batch(2).map(lambda x: tf.reduce_sum(x))

    @tf.function
    def total(d):
        s = tf.constant(0, tf.int64)
        for x in d:
            s += x
        return s

    assert int(total(ds)) == 15
    assert int(total(tf.data.Dataset.range(5).shard(2, 0).map(lambda x: tf.reduce_sum(tf.reshape(x, [1]))))) == 6


def test_iterator_in_checkpoint(tmp_path):
    it = iter(tf.data.Dataset.range(20))
    ckpt = tf.train.Checkpoint(step=tf.Variable(0), iterator=it)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "ck"), max_to_keep=3)
    assert [int(next(it)) for _ in range(5)] == [0, 1, 2, 3, 4]
    manager.save()
    assert [int(next(it)) for _ in range(5)] == [5, 6, 7, 8, 9]
    ckpt.restore(manager.latest_checkpoint)
    assert [int(next(it)) for _ in range(5)] == [5, 6, 7, 8, 9]
    shuffled = iter(tf.data.Dataset.range(10).shuffle(10, seed=1).repeat(3))
    first = [int(next(shuffled)) for _ in range(13)]
    assert first[:10] == values(tf.data.Dataset.range(10).shuffle(10, seed=1))
    c = tf.train.Checkpoint(it=shuffled)
    path = c.write(str(tmp_path / "it"))
    after = [int(next(shuffled)) for _ in range(8)]
    c.restore(path)
    assert [int(next(shuffled)) for _ in range(8)] == after


def test_composite_elements_and_generators():
    st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    assert tf.data.Dataset.from_tensors(st).element_spec == tf.SparseTensorSpec([3, 4], tf.int32)
    rows = list(tf.data.Dataset.from_tensor_slices(st))
    assert rows[1].indices.numpy().tolist() == [[2]] and rows[1].values.numpy().tolist() == [2]
    assert rows[1].dense_shape.numpy().tolist() == [4]
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    ds = tf.data.Dataset.from_tensor_slices(rt)
    assert ds.element_spec == tf.RaggedTensorSpec([None], tf.int32, 0, tf.int64)
    assert [x.numpy().tolist() for x in ds] == [[1, 2], [3], [4, 5, 6]]

    def gen():
        yield 1, {"a": tf.ragged.constant([[1], [2, 3]])}
        yield 2, {"a": tf.ragged.constant([[4]])}

    sig = (tf.TensorSpec([], tf.int32), {"a": tf.RaggedTensorSpec([None, None], tf.int32)})
    got = [(int(i), d["a"].to_list()) for i, d in tf.data.Dataset.from_generator(gen, output_signature=sig)]
    assert got == [(1, [[1], [2, 3]]), (2, [[4]])]

    def lists():
        yield 1, {"a": [[1], [2, 3]]}

    with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the expected structure"):
        list(tf.data.Dataset.from_generator(lists, output_signature=sig))

    def series():
        for i in range(3):
            yield i, np.arange(i, dtype=np.float32)

    s = tf.data.Dataset.from_generator(series, output_types=(tf.int32, tf.float32), output_shapes=((), (None,)))
    assert s.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([None], tf.float32))
    assert values(s.padded_batch(3))[0][1] == [[0, 0], [0, 0], [0, 1]]


def test_strings_substr_filter(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("survived,sex\n0,male\n1,female\n1,male\n")
    lines = tf.data.TextLineDataset(str(p)).skip(1)
    survivors = lines.filter(lambda line: tf.not_equal(tf.strings.substr(line, 0, 1), "0"))
    assert values(survivors) == [b"1,female", b"1,male"]
    assert tf.strings.substr("hello", -3, 2).numpy() == b"ll"
    with pytest.raises(tf.errors.InvalidArgumentError, match="pos 9 out of range"):
        tf.strings.substr("hello", 9, 1)


def test_parallel_map_and_interleave_overlap():
    """Elements are computed concurrently: four 0.3 s host calls take well under 1.2 s."""
    import time

    def slow(x):
        time.sleep(0.3)
        return x

    def mapped(x):
        return tf.py_function(slow, [x], tf.int64)

    ds = tf.data.Dataset.range(4).map(mapped, num_parallel_calls=4)
    start = time.perf_counter()
    assert values(ds) == [0, 1, 2, 3]
    assert time.perf_counter() - start < 0.9
    inter = tf.data.Dataset.range(4).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).map(mapped), cycle_length=4, num_parallel_calls=4
    )
    start = time.perf_counter()
    assert sorted(values(inter)) == [0, 1, 2, 3]
    assert time.perf_counter() - start < 0.9


def test_cache_to_file(tmp_path):
    calls = []

    def note(x):
        calls.append(int(x))
        return x

    ds = tf.data.Dataset.range(3).map(lambda x: tf.py_function(note, [x], tf.int64))
    cached = ds.cache(str(tmp_path / "c"))
    assert values(cached) == [0, 1, 2]
    assert values(cached) == [0, 1, 2]
    assert calls == [0, 1, 2]
    mem = ds.cache()
    calls.clear()
    assert values(mem) == [0, 1, 2] and values(mem) == [0, 1, 2] and calls == [0, 1, 2]


def test_generator_errors_are_unknown_errors():
    def gen():
        yield 1
        raise KeyError("boom")

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int32))
    it = iter(ds)
    assert int(next(it)) == 1
    with pytest.raises(tf.errors.UnknownError, match="KeyError: 'boom'"):
        next(it)


def test_csv_ignore_errors(tmp_path):
    c = tmp_path / "bad.csv"
    c.write_text("1,2\nx,3\n4\n5,6\n")
    ds = tf.data.experimental.CsvDataset(str(c), [tf.int32, tf.int32])
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(ds)
    assert values(ds.ignore_errors()) == [(1, 2), (5, 6)]


def test_cardinalities():
    r = tf.data.Dataset.range(10)
    cases = [
        r.padded_batch(3),
        r.padded_batch(3, drop_remainder=True),
        r.window(3),
        r.shard(4, 3),
        r.shuffle(4),
        r.scan(tf.constant(0, tf.int64), lambda s, x: (s, x)),
        r.unique(),
        r.take_while(lambda x: True),
        r.interleave(lambda x: tf.data.Dataset.from_tensors(x)),
        tf.data.Dataset.counter(),
        r.ignore_errors(),
        r.with_options(tf.data.Options()),
        r.repeat().take(7),
    ]
    got = [int(d.cardinality()) for d in cases]
    assert got == [4, 3, 4, 2, 10, 10, -2, -2, -2, -1, -2, 10, 7]


def test_random_and_sample_from_datasets_are_tfs():
    assert values(tf.data.Dataset.random(seed=42).take(4)) == [2985944072, 4132877644, 929418493, 249609589]
    two = [tf.data.Dataset.range(0, 100), tf.data.Dataset.range(100, 200)]
    assert values(tf.data.Dataset.sample_from_datasets(two, [0.3, 0.7], seed=7).take(12)) == [
        100,
        0,
        101,
        1,
        102,
        103,
        104,
        105,
        2,
        106,
        107,
        108,
    ]
    three = two + [tf.data.Dataset.range(200, 300)]
    assert values(tf.data.Dataset.sample_from_datasets(three, seed=3).take(12)) == [
        100,
        101,
        200,
        0,
        201,
        102,
        103,
        202,
        104,
        1,
        203,
        2,
    ]


def test_reprs_are_tfs():
    r = tf.data.Dataset.range(6)
    ds = [
        r.padded_batch(2),
        r.window(2),
        r.interleave(lambda x: tf.data.Dataset.from_tensors(x), cycle_length=2),
        r.interleave(lambda x: tf.data.Dataset.from_tensors(x), cycle_length=2, num_parallel_calls=2),
        r.shard(2, 0),
        r.unique(),
        r.ignore_errors(),
        r.take_while(lambda x: x < 3),
        r.group_by_window(lambda x: x % 2, lambda k, w: w.batch(2), window_size=2),
        r.with_options(tf.data.Options()),
        tf.data.Dataset.counter(),
        tf.data.Dataset.random(seed=1),
        r.map(lambda x: x, num_parallel_calls=2),
        r.scan(tf.constant(0, tf.int64), lambda s, x: (s, x)),
        tf.data.Dataset.sample_from_datasets([r, r], seed=1),
        tf.data.Dataset.choose_from_datasets([r, r], r.map(lambda x: x % 2)),
        r.map(lambda x: tf.fill([2], x)).bucket_by_sequence_length(lambda x: tf.shape(x)[0], [2], [2, 2]),
    ]
    expected = [
        '<_PaddedBatchDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)>',
        '<_WindowDataset element_spec=DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))>',
        '<_InterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_ParallelInterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_ShardDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_UniqueDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_IgnoreErrorsDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_TakeWhileDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_GroupByWindowDataset element_spec=TensorSpec(shape=(None,), dtype=tf.int64, name=None)>',
        '<_OptionsDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_ScanDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_RandomDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_ParallelMapDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_ScanDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_DirectedInterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_DirectedInterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>',
        '<_GroupByWindowDataset element_spec=TensorSpec(shape=(None, 2), dtype=tf.int64, name=None)>',
    ]
    assert [repr(d).replace("fn.", "tf.") for d in ds] == expected


def test_reduce_func_may_update_its_state_in_place():
    # the data guide's class counter: `counts[k] += ...` on the state dict it is handed
    ds = tf.data.Dataset.from_tensor_slices((tf.zeros([5, 2]), tf.constant([0, 1, 1, 0, 1])))

    def count(counts, batch):
        _, labels = batch
        counts["class_0"] += tf.reduce_sum(tf.cast(labels == 0, tf.int32))
        counts["class_1"] += tf.reduce_sum(tf.cast(labels == 1, tf.int32))
        return counts

    out = ds.batch(2).reduce(initial_state={"class_0": 0, "class_1": 0}, reduce_func=count)
    assert {k: int(v) for k, v in out.items()} == {"class_0": 2, "class_1": 3}
    f = tf.function(lambda: ds.batch(2).reduce(initial_state={"class_0": 0, "class_1": 0}, reduce_func=count))
    assert {k: int(v) for k, v in f().items()} == {"class_0": 2, "class_1": 3}


def test_dataset_returning_functions_run_their_python_once_at_trace_time():
    """flat_map/interleave/group_by_window trace their function once; each element runs the
    traced graph, so a Python side effect fires once (TF's StructuredFunctionWrapper)."""
    calls = []

    def make(x):
        calls.append("flat_map")
        return tf.data.Dataset.from_tensors(x).repeat(2)

    def reduce(key, window):
        calls.append("reduce")
        return window.batch(2)

    flat = tf.data.Dataset.range(3).flat_map(make)
    inter = tf.data.Dataset.range(3).interleave(make, cycle_length=2)
    grouped = tf.data.Dataset.range(4).group_by_window(lambda x: x % 2, reduce, window_size=2)
    assert [int(v) for v in flat] == [0, 0, 1, 1, 2, 2]
    assert [int(v) for v in inter] == [0, 1, 0, 1, 2, 2]
    assert [list(v.numpy()) for v in grouped] == [[0, 2], [1, 3]]
    assert calls == ["flat_map", "flat_map", "reduce"]


def test_a_dataset_function_whose_map_reads_the_element():
    ds = tf.data.Dataset.range(3).flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(2).map(lambda y: y * x + 1))
    assert [int(v) for v in ds] == [1, 1, 2, 2, 5, 5]


def test_a_dataset_built_in_a_function_maps_with_the_functions_tensors():
    """A ``map``/``filter`` inside a Function reading the Function's argument: each call runs
    with that call's value (TF passes the captures as the dataset op's inputs)."""

    @tf.function
    def total(x):
        ds = tf.data.Dataset.range(5).map(lambda y: y * x).filter(lambda y: y < 4 * x)
        s = tf.constant(0, tf.int64)
        for e in ds:
            s += e
        return s

    assert int(total(tf.constant(2, tf.int64))) == 12
    assert int(total(tf.constant(3, tf.int64))) == 18


def test_a_flat_map_whose_inner_map_reads_the_element_runs_its_python_once():
    calls = []

    def make(x):
        calls.append(1)
        return tf.data.Dataset.from_tensors(x).repeat(2).map(lambda y: y * x + 1)

    assert [int(v) for v in tf.data.Dataset.range(3).flat_map(make)] == [1, 1, 2, 2, 5, 5]
    assert len(calls) == 1
