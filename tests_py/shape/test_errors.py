"""Bad arguments raise TensorFlow's exception classes with its messages: InvalidArgumentError
eagerly (with " [Op:Name]"), ValueError (shape inference) while tracing. Messages as TF 2.21's."""
import pytest

import fn

IAE = fn.errors.InvalidArgumentError
x = fn.ones([2, 3])

EAGER = [
    (lambda: fn.reshape(x, [4]), r"Input to reshape is a tensor with 6 values, but the requested shape has 4 \[Op:Reshape\]"),
    (lambda: fn.reshape(x, [-1, -1]), "Only one input size may be -1, not both 0 and 1"),
    (lambda: fn.reshape(x, [-1, 4]), "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4"),
    (lambda: fn.transpose(x, [0, 0]), r"1 is missing from \{0,0\}. \[Op:Transpose\]"),
    (lambda: fn.transpose(x, [0, 1, 2]), r"transpose expects a vector of size 2. But input\(1\) is a vector of size 3"),
    (lambda: fn.transpose(x, [0, 5]), r"5 is out of range \[0 .. 2\)"),
    (lambda: fn.expand_dims(x, 5), "Tried to expand dim index 5 for tensor with 2 dimensions."),
    (lambda: fn.squeeze(x, [0]), r"Can not squeeze dim\[0\], expected a dimension of 1, got 2"),
    (lambda: fn.squeeze(x, [4]), "Tried to squeeze dim index 4 for tensor with 2 dimensions."),
    (lambda: fn.concat([x, fn.ones([3, 3])], 1),
     r"ConcatOp : Dimension 0 in both shapes must be equal: shape\[0\] = \[2,3\] vs. shape\[1\] = \[3,3\] \[Op:ConcatV2\]"),
    (lambda: fn.concat([x, x], 3), r"ConcatOp : Expected concatenating dimensions in the range \[-2, 2\), but got 3"),
    (lambda: fn.concat([x, fn.ones([3])], 0),
     r"ConcatOp : Ranks of all input tensors should match: shape\[0\] = \[2,3\] vs. shape\[1\] = \[3\]"),
    (lambda: fn.stack([x, fn.ones([3, 2])]),
     r"Shapes of all inputs must match: values\[0\].shape = \[2,3\] != values\[1\].shape = \[3,2\] \[Op:Pack\]"),
    (lambda: fn.split(x, 2, axis=1), r"Number of ways to split should evenly divide the split dimension, but got "
                                     r"split_dim 1 \(size = 3\) and num_split 2"),
    (lambda: fn.split(x, [1, 1], axis=1), "Determined shape must either match input shape along split_dim exactly if "
                                          "fully specified, or be less than the size of the input along split_dim if "
                                          "not fully specified.  Got: 2"),
    (lambda: fn.tile(x, [1]), "Expected multiples argument to be a vector of length 2 but got length 1"),
    (lambda: fn.pad(x, [[1, 1]]), r"The first dimension of paddings must be the rank of inputs\[1,2\] \[2,3\]"),
    (lambda: fn.pad(x, [[-1, 1], [0, 0]]), "Paddings must be non-negative: -1 1"),
    (lambda: fn.gather(x, [0, 5]), r"indices\[1\] = 5 is not in \[0, 2\) \[Op:GatherV2\]"),
    (lambda: fn.gather(x, [0], axis=3), "Shape must be at least rank 4 but is rank 2"),
    (lambda: fn.gather_nd(x, [[0, 7]]), r"indices\[0\] = \[0, 7\] does not index into param shape \[2,3\], node name: GatherNd"),
    (lambda: fn.slice(x, [0, 0], [3, 1]), r"Expected size\[0\] in \[0, 2\], but got 3"),
    (lambda: fn.slice(x, [0], [1]), r"Expected begin and size arguments to be 1-D tensors of size 2, but got shapes \[1\] and \[1\] instead."),
    (lambda: x[5], "slice index 5 of dimension 0 out of bounds."),
    (lambda: fn.range(0, 5, 0), "Requires delta != 0: 0"),
    (lambda: fn.range(5, 0, 1), "Requires start <= limit when delta > 0: 5/0"),
    (lambda: fn.one_hot([1], -1), "depth must be non-negative, got: -1"),
    (lambda: fn.one_hot([1], 3, axis=5), r"Expected axis to be -1 or between \[0, 2\).  But received: 5"),
    (lambda: fn.where(fn.ones([2], fn.bool), x, x), r"condition \[2\], then \[2,3\], and else \[2,3\] must be broadcastable"),
    (lambda: fn.where(fn.ones([2, 3], fn.bool), x, fn.ones([2, 3], fn.int32)), "cannot compute SelectV2 as input #1"),
]


@pytest.mark.parametrize("f,msg", EAGER, ids=[f"e{i}" for i in range(len(EAGER))])
def test_eager_errors(f, msg):
    with pytest.raises(IAE, match=msg):
        f()


GRAPH = [
    (lambda t: fn.reshape(t, [4]), "Cannot reshape a tensor with 6 elements to shape [4] (4 elements) for '{{node Reshape}}"),
    (lambda t: fn.reshape(t, [-1, 4]), "Dimension size must be evenly divisible by 4 but is 6 for"),
    (lambda t: fn.transpose(t, [0, 1, 2]), "Dimension must be 2 but is 3 for '{{node transpose}}"),
    (lambda t: fn.transpose(t, [0, 5]), "perm dim 5 is out of range of input rank 2 for"),
    (lambda t: fn.expand_dims(t, 5), "dim 5 not in the interval [-3, 2]. for '{{node ExpandDims}}"),
    (lambda t: fn.squeeze(t, [0]), "Can not squeeze dim[0], expected a dimension of 1, got 2 for '{{node Squeeze}}"),
    (lambda t: fn.squeeze(t, [4]), "squeeze_dims[0] not in [-2,2). for"),
    (lambda t: fn.concat([t, fn.ones([3, 3])], 1), "Dimension 0 in both shapes must be equal, but are 2 and 3. "
                                                   "Shapes are [2] and [3]. for '{{node concat}}"),
    (lambda t: fn.concat([t, t], 3), "Shape must be at least rank 4 but is rank 2 for '{{node concat}}"),
    (lambda t: fn.concat([t, fn.ones([3])], 0), "Shape must be rank 2 but is rank 1 for"),
    (lambda t: fn.stack([t, fn.ones([3, 2])]), "Dimension 0 in both shapes must be equal, but are 2 and 3. "
                                               "Shapes are [2,3] and [3,2]."),
    (lambda t: fn.stack([t, t], axis=4), "Argument `axis` = 4 not in range [-3, 3)"),
    (lambda t: fn.unstack(t, axis=3), "Argument `axis` = 3 not in range [-2, 2)"),
    (lambda t: fn.split(t, 2, axis=1), "Dimension size must be evenly divisible by 2 but is 3"),
    (lambda t: fn.split(t, [1, 1], axis=1), "can't split axis of size 3 into pieces of size [1,1] for"),
    (lambda t: fn.tile(t, [1]), "Shape must be rank 2 but is rank 1 for '{{node Tile}}"),
    (lambda t: fn.pad(t, [[1, 1]]), "Shape must be rank 1 but is rank 2 for '{{node Pad}}"),
    (lambda t: fn.pad(t, [[-1, 1], [0, 0]]), "Paddings must be non-negative for"),
    (lambda t: fn.gather(t, [0], axis=3), "Shape must be at least rank 4 but is rank 2 for '{{node GatherV2}}"),
    (lambda t: fn.slice(t, [0], [1]), "Shape must be rank 1 but is rank 2 for '{{node Slice}}"),
    (lambda t: t[5], "slice index 5 of dimension 0 out of bounds. for '{{node strided_slice}} = StridedSlice"),
    (lambda t: t[:, :, 1], "Index out of range using input dim 2; input has only 2 dims for"),
    (lambda t: t[::0], "strides[0] must be non-zero for"),
    (lambda t: fn.range(0, 5, 0), "Requires delta != 0 for '{{node range}} = Range"),
    (lambda t: fn.range(5, 0, 1), "Requires start <= limit when delta > 0: 5/0 for '{{node range}}"),
    (lambda t: fn.one_hot([1], -1), "Dimension size, given by scalar input 1, must be non-negative but is -1 for"),
    (lambda t: fn.where(fn.ones([2], fn.bool), t, t), "Dimensions must be equal, but are 2 and 3 for '{{node SelectV2}}"),
]


@pytest.mark.parametrize("f,msg", GRAPH, ids=[f"g{i}" for i in range(len(GRAPH))])
def test_graph_errors(f, msg):
    with pytest.raises(ValueError) as info:
        fn.function(f).get_concrete_function(fn.TensorSpec([2, 3]))
    assert msg in str(info.value)


def test_graph_type_errors():
    with pytest.raises(TypeError, match="Input 'e' of 'SelectV2' Op has type int32 that does not match type float32"):
        fn.function(lambda c, a, b: fn.where(c, a, b)).get_concrete_function(
            fn.TensorSpec([2], fn.bool), fn.TensorSpec([2]), fn.TensorSpec([2], fn.int32))


def test_errors_at_run_time_name_the_node():
    f = fn.function(lambda t, i: fn.gather(t, i))
    with pytest.raises(IAE, match=r"indices\[0\] = 7 is not in \[0, 2\)"):
        f(x, fn.constant([7]))
