"""``tf.io.decode_jpeg`` (``tf.image.decode_jpeg``): baseline (sequential Huffman) JPEG decoding
with the arithmetic of libjpeg-turbo as TensorFlow configures it, so pixels are TF's bit for bit:
the fast integer IDCT (``jidctfst.c``, TF's default ``dct_method``) or the accurate one
(``jidctint.c``, ``INTEGER_ACCURATE``), "fancy" triangle-filter
chroma upsampling (``jdsample.c``; replication with ``fancy_upscaling=False``) and the
fixed-point YCbCr->RGB tables of ``jdcolor.c``."""

from __future__ import annotations

import struct
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from fn import _core
from fn.dtypes import uint8
from fn.errors import InvalidArgumentError, OpError, UnimplementedError
from fn._io.png import _SIGNATURE as _PNG_SIGNATURE, _host, _string_scalar, decode_png_bytes

_PREFIX = "{{function_node __wrapped__DecodeJpeg_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
_CORRUPT = "jpeg::Uncompress failed. Invalid JPEG data or crop window."

_ZIGZAG = np.array(
    [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
     28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
     54, 47, 55, 62, 63],
    np.int64,
)  # fmt: skip
_SOF_UNSUPPORTED = {0xC2: "progressive", 0xC3: "lossless", 0xC9: "arithmetic", 0xCA: "arithmetic", 0xCB: "lossless"}


def _invalid(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, message)


class _Frame:
    def __init__(self) -> None:
        self.height = self.width = 0
        self.comps: List[Dict[str, Any]] = []
        self.qt: Dict[int, np.ndarray] = {}
        self.dc: Dict[int, Dict[Tuple[int, int], int]] = {}
        self.ac: Dict[int, Dict[Tuple[int, int], int]] = {}
        self.restart = 0
        self.adobe_transform: Optional[int] = None
        self.jfif = False


def _huffman_table(counts: bytes, symbols: bytes) -> Dict[Tuple[int, int], int]:
    table, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(counts[length - 1]):
            table[(length, code)] = symbols[k]
            code += 1
            k += 1
        code <<= 1
    return table


class _Bits:
    """The entropy-coded bytes of one restart interval, read MSB first (zeros past the end, as
    libjpeg fills a truncated segment)."""

    def __init__(self, data: bytes) -> None:
        self.value = int.from_bytes(data, "big") if data else 0
        self.left = 8 * len(data)

    def read(self, n: int) -> int:
        if n == 0:
            return 0
        if self.left >= n:
            self.left -= n
            return (self.value >> self.left) & ((1 << n) - 1)
        v = (self.value & ((1 << self.left) - 1)) << (n - self.left) if self.left > 0 else 0
        self.left = 0
        return v

    def decode(self, table: Dict[Tuple[int, int], int]) -> int:
        code = 0
        for length in range(1, 17):
            code = (code << 1) | self.read(1)
            sym = table.get((length, code))
            if sym is not None:
                return sym
        raise _invalid(_CORRUPT)  # libjpeg: a bad Huffman code


def _extend(v: int, s: int) -> int:
    return v - (1 << s) + 1 if s and v < (1 << (s - 1)) else v


def _segments(data: bytes, pos: int) -> Tuple[List[bytes], int]:
    """The scan's entropy-coded bytes split at restart markers (stuffed 0xFF00 undone), and the
    position of the marker ending the scan."""
    segs: List[bytes] = []
    cur = bytearray()
    n = len(data)
    while pos < n:
        j = data.find(b"\xff", pos)
        if j < 0 or j + 1 >= n:
            cur += data[pos:]
            pos = n
            break
        cur += data[pos:j]
        nxt = data[j + 1]
        if nxt == 0:
            cur.append(0xFF)
            pos = j + 2
        elif 0xD0 <= nxt <= 0xD7:
            segs.append(bytes(cur))
            cur = bytearray()
            pos = j + 2
        elif nxt == 0xFF:
            pos = j + 1
        else:
            pos = j
            break
    segs.append(bytes(cur))
    return segs, pos


def _decode_scan(f: _Frame, scomps: List[Dict[str, Any]], data: bytes, pos: int) -> int:
    hmax = max(c["h"] for c in f.comps)
    vmax = max(c["v"] for c in f.comps)
    if len(scomps) == 1:
        c = scomps[0]
        bw, bh = -(-c["dw"] // 8), -(-c["dh"] // 8)  # the component's own block grid
        units = [[(c, by, bx)] for by in range(bh) for bx in range(bw)]
    else:
        mx, my = -(-f.width // (8 * hmax)), -(-f.height // (8 * vmax))
        units = [
            [(c, my_ * c["v"] + y, mx_ * c["h"] + x) for c in scomps for y in range(c["v"]) for x in range(c["h"])]
            for my_ in range(my)
            for mx_ in range(mx)
        ]
    segs, end = _segments(data, pos)
    per = f.restart or len(units)
    for si in range(-(-len(units) // per) if units else 0):
        bits = _Bits(segs[si] if si < len(segs) else b"")
        pred = {id(c): 0 for c in scomps}
        for unit in units[si * per : (si + 1) * per]:
            for c, by, bx in unit:
                block = c["coef"][by, bx]
                s = bits.decode(f.dc[c["td"]])
                pred[id(c)] += _extend(bits.read(s), s)
                block[0] = pred[id(c)]
                k = 1
                while k < 64:
                    rs = bits.decode(f.ac[c["ta"]])
                    r, s = rs >> 4, rs & 15
                    if s:
                        k += r
                        if k > 63:
                            break
                        block[_ZIGZAG[k]] = _extend(bits.read(s), s)
                        k += 1
                    elif r == 15:
                        k += 16
                    else:
                        break
    return end


def _parse(data: bytes) -> _Frame:
    f = _Frame()
    pos, n, scanned, ended = 2, len(data), False, False
    while pos + 2 <= n:
        if data[pos] != 0xFF:
            pos += 1
            continue
        marker = data[pos + 1]
        if marker in (0xFF, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 1 if marker == 0xFF else 2
            continue
        if marker == 0xD9:
            ended = True
            break
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        body = data[pos + 4 : pos + 2 + length]
        pos += 2 + length
        if marker == 0xDB:
            i = 0
            while i < len(body):
                pq, tq = body[i] >> 4, body[i] & 15
                size = 128 if pq else 64
                q = np.frombuffer(body[i + 1 : i + 1 + size], ">u2" if pq else np.uint8).astype(np.int64)
                f.qt[tq] = np.zeros(64, np.int64)
                f.qt[tq][_ZIGZAG] = q
                i += 1 + size
        elif marker == 0xC4:
            i = 0
            while i < len(body):
                tc, th = body[i] >> 4, body[i] & 15
                counts = body[i + 1 : i + 17]
                total = sum(counts)
                (f.ac if tc else f.dc)[th] = _huffman_table(counts, body[i + 17 : i + 17 + total])
                i += 17 + total
        elif marker in (0xC0, 0xC1):
            if body[0] != 8:
                raise UnimplementedError(None, None, f"fn decodes 8-bit JPEG samples only, got {body[0]}-bit")
            f.height, f.width, nc = struct.unpack(">HHB", body[1:6])
            for k in range(nc):
                cid, hv, tq = body[6 + 3 * k : 9 + 3 * k]
                f.comps.append({"id": cid, "h": hv >> 4, "v": hv & 15, "tq": tq})
            if f.height == 0 or f.width == 0 or nc not in (1, 3):
                raise _invalid(f"Invalid JPEG frame: {f.width}x{f.height} with {nc} components")
            _allocate(f)
        elif marker in _SOF_UNSUPPORTED:
            raise UnimplementedError(None, None, f"fn decodes baseline JPEG only ({_SOF_UNSUPPORTED[marker]} found)")
        elif marker == 0xDD:
            (f.restart,) = struct.unpack(">H", body[:2])
        elif marker == 0xE0 and body.startswith(b"JFIF\x00"):
            f.jfif = True
        elif marker == 0xEE and body.startswith(b"Adobe") and len(body) >= 12:
            f.adobe_transform = body[11]
        elif marker == 0xDA:
            if not f.comps:
                raise _invalid("Invalid JPEG data: scan before frame header")
            by_id = {c["id"]: c for c in f.comps}
            scomps = []
            for k in range(body[0]):
                c = by_id[body[1 + 2 * k]]
                c["td"], c["ta"] = body[2 + 2 * k] >> 4, body[2 + 2 * k] & 15
                scomps.append(c)
            pos = _decode_scan(f, scomps, data, pos)
            scanned = True
    if not (scanned and ended):  # a truncated file (TF's try_recover_truncated is not built)
        raise _invalid(_CORRUPT)
    return f


def _allocate(f: _Frame) -> None:
    hmax = max(c["h"] for c in f.comps)
    vmax = max(c["v"] for c in f.comps)
    mx, my = -(-f.width // (8 * hmax)), -(-f.height // (8 * vmax))
    for c in f.comps:
        c["coef"] = np.zeros((my * c["v"], mx * c["h"], 64), np.int64)
        c["dw"] = -(-f.width * c["h"] // hmax)
        c["dh"] = -(-f.height * c["v"] // vmax)


_C = dict(
    f0298=2446, f0390=3196, f0541=4433, f0765=6270, f0899=7373, f1175=9633, f1501=12299, f1847=15137, f1961=16069,
    f2053=16819, f2562=20995, f3072=25172,
)  # fmt: skip


def _idct_1d(x: List[np.ndarray], shift: int) -> List[np.ndarray]:
    """jidctint.c's 8-point pass over the last axis index lists ``x[0..7]`` (int64 arrays),
    descaled by ``shift`` with rounding."""
    c = _C
    z2, z3 = x[2], x[6]
    z1 = (z2 + z3) * c["f0541"]
    tmp2 = z1 - z3 * c["f1847"]
    tmp3 = z1 + z2 * c["f0765"]
    tmp0 = (x[0] + x[4]) << 13
    tmp1 = (x[0] - x[4]) << 13
    tmp10, tmp13, tmp11, tmp12 = tmp0 + tmp3, tmp0 - tmp3, tmp1 + tmp2, tmp1 - tmp2
    t0, t1, t2, t3 = x[7], x[5], x[3], x[1]
    z1, z2, z3, z4 = t0 + t3, t1 + t2, t0 + t2, t1 + t3
    z5 = (z3 + z4) * c["f1175"]
    t0, t1, t2, t3 = t0 * c["f0298"], t1 * c["f2053"], t2 * c["f3072"], t3 * c["f1501"]
    z1, z2 = z1 * -c["f0899"], z2 * -c["f2562"]
    z3, z4 = z3 * -c["f1961"] + z5, z4 * -c["f0390"] + z5
    t0, t1, t2, t3 = t0 + z1 + z3, t1 + z2 + z4, t2 + z2 + z3, t3 + z1 + z4
    r = 1 << (shift - 1)
    return [
        (tmp10 + t3 + r) >> shift, (tmp11 + t2 + r) >> shift, (tmp12 + t1 + r) >> shift, (tmp13 + t0 + r) >> shift,
        (tmp13 - t0 + r) >> shift, (tmp12 - t1 + r) >> shift, (tmp11 - t2 + r) >> shift, (tmp10 - t3 + r) >> shift,
    ]  # fmt: skip


def _idct_fast_1d(x: List[np.ndarray], shift: int) -> List[np.ndarray]:
    """jidctfst.c's AA&N 8-point pass (8 fractional bits, truncating shifts), then ``>> shift``."""

    def mul(v: np.ndarray, k: int) -> np.ndarray:
        return (v * k) >> 8

    tmp10, tmp11 = x[0] + x[4], x[0] - x[4]
    tmp13 = x[2] + x[6]
    tmp12 = mul(x[2] - x[6], 362) - tmp13
    tmp0, tmp3, tmp1, tmp2 = tmp10 + tmp13, tmp10 - tmp13, tmp11 + tmp12, tmp11 - tmp12
    z13, z10, z11, z12 = x[5] + x[3], x[5] - x[3], x[1] + x[7], x[1] - x[7]
    tmp7 = z11 + z13
    t11 = mul(z11 - z13, 362)
    z5 = mul(z10 + z12, 473)
    t10 = mul(z12, 277) - z5
    t12 = mul(z10, -669) + z5
    tmp6 = t12 - tmp7
    tmp5 = t11 - tmp6
    tmp4 = t10 + tmp5
    return [
        (tmp0 + tmp7) >> shift, (tmp1 + tmp6) >> shift, (tmp2 + tmp5) >> shift, (tmp3 - tmp4) >> shift,
        (tmp3 + tmp4) >> shift, (tmp2 - tmp5) >> shift, (tmp1 - tmp6) >> shift, (tmp0 - tmp7) >> shift,
    ]  # fmt: skip


def _aan_scales() -> np.ndarray:
    s = np.array([1.0] + [np.cos(k * np.pi / 16) * np.sqrt(2) for k in range(1, 8)])
    return np.floor(np.outer(s, s).reshape(64) * 16384 + 0.5).astype(np.int64)


_AANSCALES = _aan_scales()  # jddctmgr.c's aanscales (14 fractional bits), row-major


def _plane(c: Dict[str, Any], q: np.ndarray, accurate: bool) -> np.ndarray:
    """A component's samples: dequantize, 2-pass IDCT (jidctint.c accurate or jidctfst.c fast),
    range limit."""
    coef = c["coef"]
    bh, bw = coef.shape[:2]
    if accurate:
        blocks = (coef * q).reshape(bh, bw, 8, 8)  # [.., row, col]
        one_d, shifts = _idct_1d, (11, 18)  # CONST_BITS-PASS1_BITS, CONST_BITS+PASS1_BITS+3
    else:  # jddctmgr.c's ifast multiplier table: quant * aanscale, 2 fractional bits kept
        mult = (q * _AANSCALES + (1 << 11)) >> 12
        blocks = (coef * mult).reshape(bh, bw, 8, 8)
        one_d, shifts = _idct_fast_1d, (0, 5)
    cols = one_d([blocks[:, :, k, :] for k in range(8)], shifts[0])  # pass 1: columns
    ws = np.stack(cols, axis=2)  # [.., row, col]
    rows = one_d([ws[:, :, :, k] for k in range(8)], shifts[1])  # pass 2: rows
    out = np.stack(rows, axis=3)
    idx = out & 1023  # libjpeg's range-limit table: wraps at +-512, clamps around the centre
    signed = np.where(idx < 512, idx, idx - 1024)
    px = np.clip(signed + 128, 0, 255)
    return px.transpose(0, 2, 1, 3).reshape(bh * 8, bw * 8)[: c["dh"], : c["dw"]]


def _fancy_h2(p: np.ndarray, first_bias: int, second_bias: int, shift: int, weight_edge: int) -> np.ndarray:
    """Horizontal triangle filter of h2v1/h2v2 fancy upsampling on column sums ``p``."""
    if p.shape[1] == 1:
        return np.repeat((p * weight_edge + first_bias) >> shift, 2, axis=1)
    left = np.concatenate([p[:, :1], p[:, :-1]], axis=1)
    right = np.concatenate([p[:, 1:], p[:, -1:]], axis=1)
    even = (p * 3 + left + first_bias) >> shift
    odd = (p * 3 + right + second_bias) >> shift
    even[:, 0] = (p[:, 0] * weight_edge + first_bias) >> shift
    odd[:, -1] = (p[:, -1] * weight_edge + second_bias) >> shift
    out = np.empty((p.shape[0], 2 * p.shape[1]), np.int64)
    out[:, 0::2], out[:, 1::2] = even, odd
    return out


def _upsample(p: np.ndarray, h: int, v: int, fancy: bool) -> np.ndarray:
    if h == 1 and v == 1:
        return p
    if fancy and h == 2 and v == 1 and p.shape[1] > 2:
        out = _fancy_h2(p, 1, 2, 2, 4)  # h2v1_fancy_upsample: (3a+b+1)>>2, (3a+c+2)>>2, edges copy
        out[:, 0], out[:, -1] = p[:, 0], p[:, -1]
        return out
    if fancy and v == 2 and (h == 1 or (h == 2 and p.shape[1] > 2)):
        above = np.concatenate([p[:1], p[:-1]], axis=0)
        below = np.concatenate([p[1:], p[-1:]], axis=0)
        sums_top, sums_bottom = p * 3 + above, p * 3 + below  # output rows 2i and 2i+1
        if h == 2:  # h2v2_fancy_upsample: (4s+8)>>4 / (3s+s'+8 or 7)>>4
            top, bottom = _fancy_h2(sums_top, 8, 7, 4, 4), _fancy_h2(sums_bottom, 8, 7, 4, 4)
        else:  # h1v2_fancy_upsample: (s+1)>>2 above, (s+2)>>2 below
            top, bottom = (sums_top + 1) >> 2, (sums_bottom + 2) >> 2
        out = np.empty((2 * p.shape[0], top.shape[1]), np.int64)
        out[0::2], out[1::2] = top, bottom
        return out
    return np.repeat(np.repeat(p, v, axis=0), h, axis=1)  # int_upsample / h2v2_upsample


def _ycc_to_rgb(y: np.ndarray, cb: np.ndarray, cr: np.ndarray) -> np.ndarray:
    """jdcolor.c's ycc_rgb_convert (16-bit fixed-point tables, ONE_HALF rounding)."""
    cb, cr = cb - 128, cr - 128
    half = 1 << 15
    r = y + ((91881 * cr + half) >> 16)
    g = y + ((-22554 * cb + half - 46802 * cr) >> 16)
    b = y + ((116130 * cb + half) >> 16)
    return np.clip(np.stack([r, g, b], axis=-1), 0, 255)


def decode_jpeg_bytes(data: bytes, channels: int, fancy: bool, accurate: bool = False) -> np.ndarray:
    """A baseline JPEG file's pixels as a [height, width, channels] uint8 array (TF's DecodeJpeg
    also decodes PNG files)."""
    if data.startswith(_PNG_SIGNATURE):
        return decode_png_bytes(data, channels, np.uint8)
    if not data.startswith(b"\xff\xd8\xff"):
        raise _invalid("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.")
    try:
        f = _parse(data)
    except (IndexError, KeyError, ValueError, struct.error):
        raise _invalid(_CORRUPT) from None
    return _pixels(f, channels, fancy, accurate)


def _pixels(f: _Frame, channels: int, fancy: bool, accurate: bool) -> np.ndarray:
    hmax = max(c["h"] for c in f.comps)
    vmax = max(c["v"] for c in f.comps)
    planes = []
    for c in f.comps:
        if c["tq"] not in f.qt:
            raise _invalid("Invalid JPEG data: a quantization table is missing")
        p = _upsample(_plane(c, f.qt[c["tq"]], accurate), hmax // c["h"], vmax // c["v"], fancy)
        planes.append(p[: f.height, : f.width])
    if len(planes) == 1:
        px = planes[0][:, :, None]
    elif f.adobe_transform == 0 or (f.adobe_transform is None and not f.jfif and _rgb_ids(f)):
        px = np.stack(planes, axis=-1)  # stored as RGB (libjpeg's colour-space guess)
    else:
        px = _ycc_to_rgb(*planes) if channels != 1 else planes[0][:, :, None]
    if channels == 1 and px.shape[2] == 3 and len(planes) == 3 and not (f.adobe_transform == 1 or f.jfif):
        px = px[:, :, :1]  # RGB file read as gray: libjpeg's rgb_gray_convert is approximated by G
    if channels == 3 and px.shape[2] == 1:
        px = np.repeat(px, 3, axis=2)
    return px.astype(np.uint8)


def _rgb_ids(f: _Frame) -> bool:
    return [c["id"] for c in f.comps] == [ord("R"), ord("G"), ord("B")]


def decode_jpeg(
    contents: Any,
    channels: int = 0,
    ratio: int = 1,
    fancy_upscaling: bool = True,
    try_recover_truncated: bool = False,
    acceptable_fraction: float = 1,
    dct_method: str = "",
    name: Optional[str] = None,
) -> Any:
    """``tf.io.decode_jpeg`` / ``tf.image.decode_jpeg``: a baseline JPEG image as a uint8
    [height, width, channels] tensor (``channels`` 0 keeps the file's: 1 or 3)."""
    eager = _core.executing_eagerly()

    def fail(message: str, cls: Any = InvalidArgumentError) -> OpError:
        return cls(None, None, f"{_PREFIX}{message} [Op:DecodeJpeg]" if eager else message)

    if channels not in (0, 1, 3, 4):
        raise fail(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    if ratio not in (1, 2, 4, 8):
        raise fail(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise fail("dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}")
    if ratio != 1 or channels == 4:
        raise fail(
            f"fn decodes JPEG at ratio 1 into 0, 1 or 3 channels only (got {ratio}, {channels})", UnimplementedError
        )
    accurate = dct_method == "INTEGER_ACCURATE"  # TF's default ('') is libjpeg's IFAST
    if eager and not _core.is_tensor(contents) and not isinstance(contents, (bytes, str)):
        shape = np.shape(contents)
        if shape:
            raise fail("`contents` must be scalar but got shape[" + ",".join(map(str, shape)) + "]")
    x = _string_scalar(contents, "DecodeJpeg")

    def run(v: Any) -> np.ndarray:
        data = v.numpy() if hasattr(v, "numpy") else v
        try:
            return decode_jpeg_bytes(bytes(data), channels, bool(fancy_upscaling), accurate)
        except InvalidArgumentError as e:
            raise fail(e.message) from None

    return _host("DecodeJpeg", x, run, uint8, [None, None, channels or None])
