"""3-D convolution, transposed convolution and pooling (``tf.nn.conv3d``, ``conv3d_transpose``,
``max_pool3d``, ``avg_pool3d``) on fn's 2-D kernels, channels last (NDHWC).

A 3-D window is a stack of 2-D windows along depth: each depth tap ``i`` of the filter convolves
(or pools) the depth slices it meets, folded into the batch, with the 2-D kernel; the taps' results
are summed (max-ed for max pooling). Depth padding is applied explicitly with TF's SAME/VALID
arithmetic; height and width padding is the 2-D kernel's. Gradients are those of the 2-D ops.
The depth of the input (and of a transposed convolution's output) must be known statically."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from fn import errors
from fn._ops.array_ops import concat, constant, expand_dims, pad, reshape, shape, stack, tile, zeros
from fn._ops.math_ops import maximum, zeros_like
from fn._ops.nn_ops import avg_pool2d, conv2d, conv2d_transpose, max_pool2d


def _depth_window(size: int, k: int, s: int, d: int, padding: str) -> Tuple[int, int, int]:
    """(output size, padding before, padding after) along depth, TF's formulas."""
    eff = (k - 1) * d + 1
    if padding == "VALID":
        out = max((size - eff) // s + 1, 0) if size >= eff else 0
        return out, 0, 0
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return out, total // 2, total - total // 2


def _padding(padding: Any) -> str:
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"`padding` must be 'SAME' or 'VALID' for 3-D ops on fn, got {padding!r}")
    return padding.upper()


def _static_depth(x: Any) -> int:
    depth = x.shape.as_list()[1] if x.shape.rank == 5 else None
    if depth is None:
        raise NotImplementedError("fn's 3-D convolution and pooling need a statically known depth")
    return int(depth)


def _taps(xp: Any, i0: int, out: int, s: int) -> Any:
    """Depth slices ``i0, i0 + s, ...`` (``out`` of them) of the padded input, folded into the
    batch: [N * out, H, W, C]."""
    sl = xp[:, i0 : i0 + (out - 1) * s + 1 : s]
    return reshape(sl, concat([[-1], shape(xp)[2:]], 0))


def _unfold(y: Any, batch: Any, out: int) -> Any:
    return reshape(y, concat([reshape(batch, [1]), [out], shape(y)[1:]], 0))


def _pad_depth(x: Any, before: int, after: int, value: Any = 0) -> Any:
    if before == 0 and after == 0:
        return x
    return pad(x, [[0, 0], [before, after], [0, 0], [0, 0], [0, 0]], constant_values=value)


def conv3d(x: Any, w: Any, strides: List[int], padding: Any, dilations: List[int]) -> Any:
    """NDHWC ``x`` convolved with DHWIO ``w`` (strides and dilations: 3 spatial values)."""
    padding = _padding(padding)
    kd = w.shape.as_list()[0]
    if kd is None:
        raise NotImplementedError("fn's 3-D convolution needs a statically known filter depth")
    out, before, after = _depth_window(_static_depth(x), kd, strides[0], dilations[0], padding)
    xp = _pad_depth(x, before, after)
    total = None
    for i in range(kd):
        y = conv2d(
            _taps(xp, i * dilations[0], out, strides[0]),
            w[i],
            [1, strides[1], strides[2], 1],
            padding,
            dilations=[1, dilations[1], dilations[2], 1],
        )
        total = y if total is None else total + y
    return _unfold(total, shape(x)[0], out)


def pool3d(kind: str, x: Any, ksize: List[int], strides: List[int], padding: Any) -> Any:
    """Max or average pooling of NDHWC ``x``; SAME average pooling counts only the elements
    inside the input, as TF's kernel."""
    padding = _padding(padding)
    depth = _static_depth(x)
    out, before, after = _depth_window(depth, ksize[0], strides[0], 1, padding)
    lowest = x.dtype.min if kind == "MAX" else 0
    xp = _pad_depth(x, before, after, lowest)
    op = max_pool2d if kind == "MAX" else avg_pool2d
    k2, s2 = [1, ksize[1], ksize[2], 1], [1, strides[1], strides[2], 1]
    total = None
    for i in range(ksize[0]):
        y = op(_taps(xp, i, out, strides[0]), k2, s2, padding)
        total = y if total is None else (maximum(total, y) if kind == "MAX" else total + y)
    y = _unfold(total, shape(x)[0], out)
    if kind == "AVG":
        # Depth taps inside the input, per output position.
        starts = np.arange(out) * strides[0] - before
        count = np.minimum(starts + ksize[0], depth) - np.maximum(starts, 0)
        y = y / constant(count.reshape(1, out, 1, 1, 1), y.dtype)
    return y


def conv3d_transpose(
    x: Any, w: Any, output_shape: List[Any], strides: List[int], padding: Any, dilations: List[int]
) -> Any:
    """The transpose of ``conv3d`` (the gradient of conv3d with respect to its input): NDHWC ``x``
    with DHW[out, in] ``w`` into ``output_shape`` [N, D, H, W, C]."""
    padding = _padding(padding)
    kd = w.shape.as_list()[0]
    depth_in = _static_depth(x)
    depth_out = output_shape[1]
    if kd is None or not isinstance(depth_out, int):
        raise NotImplementedError("fn's 3-D transposed convolution needs static depths")
    out, before, _ = _depth_window(depth_out, kd, strides[0], dilations[0], padding)
    if out != depth_in:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = {depth_in}, "
            f"computed = {out} spatial_dim: 1 input: {depth_out} filter: {kd} output: {depth_in} "
            f"stride: {strides[0]} dilation: {dilations[0]}",
        )
    batch = shape(x)[0]
    flat = reshape(x, concat([[-1], shape(x)[2:]], 0))
    plane = stack([batch * depth_in, output_shape[2], output_shape[3], output_shape[4]])
    s = strides[0]
    span = (depth_in - 1) * s + 1
    total = None
    for i in range(kd):
        z = conv2d_transpose(
            flat, w[i], plane, [1, strides[1], strides[2], 1], padding, dilations=[1, dilations[1], dilations[2], 1]
        )
        z = _unfold(z, batch, depth_in)
        if s > 1:  # place the depth slices s apart
            z = expand_dims(z, 2)
            z = concat([z, zeros_like(tile(z, [1, 1, s - 1, 1, 1, 1]))], 2)
            z = reshape(z, concat([reshape(batch, [1]), [depth_in * s], shape(z)[3:]], 0))[:, :span]
        start = i * dilations[0] - before  # output depth of the first slice
        lo, hi = max(-start, 0), min(span, depth_out - start)
        if hi <= lo:
            continue
        z = _pad_depth(z[:, lo:hi], start + lo, depth_out - (start + hi))
        total = z if total is None else total + z
    if total is None:
        return zeros(stack([batch, depth_out, output_shape[2], output_shape[3], output_shape[4]]), x.dtype)
    return total
