"""``TensorShapeProto``: TF's ``tensorflow/core/framework/tensor_shape.proto`` message, what
``tf.TensorShape.as_proto()`` and ``Operation.get_attr("shape")`` return.

Built at runtime from a descriptor in a private pool, as ``fn._io.example_pb`` builds
``tf.train.Example`` (package ``tensorflow``, so its full name and text format are TF's; the
message is wire-compatible with TF's own class).
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _file() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/framework/tensor_shape.proto", package="tensorflow", syntax="proto3"
    )
    m = fd.message_type.add(name="TensorShapeProto")
    dim = m.nested_type.add(name="Dim")
    dim.field.add(name="size", number=1, type=_F.TYPE_INT64, label=_F.LABEL_OPTIONAL, json_name="size")
    dim.field.add(name="name", number=2, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL, json_name="name")
    m.field.add(
        name="dim",
        number=2,
        type=_F.TYPE_MESSAGE,
        label=_F.LABEL_REPEATED,
        type_name=".tensorflow.TensorShapeProto.Dim",
        json_name="dim",
    )
    m.field.add(name="unknown_rank", number=3, type=_F.TYPE_BOOL, label=_F.LABEL_OPTIONAL, json_name="unknownRank")
    return fd


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file())
TensorShapeProto = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("tensorflow.TensorShapeProto"))
TensorShapeProto.__module__ = __name__

__all__ = ["TensorShapeProto"]
