"""``tf.image`` ops as compositions of fn ops, following TF's ``image_ops_impl`` (so gradients
come from the composed ops where TF has them). ``adjust_contrast`` stands for TF's
``AdjustContrastv2`` kernel, which has no gradient: differentiating it raises TF's LookupError."""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from fn import _core
from fn._ops import array_ops as A
from fn._ops.op_errors import op_error, type_text
from fn._ops import math_ops as M
from fn._autodiff.custom_gradient import custom_gradient
from fn._ops.manip_ops import reverse
from fn._ops.clip_ops import clip_by_value
from fn._tensor.tensor_shape import TensorShape
from fn.dtypes import as_dtype, float16, float32, int32, int64
from fn.errors import InvalidArgumentError, ResourceExhaustedError


def _t(x: Any) -> Any:
    return x if _core.is_tensor(x) else A.convert_to_tensor(x)


def _is_float(dt: Any) -> bool:
    return dt.is_floating


def _is_int(dt: Any) -> bool:
    return dt.is_integer


def _saturate_cast(value: Any, dtype: Any) -> Any:
    """``tf.dtypes.saturate_cast``: clip into ``dtype``'s range, then cast."""
    dtype = as_dtype(dtype)
    if value.dtype.min < dtype.min or value.dtype.max > dtype.max:
        lo = max(value.dtype.min, dtype.min)
        hi = min(value.dtype.max, dtype.max)
        value = clip_by_value(value, A.convert_to_tensor(lo, value.dtype), A.convert_to_tensor(hi, value.dtype))
    return A.cast(value, dtype)


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False, name: Optional[str] = None) -> Any:
    """``tf.image.convert_image_dtype``: integers span [0, MAX], floats [0, 1]; converts between
    them by scaling (TF's rules, including its integer floor-division when narrowing)."""
    image = _t(image)
    dtype = as_dtype(dtype)
    if not _is_float(dtype) and not _is_int(dtype):
        raise AttributeError("dtype must be either floating point or integer")
    if not _is_float(image.dtype) and not _is_int(image.dtype):
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return A.identity(image)
    if _is_int(image.dtype) and _is_int(dtype):
        scale_in, scale_out = image.dtype.max, dtype.max
        if scale_in > scale_out:
            scaled = M.floordiv(image, A.convert_to_tensor((scale_in + 1) // (scale_out + 1), image.dtype))
            return _saturate_cast(scaled, dtype) if saturate else A.cast(scaled, dtype)
        cast = _saturate_cast(image, dtype) if saturate else A.cast(image, dtype)
        return M.multiply(cast, A.convert_to_tensor((scale_out + 1) // (scale_in + 1), dtype))
    if _is_float(image.dtype) and _is_float(dtype):
        return A.cast(image, dtype)
    if _is_int(image.dtype):
        cast = A.cast(image, dtype)
        return M.multiply(cast, A.convert_to_tensor(1.0 / image.dtype.max, dtype))
    scaled = M.multiply(image, A.convert_to_tensor(dtype.max + 0.5, image.dtype))
    return _saturate_cast(scaled, dtype) if saturate else A.cast(scaled, dtype)


def _check_3d(image: Any) -> TensorShape:
    shape = image.shape
    if shape.rank is not None and shape.rank < 3:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    if shape.rank is not None and any(d == 0 for d in shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    return shape


def _to_float(image: Any) -> Any:
    return image if image.dtype in (float16, float32) else convert_image_dtype(image, float32)


def adjust_brightness(image: Any, delta: Any) -> Any:
    """``tf.image.adjust_brightness``: ``image + delta`` in float, converted back (saturating)."""
    image = _t(image)
    flt = _to_float(image)
    adjusted = M.add(flt, A.cast(A.convert_to_tensor(delta), flt.dtype))
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def _adjust_contrast_kernel(images: Any, factor: Any) -> Any:
    """TF's AdjustContrastv2 CPU kernel: per image and channel, the pixels summed by pairwise
    halving, times 1/(H*W), then ``mean + factor * (x - mean)``."""
    dims = images.shape.as_list() if images.shape.rank is not None else None
    if dims is None or dims[-3] is None or dims[-2] is None:
        mean = M.reduce_mean(images, axis=[-3, -2], keepdims=True)
        return M.add(mean, M.multiply(factor, M.subtract(images, mean)))
    size = dims[-3] * dims[-2]
    shape = A.shape(images)
    flat = A.reshape(images, A.concat([[-1, size], shape[-1:]], 0))
    acc, remaining = flat, size
    while remaining > 1:
        right = remaining // 2
        left = remaining - right
        parts = (
            [acc[:, left : left + right] + acc[:, :right]]
            if acc is flat
            else [acc[:, :right] + acc[:, left : left + right]]
        )
        if left > right:
            parts.append(acc[:, right:left])
        acc = A.concat(parts, 1) if len(parts) > 1 else parts[0]
        remaining = left
    mean = acc[:, :1] * A.convert_to_tensor(np.float32(1.0) / np.float32(size), float32)
    out = M.add(mean, M.multiply(factor, M.subtract(flat, mean)))
    return A.reshape(out, shape)


def adjust_contrast(images: Any, contrast_factor: Any) -> Any:
    """``tf.image.adjust_contrast`` (TF's ``AdjustContrastv2`` op, which has no gradient)."""
    images = _t(images)
    _check_3d(images)
    flt = _to_float(images)
    factor = A.cast(A.convert_to_tensor(contrast_factor), float32)

    @custom_gradient
    def adjust_contrastv2(x: Any, f: Any) -> Any:
        def grad(*unused: Any) -> Any:
            raise LookupError("gradient registry has no entry for: AdjustContrastv2")

        return _adjust_contrast_kernel(x, A.cast(f, x.dtype)), grad

    return convert_image_dtype(adjust_contrastv2(flt, factor), images.dtype, saturate=True)


def _width_axis(image: Any) -> int:
    rank = image.shape.rank
    if rank == 3:
        return 1
    if rank == 4:
        return 2
    raise ValueError(f"'image' (shape {image.shape})must have either 3 or 4 dimensions.")


def flip_left_right(image: Any) -> Any:
    """``tf.image.flip_left_right``: reverses the width axis."""
    image = _t(image)
    _check_3d(image)
    return reverse(image, [_width_axis(image)])


def flip_up_down(image: Any) -> Any:
    """``tf.image.flip_up_down``: reverses the height axis."""
    image = _t(image)
    _check_3d(image)
    return reverse(image, [_width_axis(image) - 1])


def rot90(image: Any, k: Any = 1, name: Optional[str] = None) -> Any:
    """``tf.image.rot90``: ``k`` quarter turns counter-clockwise."""
    image = _t(image)
    _check_3d(image)
    kk = int(np.asarray(k.numpy() if hasattr(k, "numpy") else k)) % 4
    h = _width_axis(image) - 1
    perm = list(range(image.shape.rank))
    perm[h], perm[h + 1] = perm[h + 1], perm[h]
    if kk == 1:
        return A.transpose(reverse(image, [h + 1]), perm)
    if kk == 2:
        return reverse(image, [h, h + 1])
    if kk == 3:
        return reverse(A.transpose(image, perm), [h + 1])
    return image


def rgb_to_grayscale(images: Any, name: Optional[str] = None) -> Any:
    """``tf.image.rgb_to_grayscale``: 0.2989 R + 0.5870 G + 0.1140 B, keeping a channel axis."""
    images = _t(images)
    flt = convert_image_dtype(images, float32)
    # TF's tensordot is a [N, 3] x [3, 1] matmul, which sums (r*w0 + g*w1) + b*w2.
    w = [A.convert_to_tensor(v, float32) for v in (0.2989, 0.5870, 0.1140)]
    gray = flt[..., 0:1] * w[0] + flt[..., 1:2] * w[1] + flt[..., 2:3] * w[2]
    return convert_image_dtype(gray, images.dtype)


def grayscale_to_rgb(images: Any, name: Optional[str] = None) -> Any:
    """``tf.image.grayscale_to_rgb``: the one channel repeated three times."""
    images = _t(images)
    if images.shape.rank is not None and images.shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {images.shape.rank}")
    last = images.shape.as_list()[-1] if images.shape.rank else None
    if last is not None and last != 1:
        raise ValueError(f"Dimension must be 1 but is {last}")
    return A.concat([images, images, images], -1)


def central_crop(image: Any, central_fraction: float) -> Any:
    """``tf.image.central_crop``: the central ``central_fraction`` of height and width."""
    image = _t(image)
    frac = float(central_fraction)
    if frac <= 0.0 or frac > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if frac == 1.0:
        return image
    _check_3d(image)
    rank = image.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}.")
    dims = image.shape.as_list()
    h, w = (dims[0], dims[1]) if rank == 3 else (dims[1], dims[2])
    hs = int((float(h) - float(h) * frac) / 2)
    ws = int((float(w) - float(w) * frac) / 2)
    begin = [hs, ws, 0] if rank == 3 else [0, hs, ws, 0]
    size = [h - 2 * hs, w - 2 * ws, -1] if rank == 3 else [-1, h - 2 * hs, w - 2 * ws, -1]
    return A.slice(image, begin, size)


def _batched(image: Any) -> tuple:
    rank = image.shape.rank
    if rank == 3:
        return A.expand_dims(image, 0), False
    if rank != 4:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image, True


def _static_check(cond: bool, msg: str) -> None:
    if not cond:
        raise ValueError(msg)


def crop_to_bounding_box(
    image: Any, offset_height: int, offset_width: int, target_height: int, target_width: int
) -> Any:
    """``tf.image.crop_to_bounding_box``: the ``target`` box whose top-left is at the offsets."""
    image = _t(image)
    img, is_batch = _batched(image)
    _check_3d(img)
    _, height, width, _ = img.shape.as_list()
    oh, ow, th, tw = (int(v) for v in (offset_height, offset_width, target_height, target_width))
    _static_check(ow >= 0, "offset_width must be >= 0.")
    _static_check(oh >= 0, "offset_height must be >= 0.")
    _static_check(tw > 0, "target_width must be > 0.")
    _static_check(th > 0, "target_height must be > 0.")
    if width is not None:
        _static_check(width >= tw + ow, "width must be >= target + offset.")
    if height is not None:
        _static_check(height >= th + oh, "height must be >= target + offset.")
    cropped = A.slice(img, [0, oh, ow, 0], [-1, th, tw, -1])
    return cropped if is_batch else A.squeeze(cropped, [0])


def pad_to_bounding_box(
    image: Any, offset_height: int, offset_width: int, target_height: int, target_width: int
) -> Any:
    """``tf.image.pad_to_bounding_box``: zero-pads the image into a ``target`` box at the offsets."""
    image = _t(image)
    img, is_batch = _batched(image)
    _, height, width, _ = img.shape.as_list()
    oh, ow, th, tw = (int(v) for v in (offset_height, offset_width, target_height, target_width))
    after_w = tw - ow - width
    after_h = th - oh - height
    _check_3d(img)
    _static_check(oh >= 0, "offset_height must be >= 0")
    _static_check(ow >= 0, "offset_width must be >= 0")
    _static_check(after_w >= 0, "width must be <= target - offset")
    _static_check(after_h >= 0, "height must be <= target - offset")
    padded = A.pad(img, [[0, 0], [oh, after_h], [ow, after_w], [0, 0]])
    return padded if is_batch else A.squeeze(padded, [0])


def per_image_standardization(image: Any) -> Any:
    """``tf.image.per_image_standardization``: (x - mean) / max(stddev, 1/sqrt(N)) per image."""
    image = _t(image)
    _check_3d(image)
    image = A.cast(image, float32)
    num_pixels = M.reduce_prod(A.shape(image)[-3:])
    mean = M.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
    stddev = M.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
    min_stddev = M.rsqrt(A.cast(num_pixels, float32))
    adjusted = M.maximum(stddev, min_stddev)
    image = image - mean
    return M.divide(image, adjusted)


class ResizeMethod:
    """``tf.image.ResizeMethod``: the ``method`` names of ``tf.image.resize``."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _axis_bilinear(in_size: int, out_size: int) -> tuple:
    """TF's half-pixel-centre sampling along one axis: lower/upper source indices and the lerp
    weight, computed in float32 as the ResizeBilinear kernel does."""
    scale = np.float32(in_size) / np.float32(out_size)
    src = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    src = src.astype(np.float32)
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    lerp = (src - floor).astype(np.float32)
    return lower, upper, lerp


def _axis_bilinear_dynamic(in_size: Any, out_size: int) -> tuple:
    """``_axis_bilinear`` for an image dimension known only when the graph runs (a decoded image
    in a tf.data map): the same float32 arithmetic as ops."""
    size = A.cast(in_size, float32)
    scale = size / A.constant(np.float32(out_size))
    src = (A.range(out_size, dtype=float32) + np.float32(0.5)) * scale - np.float32(0.5)
    floor = M.floor(src)
    lower = A.cast(M.maximum(floor, np.float32(0)), int64)
    upper = A.cast(M.minimum(M.ceil(src), size - np.float32(1)), int64)
    return lower, upper, src - floor


def _axis_nearest_dynamic(in_size: Any, out_size: int) -> Any:
    scale = A.cast(in_size, float32) / A.constant(np.float32(out_size))
    src = A.cast(M.floor((A.range(out_size, dtype=float32) + np.float32(0.5)) * scale), int64)
    return M.minimum(src, A.cast(in_size, int64) - 1)


def _axis_nearest(in_size: int, out_size: int) -> np.ndarray:
    scale = np.float32(in_size) / np.float32(out_size)
    src = np.floor(((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale).astype(np.float32))
    return np.minimum(src.astype(np.int64), in_size - 1)


def _check_resize_output(method: str, dims: list, oh: int, ow: int, dtype: Any) -> None:
    """The ResizeBilinear/ResizeNearestNeighbor kernels' checks, before anything is allocated:
    positive output dims, and TF's OOM error when the output cannot be allocated."""
    op = "ResizeNearestNeighbor" if method == ResizeMethod.NEAREST_NEIGHBOR else "ResizeBilinear"
    if oh <= 0 or ow <= 0:
        raise op_error(InvalidArgumentError, op, "output dimensions must be positive")
    shape = [dims[0], oh, ow, dims[3]]
    if None not in shape and int(np.prod(shape, dtype=object)) * dtype.size > _allocatable_bytes():
        raise op_error(
            ResourceExhaustedError,
            op,
            f"OOM when allocating tensor with shape[{','.join(map(str, shape))}] and type {type_text(dtype)} on "
            "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
        )


def _allocatable_bytes() -> int:
    # What one allocation can get: the address-space limit if one is set (RLIMIT_AS), else the
    # machine's memory plus swap, as an allocation beyond both fails in TF's allocator too.
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return min(soft, total) if soft != resource.RLIM_INFINITY else total


def resize(
    images: Any,
    size: Any,
    method: str = ResizeMethod.BILINEAR,
    preserve_aspect_ratio: bool = False,
    antialias: bool = False,
    name: Optional[str] = None,
) -> Any:
    """``tf.image.resize`` (bilinear and nearest, TF's half-pixel centres): bilinear returns
    float32, nearest keeps the dtype."""
    images = _t(images)
    if images.shape.rank is not None and images.shape.rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    if _core.is_tensor(size) and size.dtype != int32:
        raise ValueError("'size' must be a 1-D int32 Tensor")
    if not _core.is_tensor(size):  # TF converts size before looking at the image's dims
        try:
            A.convert_to_tensor(size, int32)
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
    _check_3d(images)
    img, is_batch = _batched(images)
    dims = img.shape.as_list()
    dynamic = dims[1] is None or dims[2] is None
    if dynamic and preserve_aspect_ratio:
        raise NotImplementedError("fn.image.resize with preserve_aspect_ratio needs static image height and width")
    new = [int(v) for v in np.asarray(size.numpy() if hasattr(size, "numpy") else size).reshape(-1).tolist()]
    if len(new) != 2:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    oh, ow = new
    if preserve_aspect_ratio:
        scale = min(oh / dims[1], ow / dims[2])
        oh, ow = int(round(dims[1] * scale)), int(round(dims[2] * scale))
    method = str(method).lower()
    _check_resize_output(method, dims, oh, ow, float32 if method == ResizeMethod.BILINEAR else img.dtype)
    in_sizes = [A.shape(img, out_type=int64)[k] if dims[k] is None else dims[k] for k in (1, 2)]
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        rows, cols = (
            A.convert_to_tensor(_axis_nearest(n, o), int64) if isinstance(n, int) else _axis_nearest_dynamic(n, o)
            for n, o in zip(in_sizes, (oh, ow))
        )
        out = A.gather(A.gather(img, rows, axis=1), cols, axis=2)
    elif method == ResizeMethod.BILINEAR:
        flt = A.cast(img, float32)
        ylo, yhi, ylerp = (_axis_bilinear if isinstance(in_sizes[0], int) else _axis_bilinear_dynamic)(in_sizes[0], oh)
        xlo, xhi, xlerp = (_axis_bilinear if isinstance(in_sizes[1], int) else _axis_bilinear_dynamic)(in_sizes[1], ow)
        top = A.gather(flt, A.convert_to_tensor(ylo, int64), axis=1)
        bottom = A.gather(flt, A.convert_to_tensor(yhi, int64), axis=1)
        xl = A.convert_to_tensor(xlo, int64)
        xh = A.convert_to_tensor(xhi, int64)
        xw = A.reshape(A.convert_to_tensor(xlerp, float32), [1, 1, ow, 1])
        yw = A.reshape(A.convert_to_tensor(ylerp, float32), [1, oh, 1, 1])
        tl, tr = A.gather(top, xl, axis=2), A.gather(top, xh, axis=2)
        bl, br = A.gather(bottom, xl, axis=2), A.gather(bottom, xh, axis=2)
        t = tl + (tr - tl) * xw
        b = bl + (br - bl) * xw
        out = t + (b - t) * yw
    else:
        raise NotImplementedError(f"fn.image.resize supports 'bilinear' and 'nearest', not {method!r}")
    return out if is_batch else A.squeeze(out, [0])
