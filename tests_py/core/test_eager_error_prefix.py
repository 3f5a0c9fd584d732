"""Eager op errors carry TF 2.21's wrapping-function prefix exactly where TF puts it: kernel
errors (named after the oneDNN kernel and number attrs TF picks), not dtype checks TF makes
before choosing a kernel, nor errors of a Function's graph."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

DEV = "_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


def _msg(f):
    with pytest.raises(tf.errors.OpError) as e:
        f()
    return str(e.value)


@pytest.mark.parametrize("f,kernel,rest", [
    (lambda: tf.reshape(tf.range(30), [7, -1]), "Reshape",
     "Input to reshape is a tensor with 30 values, but the requested shape requires a multiple of 7 [Op:Reshape]"),
    (lambda: tf.gather(tf.constant([0.0]), [1]), "GatherV2", "indices[0] = 1 is not in [0, 1) [Op:GatherV2]"),
    (lambda: tf.gather(tf.constant([0.0]), 1), "GatherV2", "indices = 1 is not in [0, 1) [Op:GatherV2]"),   # scalar
    pytest.param(lambda: tf.matmul(tf.ones([2, 2]), tf.ones([3, 3])), "__MklMatMul",
                 "Matrix size-incompatible: In[0]: [2,2], In[1]: [3,3] [Op:MatMul]", marks=pytest.mark.tf_onednn),
    (lambda: tf.ones([2, 3]) + tf.ones([4]), "AddV2", "Incompatible shapes: [2,3] vs. [4] [Op:AddV2]"),
    (lambda: tf.concat([tf.ones([2, 3]), tf.ones([2, 4])], 0), "ConcatV2_N_2",
     "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. shape[1] = [2,4] [Op:ConcatV2]"),
    (lambda: tf.split(tf.ones([2, 2]), 3), "Split_num_split_3",
     "Number of ways to split should evenly divide the split dimension, but got split_dim 0 (size = 2) and "
     "num_split 3 [Op:Split]"),
    (lambda: tf.stack([tf.ones([2]), tf.ones([3])]), "Pack_N_2",
     "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3] [Op:Pack]"),
    (lambda: tf.fill([-1], 1.0), "Fill", "Dimension -1 must be >= 0 [Op:Fill]"),
    (lambda: tf.transpose(tf.ones([2, 2]), [0, 2]), "Transpose", "2 is out of range [0 .. 2) [Op:Transpose]"),
    pytest.param(lambda: tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 2, 1]), 1, "VALID"), "__MklNativeConv2D",
                 "input depth must be evenly divisible by filter depth: 1 vs 2 [Op:Conv2D]",
                 marks=pytest.mark.tf_onednn),  # TF's oneDNN kernel names (its default on AVX-512 CPUs)
])
def test_kernel_errors_have_the_prefix(f, kernel, rest):
    assert _msg(f).startswith("{{function_node __wrapped__" + kernel + DEV + rest)


def test_dtype_checks_have_no_prefix():
    assert _msg(lambda: tf.add(tf.constant(1), tf.constant(1.0))).startswith(
        "cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a float tensor "
        "[Op:AddV2]")


def test_function_errors_have_no_prefix():
    @tf.function
    def f(a):
        return tf.gather(a, [3])

    msg = _msg(lambda: f(tf.constant([1.0])))
    assert "function_node" not in msg and "indices[0] = 3 is not in [0, 1)\n\t [[{{node GatherV2}}]]" in msg
