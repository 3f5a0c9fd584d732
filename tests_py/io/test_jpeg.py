"""``tf.io.decode_jpeg`` / ``tf.image.decode_jpeg`` against TensorFlow 2.21: the JPEG files below
were written by TF's ``encode_jpeg`` (4:2:0 and 4:4:4 colour, Huffman-optimized, grayscale, a
2x3 image whose chroma is one sample wide); each decode (channels 0/1/3, fancy upscaling on/off,
TF's default IFAST IDCT and INTEGER_ACCURATE) must give TF's pixels: shape, SHA-1 prefix of the
bytes and sum, as TF computes them."""

import base64
import hashlib

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

_FILES = {
    'color_420': (
        '/9j/4AAQSkZJRgABAQEBLAEsAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoK'
        'CgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoK'
        'CgoKCgoKCgr/wAARCAARACEDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF'
        'BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW'
        'V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi'
        '4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC'
        'AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm'
        'Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq'
        '8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDL+Hmveb5fz+nevdvh7e+Zs59K+VfhZr3m+WN/pX0n8LL0y+Xz6V/KXDnhN/rVb93e/kfy'
        'zwzwT7Dl90+jPh4nm7Me1ej65+zb8E/2gtGj0L4z/CnQ/EsCW08Fs+q6ckk1ok6qspt5seZbuwVfniZWBRSCCoI8f8MePtK8Nyx2'
        'QhNzdFQTCjABAcfebnHGSBg/hkGvStJ+KHiDTfDd74q1O9nitNMspLyaDTlCPsijLMFJIJJAPBbGT27TnfhjwFw1mywVGnUxOPi7'
        'OGHWtOW1p1G4xi904xcpxekoo/pvgvhvMMqisxp1HQVNOXtE3FxSWrTjqtL66aGf/wAOYP8AgnV/0br/AOXdq/8A8l0V4r/w3J8Y'
        '/wDoWPDP/gHcf/H6K93/AIhT4tf9CSt/4cqn/wAznmf8ToZD/wBFHmP31/8A5afBfwk/5ZfhX1J8JP8All+FFFf0X4H/APLr5Hzm'
        'TdDrvhB1i+gr1b40f8m5a9/25/8ApZBRRX4/9HH/AJHmA/6+U/8A0pH7Z4gf8mrz3/sCxX/piZ8A0UUV/Mx/mAf/2Q=='
    ),
    'color_444_q50': (
        '/9j/4AAQSkZJRgABAQEBLAEsAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19i'
        'Z2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj'
        'Y2NjY2NjY2P/wAARCAARACEDAREAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF'
        'BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW'
        'V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi'
        '4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC'
        'AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm'
        'Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq'
        '8vP09fb3+Pn6/9oADAMBAAIRAxEAPwBsL14XJc8GMC9CaXsLnTGBfho+qXOmMSy9nb3ahbiFJBggbhyM9cHtVwwk4u8dDto1J03e'
        'DsRf8I5pf/Pr/wCRG/xrb2Vfv+CO769iP5vwX+Ry9u3SqpwufPxgaVueld9Ohc2jAvxyqhA6n0pV6tOg+W15dv8AM6adJssrOwjZ'
        'ySAozha4P9oru17emn/BOlqNODm1srlD+05/7kf5H/Gtv7GieF/a9fsvx/zMC37VVE7Eatv2r16JqiW27V81RO9Fu5/48ZPw/mK9'
        'zB/GjlzH/dZfL80c/Xz58+f/2Q=='
    ),
    'noisy_optimized': (
        '/9j/4AAQSkZJRgABAQEBLAEsAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMU'
        'FRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU'
        'FBQUFBQUFBT/wAARCAAJAA4DASIAAhEBAxEB/8QAFwAAAwEAAAAAAAAAAAAAAAAABAUGB//EACYQAAICAQIDCQAAAAAAAAAAAAID'
        'AQQFBhEAEhMHFCI1NnN0sbL/xAAVAQEBAAAAAAAAAAAAAAAAAAADBf/EACARAQACAgIBBQAAAAAAAAAAAAECEQMhBBIFAAYTIjH/'
        '2gAMAwEAAhEDEQA/AB7ho09m6Tb0BlOsDQZmLWOebVPbAiI95UxZqYpFwhHpEXNLdpkGSIKfaeZQG1bRbZlsTithXVNs27cphZHs'
        'ErpGMgRy1hzE+EYAI5jIpFOe9ovlOv8A4Nn8ZziR0F6jre1e+sfxYn4WGDlvCMiSCKSiEaZY2QgaGJcdUU6Ddtz8Hye3ny3Le+5d'
        'igX7UVJ7VW3ZK+2/z1//2Q=='
    ),
    'gray': (
        '/9j/4AAQSkZJRgABAQEBLAEsAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYn'
        'KSopGR8tMC0oMCUoKSj/wAALCAARACEBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF'
        'BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW'
        'V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi'
        '4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/APA/D9p93ivS/D9p93ivSvD9p93ivS/D9p93iuq+ye1fCvh+0+7xXpfh+0+7xXpX'
        'h+0+7xXdm7g0HQNR1e8jle20+1ku5ViALskaFiFBIGcA4yRXzJ/w1D44/wCgT4a/8Bp//j1c54f/AIa9L8P/AMNeleH/AOGqv7Qn'
        '/JCfEn/br/6VRV8U1//Z'
    ),
    'tiny_420': (
        '/9j/4AAQSkZJRgABAQEBLAEsAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoK'
        'CgoKBggLDAsKDAkKCgr/2wBDAQICAgICAgUDAwUKBwYHCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoK'
        'CgoKCgoKCgr/wAARCAADAAIDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF'
        'BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW'
        'V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi'
        '4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC'
        'AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm'
        'Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq'
        '8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD5W8T/ALRnx0XxLqCj4qazgX0uP9MP980UUV/cHDHh34f1uGsFUqZRhXJ0abbeHpNtuEbt'
        'vk1bP0zM+JeI6OZV6dPGVVFTkklUmkkpOySvokf/2Q=='
    ),
}
_EXPECTED = {
    ('color_420', 0, True, ''): ([17, 33, 3], '12b51c1113560b52', 226469),
    ('color_420', 0, True, 'INTEGER_ACCURATE'): ([17, 33, 3], '4aaaec34dc2e053c', 227873),
    ('color_420', 0, False, ''): ([17, 33, 3], '4aee4c5f8416c3ac', 226410),
    ('color_420', 0, False, 'INTEGER_ACCURATE'): ([17, 33, 3], '1b153b2db84cf797', 227768),
    ('color_420', 1, True, ''): ([17, 33, 1], '70b4359d5ec593ee', 89399),
    ('color_420', 1, True, 'INTEGER_ACCURATE'): ([17, 33, 1], 'b8f87cd07ae12947', 89660),
    ('color_420', 1, False, ''): ([17, 33, 1], '70b4359d5ec593ee', 89399),
    ('color_420', 1, False, 'INTEGER_ACCURATE'): ([17, 33, 1], 'b8f87cd07ae12947', 89660),
    ('color_420', 3, True, ''): ([17, 33, 3], '12b51c1113560b52', 226469),
    ('color_420', 3, True, 'INTEGER_ACCURATE'): ([17, 33, 3], '4aaaec34dc2e053c', 227873),
    ('color_420', 3, False, ''): ([17, 33, 3], '4aee4c5f8416c3ac', 226410),
    ('color_420', 3, False, 'INTEGER_ACCURATE'): ([17, 33, 3], '1b153b2db84cf797', 227768),
    ('color_444_q50', 0, True, ''): ([17, 33, 3], 'bbc453464f8e853c', 226210),
    ('color_444_q50', 0, True, 'INTEGER_ACCURATE'): ([17, 33, 3], 'd8b6f4e133498a27', 227492),
    ('color_444_q50', 0, False, ''): ([17, 33, 3], 'bbc453464f8e853c', 226210),
    ('color_444_q50', 0, False, 'INTEGER_ACCURATE'): ([17, 33, 3], 'd8b6f4e133498a27', 227492),
    ('color_444_q50', 1, True, ''): ([17, 33, 1], '56b4d283c7346a75', 89462),
    ('color_444_q50', 1, True, 'INTEGER_ACCURATE'): ([17, 33, 1], '3ef06366b2ab95b7', 89723),
    ('color_444_q50', 1, False, ''): ([17, 33, 1], '56b4d283c7346a75', 89462),
    ('color_444_q50', 1, False, 'INTEGER_ACCURATE'): ([17, 33, 1], '3ef06366b2ab95b7', 89723),
    ('color_444_q50', 3, True, ''): ([17, 33, 3], 'bbc453464f8e853c', 226210),
    ('color_444_q50', 3, True, 'INTEGER_ACCURATE'): ([17, 33, 3], 'd8b6f4e133498a27', 227492),
    ('color_444_q50', 3, False, ''): ([17, 33, 3], 'bbc453464f8e853c', 226210),
    ('color_444_q50', 3, False, 'INTEGER_ACCURATE'): ([17, 33, 3], 'd8b6f4e133498a27', 227492),
    ('noisy_optimized', 0, True, ''): ([9, 14, 3], '01c11e7b9e6b52cd', 47112),
    ('noisy_optimized', 0, True, 'INTEGER_ACCURATE'): ([9, 14, 3], '11367d90338df35f', 47404),
    ('noisy_optimized', 0, False, ''): ([9, 14, 3], '67352a8e9b9b5eef', 47129),
    ('noisy_optimized', 0, False, 'INTEGER_ACCURATE'): ([9, 14, 3], '4f1306af42bd70b5', 47437),
    ('noisy_optimized', 1, True, ''): ([9, 14, 1], 'b39ad7ea5c4dd5d5', 15716),
    ('noisy_optimized', 1, True, 'INTEGER_ACCURATE'): ([9, 14, 1], '0ca4437972d61a89', 15769),
    ('noisy_optimized', 1, False, ''): ([9, 14, 1], 'b39ad7ea5c4dd5d5', 15716),
    ('noisy_optimized', 1, False, 'INTEGER_ACCURATE'): ([9, 14, 1], '0ca4437972d61a89', 15769),
    ('noisy_optimized', 3, True, ''): ([9, 14, 3], '01c11e7b9e6b52cd', 47112),
    ('noisy_optimized', 3, True, 'INTEGER_ACCURATE'): ([9, 14, 3], '11367d90338df35f', 47404),
    ('noisy_optimized', 3, False, ''): ([9, 14, 3], '67352a8e9b9b5eef', 47129),
    ('noisy_optimized', 3, False, 'INTEGER_ACCURATE'): ([9, 14, 3], '4f1306af42bd70b5', 47437),
    ('gray', 0, True, ''): ([17, 33, 1], 'aaf404964b90c9e6', 73209),
    ('gray', 0, True, 'INTEGER_ACCURATE'): ([17, 33, 1], '8c2183ae631071ef', 73460),
    ('gray', 0, False, ''): ([17, 33, 1], 'aaf404964b90c9e6', 73209),
    ('gray', 0, False, 'INTEGER_ACCURATE'): ([17, 33, 1], '8c2183ae631071ef', 73460),
    ('gray', 1, True, ''): ([17, 33, 1], 'aaf404964b90c9e6', 73209),
    ('gray', 1, True, 'INTEGER_ACCURATE'): ([17, 33, 1], '8c2183ae631071ef', 73460),
    ('gray', 1, False, ''): ([17, 33, 1], 'aaf404964b90c9e6', 73209),
    ('gray', 1, False, 'INTEGER_ACCURATE'): ([17, 33, 1], '8c2183ae631071ef', 73460),
    ('gray', 3, True, ''): ([17, 33, 3], 'b75fe4f8b1fdc094', 219627),
    ('gray', 3, True, 'INTEGER_ACCURATE'): ([17, 33, 3], '5c2d6470952db4a3', 220380),
    ('gray', 3, False, ''): ([17, 33, 3], 'b75fe4f8b1fdc094', 219627),
    ('gray', 3, False, 'INTEGER_ACCURATE'): ([17, 33, 3], '5c2d6470952db4a3', 220380),
    ('tiny_420', 0, True, ''): ([3, 2, 3], 'f5f030c255128bc5', 2147),
    ('tiny_420', 0, True, 'INTEGER_ACCURATE'): ([3, 2, 3], '4e63ea465074322c', 2122),
    ('tiny_420', 0, False, ''): ([3, 2, 3], 'f5f030c255128bc5', 2147),
    ('tiny_420', 0, False, 'INTEGER_ACCURATE'): ([3, 2, 3], '4e63ea465074322c', 2122),
    ('tiny_420', 1, True, ''): ([3, 2, 1], '082e0e0b7c39ff84', 711),
    ('tiny_420', 1, True, 'INTEGER_ACCURATE'): ([3, 2, 1], '5ab9238ba886527c', 704),
    ('tiny_420', 1, False, ''): ([3, 2, 1], '082e0e0b7c39ff84', 711),
    ('tiny_420', 1, False, 'INTEGER_ACCURATE'): ([3, 2, 1], '5ab9238ba886527c', 704),
    ('tiny_420', 3, True, ''): ([3, 2, 3], 'f5f030c255128bc5', 2147),
    ('tiny_420', 3, True, 'INTEGER_ACCURATE'): ([3, 2, 3], '4e63ea465074322c', 2122),
    ('tiny_420', 3, False, ''): ([3, 2, 3], 'f5f030c255128bc5', 2147),
    ('tiny_420', 3, False, 'INTEGER_ACCURATE'): ([3, 2, 3], '4e63ea465074322c', 2122),
}


def _jpeg(name):
    return base64.b64decode("".join(_FILES[name]))


@pytest.mark.parametrize("key", sorted(_EXPECTED, key=repr), ids=repr)
def test_decode_jpeg_pixels_are_tfs(key):
    name, channels, fancy, dct = key
    shape, digest, total = _EXPECTED[key]
    px = tf.io.decode_jpeg(_jpeg(name), channels=channels, fancy_upscaling=fancy, dct_method=dct)
    assert px.dtype == tf.uint8
    arr = px.numpy()
    assert list(arr.shape) == shape
    assert int(arr.astype(np.int64).sum()) == total
    assert hashlib.sha1(arr.tobytes()).hexdigest()[:16] == digest


def test_decode_jpeg_values_and_aliases():
    data = _jpeg("color_420")
    assert tf.io.decode_jpeg(data).numpy()[0, :4].tolist() == [[4, 197, 0], [9, 201, 0], [16, 203, 0], [22, 205, 0]]
    assert np.array_equal(tf.image.decode_jpeg(tf.constant(data)).numpy(), tf.io.decode_jpeg(data).numpy())


def test_decode_jpeg_in_functions_and_datasets():
    data = _jpeg("color_444_q50")

    @tf.function
    def f(x):
        y = tf.io.decode_jpeg(x, channels=3)
        assert y.shape.as_list() == [None, None, 3] and y.dtype == tf.uint8
        return y

    assert np.array_equal(f(tf.constant(data)).numpy(), tf.io.decode_jpeg(data, channels=3).numpy())
    ds = tf.data.Dataset.from_tensors(data).map(lambda x: tf.image.convert_image_dtype(tf.io.decode_jpeg(x), tf.float32))
    assert ds.element_spec == tf.TensorSpec([None, None, None], tf.float32)
    (img,) = list(ds.as_numpy_iterator())
    assert img.shape == (17, 33, 3) and img.dtype == np.float32


def test_decode_jpeg_errors():
    data = _jpeg("color_420")
    prefix = "{{function_node __wrapped__DecodeJpeg_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
    cases = [
        (dict(contents=b"not an image"), "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."),
        (dict(contents=[data, data]), "`contents` must be scalar but got shape[2]"),
        (dict(contents=data[:200]), "jpeg::Uncompress failed. Invalid JPEG data or crop window."),
        (dict(contents=data, channels=2), "`channels` must be 0, 1, 3 or 4 but got 2"),
        (dict(contents=data, ratio=3), "ratio must be 1, 2, 4, or 8, got 3"),
        (dict(contents=data, dct_method="X"), "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}"),
    ]
    for kwargs, message in cases:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            tf.io.decode_jpeg(**kwargs)
        assert str(info.value) == f"{prefix}{message} [Op:DecodeJpeg]"
