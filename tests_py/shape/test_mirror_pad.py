"""tf.pad's REFLECT and SYMMETRIC modes (TF's MirrorPad and its gradient MirrorPadGrad): values
for every dtype TF's kernels take, ranks 0 to 5, int32/int64 paddings, eagerly and in
tf.function (static and unknown shapes), gradients (first and second order), TF's bounds on the
paddings and its error classes. Expected values are NumPy's np.pad (same modes), and gradients
the sum of the upstream gradient over the positions that copy each element."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

MODES = ["REFLECT", "SYMMETRIC"]


def np_mode(mode):
    return mode.lower()


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "bool":
        return (rng.integers(0, 2, n) > 0).reshape(shape)
    if dtype == "string":
        return np.array([f"s{i}".encode() for i in range(n)], dtype=object).reshape(shape)
    if dtype in ("complex64", "complex128"):
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype).reshape(shape)
    if dtype == "bfloat16":
        return rng.integers(-50, 50, n).astype(np.float32).reshape(shape)
    if np.issubdtype(np.dtype(dtype), np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), n).astype(dtype).reshape(shape)
    return rng.standard_normal(n).astype(dtype).reshape(shape)


def as_tensor(x, dtype):
    if dtype == "bfloat16":
        return tf.cast(tf.constant(x), tf.bfloat16)
    if dtype == "string":
        return tf.constant(x.tolist() if x.ndim else x.item(), tf.string)
    return tf.constant(x)


def values(t):
    if t.dtype == tf.bfloat16:
        t = tf.cast(t, tf.float32)
    return t.numpy()


ALL_DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
              "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_values_every_dtype(dtype, mode):
    x = sample([3, 4], dtype)
    pads = [[1, 2], [2, 0]]
    got = tf.pad(as_tensor(x, dtype), pads, mode)
    assert got.dtype == as_tensor(x, dtype).dtype
    np.testing.assert_array_equal(values(got), np.pad(x, pads, np_mode(mode)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [[5], [3, 4], [2, 3, 4], [2, 2, 3, 3], [2, 3, 2, 3, 2]])
def test_ranks_one_to_five(shape, mode):
    x = sample(shape, "float32", seed=len(shape))
    limit = 1 if mode == "REFLECT" else 0
    pads = [[min(1, d - limit), min(d - limit, 2)] for d in shape]
    got = tf.pad(tf.constant(x), pads, mode)
    np.testing.assert_array_equal(got.numpy(), np.pad(x, pads, np_mode(mode)))


@pytest.mark.parametrize("mode", MODES)
def test_rank_zero_and_no_padding(mode):
    got = tf.pad(tf.constant(3.5), tf.zeros([0, 2], tf.int32), mode)
    assert got.shape == [] and got.numpy() == 3.5
    x = sample([2, 3], "int32")
    np.testing.assert_array_equal(tf.pad(tf.constant(x), [[0, 0], [0, 0]], mode).numpy(), x)


@pytest.mark.parametrize("mode", ["reflect", "Symmetric"])
def test_mode_any_case_and_int64_paddings(mode):
    x = sample([3, 3], "float64")
    pads = tf.constant([[2, 1], [1, 2]], tf.int64)
    np.testing.assert_array_equal(tf.pad(x, pads, mode).numpy(), np.pad(x, [[2, 1], [1, 2]], mode.lower()))


def test_largest_paddings_allowed():
    x = sample([3], "int32")
    np.testing.assert_array_equal(tf.pad(x, [[2, 2]], "REFLECT").numpy(), np.pad(x, [[2, 2]], "reflect"))
    np.testing.assert_array_equal(tf.pad(x, [[3, 3]], "SYMMETRIC").numpy(), np.pad(x, [[3, 3]], "symmetric"))


@pytest.mark.parametrize("mode", MODES)
def test_in_function_static_and_unknown_shapes(mode):
    x = sample([3, 4], "float32")
    pads = [[1, 1], [2, 3]]

    @tf.function
    def f(t):
        return tf.pad(t, pads, mode)

    np.testing.assert_array_equal(f(tf.constant(x)).numpy(), np.pad(x, pads, np_mode(mode)))
    cf = f.get_concrete_function(tf.TensorSpec([None, 4], tf.float32))
    assert cf.structured_outputs.shape.as_list() == [None, 9]
    np.testing.assert_array_equal(cf(tf.constant(x)).numpy(), np.pad(x, pads, np_mode(mode)))

    @tf.function
    def g(t, p):
        return tf.pad(t, p, mode)

    cg = g.get_concrete_function(tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([2, 2], tf.int32))
    assert cg.structured_outputs.shape.rank == 2
    np.testing.assert_array_equal(cg(tf.constant(x), tf.constant(pads)).numpy(), np.pad(x, pads, np_mode(mode)))


def mirror_adjoint(shape, pads, mode, upstream):
    """The gradient of np.pad: each padded position adds its upstream value to its source."""
    index = np.arange(int(np.prod(shape))).reshape(shape)
    src = np.pad(index, pads, np_mode(mode))
    out = np.zeros(int(np.prod(shape)), upstream.dtype)
    np.add.at(out, src.reshape(-1), upstream.reshape(-1))
    return out.reshape(shape)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,pads", [([5], [[2, 3]]), ([3, 4], [[2, 1], [0, 3]]),
                                        ([2, 3, 4], [[1, 1], [2, 0], [1, 3]])])
def test_gradient(shape, pads, mode):
    if mode == "REFLECT":
        pads = [[min(a, d - 1), min(b, d - 1)] for (a, b), d in zip(pads, shape)]
    x = tf.constant(sample(shape, "float64"))
    out_shape = [d + a + b for d, (a, b) in zip(shape, pads)]
    w = tf.constant(sample(out_shape, "float64", seed=3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.pad(x, pads, mode) * w)
    g = tape.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), mirror_adjoint(shape, pads, mode, w.numpy()), rtol=1e-12)

    @tf.function
    def grad_in_function(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.pad(x, pads, mode) * w)
        return tape.gradient(y, x)

    np.testing.assert_allclose(grad_in_function(x).numpy(), g.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "complex64"])
def test_gradient_dtypes(dtype):
    x = as_tensor(sample([3, 3], dtype), dtype)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.pad(x, [[2, 2], [1, 2]], "SYMMETRIC")
    g = tape.gradient(y, x)
    assert g.dtype == x.dtype
    want = mirror_adjoint([3, 3], [[2, 2], [1, 2]], "SYMMETRIC", np.ones([7, 6]))
    np.testing.assert_array_equal(values(g), want.astype(values(g).dtype))


@pytest.mark.parametrize("mode", MODES)
def test_second_order_gradient(mode):
    # d/dw of the gradient of sum(pad(x) * w) is pad of the incoming gradient (MirrorPadGrad's
    # gradient is MirrorPad)
    x = tf.constant(sample([4], "float64"))
    w = tf.constant(sample([7], "float64", seed=5))
    pads = [[2, 1]]
    with tf.GradientTape() as outer:
        outer.watch(w)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.pad(x, pads, mode) * w)
        gx = inner.gradient(y, x)
        z = tf.reduce_sum(gx * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64))
    gw = outer.gradient(z, w)
    np.testing.assert_allclose(gw.numpy(), np.pad([1.0, 2.0, 3.0, 4.0], pads, np_mode(mode)))


@pytest.mark.parametrize("mode,pads,message", [
    ("REFLECT", [[3, 0]], "paddings must be less than the dimension size: 3, 0 not less than 3"),
    ("REFLECT", [[0, 5]], "paddings must be less than the dimension size: 0, 5 not less than 3"),
    ("SYMMETRIC", [[4, 0]], "paddings must be no greater than the dimension size: 4, 0 greater than 3"),
    ("SYMMETRIC", [[-1, 0]], "paddings must be non-negative: -1 0"),
])
def test_bounds_are_invalid_argument(mode, pads, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.pad(tf.constant([1.0, 2.0, 3.0]), pads, mode)


def test_bounds_in_function_at_run_time():
    @tf.function
    def f(t, p):
        return tf.pad(t, p, "REFLECT")

    with pytest.raises(tf.errors.InvalidArgumentError, match="paddings must be less than"):
        f(tf.constant([1.0, 2.0]), tf.constant([[2, 0]]))


def test_paddings_shape_errors():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"The first dimension of paddings must be the rank of inputs\[1,2\], \[2,2\]"):
        tf.pad(x, [[1, 1]], "REFLECT")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"paddings must be a matrix with 2 columns: \[2,3\]"):
        tf.pad(x, [[1, 1, 1], [1, 1, 1]], "SYMMETRIC")

    @tf.function
    def f(t):
        return tf.pad(t, [[1, 1]], "REFLECT")

    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        f(x)


def test_rank_above_five_is_unimplemented():
    with pytest.raises(tf.errors.UnimplementedError, match=r"inputs rank not in \[0,5\]: 6"):
        tf.pad(tf.ones([2] * 6), [[1, 1]] * 6, "REFLECT")


def test_unknown_mode_and_float_paddings():
    with pytest.raises(ValueError, match='expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC"'):
        tf.pad(tf.constant([1.0]), [[0, 0]], "WRAP")
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.pad(tf.constant([1.0, 2.0]), tf.constant([[1.0, 0.0]]), "REFLECT")


def test_tnp_pad_modes():
    tnp = tf.experimental.numpy
    x = sample([3, 4], "float32")
    for mode in ("reflect", "symmetric", "constant"):
        np.testing.assert_array_equal(tnp.pad(x, [[1, 2], [2, 1]], mode).numpy(), np.pad(x, [[1, 2], [2, 1]], mode))
    with pytest.raises(tf.errors.InvalidArgumentError, match="paddings must be less than"):
        tnp.pad(x, [[3, 0], [0, 0]], "reflect")
