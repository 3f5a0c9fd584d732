"""tf.io.decode_png / encode_png: pixels of PNG files of every colour type, bit depth, filter and
interlacing (files made here with zlib, so both backends read the same bytes), channel
conversions as TF's libpng ones, round trips, in tf.function, and TF's errors."""

import struct
import zlib

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(3)


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def _filter(rows, bpp, kinds):
    """Filters scanlines (list of bytes) with the given filter type per row."""
    out, prior = [], bytes(len(rows[0]))
    for row, kind in zip(rows, kinds):
        f = bytearray()
        for i, x in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prior[i]
            c = prior[i - bpp] if i >= bpp else 0
            pred = [0, a, b, (a + b) // 2, _paeth(a, b, c)][kind]
            f.append((x - pred) & 0xFF)
        out.append(bytes([kind]) + bytes(f))
        prior = row
    return b"".join(out)


def make_png(samples, color, depth, palette=None, trns=None, interlace=False):
    """A PNG of integer samples [h, w, c] (c=1 for palette/low depths), rows filtered with all five
    filter types in turn."""
    h, w, c = samples.shape
    bpp = max(1, c * depth // 8)

    def scanlines(px):
        rows = []
        for r in px:
            if depth == 16:
                rows.append(r.astype(">u2").tobytes())
            elif depth == 8:
                rows.append(r.astype(np.uint8).tobytes())
            else:
                bits = ((r[:, 0][:, None] >> np.arange(depth - 1, -1, -1)) & 1).astype(np.uint8).reshape(-1)
                rows.append(np.packbits(bits).tobytes())
        return rows

    if interlace:
        data = b""
        for x0, y0, dx, dy in [
            (0, 0, 8, 8),
            (4, 0, 8, 8),
            (0, 4, 4, 8),
            (2, 0, 4, 4),
            (0, 2, 2, 4),
            (1, 0, 2, 2),
            (0, 1, 1, 2),
        ]:
            sub = samples[y0::dy, x0::dx]
            if sub.size:
                rows = scanlines(sub)
                data += _filter(rows, bpp, [i % 5 for i in range(len(rows))])
    else:
        rows = scanlines(samples)
        data = _filter(rows, bpp, [i % 5 for i in range(len(rows))])
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, int(interlace)))
    if palette is not None:
        out += _chunk(b"PLTE", palette.astype(np.uint8).tobytes())
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    return out + _chunk(b"IDAT", zlib.compress(data)) + _chunk(b"IEND", b"")


def decode(data, channels=0):
    return tf.io.decode_png(tf.constant(data), channels=channels).numpy()


@pytest.mark.parametrize("interlace", [False, True])
def test_rgb_rgba_gray_and_conversions(interlace):
    rgb = RNG.integers(0, 256, size=(9, 11, 3))
    png = make_png(rgb, 2, 8, interlace=interlace)
    np.testing.assert_array_equal(decode(png), rgb)
    np.testing.assert_array_equal(decode(png, 3), rgb)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    gray = np.where((r == g) & (g == b), r, (9797 * r + 19234 * g + 3737 * b) >> 15)
    np.testing.assert_array_equal(decode(png, 1)[..., 0], gray)
    np.testing.assert_array_equal(decode(png, 4), np.concatenate([rgb, np.full((9, 11, 1), 255)], -1))
    rgba = RNG.integers(0, 256, size=(5, 4, 4))
    png = make_png(rgba, 6, 8, interlace=interlace)
    np.testing.assert_array_equal(decode(png), rgba)
    np.testing.assert_array_equal(decode(png, 3), rgba[..., :3])
    ga = RNG.integers(0, 256, size=(3, 4, 2))
    png = make_png(ga, 4, 8)
    assert decode(png).shape == (3, 4, 2)
    np.testing.assert_array_equal(decode(png, 1), ga[..., :1])
    np.testing.assert_array_equal(decode(png, 3), np.repeat(ga[..., :1], 3, -1))


def test_bit_depths_and_palettes():
    for depth in (1, 2, 4):
        g = RNG.integers(0, 1 << depth, size=(6, 13, 1))
        np.testing.assert_array_equal(decode(make_png(g, 0, depth)), g * (255 // ((1 << depth) - 1)))
    g16 = RNG.integers(0, 1 << 16, size=(4, 5, 3))
    np.testing.assert_array_equal(decode(make_png(g16, 2, 16)), g16 >> 8)
    pal = RNG.integers(0, 256, size=(6, 3))
    idx = RNG.integers(0, 6, size=(5, 7, 1))
    png = make_png(idx, 3, 4, palette=pal)
    np.testing.assert_array_equal(decode(png), pal[idx[..., 0]])
    alpha = bytes([0, 128, 255])
    png = make_png(idx, 3, 8, palette=pal, trns=alpha)
    want_a = np.array([0, 128, 255, 255, 255, 255])[idx[..., 0]]
    np.testing.assert_array_equal(decode(png), np.concatenate([pal[idx[..., 0]], want_a[..., None]], -1))


def test_round_trip_in_function_and_shapes():
    img = RNG.integers(0, 256, size=(6, 5, 3)).astype(np.uint8)
    enc = tf.io.encode_png(img)
    assert enc.dtype == tf.string and enc.shape == ()
    np.testing.assert_array_equal(tf.image.decode_png(enc).numpy(), img)

    @tf.function
    def f(x):
        return tf.io.decode_png(x, channels=3)

    got = f(enc)
    np.testing.assert_array_equal(got.numpy(), img)
    assert f.get_concrete_function(tf.TensorSpec([], tf.string)).structured_outputs.shape.as_list() == [None, None, 3]
    gray = tf.io.encode_png(img[..., :1], compression=9)
    np.testing.assert_array_equal(tf.io.decode_png(gray).numpy(), img[..., :1])


def test_errors():
    err = tf.errors.InvalidArgumentError
    with pytest.raises(err, match="Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."):
        tf.io.decode_png(b"hello")
    with pytest.raises(err, match="Invalid PNG. Failed to initialize decoder."):
        tf.io.decode_png(b"\x89PNG\r\n\x1a\n" + b"x" * 20)
    with pytest.raises(err, match="`channels` must be 0, 1, 3 or 4 but got 2"):
        tf.io.decode_png(make_png(np.zeros((1, 1, 3), int), 2, 8), channels=2)
    with pytest.raises(err, match="image must have 1, 2, 3, or 4 channels, got 5"):
        tf.io.encode_png(tf.zeros([2, 2, 5], tf.uint8))
    with pytest.raises(err, match=r"images must be at least rank 3\[2,2\]"):
        tf.io.encode_png(tf.zeros([2, 2], tf.uint8))
    with pytest.raises(err, match="Value for attr 'T' of float is not in the list of allowed values: uint8, uint16"):
        tf.io.encode_png(tf.zeros([2, 2, 3], tf.float32))


def test_uint16():
    # 16-bit files decode exactly as uint16; 8-bit and low-depth samples widen by 257 (x * 65535 / 255)
    px16 = RNG.integers(0, 65536, (3, 4, 3))
    x = tf.io.decode_png(make_png(px16, 2, 16), dtype=tf.uint16)
    assert x.dtype == tf.uint16 and x.numpy().tolist() == px16.tolist()
    px8 = RNG.integers(0, 256, (2, 5, 4))
    y = tf.io.decode_png(make_png(px8, 6, 8), dtype=tf.uint16)
    assert y.numpy().tolist() == (px8 * 257).tolist()
    g2 = RNG.integers(0, 4, (2, 3, 1))
    z = tf.io.decode_png(make_png(g2, 0, 2), dtype=tf.uint16)
    assert z.numpy().tolist() == (g2 * 85 * 257).tolist()
    # encoding uint16 writes a 16-bit file, read back exactly (and as uint8: the high bytes)
    img = tf.constant(RNG.integers(0, 65536, (3, 2, 1)).astype(np.uint16))
    data = tf.io.encode_png(img)
    assert tf.io.decode_png(data, dtype=tf.uint16).numpy().tolist() == img.numpy().tolist()
    assert tf.io.decode_png(data).numpy().tolist() == (img.numpy() >> 8).tolist()
    f = tf.function(lambda s: tf.io.decode_png(s, channels=3, dtype=tf.uint16))
    assert f(make_png(px16, 2, 16)).numpy().tolist() == px16.tolist()
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.io.decode_png(make_png(px8, 6, 8), dtype=tf.int32)
