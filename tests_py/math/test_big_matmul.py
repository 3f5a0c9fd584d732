"""Big matmuls (over 2^22 multiply-adds): fn runs them as row or column blocks on a task pool
(cpp/kernels/task_pool.h). Odd shapes with tail blocks, one row, transposes, broadcast batches and
the fused dense chain, against float64 NumPy, and a NaN in one row or column of an operand
reaching exactly that row or column of the product (a block reading or writing the wrong slice
would move it)."""

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def rand(shape, seed):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def close(got, want, k):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=2e-5 * k)


@pytest.mark.parametrize(
    "m,k,n,ta,tb",
    [
        (1000, 301, 517, False, False),
        (1000, 301, 517, True, False),
        (1000, 301, 517, False, True),
        (517, 301, 1000, True, True),
        (1, 4099, 2051, False, False),
        (40, 2000, 1500, False, True),
        (33, 65536, 70, False, False),
        # right operands with rows 512 / 1024 / 2048 floats apart (copied with padded rows),
        # also under a transposed left operand and with 64 rows (the smallest that copies)
        (256, 784, 512, False, False),
        (784, 256, 512, True, False),
        (64, 512, 1024, False, False),
        (200, 256, 2048, False, False),
        # transposed left operands with columns 512 / 1024 floats apart (copied row-major first:
        # a small one by a tiled transpose, a big one by oneDNN's reorder)
        (512, 300, 1024, True, False),
        (1024, 512, 256, True, True),
        # 1024 rows or more sharing a right operand with rows 512 / 1024 / 2048 floats apart:
        # packed once into oneDNN's blocked layout (AVX-512), a tail block, a transposed left
        # operand; a transposed right operand and a narrow one are not packed
        (1024, 256, 512, False, False),
        (1100, 300, 2048, False, False),
        (1024, 512, 1024, True, False),
        (1024, 512, 512, False, True),
        (2048, 512, 10, False, False),
    ],
)
@pytest.mark.parametrize("in_function", [False, True])
def test_big_matmul_matches_float64(m, k, n, ta, tb, in_function):
    a = rand((k, m) if ta else (m, k), 1)
    b = rand((n, k) if tb else (k, n), 2)

    def f(x, y):
        return tf.matmul(x, y, transpose_a=ta, transpose_b=tb)

    got = (tf.function(f) if in_function else f)(tf.constant(a), tf.constant(b))
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    assert got.shape == (m, n)
    close(got, want, k)


def test_big_batch_matmul_broadcast_batch():
    a, b = rand((3, 200, 300), 3), rand((1, 300, 250), 4)
    got = tf.linalg.matmul(tf.constant(a), tf.constant(b))
    close(got, a.astype(np.float64) @ b.astype(np.float64), 300)


def test_big_batch_matmul_transposed_left_rows_2kib_apart():
    a, b = rand((2, 256, 512), 11), rand((2, 256, 300), 12)
    got = tf.linalg.matmul(tf.constant(a), tf.constant(b), transpose_a=True)
    close(got, np.swapaxes(a, 1, 2).astype(np.float64) @ b.astype(np.float64), 256)


@pytest.mark.parametrize("b_batch", [1, 3])
def test_big_batch_matmul_right_rows_2kib_apart(b_batch):
    # batched right operands with 512-float rows, broadcast or not, and a bias + relu epilogue
    a, b, bias = rand((3, 100, 300), 8), rand((b_batch, 300, 512), 9), rand((512,), 10)

    @tf.function
    def f(a, b, bias):
        return tf.nn.relu(tf.linalg.matmul(a, b) + bias)

    got = f(tf.constant(a), tf.constant(b), tf.constant(bias))
    close(got, np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0), 300)


def test_big_dense_relu_chain_in_function():
    x, w, bias = rand((1000, 512), 5), rand((512, 700), 6), rand((700,), 7)

    @tf.function
    def f(x, w, bias):
        return tf.nn.relu(tf.matmul(x, w) + bias)

    want = np.maximum(x.astype(np.float64) @ w.astype(np.float64) + bias, 0)
    close(f(tf.constant(x), tf.constant(w), tf.constant(bias)), want, 512)


@pytest.mark.parametrize("in_function", [False, True])
def test_nan_reaches_only_its_row_and_column(in_function):
    m, k, n = 1000, 300, 600
    a, b = rand((m, k), 8), rand((k, n), 9)
    a[777, 5] = np.nan  # row 777 of the product (in the pool's last row blocks)
    b[11, 599] = np.inf  # the product's last column: +-inf or nan
    f = tf.function(tf.matmul) if in_function else tf.matmul
    got = np.asarray(f(tf.constant(a), tf.constant(b)))
    bad = ~np.isfinite(got)
    assert bad[777].all()
    assert bad[:, 599].all()
    bad[777] = False
    bad[:, 599] = False
    assert not bad.any()


@pytest.mark.parametrize("width", [512, 1024])
def test_big_mlp_with_packed_weights_in_function(width):
    # the benchmark's dense chain: 1024+ rows through weights whose rows are 2/4 KiB apart (packed
    # per call), bias + relu epilogues, a narrow last layer (not packed)
    x = rand((1024, width), 20)
    w1, w2, w3 = rand((width, width), 21) / 16, rand((width, width), 22) / 16, rand((width, 10), 23)
    b1, b2, b3 = rand((width,), 24), rand((width,), 25), rand((10,), 26)

    @tf.function
    def net(x):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        h = tf.nn.relu(tf.matmul(h, w2) + b2)
        return tf.matmul(h, w3) + b3

    got = np.asarray(net(tf.constant(x)))
    want = x.astype(np.float64)
    for w, b, act in ((w1, b1, True), (w2, b2, True), (w3, b3, False)):
        want = want @ w.astype(np.float64) + b
        want = np.maximum(want, 0) if act else want
    close(got, want, width)


@pytest.mark.parametrize("m,k,n", [(1024, 512, 1024), (1100, 256, 512), (1024, 512, 10)])
def test_big_bfloat16_matmul(m, k, n):
    # bfloat16 products of 1024+ rows (AVX-512: the right operand packed into oneDNN's VNNI
    # layout; a narrow one is not): float32 accumulation, one rounding to bfloat16
    a = tf.cast(tf.constant(rand((m, k), 30)), tf.bfloat16)
    b = tf.cast(tf.constant(rand((k, n), 31)), tf.bfloat16)
    got = np.asarray(tf.cast(tf.function(tf.matmul)(a, b), tf.float32))
    want = np.asarray(tf.cast(a, tf.float32), np.float64) @ np.asarray(tf.cast(b, tf.float32), np.float64)
    assert got.shape == (m, n)
    np.testing.assert_allclose(got, want, rtol=2**-8, atol=1e-3 * k**0.5)
