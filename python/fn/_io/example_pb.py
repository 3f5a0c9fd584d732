"""``tf.train.Example`` and its family as protocol-buffer message classes, TF's wire format.

The classes are built at import time from a ``FileDescriptorProto`` equivalent to TF's
``tensorflow/core/example/{feature,example}.proto`` (package ``tensorflow``, so full names and
text format match TF's), in a private descriptor pool. Built at runtime rather than from
protoc-generated ``_pb2`` code because generated code is tied to the protobuf runtime version it
was generated for (it refuses older runtimes), while a descriptor works with any protobuf >= 4;
a private pool keeps them from clashing with TensorFlow's own classes in the same process.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _field(
    msg: Any,
    name: str,
    number: int,
    ftype: int,
    label: int = _F.LABEL_OPTIONAL,
    type_name: str = "",
    packed: bool = False,
    oneof: int = -1,
) -> None:
    f = msg.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        f.type_name = type_name
    if packed:
        f.options.packed = True
    if oneof >= 0:
        f.oneof_index = oneof
    f.json_name = "".join(p.capitalize() if i else p for i, p in enumerate(name.split("_")))


def _map_field(msg: Any, name: str, number: int, value_type: str) -> None:
    entry_name = "".join(p.capitalize() for p in name.split("_")) + "Entry"
    entry = msg.nested_type.add(name=entry_name)
    entry.options.map_entry = True
    _field(entry, "key", 1, _F.TYPE_STRING)
    _field(entry, "value", 2, _F.TYPE_MESSAGE, type_name=value_type)
    _field(msg, name, number, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, f".tensorflow.{msg.name}.{entry_name}")


def _file() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(
        name="tensorflow/core/example/example.proto", package="tensorflow", syntax="proto3"
    )
    rep = _F.LABEL_REPEATED
    m = fd.message_type.add(name="BytesList")
    _field(m, "value", 1, _F.TYPE_BYTES, rep)
    m = fd.message_type.add(name="FloatList")
    _field(m, "value", 1, _F.TYPE_FLOAT, rep, packed=True)
    m = fd.message_type.add(name="Int64List")
    _field(m, "value", 1, _F.TYPE_INT64, rep, packed=True)
    m = fd.message_type.add(name="Feature")
    m.oneof_decl.add(name="kind")
    _field(m, "bytes_list", 1, _F.TYPE_MESSAGE, type_name=".tensorflow.BytesList", oneof=0)
    _field(m, "float_list", 2, _F.TYPE_MESSAGE, type_name=".tensorflow.FloatList", oneof=0)
    _field(m, "int64_list", 3, _F.TYPE_MESSAGE, type_name=".tensorflow.Int64List", oneof=0)
    m = fd.message_type.add(name="Features")
    _map_field(m, "feature", 1, ".tensorflow.Feature")
    m = fd.message_type.add(name="FeatureList")
    _field(m, "feature", 1, _F.TYPE_MESSAGE, rep, ".tensorflow.Feature")
    m = fd.message_type.add(name="FeatureLists")
    _map_field(m, "feature_list", 1, ".tensorflow.FeatureList")
    m = fd.message_type.add(name="Example")
    _field(m, "features", 1, _F.TYPE_MESSAGE, type_name=".tensorflow.Features")
    m = fd.message_type.add(name="SequenceExample")
    _field(m, "context", 1, _F.TYPE_MESSAGE, type_name=".tensorflow.Features")
    _field(m, "feature_lists", 2, _F.TYPE_MESSAGE, type_name=".tensorflow.FeatureLists")
    return fd


_POOL = descriptor_pool.DescriptorPool()
_FILE = _POOL.Add(_file())


def _cls(name: str) -> Any:  # a generated message class (typed Any: mypy cannot see its fields)
    cls = message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"tensorflow.{name}"))
    cls.__module__ = __name__  # generated classes have none; fn's public namespaces export by origin
    return cls


BytesList = _cls("BytesList")
FloatList = _cls("FloatList")
Int64List = _cls("Int64List")
Feature = _cls("Feature")
Features = _cls("Features")
FeatureList = _cls("FeatureList")
FeatureLists = _cls("FeatureLists")
Example = _cls("Example")
SequenceExample = _cls("SequenceExample")

__all__ = [
    "BytesList",
    "FloatList",
    "Int64List",
    "Feature",
    "Features",
    "FeatureList",
    "FeatureLists",
    "Example",
    "SequenceExample",
]
