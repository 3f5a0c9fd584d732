"""tf.SparseTensor and tf.sparse: printing, conversions, arithmetic, reordering, reductions,
bad indices and shapes (TF's kernel messages), tf.function arguments and gradients."""
import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle

S = tf.sparse.SparseTensor
P = "tf" if IS_TF else "fn"   # printed module prefix


def _st(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


def test_repr_and_to_dense():
    st = S(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    assert str(st) == (f"SparseTensor(indices={P}.Tensor(\n[[0 0]\n [1 2]], shape=(2, 2), dtype=int64), "
                       f"values={P}.Tensor([1 2], shape=(2,), dtype=int32), "
                       f"dense_shape={P}.Tensor([3 4], shape=(2,), dtype=int64))")
    assert st.shape == tf.TensorShape([3, 4]) and st.dtype == tf.int32 and st.indices.dtype == tf.int64
    assert tf.sparse.to_dense(st).numpy().tolist() == [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]
    d = tf.sparse.to_dense(S([[0, 0]], [1.5], [2, 2]), default_value=-1)
    assert d.numpy().tolist() == [[1.5, -1.0], [-1.0, -1.0]]
    assert tf.SparseTensor is tf.sparse.SparseTensor


def test_from_dense_roundtrip():
    st = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    assert _st(st) == ([[0, 0], [0, 3], [2, 2]], [1, 8, 3], [3, 4])
    assert tf.sparse.to_dense(st).numpy().tolist() == [[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]]


@pytest.mark.parametrize("indices,msg", [
    ([[5, 0]], "indices[0] = [5,0] is out of bounds: need 0 <= index < [3,4]"),
    ([[-1, 0]], "indices[0] = [-1,0] is out of bounds: need 0 <= index < [3,4]"),
    ([[1, 0], [0, 0]], "indices[1] = [0,0] is out of order. Many sparse ops require sorted indices.\n"
                       "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"),
    ([[1, 0], [1, 0]], "indices[1] = [1,0] is repeated"),
])
def test_to_dense_validates_indices(indices, msg):
    st = S(indices, list(range(len(indices))), [3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.to_dense(st)
    assert str(e.value) == ("{{function_node __wrapped__SparseToDense_device_/job:localhost/replica:0/task:0/"
                            f"device:CPU:0}}}} {msg} [Op:SparseToDense] name: ")


def test_to_dense_unvalidated_unordered():
    st = S([[1, 0], [0, 0]], [1, 2], [3, 4])
    assert tf.sparse.to_dense(st, validate_indices=False).numpy().tolist() == [[2, 0, 0, 0], [1, 0, 0, 0],
                                                                              [0, 0, 0, 0]]


@pytest.mark.parametrize("args,msg", [
    (([[0, 0]], [1, 2], [3, 4]), "Dimensions 1 and 2 are not compatible"),
    (([0, 0], [1], [3, 4]), "Shape (2,) must have rank 2"),
    (([[0, 0]], [1], [3, 4, 5]), "Dimensions 2 and 3 are not compatible"),
])
def test_constructor_shape_errors(args, msg):
    with pytest.raises(ValueError) as e:
        S(*args)
    assert str(e.value) == msg


def test_add_sparse_sparse_and_dense():
    a = S([[0, 2], [3, 4]], [31, 2], [4, 10])
    b = S([[0, 2], [3, 0]], [56, 38], [4, 10])
    assert _st(tf.sparse.add(a, b)) == ([[0, 2], [3, 0], [3, 4]], [87, 38, 2], [4, 10])
    c = tf.sparse.add(S([[0, 0], [1, 1]], [1., 2.], [3, 4]), S([[0, 0]], [-1.], [3, 4]), threshold=0.5)
    assert _st(c) == ([[1, 1]], [2.0], [3, 4])
    d = tf.sparse.add(S([[0, 1]], [5], [2, 2]), tf.ones([2, 2], tf.int32))
    assert d.numpy().tolist() == [[1, 6], [1, 1]]


def test_add_shape_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Operands' shapes do not match: got 4 and 5 for "
                                                             r"dimension 1 \[Op:SparseAdd\] name: $"):
        tf.sparse.add(S([[0, 0]], [1], [3, 4]), S([[0, 0]], [1], [3, 5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension 1 does not equal \(no broadcasting is "
                                                             r"supported\): sparse side 4 vs dense side 5"):
        tf.sparse.add(S([[0, 0]], [1], [3, 4]), tf.ones([3, 5], tf.int32))


def test_sparse_dense_matmul():
    st = S(indices=([0, 1], [1, 0], [1, 1]), values=[13, 15, 17], dense_shape=(2, 2))
    assert tf.sparse.sparse_dense_matmul(st, tf.constant([[4], [6]])).numpy().tolist() == [[78], [162]]
    a = S([[0, 1], [2, 0]], [2., 3.], [3, 2])
    b = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    dense = tf.sparse.to_dense(a)
    np.testing.assert_array_equal(tf.sparse.sparse_dense_matmul(a, b).numpy(), tf.matmul(dense, b).numpy())
    np.testing.assert_array_equal(tf.sparse.sparse_dense_matmul(a, tf.transpose(b), adjoint_b=True).numpy(),
                                  tf.matmul(dense, b).numpy())
    np.testing.assert_array_equal(tf.sparse.sparse_dense_matmul(a, tf.ones([3, 2]), adjoint_a=True).numpy(),
                                  tf.matmul(dense, tf.ones([3, 2]), transpose_a=True).numpy())


def test_sparse_dense_matmul_errors():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.sparse_dense_matmul(S([[0, 0]], [1.5], [3, 4]), tf.ones([3, 2]))
    assert "Cannot multiply A and B because inner dimension does not match: 4 vs. 3.  Did you forget a " \
           "transpose?  Dimensions of A: [3, 4).  Dimensions of B: [3,2] [Op:SparseTensorDenseMatMul]" in str(e.value)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"k \(5\) from index\[0,1\] out of bounds \(>=4\)"):
        tf.sparse.sparse_dense_matmul(S([[0, 5]], [1.5], [3, 4]), tf.ones([4, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.sparse_dense_matmul(S([[0, 0]], [1], [3, 4]), tf.ones([4, 2]))
    assert str(e.value) == ("cannot compute SparseTensorDenseMatMul as input #3(zero-based) was expected to be a "
                            "int32 tensor but is a float tensor [Op:SparseTensorDenseMatMul] name: ")


def test_reorder_transpose_reshape_retain_slice():
    st = S([[1, 0], [0, 3]], [1, 2], [3, 4])
    assert _st(tf.sparse.reorder(st)) == ([[0, 3], [1, 0]], [2, 1], [3, 4])
    assert _st(tf.sparse.transpose(st)) == ([[0, 1], [3, 0]], [1, 2], [4, 3])
    assert _st(tf.sparse.reshape(st, [4, 3])) == ([[1, 1], [1, 0]], [1, 2], [4, 3])
    assert _st(tf.sparse.reshape(st, [-1, 2])) == ([[2, 0], [1, 1]], [1, 2], [6, 2])
    assert _st(tf.sparse.retain(st, [True, False])) == ([[1, 0]], [1], [3, 4])
    assert _st(tf.sparse.slice(st, [0, 1], [5, 5])) == ([[0, 2]], [2], [3, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input to reshape is a tensor with 12 dense values, "
                                                             r"but the requested shape has 10. input_shape=\[3,4\] "
                                                             r"output_shape=\[5,2\] \[Op:SparseReshape\]"):
        tf.sparse.reshape(st, [5, 2])


def test_concat():
    a = S([[1, 0]], [1], [3, 4])
    b = S([[0, 3]], [2], [2, 4])
    assert _st(tf.sparse.concat(0, [a, b])) == ([[1, 0], [3, 3]], [1, 2], [5, 4])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.concat(1, [a, b])
    assert str(e.value) == ("{{function_node __wrapped__SparseConcat_N_2_device_/job:localhost/replica:0/task:0/"
                            "device:CPU:0}} Input shapes must match: expected 3 for dimension 0 but got 2 at "
                            "position 1 [Op:SparseConcat] name: ")
    c = tf.sparse.concat(1, [S([[0, 0], [2, 1]], [1, 2], [3, 2]), S([[1, 0]], [3], [3, 1])])
    assert _st(c) == ([[0, 0], [1, 2], [2, 1]], [1, 3, 2], [3, 3])
    e2 = tf.sparse.concat(1, [a, b], expand_nonconcat_dims=True)
    assert e2.dense_shape.numpy().tolist() == [3, 8]


def test_reductions():
    st = S([[1, 0], [0, 0]], [1, 2], [3, 4])
    assert tf.sparse.reduce_sum(st, axis=1).numpy().tolist() == [2, 1, 0]
    assert _st(tf.sparse.reduce_sum(st, axis=1, output_is_sparse=True)) == ([[0], [1]], [2, 1], [3])
    assert tf.sparse.reduce_max(st, axis=0, keepdims=True).numpy().tolist() == [[2, 0, 0, 0]]
    neg = S([[1, 0], [0, 0]], [-1, -2], [3, 4])
    assert tf.sparse.reduce_max(neg, axis=1).numpy().tolist() == [-2, -1, 0]
    assert int(tf.sparse.reduce_max(tf.sparse.from_dense([-5, 0, -3]))) == -3
    assert int(tf.sparse.reduce_sum(st)) == 3
    st3 = S([[1, 0], [0, 0], [1, 2]], [1, 2, 5], [3, 4])
    assert _st(tf.sparse.reduce_sum(st3, output_is_sparse=True)) == ([[]], [8], [])
    assert _st(tf.sparse.reduce_sum(st3, axis=1, keepdims=True, output_is_sparse=True)) == \
        ([[0, 0], [1, 0]], [2, 6], [3, 1])
    assert _st(tf.sparse.reduce_max(st3, axis=0, keepdims=True, output_is_sparse=True)) == \
        ([[0, 0], [0, 2]], [2, 5], [1, 4])
    assert tf.sparse.reduce_max(st3, axis=0, keepdims=True).numpy().tolist() == [[2, 0, 5, 0]]
    assert tf.sparse.reduce_sum(st3, axis=[0, 1], keepdims=True).numpy().tolist() == [[8]]
    assert _st(tf.sparse.reduce_max(st3, axis=1, output_is_sparse=True)) == ([[0], [1]], [2, 5], [3])


def test_map_values_and_unary_dispatch():
    st = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    assert tf.sparse.to_dense(tf.sparse.map_values(tf.add, st, 5)).numpy().tolist() == \
        [[6, 0, 0, 13], [0, 0, 0, 0], [0, 0, 8, 0]]
    neg = tf.sparse.from_dense([[-1.0, 0.0], [0.0, 4.0]])
    assert tf.math.abs(neg).values.numpy().tolist() == [1.0, 4.0]
    assert tf.math.sqrt(tf.math.abs(neg)).values.numpy().tolist() == [1.0, 2.0]
    assert tf.math.negative(neg).values.numpy().tolist() == [1.0, -4.0]
    np.testing.assert_allclose(tf.math.erf(neg).values.numpy(), [-0.8427008, 1.0], rtol=1e-6)
    assert isinstance(tf.math.tanh(neg), tf.SparseTensor)
    with pytest.raises(ValueError, match="Attempt to convert a value"):
        tf.math.exp(neg)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Mismatched indices!"):
        tf.sparse.map_values(tf.add, tf.sparse.from_dense([[1, 0], [0, 2]]), tf.sparse.from_dense([[0, 1], [0, 2]]))
    assert (st * 2).values.numpy().tolist() == [2, 16, 6]


def test_function_argument_trace_type():
    traces = []

    @tf.function
    def f(x, y):
        traces.append(str(x.indices.shape))
        return tf.sparse.sparse_dense_matmul(x, y)

    a = S([[0, 3], [2, 4]], [15, 25], [3, 10])
    b = tf.sparse.to_dense(tf.sparse.transpose(a))
    assert f(a, b).numpy().tolist() == [[225, 0, 0], [0, 0, 0], [0, 0, 625]]
    assert f(S([[0, 3]], [1], [3, 10]), b).numpy().tolist() == [[15, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert traces == ["(None, 2)"]
    sig = f.get_concrete_function(a, b).structured_input_signature
    assert repr(sig[0][0]).startswith(f"SparseTensorSpec(TensorShape([3, 10]), {P}.int32)")


def test_input_signature_and_sparse_output():
    g = tf.function(lambda x: tf.sparse.reorder(x),
                    input_signature=[tf.SparseTensorSpec([None, 4], tf.float32)])
    out = g(S([[1, 0], [0, 3]], [1., 2.], [3, 4]))
    assert isinstance(out, tf.SparseTensor)
    assert _st(out) == ([[0, 3], [1, 0]], [2.0, 1.0], [3, 4])
    assert repr(tf.SparseTensorSpec([None, 4], tf.float32)) == f"SparseTensorSpec(TensorShape([None, 4]), {P}.float32)"


def test_gradients_wrt_values():
    v = tf.Variable([1., 2.])
    b = tf.Variable(tf.ones([2, 2]))
    with tf.GradientTape() as t:
        s = S([[0, 0], [1, 1]], v, [2, 2])
        loss = tf.reduce_sum(tf.sparse.sparse_dense_matmul(s, b) ** 2) + tf.reduce_sum(tf.sparse.to_dense(s) * 3)
    gv, gb = t.gradient(loss, [v, b])
    assert gv.numpy().tolist() == [7.0, 11.0]
    assert tf.convert_to_tensor(gb).numpy().tolist() == [[2.0, 2.0], [8.0, 8.0]]


def test_edge_cases():
    empty = S(np.zeros((0, 2), np.int64), tf.constant([], tf.float32), [2, 2])
    assert tf.sparse.to_dense(empty).numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    nan = tf.sparse.from_dense([[float("nan"), 0.0], [-0.0, 1.0]])
    assert nan.indices.numpy().tolist() == [[0, 0], [1, 1]]
    assert tf.sparse.to_dense(S([[3]], [7], [5])).numpy().tolist() == [0, 0, 0, 7, 0]
    strings = tf.sparse.from_dense(tf.constant([["a", ""], ["", "b"]]))
    assert _st(strings) == ([[0, 0], [1, 1]], [b"a", b"b"], [2, 2])
    assert tf.sparse.to_dense(strings).numpy().tolist() == [[b"a", b""], [b"", b"b"]]
    assert _st(tf.sparse.reorder(S([[1, 0, 1], [0, 1, 0], [1, 0, 0]], [1, 2, 3], [2, 2, 2]))) == \
        ([[0, 1, 0], [1, 0, 0], [1, 0, 1]], [2, 3, 1], [2, 2, 2])
    assert _st(tf.sparse.transpose(S([[1, 0, 1], [0, 1, 0]], [1, 2], [2, 3, 4]), [2, 0, 1])) == \
        ([[0, 0, 1], [1, 1, 0]], [2, 1], [4, 2, 3])
    assert _st(tf.sparse.concat(-1, [S([[0, 0]], [1], [2, 2]), S([[1, 1]], [2], [2, 3])])) == \
        ([[0, 0], [1, 3]], [1, 2], [2, 5])
    assert (S([[0, 1], [1, 0]], [2.0, 3.0], [2, 2]) / tf.constant([2.0, 4.0])).values.numpy().tolist() == [0.5, 1.5]


@pytest.mark.parametrize("a,b,msg", [
    (([[0, 0, 0]], [1.0], [2, 2, 2]), [2, 2], "Tensor 'a_shape' must have 2 elements"),
    (([[0, 0]], [1.0], [2, 2]), [2], "Tensor 'b' is not a matrix"),
])
def test_sparse_dense_matmul_rank_errors(a, b, msg):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.sparse_dense_matmul(S(*a), tf.ones(b))
    assert msg + " [Op:SparseTensorDenseMatMul]" in str(e.value)


def test_retain_length_mismatch():
    with pytest.raises(ValueError, match="Dimensions 1 and 2 are not compatible"):
        tf.sparse.retain(S([[0, 0]], [1], [2, 2]), [True, False])


def test_maximum_minimum_reset_split_fill_indicator():
    a = S([[0, 0], [1, 1]], [-1.0, 2.0], [2, 3])
    b = S([[0, 0], [1, 2]], [-3.0, 4.0], [2, 3])
    assert _st(tf.sparse.maximum(a, b)) == ([[0, 0], [1, 1], [1, 2]], [-1.0, 2.0, 4.0], [2, 3])
    assert _st(tf.sparse.minimum(a, b)) == ([[0, 0], [1, 1], [1, 2]], [-3.0, 0.0, 0.0], [2, 3])
    assert _st(tf.sparse.reset_shape(a)) == ([[0, 0], [1, 1]], [-1.0, 2.0], [2, 2])
    assert _st(tf.sparse.reset_shape(a, [4, 5]))[2] == [4, 5]
    with pytest.raises(ValueError, match=r"Found new_shape \(\[2 3\]\), sp_input.shape \(\[1 5\]\)"):
        tf.sparse.reset_shape(a, [1, 5])
    parts = tf.sparse.split(sp_input=S([[0, 0], [0, 3], [1, 1], [1, 4]], [1, 2, 3, 4], [2, 6]), num_split=3, axis=1)
    assert [_st(p) for p in parts] == [([[0, 0], [1, 1]], [1, 3], [2, 2]), ([[0, 1]], [2], [2, 2]),
                                       ([[1, 0]], [4], [2, 2])]
    rows = tf.sparse.split(sp_input=S([[0, 0], [2, 3]], [1, 2], [3, 6]), num_split=2, axis=0)
    assert [_st(p) for p in rows] == [([[0, 0]], [1], [2, 6]), ([[0, 3]], [2], [1, 6])]
    filled, empty = tf.sparse.fill_empty_rows(S([[0, 0], [2, 3]], [1, 2], [4, 6]), -1)
    assert _st(filled) == ([[0, 0], [1, 0], [2, 3], [3, 0]], [1, -1, 2, -1], [4, 6])
    assert empty.numpy().tolist() == [False, True, False, True]
    ind = tf.sparse.to_indicator(S([[0, 0], [0, 1], [1, 0]], [1, 3, 2], [2, 2]), 4)
    assert ind.numpy().tolist() == [[False, True, False, True], [False, False, True, False]]
