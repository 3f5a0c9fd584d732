"""What tf.Operation shows of a traced graph's nodes: get_attr of shape attrs (a TensorShapeProto,
as TF returns), of type attrs (DTypes: dtype, T, Tidx), of strings (bytes), missing attrs; and
Operation.device / Tensor.device / NodeDef.device: the device requested with tf.device while the
function was traced, as TF's DeviceSpec string (scopes merge, tf.device(None) resets, a function
body does not inherit its caller's scope)."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def placeholder_ops(shape):
    @tf.function
    def f(x):
        return x * 2.0

    cf = f.get_concrete_function(tf.TensorSpec(shape, tf.float32))
    return cf, cf.inputs[0].op


def test_shape_attr_is_a_tensor_shape_proto():
    _, op = placeholder_ops([2, None])
    shape = op.get_attr("shape")
    assert type(shape).__name__ == "TensorShapeProto"
    assert [d.size for d in shape.dim] == [2, -1]
    assert not shape.unknown_rank
    assert str(shape) == "dim {\n  size: 2\n}\ndim {\n  size: -1\n}\n"
    assert tf.TensorShape(shape).as_list() == [2, None]


def test_unknown_rank_and_scalar_shapes():
    _, op = placeholder_ops(None)
    shape = op.get_attr("shape")
    assert shape.unknown_rank and str(shape) == "unknown_rank: true\n"
    assert tf.TensorShape(shape).rank is None
    _, op = placeholder_ops([])
    shape = op.get_attr("shape")
    assert list(shape.dim) == [] and str(shape) == ""
    assert tf.TensorShape(shape) == tf.TensorShape([])


def test_tensor_shape_as_proto_round_trip():
    for dims in ([3, None, 1], [], None):
        proto = tf.TensorShape(dims).as_proto()
        back = tf.TensorShape(proto)
        assert back.rank == (None if dims is None else len(dims))
        if dims is not None:
            assert back.as_list() == dims
    assert tf.TensorShape([4, None]).as_proto().SerializeToString() == b"\x12\x02\x08\x04\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"


def test_type_attrs_are_dtypes():
    cf, ph = placeholder_ops([3])
    assert ph.get_attr("dtype") == tf.float32
    mul = next(op for op in cf.graph.get_operations() if op.type == "Mul")
    assert mul.get_attr("T") == tf.float32
    assert isinstance(mul.get_attr("T"), tf.DType)

    @tf.function
    def f(x):
        return tf.reduce_sum(x, axis=0)

    cg = f.get_concrete_function(tf.TensorSpec([2, 3], tf.int64))
    s = next(op for op in cg.graph.get_operations() if op.type == "Sum")
    assert s.get_attr("T") == tf.int64 and s.get_attr("Tidx") == tf.int32
    assert s.get_attr("keep_dims") is False


def test_missing_attr_is_value_error():
    _, op = placeholder_ops([3])
    with pytest.raises(ValueError, match="has no attr named 'nope'"):
        op.get_attr("nope")


def traced_devices(body):
    seen = {}

    @tf.function
    def f(x):
        body(x, seen)
        return x

    f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    return seen


def test_no_device_scope_is_empty():
    def body(x, seen):
        y = x + 1.0
        seen["op"], seen["tensor"] = y.op.device, y.device

    assert traced_devices(body) == {"op": "", "tensor": ""}


@pytest.mark.parametrize("spec,want", [
    ("/cpu:0", "/device:CPU:0"),
    ("cpu", "/device:CPU:*"),
    ("CPU:0", "/device:CPU:0"),
    ("/device:CPU:0", "/device:CPU:0"),
    ("/GPU:1", "/device:GPU:1"),
    ("/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"),
    ("/job:worker/task:1", "/job:worker/task:1"),
])
def test_device_strings(spec, want):
    def body(x, seen):
        with tf.device(spec):
            y = x * 3.0
        z = y + 1.0
        seen["in"], seen["tensor"], seen["after"] = y.op.device, y.device, z.op.device

    assert traced_devices(body) == {"in": want, "tensor": want, "after": ""}


def test_nested_scopes_merge_and_none_resets():
    def body(x, seen):
        with tf.device("/job:localhost/task:0"):
            a = x + 1.0
            with tf.device("/cpu:0"):
                b = a + 1.0
                with tf.device(None):
                    c = b + 1.0
                with tf.device(""):
                    d = b + 1.0
            e = b + 1.0
        seen.update(a=a.op.device, b=b.op.device, c=c.op.device, d=d.op.device, e=e.op.device)

    assert traced_devices(body) == {"a": "/job:localhost/task:0", "b": "/job:localhost/task:0/device:CPU:0",
                                    "c": "", "d": "/job:localhost/task:0/device:CPU:0",
                                    "e": "/job:localhost/task:0"}


def test_function_body_does_not_inherit_the_callers_scope():
    seen = {}

    @tf.function
    def inner(x):
        y = x * 2.0
        seen["inner"] = y.op.device
        return y

    @tf.function
    def outer(x):
        with tf.device("/cpu:0"):
            y = x + 1.0
            seen["outer"] = y.op.device
            return inner(y)

    outer.get_concrete_function(tf.TensorSpec([2], tf.float32))
    assert seen == {"outer": "/device:CPU:0", "inner": ""}


def test_node_def_and_graph_def_carry_the_device():
    @tf.function
    def f(x):
        with tf.device("/cpu:0"):
            return x * 2.0

    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32))
    mul = next(op for op in cf.graph.get_operations() if op.type == "Mul")
    assert mul.device == "/device:CPU:0"
    assert mul.node_def.device == "/device:CPU:0"
    node = next(n for n in cf.graph.as_graph_def().node if n.op == "Mul")
    assert node.device == "/device:CPU:0"
    assert 'device: "/device:CPU:0"' in str(node)


def test_bad_device_specs():
    with pytest.raises(ValueError, match="Multiple device types"):
        with tf.device("/cpu:0/gpu:0"):
            pass
    with pytest.raises(ValueError, match="Unknown attribute 'foo'"):
        with tf.device("/foo:1"):
            pass
