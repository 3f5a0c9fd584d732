"""Exception classes of the second agreement round (tools/fuzz_tf_agreement.py): errors found while
tracing are op_def_library's and the shape functions' (TypeError for dtypes, ValueError for shapes
and attr values), eagerly the kernels' (InvalidArgumentError, NotFoundError for a dtype an op
accepts but has no CPU kernel for); graph constants fail as TF's make_tensor_proto does."""

from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def traced(f):
    return tf.function(f, autograph=False)()


def raises(cls, f, match=None):
    with pytest.raises(cls, match=match):
        f()


def test_shape_rule_failures_while_tracing_are_value_errors():
    x = tf.ones([2, 3])
    raises(ValueError, lambda: traced(lambda: tf.expand_dims(x, [0, 1])))
    raises(tf.errors.InvalidArgumentError, lambda: tf.expand_dims(x, [0, 1]))
    # ArgMax's dimension must be a scalar while tracing; a vector input reduces to a scalar
    spec = tf.TensorSpec(None, tf.float32)
    f = tf.function(lambda a: tf.argmax(a, axis=tf.constant([0])), input_signature=[spec], autograph=False)
    raises(ValueError, f.get_concrete_function)
    # (a vector's shape rule does not look at the axis: the kernel refuses it when the graph runs)
    raises(tf.errors.InvalidArgumentError, lambda: traced(lambda: tf.argmin(tf.constant([3.0, 1.0]), axis=-5)))


def test_attr_values_outside_the_op_definition():
    s = tf.constant(["ab", "c"])
    raises(ValueError, lambda: traced(lambda: tf.strings.length(s, unit="bad")), "Attr 'unit'")
    raises(tf.errors.InvalidArgumentError, lambda: tf.strings.length(s, unit="bad"))
    raises(ValueError, lambda: traced(lambda: tf.strings.substr(s, 0, 1, unit="x")), "Attr 'unit'")
    raises(TypeError, lambda: traced(lambda: tf.strings.to_number(s, out_type=tf.string)), "out_type")
    raises(tf.errors.InvalidArgumentError, lambda: tf.strings.to_number(s, out_type=tf.string))
    img, w = tf.ones([1, 3, 3, 1]), tf.ones([1, 1, 1, 1])
    raises(tf.errors.InvalidArgumentError, lambda: tf.nn.conv2d(img, w, 1, "bad"))
    raises(TypeError, lambda: tf.strings.join([s, s], separator=3), "Expected string")


@pytest.mark.parametrize("op", ["cholesky", "eigh", "svd", "det", "solve"])
def test_float16_linalg_has_no_cpu_kernel(op):
    a = tf.cast(tf.eye(2) * 3, tf.float16)
    f = {"cholesky": tf.linalg.cholesky, "eigh": tf.linalg.eigh, "svd": tf.linalg.svd, "det": tf.linalg.det,
         "solve": lambda m: tf.linalg.solve(m, m)}[op]
    raises(tf.errors.NotFoundError, lambda: f(a))
    raises(tf.errors.InvalidArgumentError, lambda: traced(lambda: f(a)), "No OpKernel was registered")
    raises(TypeError, lambda: traced(lambda: f(tf.eye(2, dtype=tf.int32))), "not in list of allowed values")


def test_float16_inverse_and_qr_compute():
    a = np.array([[4.0, 1.0], [2.0, 3.0]], np.float16)
    inv = tf.linalg.inv(tf.constant(a))
    assert inv.dtype == tf.float16
    np.testing.assert_allclose(inv.numpy().astype(np.float32), np.linalg.inv(a.astype(np.float32)), rtol=1e-2)
    q, r = tf.linalg.qr(tf.constant(a))
    np.testing.assert_allclose((q.numpy() @ r.numpy()).astype(np.float32), a.astype(np.float32), atol=2e-2)


def test_solve_batch_dims_must_agree_while_tracing():
    a, b = tf.ones([0, 1, 1]), tf.ones([2, 1, 1])
    raises(ValueError, lambda: traced(lambda: tf.linalg.solve(a, b)), "must be equal")


def test_graph_constants_of_huge_ints_and_mixed_lists():
    raises(TypeError, lambda: traced(lambda: tf.constant([2**64])), "Failed to convert elements")
    raises(OverflowError, lambda: traced(lambda: tf.constant([2**64], tf.int64)))
    raises(OverflowError, lambda: traced(lambda: tf.linalg.band_part(tf.ones([1, 1]), 2**64, 4)))
    raises(ValueError, lambda: tf.constant([2**64]), "out-of-range integer")
    raises(ValueError, lambda: tf.constant([2, "ab"]), "mixed types")
    raises(TypeError, lambda: traced(lambda: tf.constant([[1], ["a"]])), "Failed to convert elements")
    raises(TypeError, lambda: traced(lambda: tf.constant(np.array([1, "a"], dtype=object))), "binary or unicode")
    raises(ValueError, lambda: tf.constant("\ud800", dtype=tf.int64), "unicode")
    raises(ValueError, lambda: tf.strings.length(np.arange(3.0)), "Unsupported object type float")
    raises(TypeError, lambda: traced(lambda: tf.random.uniform([2**64])), "Failed to convert elements")


def test_inputs_convert_in_the_op_definitions_order_while_tracing():
    t = tf.constant([1.0, 2.0])
    assert tf.multiply(2, t).dtype == tf.float32  # eagerly: to the tensor's dtype
    raises(TypeError, lambda: traced(lambda: tf.multiply(2, t)), "does not match type int32")
    raises(TypeError, lambda: traced(lambda: tf.math.floordiv(np.arange(2, dtype="int16"), tf.constant(1, tf.int64))))
    assert tf.math.floordiv(np.arange(2, dtype="int16"), tf.constant(1, tf.int64)).dtype == tf.int64
    raises(TypeError, lambda: tf.reduce_any([[1.5]]), "to EagerTensor of dtype bool")
    raises(TypeError, lambda: traced(lambda: tf.reduce_any(tf.ones([2]), axis=[2**64])), "expected type of bool")
    raises(tf.errors.InvalidArgumentError, lambda: tf.tile(tf.ones([2]), [0.5]), "Tmultiples")
    raises(tf.errors.InvalidArgumentError, lambda: tf.math.reduce_std(tf.ones([2]), axis=["a"]), "Tidx")
    raises(TypeError, lambda: tf.linspace(1.0, "", 5))
    raises(TypeError, lambda: tf.random.stateless_normal([-1], seed=[], stddev="ab"))
    raises(TypeError, lambda: tf.argmax(tf.ones([2]), axis=tf.constant("a")), "axis tensor dtypes")
    raises(tf.errors.InvalidArgumentError, lambda: tf.argmin(tf.ones([2]), axis=tf.constant("a")), "Tidx")
    raises(tf.errors.InvalidArgumentError, lambda: tf.nn.bias_add(tf.ones([2], tf.int64), tf.ones([2], tf.float64)))
    raises(ValueError, lambda: traced(lambda: tf.nn.bias_add(tf.ones([2], tf.int64), tf.ones([2], tf.float64))))


def test_einsum_checks_the_operand_count_then_dtypes():
    i, b = tf.constant(1, tf.int64), tf.constant([True])
    raises(tf.errors.InvalidArgumentError, lambda: tf.einsum("bij,bjk->bik", i, b), "expected to be a int64")
    raises(ValueError, lambda: tf.einsum("", tf.ones([1, 2]), i, b))
    raises(TypeError, lambda: traced(lambda: tf.einsum("ij,jk->ik", tf.ones([1, 1]), tf.ones([1, 1], tf.float64))))


def test_composite_checks_known_while_building():
    raises(ValueError, lambda: tf.nn.depthwise_conv2d(tf.ones([]), tf.ones([1, 1, 1, 1]), [1, 1, 1, 1], "SAME"),
           "rank` must be at least 3")
    raises(ValueError, lambda: traced(lambda: tf.RaggedTensor.from_value_rowids(tf.ones([0]), [-2], nrows=-3)),
           "Expected nrows >= 0")
    raises(ValueError, lambda: tf.RaggedTensor.from_value_rowids(tf.ones([1]), [3], nrows=3), "Expected nrows >=")
    raises(ValueError, lambda: tf.RaggedTensor.from_value_rowids(tf.ones([3]), [], nrows=7), "incompatible")
    raises(ValueError, lambda: tf.RaggedTensor.from_row_splits(tf.ones([0, 3]), []), "may not be empty")
    sp = tf.sparse.SparseTensor([[0, 1]], [1.0], [2, 3])
    raises(ValueError, lambda: traced(lambda: tf.sparse.sparse_dense_matmul(sp, tf.ones([3]))), "rank 2")
    raises(TypeError, lambda: traced(lambda: tf.sparse.sparse_dense_matmul(sp, tf.ones([3, 1], tf.float64))))
    raises(tf.errors.InvalidArgumentError, lambda: tf.sparse.sparse_dense_matmul(sp, tf.ones([3, 1], tf.float64)))
    raises(ValueError, lambda: traced(lambda: tf.random.stateless_normal([], seed=[2])), "must be 2")
    raises(tf.errors.InvalidArgumentError, lambda: tf.random.stateless_normal([], seed=[2]))


def test_second_round_classes():
    raises(tf.errors.InvalidArgumentError, lambda: tf.concat([], 2))
    raises(TypeError, lambda: tf.random.normal([-1, 5], stddev=""))
    raises(ValueError, lambda: traced(lambda: tf.random.uniform([2, -3], dtype=tf.int32, maxval=2)), "Invalid value")
    raises(ValueError, lambda: traced(lambda: tf.random.stateless_normal([-3, 2], seed=[1, 2])), "Invalid value")
    raises(TypeError, lambda: tf.math.reduce_std(tf.ones([2], tf.int64)), "real or complex")
    raises(tf.errors.InvalidArgumentError, lambda: tf.reduce_any(tf.ones([2], tf.int32)), "expected to be a bool")
    sp = tf.sparse.SparseTensor([[0, 1]], [1.0], [2, 3])
    raises(ValueError, lambda: traced(lambda: tf.sparse.split(sp, num_split=-3, axis=1)), "less than minimum")
    raises(tf.errors.InvalidArgumentError, lambda: tf.sparse.split(sp, num_split=-3, axis=1))
    spi = tf.sparse.SparseTensor([[0, 1]], [1], [2, 3])
    raises(TypeError, lambda: traced(lambda: tf.sparse.add(spi, sp)), "b_values")
    img = tf.ones([3, 3, 3])
    raises(ValueError, lambda: traced(lambda: tf.image.resize(img, tf.constant([3, 3], tf.int64))), "1-D int32")
    raises(ValueError, lambda: tf.RaggedTensor.from_row_lengths(tf.ones([2]), [2**64]), "out-of-range")
    raises(OverflowError, lambda: traced(lambda: tf.RaggedTensor.from_row_lengths(tf.ones([2]), [2**64])))
