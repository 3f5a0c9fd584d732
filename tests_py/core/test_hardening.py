"""Bad input raises TensorFlow's exception class (with the essence of its message), never a
crash, a hang, a silently wrong value or an internal error (issue 12's known defects)."""
import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle


def in_function(f, *args):
    return tf.function(f)(*args)


# ---- variadic ops with no values

def test_concat_of_nothing_eagerly_is_an_invalid_argument_error():
    # TF 2.21 raises IndexError when this is the process's first op, InvalidArgumentError (from
    # its kernel lookup) once the eager context is running; fn always raises the latter (TF's
    # class in any program that has run an op; never a Python-internal class).
    expected = (IndexError, tf.errors.InvalidArgumentError) if IS_TF else tf.errors.InvalidArgumentError
    with pytest.raises(expected, match="list index out of range|OpKernel 'ConcatV2'"):
        tf.concat([], 0)


def test_concat_of_nothing_in_a_function_is_a_value_error():
    with pytest.raises(ValueError, match="List argument 'values' to 'ConcatV2' Op with length 0 shorter than minimum length 2"):
        in_function(lambda: tf.concat([], 0))


# ---- index-like inputs are dtype-checked before they are read

def test_string_perm_in_a_function_is_a_type_error():
    with pytest.raises(TypeError, match="Value passed to parameter 'perm' has DataType string not in list of allowed values: int32, int64"):
        in_function(lambda x: tf.transpose(x, perm="ab"), tf.ones([2, 3]))


def test_float_expand_dims_axis_in_a_function_names_tfs_parameter():
    with pytest.raises(TypeError, match="Value passed to parameter 'dim' has DataType float32 not in list of allowed values: int32, int64"):
        in_function(lambda x: tf.expand_dims(x, tf.constant(1.5)), tf.ones([2]))


def test_string_perm_eagerly_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'Tperm' of string is not in the list of allowed values: int32, int64"):
        tf.transpose(tf.ones([2, 3]), perm="ab")


def test_string_gather_indices_in_a_function_is_a_type_error():
    with pytest.raises(TypeError, match="Value passed to parameter 'indices' has DataType string not in list of allowed values: int16, int32, int64"):
        in_function(lambda x: tf.gather(x, "a"), tf.ones([2, 3]))


def test_string_reduction_axis_in_a_function_is_a_type_error():
    with pytest.raises(TypeError):
        in_function(lambda x: tf.reduce_sum(x, axis="a"), tf.ones([2, 3]))


# ---- element counts past 2**63 - 1 and allocations that cannot succeed

def test_zeros_past_int64_elements_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape \[4611686018427387904,4\] would have more than 2\*\*63 - 1 elements"):
        tf.zeros([2**62, 4])


def test_fill_and_ones_past_int64_elements():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"would have more than 2\*\*63 - 1 elements"):
        tf.fill([2**62, 4], 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"would have more than 2\*\*63 - 1 elements"):
        tf.ones([2**40, 2**40])


def test_tile_too_big_is_resource_exhausted():
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"OOM when allocating tensor with shape\[1048576,1048576,1048576\] and type float"):
        tf.tile(tf.ones([1, 1, 1]), [2**20] * 3)


def test_tile_too_big_in_a_function_is_resource_exhausted():
    with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM when allocating tensor"):
        in_function(lambda x: tf.tile(x, [2**20] * 3), tf.ones([1, 1, 1]))


def test_range_too_big_is_resource_exhausted():
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"OOM when allocating tensor with shape\[4611686018427387899\] and type int64"):
        tf.range(5, 2**62)
    with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM when allocating tensor"):
        in_function(lambda: tf.range(5, 2**62))


def test_reshape_to_too_many_elements_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape \[4611686018427387904, 4\] has too many elements"):
        tf.reshape(tf.ones([4]), [2**62, 4])


def test_pad_too_big_is_resource_exhausted():
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"OOM when allocating tensor with shape\[4611686018427387906\] and type float"):
        tf.pad(tf.ones([2]), [[0, 2**62]])


# ---- attrs below their minimum (no division by zero)

def test_split_into_zero_pieces_in_a_function_is_a_value_error():
    with pytest.raises(ValueError, match="Attr 'num_split' of 'Split' Op passed 0 less than minimum 1"):
        in_function(lambda x: tf.split(x, 0), tf.ones([4]))


def test_split_into_zero_pieces_eagerly_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'num_split' of 0 must be at least minimum 1"):
        tf.split(tf.ones([4]), 0)


def test_unstack_negative_num_in_a_function_is_a_value_error():
    with pytest.raises(ValueError, match="Attr 'num' of 'Unpack' Op passed -2 less than minimum 0"):
        in_function(lambda x: tf.unstack(x, num=-2), tf.ones([2]))


# ---- slice with begin and size of different lengths

def test_slice_begin_and_size_lengths_differ_eagerly():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected begin and size arguments to be 1-D tensors of size 2, but got shapes \[2\] and \[1\] instead"):
        tf.slice(tf.ones([3, 3]), [0, 0], [1])


def test_slice_begin_and_size_lengths_differ_in_a_function():
    with pytest.raises(ValueError):
        in_function(lambda x: tf.slice(x, [0, 0], [1]), tf.ones([3, 3]))


# ---- NumPy input in non-native byte order

@pytest.mark.parametrize("dtype", [">i4", ">f8", ">i8", ">f4", "<i2"])
def test_byte_swapped_numpy_input_keeps_its_values(dtype):
    a = np.arange(3, dtype=dtype)
    assert tf.constant(a).numpy().tolist() == [0, 1, 2]
    assert tf.convert_to_tensor(a).numpy().tolist() == [0, 1, 2]


def test_byte_swapped_numpy_operand():
    assert (tf.ones([3], tf.int32) + np.arange(3, dtype=">i4")).numpy().tolist() == [1, 2, 3]


# ---- datasets reject bad sizes instead of hanging

def test_shuffle_minus_one_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size must be greater than zero or UNKNOWN_CARDINALITY"):
        tf.data.Dataset.range(3).shuffle(-1)


def test_shuffle_zero_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size must be greater than zero or UNKNOWN_CARDINALITY"):
        list(tf.data.Dataset.range(3).shuffle(0))


@pytest.mark.parametrize("n", [0, -2])
def test_batch_of_non_positive_size_is_invalid_argument(n):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Batch size must be greater than zero"):
        tf.data.Dataset.range(3).batch(n)


def test_repeat_negative_repeats_forever():
    assert [int(x) for x in tf.data.Dataset.range(3).repeat(-2).take(7)] == [0, 1, 2, 0, 1, 2, 0]


def test_prefetch_below_minus_one_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning"):
        tf.data.Dataset.range(3).prefetch(-2)


def test_take_and_skip_negative():
    assert [int(x) for x in tf.data.Dataset.range(3).take(-2)] == [0, 1, 2]
    assert list(tf.data.Dataset.range(3).skip(-2)) == []


# ---- TF's classes and messages instead of internal errors

def test_unstack_with_a_huge_num_is_a_value_error():
    with pytest.raises(ValueError, match="Number of outputs is too big"):
        tf.unstack(tf.ones([2]), num=2**64)
    with pytest.raises(ValueError, match="Number of outputs is too big: 1099511627776"):
        tf.split(tf.ones([4]), 2**40)


def test_unstack_negative_num_eagerly_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'num' of -2 must be at least minimum 0"):
        tf.unstack(tf.ones([2]), num=-2)


def test_squeeze_with_a_nested_axis_is_a_type_error():
    with pytest.raises(TypeError, match=r"Expected int for argument 'axis' not \[0\]"):
        tf.squeeze(tf.ones([1, 2]), axis=[[0]])


def test_lone_surrogate_string_is_a_value_error():
    with pytest.raises(ValueError, match="Error converting unicode string while converting Python sequence to Tensor"):
        tf.constant("\ud800")


def test_gradient_with_respect_to_none_is_a_type_error():
    x = tf.Variable(1.0)
    with tf.GradientTape() as t:
        y = x * 2
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`: None to a TensorFlow DType"):
        t.gradient(y, None)


def test_range_with_too_many_elements_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Requires \(\(limit - start\) / delta\) <= 9223372036854775807"):
        tf.range(0.0, 1e30, 1e-30)


def test_range_over_the_whole_int64_line():
    r = tf.range(-2**63, 2**63 - 1, 2**62, dtype=tf.int64)
    assert r.numpy().tolist() == [-2**63, -2**62, 0, 2**62]


def test_scatter_nd_negative_shape_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -3 must be >= 0"):
        tf.scatter_nd([[0]], [1.0], [-3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -3 must be >= 0"):
        in_function(lambda s: tf.scatter_nd([[0]], [1.0], s), tf.constant([-3]))


def test_slice_begin_and_size_lengths_differ_in_a_function_message():
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are \[2\] and \[1\]"):
        in_function(lambda x: tf.slice(x, [0, 0], [1]), tf.ones([3, 3]))


# ---- fn's own additions

@pytest.mark.fn_only
def test_max_cache_size_must_be_a_non_negative_int():
    with pytest.raises(ValueError, match="max_cache_size must be >= 0"):
        tf.function(lambda x: x, max_cache_size=-1)
    with pytest.raises(TypeError, match="max_cache_size must be an int"):
        tf.function(lambda x: x, max_cache_size="a")


@pytest.mark.fn_only
def test_tensor_array_index_past_int32_is_refused_not_wrapped():
    # TF's eager TensorArray grows a Python list to 2**40 entries (it never returns); fn
    # refuses instead of wrapping the index to 0 (which gave size() == 1).
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not fit in int32"):
        ta.write(2**40, 1.0)
    with pytest.raises(tf.errors.ResourceExhaustedError):
        ta.write(2**31 - 1, 1.0)


@pytest.mark.fn_only
@pytest.mark.filterwarnings("ignore:.*retracing")
def test_retrace_log_is_bounded():
    f = tf.function(lambda x, k: x + k)
    for k in range(150):
        f(tf.constant(1.0), k)
    assert len(f._retrace_log) == 100


@pytest.mark.parametrize("persistent, source, attr", [(False, 3, "'int' object has no attribute 'dtype'"),
                                                     (True, 3, "'int' object has no attribute 'dtype'"),
                                                     (False, 1.0, "'float' object has no attribute '_id'")])
def test_gradient_with_respect_to_a_number(persistent, source, attr):
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=persistent) as g:
        g.watch(x)
        y = x * 2.0
    with pytest.raises(AttributeError, match=attr):
        g.gradient(y, source)


@pytest.mark.fn_only
def test_huge_string_tensor_is_resource_exhausted_before_allocating():
    # TF would try to construct 2**32 strings; fn refuses up front (no OOM kill, no sanitizer abort).
    with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM when allocating tensor with shape"):
        tf.zeros([2**31, 2], tf.string)


@pytest.mark.fn_only
def test_kernel_messages_quoting_invalid_utf8_stay_the_kernels_class():
    # TF 2.21 turns StringToNumber's InvalidArgumentError about b'\xff\xfe' into a
    # UnicodeDecodeError (its message is decoded strictly); fn escapes the bytes and raises the
    # kernel's class (docs/DESIGN.md, deliberate differences)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\\xff\\xfe"):
        tf.strings.to_number(tf.constant([b"\xff\xfe"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\\xff"):
        tf.function(lambda: tf.strings.to_number(tf.constant([b"\xff"]), out_type=tf.int64))()


@pytest.mark.fn_only
def test_ragged_constant_refuses_a_ragged_rank_it_cannot_nest():
    # TF 2.21 loops ragged_rank times (minutes for 2**40, then MemoryError); fn refuses a depth
    # past Python's recursion limit at once (docs/DESIGN.md)
    with pytest.raises(ValueError, match="ragged_rank"):
        tf.ragged.constant([], ragged_rank=2**40)
    assert tf.ragged.constant([[], []], ragged_rank=3).shape.rank == 4


@pytest.mark.fn_only
def test_conv2d_of_zero_input_channels_is_no_zero_division():
    # was `oc % (0 // fc)` in the grouped-convolution check; TF 2.21 computes zeros eagerly and
    # raises "Number of groups must not be 0" while tracing; fn's kernel refuses (errors4's notes)
    with pytest.raises(tf.errors.OpError):
        tf.nn.conv2d(tf.zeros([5, 5, 4, 0]), tf.zeros([1, 0, 1, 1]), strides=1, padding="VALID")
