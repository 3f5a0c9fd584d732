"""Exception classes the fuzz agreement tool (tools/fuzz_tf_agreement.py) found differing from
TF 2.21, each pinned to TF's class eagerly and, where TF's differs, while tracing."""
from __future__ import annotations

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def traced(f):
    return tf.function(f, autograph=False)()


def test_dtype_enum_ints_and_non_sequence_shapes():
    assert tf.zeros([2], 3).dtype == tf.int32          # DT_INT32
    assert tf.as_dtype(9) == tf.int64
    with pytest.raises(TypeError):
        tf.as_dtype(99)
    with pytest.raises(ValueError, match="Attempt to convert a value \\(None\\)"):
        tf.tile(tf.constant(1.0), None)


def test_divide_no_nan_and_tensordot_argument_checks():
    with pytest.raises(TypeError, match="must have the same dtype"):
        tf.math.divide_no_nan(tf.constant([1]), tf.constant([1.0]))
    with pytest.raises(ValueError, match="Different number of contraction axes"):
        tf.tensordot(tf.ones([2, 2]), tf.ones([2, 2]), axes=[[0, 1], [0]])
    with pytest.raises(TypeError):
        tf.tensordot(tf.ones([2, 2]), tf.ones([2, 2]), axes=[[0], ["a"]])


@pytest.mark.parametrize("axis", [5, -3, 2])
def test_softmax_cross_entropy_axis_out_of_range(axis):
    logits = tf.ones([2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires start <= limit"):
        tf.nn.softmax_cross_entropy_with_logits(labels=logits, logits=logits, axis=axis)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires start <= limit"):
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant(1.0), logits=tf.constant(1.0), axis=1)


def test_stateless_uniform_argument_checks():
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.string)
    with pytest.raises(ValueError, match="must be both None or not None"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)


def test_sparse_split_axis_out_of_range():
    sp = tf.sparse.SparseTensor([[0, 1], [0, 0]], [5, -1], tf.constant([1, 5], tf.int64))
    for axis in (3, -3, 2):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input axis should be in range"):
            tf.sparse.split(sp, num_split=1, axis=axis)


def test_string_ops_given_numbers():
    with pytest.raises(tf.errors.InvalidArgumentError, match="was expected to be a string tensor"):
        tf.strings.length(tf.constant([1]))
    with pytest.raises(TypeError, match="expected type of string"):
        traced(lambda: tf.strings.length(tf.constant([1])))
    with pytest.raises(ValueError, match="Tensor conversion requested dtype string"):
        tf.strings.split(tf.constant([1]))


def test_depthwise_conv2d_filter_rank():
    x = tf.ones([1, 4, 5, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="filter must be 4-dimensional"):
        tf.nn.depthwise_conv2d(x, tf.constant(1.0), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="must be rank 4"):
        traced(lambda: tf.nn.depthwise_conv2d(x, tf.constant(1.0), [1, 1, 1, 1], "SAME"))


def test_ragged_reduction_axis_type():
    rt = tf.ragged.constant([[1, 2], [], [3]])
    with pytest.raises(TypeError, match="axis must be an int"):
        tf.reduce_sum(rt, axis=tf.constant("a"))


def test_slices_beyond_int32_and_scalar_matrix_norm():
    x = tf.reshape(tf.range(8.0), [2, 4, 1])
    assert x[1 : 2**40].shape == (1, 4, 1)
    assert tf.function(lambda: x[-(2**40) : 1], autograph=False)().shape == (1, 4, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        tf.linalg.norm(tf.constant(0.0), ord=1, axis=[-2, -1])


@pytest.mark.parametrize("run", [lambda f: f(), traced], ids=["eager", "traced"])
def test_tensordot_axes_past_the_rank_are_index_errors(run):
    # TF's documented IndexError (its Python code indexes the shape with the axis), a's axes
    # first; a scalar operand was a ZeroDivisionError in fn (axis % rank)
    with pytest.raises(IndexError):
        run(lambda: tf.tensordot(tf.ones([0, 2, 1]), tf.constant(1.0), axes=[[3], [5]]))
    with pytest.raises(IndexError):
        run(lambda: tf.tensordot(tf.ones([2, 3]), tf.constant(1.0), axes=[[1], [0]]))
    with pytest.raises(IndexError):    # N is checked against a's rank only: b's axes index past b
        run(lambda: tf.tensordot(tf.ones([2, 3]), tf.ones([3]), axes=2))
    with pytest.raises(IndexError):
        run(lambda: tf.tensordot(tf.ones([3, 2]), tf.ones([2, 3]), axes=[[-9], [0]]))


def test_tensordot_axes_past_the_rank_with_unknown_dims():
    f = tf.function(lambda a: tf.tensordot(a, tf.ones([2, 3]), axes=[[2], [0]]),
                    input_signature=[tf.TensorSpec([None, 2], tf.float32)], autograph=False)
    with pytest.raises(IndexError):
        f(tf.ones([4, 2]))
    g = tf.function(lambda a: tf.tensordot(a, tf.ones([2, 3]), axes=[[1], [0]]),
                    input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    np.testing.assert_allclose(g(tf.ones([4, 2])).numpy(), np.full([4, 3], 2.0))


def test_tensordot_contracted_dims_are_matmuls_check():
    # TF reshapes both operands and lets MatMul compare the contracted sizes
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.tensordot(tf.ones([2, 3]), tf.ones([4, 5]), 1)
    with pytest.raises(ValueError):
        traced(lambda: tf.tensordot(tf.ones([2, 3]), tf.ones([4, 5]), 1))
    # products that agree contract, as in TF: [2, 3] with [3, 2] over both axes
    r = tf.tensordot(tf.reshape(tf.range(6.0), [2, 3]), tf.reshape(tf.range(6.0), [3, 2]), [[0, 1], [0, 1]])
    assert float(r) == float(np.dot(np.arange(6.0), np.arange(6.0)))
    with pytest.raises(TypeError):
        tf.tensordot(tf.ones([2, 3]), tf.ones([3, 2]), axes=[0, [1]])   # len() of an int, as in TF


def test_random_shape_must_be_a_vector():
    with pytest.raises(ValueError, match="must be rank 1"):   # TF's MakeShapeFromShapeTensor while tracing
        traced(lambda: tf.random.normal([[0]], stddev=1.5))
    with pytest.raises(ValueError, match="must be rank 1"):
        traced(lambda: tf.random.stateless_uniform([[2]], seed=[1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.random.normal([[0]])


def test_reduce_variance_checks_in_tfs_order():
    # Mean's dtype check first (bool), then the wrapper's integer TypeError
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.reduce_std([[False], [False]], axis=1)
    with pytest.raises(TypeError):
        traced(lambda: tf.math.reduce_std([[False], [False]], axis=1))
    with pytest.raises(TypeError, match="Input must be either real or complex"):
        tf.math.reduce_variance(tf.constant([1, 2]))
    assert float(tf.math.reduce_std(tf.constant([1.0, 3.0]))) == 1.0


def test_sparse_dense_shape_minus_one_is_an_unknown_dim():
    # TF's constant_value_as_shape reads -1 as unknown; SparseToDense's kernel refuses it
    sp = tf.sparse.SparseTensor([[0, 0]], [2], [3, -1])
    assert sp.shape.as_list() == [3, None]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.sparse.to_dense(sp)
    with pytest.raises(ValueError):
        tf.sparse.SparseTensor([[0, 0]], [2], [3, -3])


def test_map_fn_argument_classes():
    with pytest.raises(TypeError, match="Could not build a TypeSpec"):
        tf.map_fn(lambda x: x, 2**70, fn_output_signature=tf.int64)
    with pytest.raises(TypeError, match="'parallel_iterations' must be a positive integer"):
        tf.map_fn(lambda x: x * 2, tf.ones([2, 3]), parallel_iterations=-1)
    assert tf.map_fn(lambda x: x * 2, tf.ones([2]), parallel_iterations=0).numpy().tolist() == [2.0, 2.0]
