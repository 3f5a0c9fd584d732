"""fn's checkpoint files (docs/FORMATS.md): ``<prefix>.index`` (magic, version, a JSON header
holding the object graph and the tensor table, CRC32s) and ``<prefix>.data-00000-of-00001``
(the raw tensor bytes). Both are written atomically, the data file first, so a checkpoint whose
index exists is whole."""

from __future__ import annotations

import json
import os
import struct
import zlib
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from fn import errors
from fn._state.serialize import array_from_bytes, array_to_bytes, atomic_write
from fn.dtypes import as_dtype, string

MAGIC = b"FNCKPT\r\n"
VERSION = 1
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
DATA_SUFFIX = ".data-00000-of-00001"


def write(
    prefix: str,
    tensors: Dict[str, Tuple[str, np.ndarray]],
    object_graph: List[dict],
    single_file: bool = False,
    kind: str = "fn-checkpoint",
) -> str:
    """Writes ``tensors`` (key -> (dtype name, value)) and ``object_graph`` at ``prefix``
    (``single_file``: one file named ``prefix`` holding the index and then the data)."""
    index, blob = encode(os.path.basename(prefix), tensors, object_graph, single_file, kind)
    if single_file:
        atomic_write(prefix, index + blob)
        return prefix
    atomic_write(prefix + DATA_SUFFIX, blob)
    atomic_write(prefix + ".index", index)
    return prefix


def encode(
    basename: str,
    tensors: Dict[str, Tuple[str, np.ndarray]],
    object_graph: List[dict],
    single_file: bool = False,
    kind: str = "fn-checkpoint",
) -> Tuple[bytes, bytes]:
    """(index bytes, data bytes) of a checkpoint; a single file is their concatenation."""
    table: Dict[str, dict] = {}
    chunks: List[bytes] = []
    offset = 0
    for key in sorted(tensors):
        dtype_name, value = tensors[key]
        data = array_to_bytes(value, dtype_name)
        table[key] = {
            "dtype": dtype_name,
            "shape": list(np.shape(value)),
            "offset": offset,
            "size": len(data),
            "crc32": zlib.crc32(data),
        }
        chunks.append(data)
        offset += len(data)
    blob = b"".join(chunks)
    header = json.dumps(
        {
            "format": kind,
            "version": VERSION,
            "data_file": "" if single_file else basename + DATA_SUFFIX,
            "data_size": len(blob),
            "tensors": table,
            "object_graph": object_graph,
        },
        sort_keys=True,
    ).encode()
    index = MAGIC + struct.pack("<IQ", VERSION, len(header)) + header + struct.pack("<I", zlib.crc32(header))
    return index, blob


def _not_found(path: str) -> errors.NotFoundError:
    return errors.NotFoundError(
        None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {path}"
    )


def _corrupt(path: str, why: str) -> errors.DataLossError:
    return errors.DataLossError(None, None, f"Unable to read checkpoint {path}: {why}")


class CheckpointReader:
    """``tf.train.CheckpointReader`` (what ``fn.train.load_checkpoint`` returns): the tensors of
    one checkpoint by key. The data file is read once and each tensor checked against its CRC."""

    def __init__(self, prefix: str, single_file: bool = False, data: Optional[bytes] = None) -> None:
        prefix = os.fspath(prefix)
        index_path = prefix if single_file else prefix + ".index"
        if data is not None:
            raw = data
        else:
            if not os.path.isfile(index_path):
                raise _not_found(prefix)
            with open(index_path, "rb") as f:
                raw = f.read()
        if not raw.startswith(MAGIC):
            raise _corrupt(
                index_path,
                "not an fn checkpoint (bad magic number); a TensorFlow checkpoint or another file cannot be read by fn",
            )
        if len(raw) < len(MAGIC) + 12:
            raise _corrupt(index_path, "truncated header")
        version, size = struct.unpack_from("<IQ", raw, len(MAGIC))
        if version > VERSION:
            raise errors.UnimplementedError(
                None,
                None,
                f"Checkpoint {prefix} has format version {version}, newer "
                f"than this fn reads (version {VERSION}); upgrade fn.",
            )
        if version < 1:
            raise errors.UnimplementedError(
                None,
                None,
                f"Checkpoint {prefix} has format version {version}, older "
                f"than this fn reads (version {VERSION}); write it again.",
            )
        start = len(MAGIC) + 12
        header = raw[start : start + size]
        crc = raw[start + size : start + size + 4]
        if len(header) != size or len(crc) != 4 or struct.unpack("<I", crc)[0] != zlib.crc32(header):
            raise _corrupt(index_path, "the index is truncated or corrupted (checksum mismatch)")
        try:
            meta = json.loads(header.decode())
        except ValueError as e:
            raise _corrupt(index_path, f"unreadable header ({e})") from None
        self._prefix = prefix
        self._tensors: Dict[str, dict] = meta["tensors"]
        self.object_graph: List[dict] = meta["object_graph"]
        self.kind: str = meta.get("format", "")
        if single_file:
            self._blob = raw[start + size + 4 :]
            if len(self._blob) != meta["data_size"]:
                raise _corrupt(index_path, f"expected {meta['data_size']} data bytes, found {len(self._blob)}")
            return
        data_path = os.path.join(os.path.dirname(prefix), meta["data_file"])
        if not os.path.isfile(data_path):
            raise _not_found(data_path)
        with open(data_path, "rb") as f:
            self._blob = f.read()
        if len(self._blob) != meta["data_size"]:
            raise _corrupt(data_path, f"expected {meta['data_size']} bytes, found {len(self._blob)}")

    def has_tensor(self, key: str) -> bool:
        return key in self._tensors or key == OBJECT_GRAPH_KEY

    def get_tensor(self, key: str) -> Any:
        if key == OBJECT_GRAPH_KEY:
            return json.dumps(self.object_graph).encode()
        entry = self._tensors.get(key)
        if entry is None:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        data = self._blob[entry["offset"] : entry["offset"] + entry["size"]]
        if zlib.crc32(data) != entry["crc32"]:
            raise _corrupt(self._prefix + DATA_SUFFIX, f"checksum mismatch for {key}")
        value = array_from_bytes(data, entry["dtype"], tuple(entry["shape"]))
        return value if value.shape else value[()]

    def get_variable_to_shape_map(self) -> Dict[str, List[int]]:
        out = {k: list(e["shape"]) for k, e in self._tensors.items()}
        out[OBJECT_GRAPH_KEY] = []
        return out

    def get_variable_to_dtype_map(self) -> Dict[str, Any]:
        out = {k: as_dtype(e["dtype"]) for k, e in self._tensors.items()}
        out[OBJECT_GRAPH_KEY] = string
        return out

    def dtype_name(self, key: str) -> Optional[str]:
        entry = self._tensors.get(key)
        return entry["dtype"] if entry else None
