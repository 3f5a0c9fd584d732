"""The SavedModel file (docs/FORMATS.md): ``<dir>/saved_model.fn`` holds a JSON header (the
functions, their input/output structures, captures and signatures) followed by the
serialized graphs; ``<dir>/variables/variables.*`` is an fn checkpoint of the object graph."""

from __future__ import annotations

import json
import os
import struct
import zlib
from typing import Any, Dict, List, Tuple

from fn import errors
from fn._state.serialize import atomic_write
from fn._extension_type._spec import ExtensionTypeSpec
from fn.dtypes import DType
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import as_dtype
from fn._extension_type._field import ImmutableDict
from fn._extension_type._extension_type import lookup_registered, registered_name
from fn._extension_type._spec import new_object
from fn._ragged._spec import RaggedTensorSpec

MAGIC = b"FNSAVEDM"
VERSION = 1
FILE = "saved_model.fn"


def write(export_dir: str, header: Dict[str, Any], blobs: List[bytes]) -> None:
    offsets, pos = [], 0
    for b in blobs:
        offsets.append([pos, len(b), zlib.crc32(b)])
        pos += len(b)
    header = dict(header, format="fn-saved-model", version=VERSION, blobs=offsets)
    text = json.dumps(header, sort_keys=True).encode()
    data = MAGIC + struct.pack("<IQ", VERSION, len(text)) + text + struct.pack("<I", zlib.crc32(text)) + b"".join(blobs)
    atomic_write(os.path.join(export_dir, FILE), data)


def read(export_dir: str) -> Tuple[Dict[str, Any], List[bytes]]:
    path = os.path.join(export_dir, FILE)
    if not os.path.isfile(path):
        extra = ""
        if os.path.isfile(os.path.join(export_dir, "saved_model.pb")):
            extra = " (this folder holds a TensorFlow SavedModel, which fn cannot read)"
        raise OSError(f"SavedModel file does not exist at: {export_dir}/{{{FILE}}}{extra}")
    with open(path, "rb") as f:
        raw = f.read()
    if not raw.startswith(MAGIC) or len(raw) < len(MAGIC) + 12:
        raise errors.DataLossError(None, None, f"{path} is not an fn SavedModel (bad magic number)")
    version, size = struct.unpack_from("<IQ", raw, len(MAGIC))
    if version > VERSION:
        raise errors.UnimplementedError(
            None,
            None,
            f"The SavedModel at {export_dir} has format version {version}, "
            f"newer than this fn reads (version {VERSION}); upgrade fn to "
            "load it.",
        )
    if version < VERSION:
        raise errors.UnimplementedError(
            None,
            None,
            f"The SavedModel at {export_dir} has format version {version}, "
            f"older than this fn reads (version {VERSION}); save it again "
            "with this fn.",
        )
    start = len(MAGIC) + 12
    text = raw[start : start + size]
    crc = raw[start + size : start + size + 4]
    if len(text) != size or len(crc) != 4 or struct.unpack("<I", crc)[0] != zlib.crc32(text):
        raise errors.DataLossError(None, None, f"{path} is truncated or corrupted (header checksum)")
    header = json.loads(text.decode())
    base = start + size + 4
    blobs = []
    for off, n, c in header["blobs"]:
        b = raw[base + off : base + off + n]
        if len(b) != n or zlib.crc32(b) != c:
            raise errors.DataLossError(None, None, f"{path} is truncated or corrupted (graph checksum)")
        blobs.append(b)
    return header, blobs


# -- Python structures <-> JSON (leaves: tensor index, spec, or plain value)


def encode(value: Any, leaf: Any) -> Any:
    """``value`` as JSON; ``leaf(x)`` encodes tensors/specs (returns None for other leaves)."""
    enc = leaf(value)
    if enc is not None:
        return enc
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"v": value}
    if isinstance(value, list):
        return {"list": [encode(v, leaf) for v in value]}
    if isinstance(value, tuple):
        return {"tuple": [encode(v, leaf) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[k, encode(v, leaf)] for k, v in value.items()]}
    raise ValueError(
        f"Unable to save a function whose inputs or outputs hold {type(value).__name__} value "
        f"{value!r}: only tensors, lists, tuples, dicts and Python literals can be saved."
    )


def decode(data: Any, leaf: Any) -> Any:
    if "v" in data:
        return data["v"]
    if "list" in data:
        return [decode(v, leaf) for v in data["list"]]
    if "tuple" in data:
        return tuple(decode(v, leaf) for v in data["tuple"])
    if "dict" in data:
        return {k: decode(v, leaf) for k, v in data["dict"]}
    return leaf(data)


def _is_extension_spec(spec: Any) -> bool:
    return isinstance(spec, ExtensionTypeSpec)


def _field_json(v: Any) -> Dict[str, Any]:
    """One field of an ExtensionType spec as JSON."""
    if isinstance(v, TensorSpec) or _is_extension_spec(v) or getattr(type(v), "_fn_trace_from_spec", False):
        return spec_json(v)
    if isinstance(v, TensorShape):
        return {"tensor_shape": v.as_list() if v.rank is not None else None}
    if isinstance(v, DType):
        return {"dtype": v.name}
    if isinstance(v, tuple):
        return {"tuple": [_field_json(x) for x in v]}
    if hasattr(v, "items"):
        return {"dict": [[k, _field_json(x)] for k, x in v.items()]}
    return encode(v, lambda x: None)


def _field_from_json(d: Dict[str, Any]) -> Any:
    if "tensor_shape" in d:
        return TensorShape(d["tensor_shape"])
    if "dtype" in d and len(d) == 1:
        return as_dtype(d["dtype"])
    if "tuple" in d:
        return tuple(_field_from_json(x) for x in d["tuple"])
    if "dict" in d:
        return ImmutableDict([(k, _field_from_json(x)) for k, x in d["dict"]])
    if "v" in d:
        return d["v"]
    return spec_from_json(d)


def spec_json(spec: Any) -> Dict[str, Any]:
    if _is_extension_spec(spec):  # the registered type name and each field
        return {
            "extension_spec": {
                "type": registered_name(spec.value_type),
                "fields": [[k, _field_json(spec.__dict__[k])] for k in spec._fields()],
            }
        }
    dims = spec.shape.as_list() if spec.shape.rank is not None else None
    if getattr(type(spec), "_fn_trace_from_spec", False):  # RaggedTensorSpec
        return {
            "ragged_spec": {
                "dtype": spec.dtype.name,
                "shape": dims,
                "ragged_rank": spec.ragged_rank,
                "row_splits_dtype": spec.row_splits_dtype.name,
            }
        }
    return {"spec": {"dtype": spec.dtype.name, "shape": dims, "name": getattr(spec, "name", None)}}


def spec_from_json(d: Dict[str, Any]) -> Any:
    if "extension_spec" in d:
        e = d["extension_spec"]
        cls = lookup_registered(e["type"])
        return new_object(cls.Spec, {k: _field_from_json(v) for k, v in e["fields"]})
    if "ragged_spec" in d:
        r = d["ragged_spec"]
        return RaggedTensorSpec(r["shape"], r["dtype"], r["ragged_rank"], r["row_splits_dtype"])
    s = d["spec"]
    return TensorSpec(s["shape"], s["dtype"], s.get("name"))
