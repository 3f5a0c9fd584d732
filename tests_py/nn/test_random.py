"""fn.random: shapes, dtypes, ranges, moments, TensorFlow's seed scheme (same numbers as TF 2.21
for the same seeds), stateful draws (new numbers per call, also inside functions)."""
import numpy as np
import pytest

import fn


@pytest.fixture(autouse=True)
def _reset_seed():
    yield
    fn.random.set_seed(None)


def test_shapes_dtypes_ranges_and_moments():
    fn.random.set_seed(0)
    u = fn.random.uniform([200, 300])
    assert u.dtype == fn.float32 and u.shape.as_list() == [200, 300]
    a = u.numpy()
    assert a.min() >= 0 and a.max() < 1
    assert abs(a.mean() - 0.5) < 0.01 and abs(a.std() - np.sqrt(1 / 12)) < 0.01
    n = fn.random.normal([200, 300], dtype=fn.float64).numpy()
    assert n.dtype == np.float64 and abs(n.mean()) < 0.02 and abs(n.std() - 1) < 0.02
    i = fn.random.uniform([10000], minval=-3, maxval=4, dtype=fn.int32).numpy()
    assert i.dtype == np.int32 and i.min() == -3 and i.max() == 3
    assert set(np.unique(i)) == set(range(-3, 4))
    big = fn.random.uniform([1000], minval=2 ** 40, maxval=2 ** 41, dtype=fn.int64).numpy()
    assert big.min() >= 2 ** 40 and big.max() < 2 ** 41
    for dt in (fn.float16, fn.bfloat16, fn.float64):
        assert fn.random.uniform([3], dtype=dt).dtype == dt and fn.random.normal([3], dtype=dt).dtype == dt
    assert fn.random.uniform([0, 3]).shape.as_list() == [0, 3]
    assert fn.random.normal(fn.constant([2, 2])).shape.as_list() == [2, 2]


def test_same_numbers_as_tensorflow_for_the_same_seeds():
    fn.random.set_seed(1)
    np.testing.assert_array_equal(fn.random.uniform([5], seed=2).numpy(),
                                  np.float32([0.40639675, 0.8575996, 0.05539584, 0.08587229, 0.4121536]))
    np.testing.assert_array_equal(fn.random.uniform([5], seed=2).numpy(),     # the stream continues
                                  np.float32([0.15982985, 0.39126372, 0.9523847, 0.5843681, 0.7269217]))
    np.testing.assert_array_equal(fn.random.uniform([3], maxval=10, dtype=fn.int32, seed=3).numpy(), [7, 2, 9])
    np.testing.assert_allclose(fn.random.normal([3]).numpy(), [-1.1012203, 1.5457517, 0.383644], rtol=1e-6)
    fn.random.set_seed(7)
    np.testing.assert_array_equal(fn.random.uniform([3], dtype=fn.float64, seed=1).numpy(),
                                  [0.6829988210061904, 0.7644455197285209, 0.5717619417559234])
    np.testing.assert_allclose(fn.random.normal([3], dtype=fn.float64, seed=1).numpy(),
                               [-0.8696319824548957, 0.07914863432130274, 0.9160808535474514], rtol=1e-14)
    np.testing.assert_array_equal(
        fn.random.uniform([3], minval=-5, maxval=10 ** 12, dtype=fn.int64, seed=1).numpy(),
        [735654566749, 506072655906, 253336214342])
    np.testing.assert_array_equal(fn.random.uniform([5], dtype=fn.float16, seed=1).numpy(),
                                  np.float16([0.390625, 0.4208984375, 0.7919921875, 0.10546875, 0.4833984375]))
    np.testing.assert_array_equal(fn.random.normal([5], dtype=fn.float16, seed=1).numpy(),
                                  np.float16([-0.541015625, 1.1220703125, 1.173828125, -0.86376953125, 1.0126953125]))
    np.testing.assert_array_equal(fn.random.uniform([2]).numpy(), np.float32([0.834453821182251, 0.23336660861968994]))
    np.testing.assert_array_equal(fn.random.uniform([2]).numpy(), np.float32([0.01905345916748047, 0.6496551036834717]))
    fn.random.set_seed(None)
    np.testing.assert_array_equal(fn.random.uniform([2], seed=5).numpy(), np.float32([0.3883112668991089, 0.6636828184127808]))


def test_set_seed_restarts_sequences_and_draws_differ():
    fn.random.set_seed(3)
    a = [fn.random.uniform([4]).numpy() for _ in range(3)]
    fn.random.set_seed(3)
    b = [fn.random.uniform([4]).numpy() for _ in range(3)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1])
    fn.random.set_seed(None)
    assert not np.array_equal(fn.random.uniform([4]).numpy(), fn.random.uniform([4]).numpy())


def test_random_ops_in_functions_are_stateful_and_seeded_like_tensorflow():
    fn.random.set_seed(7)

    @fn.function
    def f():
        return fn.random.uniform([2]), fn.random.uniform([2]), fn.random.normal([2], seed=3)

    first, second = [[t.numpy() for t in f()] for _ in range(2)]
    np.testing.assert_array_equal(first[0], np.float32([0.7537285089492798, 0.07793760299682617]))
    np.testing.assert_array_equal(first[1], np.float32([0.4603748321533203, 0.9285181760787964]))
    np.testing.assert_allclose(first[2], [0.9447038173675537, -0.9667906761169434], rtol=1e-6)
    np.testing.assert_array_equal(second[0], np.float32([0.39710164070129395, 0.6849350929260254]))
    np.testing.assert_allclose(second[2], [1.1952472925186157, -0.844708263874054], rtol=1e-6)
    c = f.get_concrete_function()
    types = [op.type for op in c.graph.get_operations()]
    assert types.count("RandomUniform") == 2 and types.count("RandomStandardNormal") == 1


def test_unseeded_functions_draw_new_numbers_each_call():
    g = fn.function(lambda: fn.random.normal([3]))
    assert not np.array_equal(g().numpy(), g().numpy())


def test_scaled_ranges():
    fn.random.set_seed(4)
    u = fn.random.uniform([1000], minval=-2.0, maxval=3.0).numpy()
    assert u.min() >= -2 and u.max() < 3 and u.min() < -1.9 and u.max() > 2.9
    n = fn.random.normal([20000], mean=5.0, stddev=0.5).numpy()
    assert abs(n.mean() - 5) < 0.02 and abs(n.std() - 0.5) < 0.02


def test_random_errors():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        fn.random.uniform([2], dtype=fn.int32)
    with pytest.raises(fn.errors.InvalidArgumentError, match="Need minval < maxval: 5 >= 5"):
        fn.random.uniform([2], minval=5, maxval=5, dtype=fn.int32)
    with pytest.raises(ValueError, match="Invalid dtype"):
        fn.random.normal([2], dtype=fn.int32)
