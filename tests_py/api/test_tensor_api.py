"""Tensor API items ordinary programs use: empty typed constants, __format__, TensorShape as a
tensor, devices, tf.config, tf.version."""
import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle
P = "tf" if IS_TF else "fn"


@pytest.mark.parametrize("value,dtype,shape", [
    ([], "int32", (0,)), ([], "int64", (0,)), ([], "bool", (0,)), ([], "string", (0,)),
    ([[]], "int32", (1, 0)), ([[], []], "float64", (2, 0)), ([], None, (0,)), ([[]], None, (1, 0)),
])
def test_empty_constants_take_any_dtype(value, dtype, shape):
    t = tf.constant(value, dtype=dtype)
    assert t.shape == shape
    assert t.dtype == (tf.float32 if dtype is None else tf.as_dtype(dtype))
    assert tf.convert_to_tensor(value, dtype=dtype).shape == shape


def test_empty_constant_repr():
    assert repr(tf.constant([], dtype=tf.int32)) == \
        f"<{P}.Tensor: shape=(0,), dtype=int32, numpy=array([], dtype=int32)>"


def test_nonempty_float_list_still_refused_as_int():
    with pytest.raises(TypeError):
        tf.constant([1.5], dtype=tf.int32)


def test_format():
    assert f"{tf.constant(3.14159):.3f}" == "3.142"
    assert f"{tf.constant(7):d}" == "7"
    assert f"{tf.constant(2.5)}" == "2.5"
    assert f"{tf.constant([1.0, 2.0])}" == "[1. 2.]"
    assert "{:>6.2f}".format(tf.constant(1.0)) == "  1.00"
    with pytest.raises(TypeError):
        f"{tf.constant([1.0, 2.0]):.2f}"


def test_tensorshape_converts_to_a_tensor():
    kernel = tf.Variable(tf.zeros([5, 8]))
    n = tf.reduce_prod(kernel.shape)
    assert n.dtype == tf.int32 and int(n) == 40
    t = tf.convert_to_tensor(tf.TensorShape([2, 3]))
    assert t.dtype == tf.int32 and t.numpy().tolist() == [2, 3]
    assert tf.convert_to_tensor(tf.TensorShape([2, 3]), dtype=tf.int64).dtype == tf.int64
    assert tf.constant(tf.TensorShape([2, 3]), dtype=tf.float32).numpy().tolist() == [2.0, 3.0]
    assert tf.convert_to_tensor(tf.TensorShape([])).shape == (0,)
    assert tf.reshape(tf.zeros([6]), tf.TensorShape([2, 3])).shape == (2, 3)


def test_partial_tensorshape_does_not_convert():
    with pytest.raises(ValueError, match=r"Cannot convert a partially known TensorShape \(None, 3\) to a Tensor."):
        tf.convert_to_tensor(tf.TensorShape([None, 3]))
    with pytest.raises(ValueError, match="Cannot convert a partially known TensorShape <unknown> to a Tensor."):
        tf.convert_to_tensor(tf.TensorShape(None))


def test_tensorshape_inside_function():
    @tf.function
    def f(x):
        return tf.reduce_prod(x.shape) + 0
    assert int(f(tf.zeros([3, 4]))) == 12


CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_devices():
    assert tf.config.list_physical_devices() == [tf.config.PhysicalDevice(
        name="/physical_device:CPU:0", device_type="CPU")]
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.config.list_physical_devices("cpu") == []
    assert tf.config.list_logical_devices("CPU")[0].name == "/device:CPU:0"
    assert repr(tf.config.list_physical_devices("CPU")[0]) == \
        "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    assert tf.constant(1.0).device == CPU
    assert tf.Variable(1.0).device == CPU


@pytest.mark.parametrize("spec", ["CPU:0", "/CPU:0", "/cpu:0", "/device:CPU:0", CPU, "GPU:0", None, "",
                                  "cpu", "CPU", "cpu:0", "gpu", "/device:cpu:0", "epu:0", "custom",
                                  "/job:localhost/replica:0/task:0/cpu:*"])
def test_device_scope_places_on_the_cpu(spec):
    with tf.device(spec):
        a = tf.Variable([[1.0, 2.0, 3.0]])
        c = tf.matmul(a, tf.constant([[1.0], [2.0], [3.0]]))
    assert float(c[0, 0]) == 14.0 and c.device == CPU


def test_bad_device_spec():
    with pytest.raises(ValueError, match="Unknown attribute 'XYZ' is encountered while parsing the device spec: 'XYZ'."):
        with tf.device("XYZ"):
            pass


@pytest.mark.parametrize("spec, message", [
    ("cpu:x", "invalid literal for int() with base 10: 'x'"),
    ("/job:w/replica:x", "invalid literal for int() with base 10: 'x'"),
    ("cpu/gpu", "Multiple device types are not allowed while parsing the device spec: cpu/gpu."),
    ("/device:CPU:0:1", "Unknown attribute 'device' is encountered while parsing the device spec: '/device:CPU:0:1'."),
])
def test_bad_device_specs_as_tf(spec, message):
    with pytest.raises(ValueError) as e:
        with tf.device(spec):
            pass
    assert str(e.value) == message


def test_config_threading_and_memory_growth():
    th = tf.config.threading
    assert th.get_inter_op_parallelism_threads() == 0
    assert th.get_intra_op_parallelism_threads() == 0
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU and non-Pluggable devices"):
        tf.config.experimental.set_memory_growth(cpu, True)
    tf.config.set_soft_device_placement(True)
    assert tf.config.get_soft_device_placement() is True


def test_version_attributes():
    v = tf.version
    assert isinstance(v.VERSION, str) and v.VERSION.count(".") == 2
    assert isinstance(v.GIT_VERSION, str) and isinstance(v.COMPILER_VERSION, str)
    assert isinstance(v.GRAPH_DEF_VERSION, int)
    assert v.GRAPH_DEF_VERSION_MIN_CONSUMER == 0 and v.GRAPH_DEF_VERSION_MIN_PRODUCER == 0
    assert tf.__version__ == v.VERSION
    # TF's shape of version string, read the way Keras reads it to choose its code paths.
    assert tuple(int(x) for x in tf.__version__.split(".")[:2]) == (2, 21)
