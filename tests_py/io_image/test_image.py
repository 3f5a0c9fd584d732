"""tf.image: values bit for bit as TF 2.21's (flips, rotations, dtype conversion, grayscale,
contrast as TF's AdjustContrastv2 kernel sums, bilinear/nearest resize with half-pixel centres,
crops, padding), gradients, AdjustContrastv2's missing gradient and bad inputs."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(0)
IMG = RNG.random((5, 7, 3)).astype(np.float32)
U8 = (RNG.random((4, 6, 3)) * 255).astype(np.uint8)
BATCH = RNG.random((2, 5, 4, 3)).astype(np.float32)
ODD = RNG.random((3, 6, 5, 2)).astype(np.float32)


def _np_flip(x, axis):
    return np.flip(x, axis)


def test_flips_and_rotations():
    np.testing.assert_array_equal(tf.image.flip_left_right(IMG).numpy(), IMG[:, ::-1])
    np.testing.assert_array_equal(tf.image.flip_up_down(BATCH).numpy(), BATCH[:, ::-1])
    for k in range(4):
        np.testing.assert_array_equal(tf.image.rot90(IMG, k).numpy(), np.rot90(IMG, k, axes=(0, 1)))
    np.testing.assert_array_equal(tf.image.rot90(BATCH, 1).numpy(), np.rot90(BATCH, 1, axes=(1, 2)))
    with pytest.raises(ValueError, match="must be at least three-dimensional"):
        tf.image.flip_left_right(tf.ones([2, 2]))


def test_convert_image_dtype():
    assert tf.image.convert_image_dtype(U8, tf.float32).numpy().tolist() == \
        (U8.astype(np.float32) * np.float32(1 / 255)).tolist()
    assert tf.image.convert_image_dtype(IMG, tf.uint8).numpy().tolist() == \
        (IMG * np.float32(255.5)).astype(np.uint8).tolist()
    sat = tf.image.convert_image_dtype(IMG * 3 - 1, tf.uint8, saturate=True).numpy()
    assert sat.min() == 0 and sat.max() == 255
    assert tf.image.convert_image_dtype(U8, tf.int16).numpy().tolist() == (U8.astype(np.int16) * 128).tolist()
    assert tf.image.convert_image_dtype(tf.constant([[[2 ** 30]]]), tf.uint8).numpy().tolist() == [[[128]]]
    with pytest.raises(AttributeError, match="dtype must be either floating point or integer"):
        tf.image.convert_image_dtype(IMG, tf.string)


def _bits(t):
    return np.asarray(t.numpy()).view(np.uint32).tolist()


def _contrast_reference(x, factor):
    """TF's AdjustContrastv2 CPU kernel in NumPy float32 (pairwise halving sum)."""
    f = np.float32(factor)
    lead = x.shape[:-3]
    flat = x.reshape((-1, x.shape[-3] * x.shape[-2], x.shape[-1]))
    acc, n, first = flat.copy(), flat.shape[1], True
    while n > 1:
        right, left = n // 2, n - n // 2
        head = (acc[:, left:left + right] + acc[:, :right]) if first else (acc[:, :right] + acc[:, left:left + right])
        acc = np.concatenate([head, acc[:, right:left]], 1) if left > right else head
        n, first = left, False
    mean = (acc[:, :1] * (np.float32(1) / np.float32(flat.shape[1]))).astype(np.float32)
    return (mean + f * (flat - mean)).astype(np.float32).reshape(lead + x.shape[-3:])


@pytest.mark.parametrize("x,factor", [(IMG, 1.7), (BATCH, 0.3), (ODD, 2.5)])
def test_adjust_contrast_bits(x, factor):
    assert _bits(tf.image.adjust_contrast(x, factor)) == np.asarray(_contrast_reference(x, factor)).view(
        np.uint32).tolist()


def test_adjust_contrast_has_no_gradient():
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError) as e:
        tape.gradient(new_image, [image, delta])
    assert str(e.value) == "gradient registry has no entry for: AdjustContrastv2"


def test_brightness_and_grayscale():
    np.testing.assert_array_equal(tf.image.adjust_brightness(IMG, 0.2).numpy(), IMG + np.float32(0.2))
    assert tf.image.adjust_brightness(U8, 0.2).dtype == tf.uint8
    r, g, b = IMG[..., 0:1], IMG[..., 1:2], IMG[..., 2:3]
    want = (r * np.float32(0.2989) + g * np.float32(0.5870)) + b * np.float32(0.1140)
    assert _bits(tf.image.rgb_to_grayscale(IMG)) == want.astype(np.float32).view(np.uint32).tolist()
    gray = tf.image.rgb_to_grayscale(U8)
    assert gray.dtype == tf.uint8 and gray.shape == (4, 6, 1)
    assert tf.image.grayscale_to_rgb(gray).numpy().tolist() == np.repeat(gray.numpy(), 3, -1).tolist()


def _bilinear(x, oh, ow):
    def axis(n_in, n_out):
        scale = np.float32(n_in) / np.float32(n_out)
        src = ((np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)).astype(np.float32)
        lo = np.maximum(np.floor(src), 0).astype(int)
        hi = np.minimum(np.ceil(src), n_in - 1).astype(int)
        return lo, hi, (src - np.floor(src)).astype(np.float32)
    ylo, yhi, yl = axis(x.shape[0], oh)
    xlo, xhi, xl = axis(x.shape[1], ow)
    x = x.astype(np.float32)
    xl = xl[None, :, None]
    top = x[ylo][:, xlo] + (x[ylo][:, xhi] - x[ylo][:, xlo]) * xl
    bot = x[yhi][:, xlo] + (x[yhi][:, xhi] - x[yhi][:, xlo]) * xl
    return (top + (bot - top) * yl[:, None, None]).astype(np.float32)


@pytest.mark.parametrize("x,size", [(IMG, [8, 11]), (IMG, [3, 2]), (U8, [7, 9])])
def test_resize_bilinear_bits(x, size):
    out = tf.image.resize(x, size)
    assert out.dtype == tf.float32 and out.shape == tuple(size) + (3,)
    assert _bits(out) == _bilinear(x, *size).view(np.uint32).tolist()


def test_resize_nearest_and_batch():
    out = tf.image.resize(U8, [7, 9], method="nearest")
    assert out.dtype == tf.uint8
    rows = np.minimum(np.floor((np.arange(7) + 0.5) * np.float32(4 / 7)).astype(int), 3)
    cols = np.minimum(np.floor((np.arange(9) + 0.5) * np.float32(6 / 9)).astype(int), 5)
    assert out.numpy().tolist() == U8[rows][:, cols].tolist()
    b = tf.image.resize(BATCH, [3, 2])
    assert b.shape == (2, 3, 2, 3)
    assert _bits(b[1]) == _bilinear(BATCH[1], 3, 2).view(np.uint32).tolist()
    assert tf.image.resize(IMG, [10, 10], preserve_aspect_ratio=True).shape == (7, 10, 3)


def test_crops_and_padding():
    np.testing.assert_array_equal(tf.image.central_crop(IMG, 0.5).numpy(), IMG[1:4, 1:6])
    np.testing.assert_array_equal(tf.image.crop_to_bounding_box(IMG, 1, 2, 3, 4).numpy(), IMG[1:4, 2:6])
    padded = tf.image.pad_to_bounding_box(U8, 1, 2, 7, 9).numpy()
    assert padded.shape == (7, 9, 3) and padded[1:5, 2:8].tolist() == U8.tolist() and padded.sum() == U8.sum()
    with pytest.raises(ValueError, match="height must be >= target \\+ offset."):
        tf.image.crop_to_bounding_box(IMG, 1, 2, 5, 4)
    with pytest.raises(ValueError, match="height must be <= target - offset"):
        tf.image.pad_to_bounding_box(U8, 1, 2, 4, 9)
    with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
        tf.image.central_crop(IMG, 0.0)


def test_per_image_standardization():
    out = tf.image.per_image_standardization(IMG).numpy()
    want = (IMG - IMG.mean()) / max(IMG.std(), 1 / np.sqrt(IMG.size))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    assert tf.image.per_image_standardization(U8).dtype == tf.float32


def test_gradients_through_resize_flip_brightness():
    x = tf.Variable(IMG)
    w = tf.constant(np.arange(3, dtype=np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.flip_left_right(x) * w) + tf.reduce_sum(tf.image.adjust_brightness(x, 0.1) ** 2)
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, np.broadcast_to(w.numpy(), IMG.shape) + 2 * (IMG + np.float32(0.1)), rtol=1e-6)
    with tf.GradientTape() as tape:
        s = tf.reduce_sum(tf.image.resize(x, [10, 14]))
    gr = tf.convert_to_tensor(tape.gradient(s, x)).numpy()
    np.testing.assert_allclose(gr.sum(), 10 * 14 * 3, rtol=1e-5)   # each output pixel's weights sum to 1


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [[-1, 2**31 - 1], [0, 3], [3, 0]])
def test_resize_to_a_non_positive_size_is_the_kernels_error(method, size):
    with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be positive"):
        tf.image.resize(tf.zeros([1, 2, 2, 1]), size, method=method)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_resize_past_memory_is_an_oom_error_not_a_python_memory_error(method):
    # 2**62 output elements: TF's allocator fails with ResourceExhaustedError before any work.
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"OOM when allocating tensor with shape\[1,2147483647"):
        tf.image.resize(tf.zeros([1, 2, 2, 1]), [2**31 - 1, 2**31 - 1], method=method)
