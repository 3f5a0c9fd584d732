"""tf.truncatediv / tf.truncatemod (TF 2.21 has no tf.math names for them): C's division and remainder (toward
zero), for the dtypes TF 2.21 has CPU kernels for; the dtypes its op definitions allow without a
kernel are NotFoundError, the others InvalidArgumentError (eager) / TypeError (tracing); integer
division by zero (TF's InternalError); broadcasting; in tf.function; TruncateMod's gradient (TF registers none:
LookupError). Expected values are NumPy's (np.fmod is C's remainder)."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

X = [7, -7, 7, -7, 0, 9, -9, 100]
Y = [5, 5, -5, -5, 3, 4, 4, -7]


def c_div(x, y):
    x, y = np.asarray(x), np.asarray(y)
    q = np.abs(x) // np.abs(y)
    return (np.sign(x) * np.sign(y) * q).astype(np.result_type(x, y))


DIV_KERNELS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
DIV_FLOATS = ["float16", "bfloat16", "float32", "float64"]
DIV_NO_KERNEL = ["complex64", "complex128"]
MOD_KERNELS = ["int32", "int64", "float32", "float64"]
MOD_NO_KERNEL = ["float16", "bfloat16"]
MOD_NOT_ALLOWED = ["int8", "int16", "uint8", "uint16"]


def pair(dtype, signed=True):
    xs, ys = (X, Y) if signed else ([abs(v) for v in X], [abs(v) for v in Y])
    return tf.cast(tf.constant(xs), dtype), tf.cast(tf.constant(ys), dtype), np.array(xs), np.array(ys)


@pytest.mark.parametrize("dtype", DIV_KERNELS)
def test_truncatediv_values(dtype):
    x, y, xn, yn = pair(dtype, signed=not dtype.startswith("uint"))
    got = tf.truncatediv(x, y)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got.numpy(), c_div(xn, yn).astype(dtype))


@pytest.mark.parametrize("dtype", DIV_FLOATS)
def test_truncatediv_floats_round_toward_zero(dtype):
    x = tf.cast(tf.constant([7.0, -7.0, 7.5, -7.5, 0.5]), dtype)
    y = tf.cast(tf.constant([2.0, 2.0, -2.0, 2.5, 4.0]), dtype)
    got = tf.cast(tf.truncatediv(x, y), tf.float32)
    assert tf.truncatediv(x, y).dtype == x.dtype
    np.testing.assert_array_equal(got.numpy(), [3.0, -3.0, -3.0, -3.0, 0.0])


@pytest.mark.parametrize("dtype", MOD_KERNELS)
def test_truncatemod_values(dtype):
    x, y, xn, yn = pair(dtype)
    got = tf.truncatemod(x, y)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got.numpy(), np.fmod(xn, yn).astype(dtype))


def test_no_math_names():
    assert not hasattr(tf.math, "truncatediv") and not hasattr(tf.math, "truncatemod")


def test_float_remainder_is_fmod():
    x = tf.constant([5.5, -5.5, 5.5, -5.5, 1.0, np.inf], tf.float64)
    y = tf.constant([2.0, 2.0, -2.0, -2.0, 0.0, 2.0], tf.float64)
    with np.errstate(invalid="ignore"):   # fmod(1, 0) and fmod(inf, 2) are NaN, as TF's
        want = np.fmod(x.numpy(), y.numpy())
    np.testing.assert_array_equal(tf.truncatemod(x, y).numpy(), want)


def test_python_numbers_and_broadcasting():
    assert tf.truncatediv(-7, 2).numpy() == -3
    assert tf.truncatemod(-7, 2).numpy() == -1
    x = tf.constant([[7], [-7]], tf.int64)
    np.testing.assert_array_equal(tf.truncatediv(x, [2, -3, 4]).numpy(), c_div([[7], [-7]], [2, -3, 4]))
    np.testing.assert_array_equal(tf.truncatemod(x, [2, -3, 4]).numpy(), np.fmod([[7], [-7]], [2, -3, 4]))


@pytest.mark.parametrize("dtype", DIV_NO_KERNEL)
def test_truncatediv_dtypes_without_kernel(dtype):
    with pytest.raises(tf.errors.NotFoundError):
        tf.truncatediv(tf.cast([4, 3], dtype), tf.cast([2, 2], dtype))

    @tf.function
    def f(a):
        return tf.truncatediv(a, a)

    # the definition allows complex: tracing works, running finds no kernel (TF's lookup error)
    cf = f.get_concrete_function(tf.TensorSpec([2], dtype))
    assert cf.structured_outputs.dtype == dtype
    with pytest.raises(tf.errors.InvalidArgumentError, match="No OpKernel was registered to support Op 'TruncateDiv'"):
        cf(tf.cast([4, 3], dtype))


@pytest.mark.parametrize("dtype", MOD_NO_KERNEL)
def test_truncatemod_dtypes_without_kernel(dtype):
    with pytest.raises(tf.errors.NotFoundError):
        tf.truncatemod(tf.cast([4, 3], dtype), tf.cast([2, 2], dtype))


@pytest.mark.parametrize("dtype", MOD_NOT_ALLOWED)
def test_truncatemod_dtypes_not_allowed(dtype):
    x = tf.cast([4, 3], dtype)
    with pytest.raises(tf.errors.InvalidArgumentError, match="is not in the list of allowed values"):
        tf.truncatemod(x, x)

    @tf.function
    def f(a):
        return tf.truncatemod(a, a)

    with pytest.raises(TypeError, match="not in list of allowed values"):
        f(x)


def test_bool_and_string_not_allowed():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.truncatediv(tf.constant([True]), tf.constant([True]))
    with pytest.raises(TypeError):
        tf.function(lambda a: tf.truncatediv(a, a))(tf.constant(["a"]))


@pytest.mark.parametrize("f", ["truncatediv", "truncatemod"])
def test_integer_division_by_zero(f):
    # TF 2.21's kernels report it as an InternalError (the generic binary-op error path)
    op = getattr(tf, f)
    message = r"only integer div and mod should have errors"
    with pytest.raises(tf.errors.InternalError, match=message):
        op(tf.constant([4, 5]), tf.constant([2, 0]))

    @tf.function
    def g(a, b):
        return op(a, b)

    with pytest.raises(tf.errors.InternalError, match=message):
        g(tf.constant([4, 5], tf.int64), tf.constant([0, 1], tf.int64))


def test_mismatched_dtypes():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.truncatediv(tf.constant([4]), tf.constant([2], tf.int64))


def test_in_function_node_names_and_values():
    @tf.function
    def f(a, b):
        return tf.truncatediv(a, b), tf.truncatemod(a, b)

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int32))
    types = [op.type for op in cf.graph.get_operations()]
    assert "TruncateDiv" in types and "TruncateMod" in types
    names = [op.name for op in cf.graph.get_operations()]
    assert "TruncateDiv" in names and "TruncateMod" in names
    q, r = cf(tf.constant(X), tf.constant(Y))
    np.testing.assert_array_equal(q.numpy(), c_div(X, Y))
    np.testing.assert_array_equal(r.numpy(), np.fmod(X, Y))


def test_gradients():
    x = tf.Variable([7.0, -7.0])
    y = tf.constant([2.0, 2.0])
    with tf.GradientTape() as tape:
        z = tf.reduce_sum(tf.truncatemod(x, y))
    with pytest.raises(LookupError, match="gradient registry has no entry for: TruncateMod"):
        tape.gradient(z, x)
