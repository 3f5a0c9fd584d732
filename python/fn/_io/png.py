"""PNG files: ``tf.io.decode_png`` / ``tf.io.encode_png`` (also ``tf.image.*``), on the host with
zlib and NumPy (TF's kernels call libpng on the CPU; PNG is lossless, so the pixels are TF's).

Decoding reads every PNG colour type and bit depth (palettes with transparency, 1-16 bit
samples, Adam7 interlacing) and converts to the requested channels as libpng does for TF:
RGB to gray with libpng's integer weights (0.299, 0.587 and the rest, truncated), gray to RGB by
copying, an opaque alpha added, alpha dropped; 16-bit samples keep their high byte for uint8.
Encoding writes 8-bit images unfiltered (TF's libpng picks filters adaptively, so the bytes
differ; any PNG reader gets the same pixels). In graphs both run as host calls.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any, List, Optional, Tuple

import numpy as np

from fn import _core
from fn.dtypes import as_dtype, string, uint8, uint16
from fn.errors import InvalidArgumentError
from fn._tensor.tensor_shape import TensorShape
from fn.errors import UnimplementedError

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel
_ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
_OTHER_FORMATS = (b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"RIFF", b"\xff\x0a", b"\x00\x00\x00\x0cJXL")


def _invalid(message: str, op: str = "DecodePng") -> Exception:

    return InvalidArgumentError(None, None, f"{message} [Op:{op}]")


def _chunks(data: bytes) -> Tuple[dict, bytes, Optional[bytes], Optional[bytes]]:
    pos, header, idat, plte, trns = 8, None, [], None, None
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if len(body) != length:
            break
        pos += 12 + length
        if kind == b"IHDR" and length == 13:
            w, h, depth, color, comp, filt, interlace = struct.unpack(">IIBBBBB", body)
            header = {"w": w, "h": h, "depth": depth, "color": color, "interlace": interlace}
        elif kind == b"PLTE":
            plte = body
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None or header["color"] not in _CHANNELS or header["w"] == 0 or header["h"] == 0:
        raise _invalid("Invalid PNG. Failed to initialize decoder.")
    return header, b"".join(idat), plte, trns


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(raw: memoryview, rows: int, stride: int, bpp: int) -> np.ndarray:
    """The scanlines of one (sub)image with their filters undone, as a [rows, stride] uint8 array."""
    out = np.zeros((rows, stride), np.uint8)
    prior = np.zeros(stride, np.uint8)
    for r in range(rows):
        start = r * (stride + 1)
        kind = raw[start]
        line = np.frombuffer(raw[start + 1 : start + 1 + stride], np.uint8)
        if len(line) != stride or kind > 4:
            raise _invalid("Invalid PNG data, size %d" % len(raw))
        if kind == 0:
            cur = line.copy()
        elif kind == 1:  # Sub: running sums per byte of a pixel, mod 256
            pad = (-stride) % bpp
            cur = np.cumsum(np.concatenate([line, np.zeros(pad, np.uint8)]).reshape(-1, bpp), axis=0, dtype=np.uint8)
            cur = cur.reshape(-1)[:stride]
        elif kind == 2:
            cur = line + prior
        else:
            vals, up = line.tolist(), prior.tolist()
            res = [0] * stride
            for i in range(stride):
                left = res[i - bpp] if i >= bpp else 0
                if kind == 3:
                    res[i] = (vals[i] + ((left + up[i]) >> 1)) & 0xFF
                else:
                    res[i] = (vals[i] + _paeth(left, up[i], up[i - bpp] if i >= bpp else 0)) & 0xFF
            cur = np.array(res, np.uint8)
        out[r] = cur
        prior = cur
    return out


def _samples(lines: np.ndarray, width: int, channels: int, depth: int) -> np.ndarray:
    """Scanline bytes -> [rows, width, channels] integer samples."""
    rows = lines.shape[0]
    if depth == 16:
        return (
            lines.view(">u2").reshape(rows, -1)[:, : width * channels].reshape(rows, width, channels).astype(np.uint16)
        )
    if depth == 8:
        return lines[:, : width * channels].reshape(rows, width, channels)
    bits = np.unpackbits(lines, axis=1).reshape(rows, -1, depth)
    weights = 1 << np.arange(depth - 1, -1, -1)
    return (bits * weights).sum(-1)[:, :width].astype(np.uint8).reshape(rows, width, 1)


def _pixels(header: dict, data: bytes) -> np.ndarray:
    w, h, depth, color = header["w"], header["h"], header["depth"], header["color"]
    channels = _CHANNELS[color]
    bits_pp = channels * depth
    bpp = max(1, bits_pp // 8)
    try:
        raw = memoryview(zlib.decompress(data))
    except zlib.error:
        raise _invalid("Invalid PNG data, size %d" % len(data)) from None
    if not header["interlace"]:
        stride = (w * bits_pp + 7) // 8
        if len(raw) < h * (stride + 1):
            raise _invalid("Invalid PNG data, size %d" % len(raw))
        return _samples(_unfilter(raw, h, stride, bpp), w, channels, depth)
    out = np.zeros((h, w, channels), np.uint16 if depth == 16 else np.uint8)
    pos = 0
    for x0, y0, dx, dy in _ADAM7:  # Adam7: seven reduced images, each filtered on its own
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw <= 0 or ph <= 0:
            continue
        stride = (pw * bits_pp + 7) // 8
        size = ph * (stride + 1)
        if len(raw) < pos + size:
            raise _invalid("Invalid PNG data, size %d" % len(raw))
        out[y0::dy, x0::dx] = _samples(_unfilter(raw[pos : pos + size], ph, stride, bpp), pw, channels, depth)
        pos += size
    return out


def _expand(header: dict, px: np.ndarray, plte: Optional[bytes], trns: Optional[bytes]) -> np.ndarray:
    """Palette and transparency chunks applied; low bit depths scaled to 8 bits (libpng's expand)."""
    color, depth = header["color"], header["depth"]
    if color == 3:
        if plte is None:
            raise _invalid("Invalid PNG. Failed to initialize decoder.")
        pal = np.frombuffer(plte, np.uint8)[: len(plte) // 3 * 3].reshape(-1, 3)
        idx = np.minimum(px[..., 0].astype(np.int64), len(pal) - 1)
        rgb = pal[idx]
        if trns is None:
            return rgb
        alpha = np.full(len(pal), 255, np.uint8)
        alpha[: min(len(trns), len(pal))] = np.frombuffer(trns, np.uint8)[: len(pal)]
        return np.concatenate([rgb, alpha[idx][..., None]], -1)
    if depth < 8:
        px = (px.astype(np.uint16) * (255 // ((1 << depth) - 1))).astype(np.uint8)
    if trns is not None and color in (0, 2):
        key = np.frombuffer(trns, ">u2").astype(np.int64)
        if depth < 8:
            key = key * (255 // ((1 << depth) - 1))
        opaque = 0xFFFF if depth == 16 else 0xFF
        match = np.all(px == key[: px.shape[-1]].astype(px.dtype), axis=-1)
        alpha = np.where(match, 0, opaque).astype(px.dtype)
        px = np.concatenate([px, alpha[..., None]], -1)
    return px


def _to_gray(rgb: np.ndarray) -> np.ndarray:
    """libpng's png_do_rgb_to_gray without gamma: 15-bit weights of (0.299, 0.587), truncated."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    gray = (9797 * r + 19234 * g + 3737 * b) >> 15
    same = (r == g) & (g == b)
    return np.where(same, r, gray).astype(rgb.dtype)[..., None]


def _convert(px: np.ndarray, channels: int) -> np.ndarray:
    have = px.shape[-1]
    if channels == 0 or channels == have:
        return px
    color, alpha = (px[..., :-1], px[..., -1:]) if have in (2, 4) else (px, None)
    if channels in (1, 2):
        color = _to_gray(color) if color.shape[-1] == 3 else color
    else:
        color = np.repeat(color, 3, -1) if color.shape[-1] == 1 else color
    if channels in (2, 4):
        if alpha is None:
            alpha = np.full(color.shape[:-1] + (1,), np.iinfo(px.dtype).max, px.dtype)
        return np.concatenate([color, alpha], -1)
    return color


def decode_png_bytes(data: bytes, channels: int, out_dtype: Any) -> np.ndarray:
    """The pixels of a PNG file as an [height, width, channels] array of ``out_dtype``."""
    if not data.startswith(_SIGNATURE):
        if any(data.startswith(s) for s in _OTHER_FORMATS):
            raise UnimplementedError(
                None,
                None,
                "fn decodes PNG images only (TF's DecodePng also reads JPEG, GIF, BMP and WebP) [Op:DecodePng]",
            )
        raise _invalid("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.")
    header, idat, plte, trns = _chunks(data)
    px = _convert(_expand(header, _pixels(header, idat), plte, trns), channels)
    if out_dtype == np.uint8 and px.dtype == np.uint16:
        px = (px >> 8).astype(np.uint8)
    if out_dtype == np.uint16 and px.dtype == np.uint8:  # 8-bit samples widened as libpng's expand_16
        px = px.astype(np.uint16) * np.uint16(257)
    return px.astype(out_dtype, copy=False)


def encode_png_array(image: np.ndarray, compression: int) -> bytes:
    """An 8- or 16-bit (uint8 / uint16) [height, width, channels] image as PNG bytes (unfiltered rows)."""
    h, w, c = image.shape
    color = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    depth = 16 if image.dtype == np.uint16 else 8
    samples = np.ascontiguousarray(image, ">u2" if depth == 16 else np.uint8).view(np.uint8)
    rows = np.concatenate([np.zeros((h, 1), np.uint8), samples.reshape(h, w * c * depth // 8)], 1)
    level = 6 if compression is None or compression < 0 else min(int(compression), 9)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0)
    return (
        _SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows.tobytes(), level)) + chunk(b"IEND", b"")
    )


def _string_scalar(x: Any, op: str) -> Any:
    x = x if _core.is_tensor(x) else _core.convert_to_tensor(x, None, string)
    if x.dtype != string:
        raise TypeError(f"Expected string passed to parameter 'contents' of op '{op}', got {x.dtype.name}.")
    if x.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {x.shape.rank} for '{{{{node {op}}}}} = {op}'")
    return x


def _host(op: str, x: Any, run: Any, out_dtype: Any, shape: List[Optional[int]]) -> Any:
    if _core.executing_eagerly() and x._is_eager:
        return _core.to_eager(run(x), out_dtype)

    return _core.execute(
        "PyCall",
        [x],
        {
            "callable": lambda v: [_core.to_eager(run(v), out_dtype)],
            "Tout": [out_dtype],
            "Tout_shapes": [TensorShape(shape)],
        },
        op,
    )[0]


def decode_png(contents: Any, channels: int = 0, dtype: Any = uint8, name: Optional[str] = None) -> Any:
    """``tf.io.decode_png`` (``tf.image.decode_png``): a PNG image as a uint8 or uint16 [height,
    width, channels] tensor (``channels`` 0 keeps the file's)."""
    dtype = as_dtype(dtype)
    if dtype not in (uint8, uint16):
        raise TypeError(
            f"Value passed to parameter 'dtype' has DataType {dtype.name} not in list of allowed values: uint8, uint16"
        )
    if channels not in (0, 1, 3, 4):
        raise _invalid(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    x = _string_scalar(contents, "DecodePng")

    def run(v: Any) -> np.ndarray:
        data = v.numpy() if hasattr(v, "numpy") else v
        return decode_png_bytes(bytes(data), channels, dtype.as_numpy_dtype)

    return _host("DecodePng", x, run, dtype, [None, None, channels or None])


def encode_png(image: Any, compression: int = -1, name: Optional[str] = None) -> Any:
    """``tf.io.encode_png`` (``tf.image.encode_png``): a uint8 or uint16 [height, width, channels] image
    (1 to 4 channels) as a PNG string."""
    image = image if _core.is_tensor(image) else _core.convert_to_tensor(image, None, None)
    if image.dtype not in (uint8, uint16):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'T' of {_c_type(image.dtype)} is not in the list of "
            f"allowed values: uint8, uint16 [Op:EncodePng]",
        )

    def run(v: Any) -> Any:
        arr = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
        if arr.ndim != 3:
            raise _invalid(
                "images must be at least rank 3" + "[" + ",".join(str(d) for d in arr.shape) + "]", "EncodePng"
            )
        if not 1 <= arr.shape[-1] <= 4:
            raise _invalid(f"image must have 1, 2, 3, or 4 channels, got {arr.shape[-1]}", "EncodePng")
        return np.array(encode_png_array(arr, compression), dtype=object)

    return _host("EncodePng", image, run, string, [])


def _c_type(dtype: Any) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)
