"""TFRecord files (``tf.io.TFRecordWriter``, ``tf.io.TFRecordOptions``) and reading them.

TF's framing, so files are exchanged with TensorFlow: each record is
``uint64 length (little endian) | uint32 masked_crc32c(length bytes) | data | uint32
masked_crc32c(data)``. ``ZLIB`` compresses the whole stream with zlib, ``GZIP`` as a gzip
stream (TF's ``ZlibOutputBuffer`` with gzip window bits).
"""

from __future__ import annotations

import gzip
import os
import struct
import zlib
from typing import Any, BinaryIO, Iterator, Optional

from fn import errors
from fn._io.crc32c import masked_crc32c

_TYPES = {0: "", 1: "ZLIB", 2: "GZIP"}


class TFRecordCompressionType:
    """``tf.compat.v1.io.TFRecordCompressionType``: NONE, ZLIB, GZIP."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """``tf.io.TFRecordOptions``: the compression of a TFRecord file (``""``, ``"ZLIB"`` or
    ``"GZIP"``) and zlib's settings for writing."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(
        self,
        compression_type: Any = None,
        flush_mode: Any = None,
        input_buffer_size: Any = None,
        output_buffer_size: Any = None,
        window_bits: Any = None,
        compression_level: Any = None,
        compression_method: Any = None,
        mem_level: Any = None,
        compression_strategy: Any = None,
    ) -> None:
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """``"ZLIB"``, ``"GZIP"`` or ``""`` for options, a compression type or a string."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if isinstance(options, int) and options in _TYPES:
            return _TYPES[options]
        if options in ("ZLIB", "GZIP", ""):
            return options
        raise ValueError('Not a valid compression_type: "{}"'.format(options))


def _compressor(options: TFRecordOptions) -> Any:
    kind = TFRecordOptions.get_compression_type_string(options)
    if not kind:
        return None
    level = options.compression_level if options.compression_level is not None else zlib.Z_DEFAULT_COMPRESSION
    bits = options.window_bits if options.window_bits is not None else 15
    mem = options.mem_level if options.mem_level is not None else 9  # TF's default mem_level
    strategy = options.compression_strategy if options.compression_strategy is not None else zlib.Z_DEFAULT_STRATEGY
    return zlib.compressobj(level, zlib.DEFLATED, bits + 16 if kind == "GZIP" else bits, mem, strategy)


def frame(record: bytes) -> bytes:
    """One record in TFRecord framing."""
    length = struct.pack("<Q", len(record))
    return length + struct.pack("<I", masked_crc32c(length)) + record + struct.pack("<I", masked_crc32c(record))


class TFRecordWriter:
    """``tf.io.TFRecordWriter``: writes records (bytes) to a TFRecord file; a context manager."""

    def __init__(self, path: Any, options: Any = None) -> None:
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(compression_type=options)
        path = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else path
        if not isinstance(path, str):
            raise TypeError(f"__init__(): incompatible constructor arguments. Invoked with: {path!r}")
        try:
            self._file: Optional[BinaryIO] = open(path, "wb")
        except OSError as e:
            raise errors.NotFoundError(None, None, f"{path}; {e.strerror}") from None
        self._zip = _compressor(options)

    def _put(self, data: bytes) -> None:
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "File is closed")
        self._file.write(self._zip.compress(data) if self._zip is not None else data)

    def write(self, record: Any) -> None:
        """Writes one record (``bytes`` or ``str``)."""
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif hasattr(record, "numpy"):
            record = record.numpy()
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(
                "write(): incompatible function arguments. The following argument types are "
                f"supported:\n    1. (self: tensorflow.python.lib.io._pywrap_record_io.RecordWriter, "
                f"record: str) -> None\n\nInvoked with: {record!r}"
            )
        self._put(frame(bytes(record)))

    def flush(self) -> None:
        """Flushes the file (and a compressed stream's pending output)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "File is closed")
        if self._zip is not None:
            self._file.write(self._zip.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self) -> None:
        """Closes the file (a second close does nothing)."""
        if self._file is None:
            return
        if self._zip is not None:
            self._file.write(self._zip.flush())
        self._file.close()
        self._file = None

    def __enter__(self) -> "TFRecordWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def open_input(path: str) -> BinaryIO:
    """``path`` opened for reading; TF's error classes for a missing file or a directory."""
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None


def _open_stream(path: str, compression: str) -> BinaryIO:
    f = open_input(path)
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=f)  # type: ignore[return-value]
    if compression == "ZLIB":
        return _ZlibReader(f)  # type: ignore[return-value]
    return f


class _ZlibReader:
    """A file-like reader of a zlib stream."""

    def __init__(self, f: BinaryIO) -> None:
        self._f, self._z, self._buf = f, zlib.decompressobj(), b""

    def read(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self._f.read(1 << 16)
            if not chunk:
                self._buf += self._z.flush()
                break
            self._buf += self._z.decompress(chunk)
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def close(self) -> None:
        self._f.close()


def read_records(path: str, compression: str = "") -> Iterator[bytes]:
    """The records of a TFRecord file; ``DataLossError`` for a corrupted or truncated one."""
    f = _open_stream(path, compression)
    offset = 0
    try:
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:  # TF ends quietly on a partial header
                return
            length_bytes = header[:8]
            if struct.unpack("<I", header[8:])[0] != masked_crc32c(length_bytes):
                raise errors.DataLossError(None, None, f"corrupted record at {offset} (Is this even a TFRecord file?)")
            (length,) = struct.unpack("<Q", length_bytes)
            body = f.read(length + 4)
            if len(body) < length + 4:
                raise errors.DataLossError(
                    None, None, f"truncated record at {offset}' failed with Read less bytes than requested"
                )
            data = body[:length]
            if struct.unpack("<I", body[length:])[0] != masked_crc32c(data):
                raise errors.DataLossError(None, None, f"corrupted record at {offset + 12}")
            offset += 16 + length
            yield data
    except (OSError, EOFError, zlib.error) as e:
        raise errors.DataLossError(None, None, f"{path}: {e}") from None
    finally:
        f.close()
