"""``tf.nn`` names TF has and fn lacked (issue 22: the ones Keras' TensorFlow backend calls):
``convolution``, ``pool``, ``conv_transpose``, ``separable_conv2d``, 1-D/channels-first
pooling, ``depth_to_space``/``space_to_depth``, ``selu``, ``softsign``, ``log_sigmoid``.
Built on fn's 2-D kernels: 1-D inputs run as height-1 images, channels-first inputs are
transposed to channels-last and back (TF's CPU kernels do the same transposes)."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from fn._tf_compat import _conv3d
from fn import _core
from fn._ops import array_ops as _array_ops
from fn import errors as _errors
from fn._ops import math_ops as _math_ops
from fn._ops import nn_ops as _nn_ops
from fn import dtypes as _dtypes

_SPATIAL = {"NWC": 1, "NCW": 1, "NHWC": 2, "NCHW": 2, "NDHWC": 3, "NCDHW": 3}


def _as_list(value: Any, n: int, name: str) -> List[int]:
    if value is None:
        return [1] * n
    if isinstance(value, int):
        return [value] * n
    value = [int(v) for v in value]
    if len(value) == 1:
        return value * n
    if len(value) == n:
        return value
    if len(value) == n + 2:
        return value[1:-1]
    raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was {len(value)}")


def _to_nhwc(x: Any, data_format: Optional[str], rank: int) -> Tuple[Any, int, bool]:
    """x as a channels-last 4-D tensor; the spatial rank; whether it was channels-first."""
    n = rank - 2
    if n not in (1, 2):
        raise NotImplementedError(
            f"fn.nn supports 1-D and 2-D convolutions and pooling; got a rank-{rank} "
            "input (3-D convolution has no fn kernel)"
        )
    first = data_format is not None and data_format.startswith("NC")
    if first:
        x = _array_ops.transpose(x, [0] + list(range(2, rank)) + [1])
    if n == 1:
        x = _array_ops.expand_dims(x, 1)
    return x, n, first


def _from_nhwc(y: Any, n: int, first: bool) -> Any:
    if n == 1:
        y = _array_ops.squeeze(y, [1])
    if first:
        rank = n + 2
        y = _array_ops.transpose(y, [0, rank - 1] + list(range(1, rank - 1)))
    return y


def _to_channels_last(x: Any, data_format: Optional[str]) -> Tuple[Any, bool]:
    first = data_format is not None and data_format.startswith("NC")
    return (_array_ops.transpose(x, [0, 2, 3, 4, 1]) if first else x), first


def _from_channels_last(y: Any, first: bool) -> Any:
    return _array_ops.transpose(y, [0, 4, 1, 2, 3]) if first else y


def _conv3d_transpose(
    x: Any, w: Any, output_shape: Any, strides: Any, padding: str, data_format: Optional[str], dilations: Any
) -> Any:
    x5, first = _to_channels_last(x, data_format)
    out = _static_ints(output_shape)
    parts = list(out) if out is not None else [output_shape[i] for i in range(5)]
    if first:
        parts = [parts[0]] + parts[2:] + [parts[1]]
    y = _conv3d.conv3d_transpose(
        x5, w, parts, _as_list(strides, 3, "strides"), padding, _as_list(dilations, 3, "dilations")
    )
    return _from_channels_last(y, first)


def conv3d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: str,
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.conv3d``: 3-D convolution of ``input`` with DHWIO ``filters`` (TF's CPU kernel
    takes no dilation; ``tf.nn.convolution`` does)."""
    if any(d != 1 for d in _as_list(dilations, 3, "dilations")):
        raise _errors.InvalidArgumentError(
            None, None, "CPU implementation of Conv3D currently only supports dilated rates of 1."
        )
    return convolution(input, filters, strides, padding, data_format, None, name)


def conv3d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: str = "NDHWC",
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.conv3d_transpose``: the transpose of conv3d; ``filters`` are DHW[out, in]."""
    x = _array_ops.convert_to_tensor(input)
    w = _array_ops.convert_to_tensor(filters, dtype=x.dtype)
    return _conv3d_transpose(x, w, output_shape, strides, padding, data_format, dilations)


def max_pool3d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NDHWC", name: Optional[str] = None
) -> Any:
    """``tf.nn.max_pool3d``."""
    return _pool_nd("MAX", input, ksize, strides, padding, data_format, name)


def avg_pool3d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NDHWC", name: Optional[str] = None
) -> Any:
    """``tf.nn.avg_pool3d``."""
    return _pool_nd("AVG", input, ksize, strides, padding, data_format, name)


def _static_ints(value: Any) -> Optional[List[int]]:
    """A shape argument's Python ints, or None when a part of it is only known when running."""
    if _core.is_tensor(value):
        return [int(v) for v in value.numpy()] if value._is_eager else None
    out = []
    for v in value:
        if _core.is_tensor(v):
            if not v._is_eager:
                return None
            v = v.numpy()
        out.append(int(v))
    return out


def _shape_tensor(value: Any) -> Any:
    """A shape argument as one int32 tensor (a list mixing ints and scalar tensors is stacked)."""
    if _core.is_tensor(value):
        return _array_ops.cast(value, _dtypes.int32)
    return _array_ops.stack(
        [
            _array_ops.cast(v, _dtypes.int32) if _core.is_tensor(v) else _array_ops.constant(int(v), _dtypes.int32)
            for v in value
        ]
    )


def _spatial(values: List[int], n: int, fill: int = 1) -> List[int]:
    return [fill] + values if n == 1 else values


def convolution(
    input: Any,
    filters: Any,
    strides: Any = None,
    padding: str = "VALID",
    data_format: Optional[str] = None,
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.convolution``: N-D convolution (N = 1 or 2 here) of ``input`` with ``filters``
    ([spatial..., in, out])."""
    x = _array_ops.convert_to_tensor(input)
    w = _array_ops.convert_to_tensor(filters, dtype=x.dtype)
    rank = x.shape.rank if x.shape.rank is not None else w.shape.rank
    if rank == 5:
        x5, first = _to_channels_last(x, data_format)
        y = _conv3d.conv3d(x5, w, _as_list(strides, 3, "strides"), padding, _as_list(dilations, 3, "dilations"))
        return _from_channels_last(y, first)
    x4, n, first = _to_nhwc(x, data_format, rank)
    if n == 1:
        w = _array_ops.expand_dims(w, 0)
    s = _spatial(_as_list(strides, n, "strides"), n)
    d = _spatial(_as_list(dilations, n, "dilations"), n)
    y = _nn_ops.conv2d(x4, w, strides=[1] + s + [1], padding=padding, dilations=[1] + d + [1], name=name)
    return _from_nhwc(y, n, first)


def pool(
    input: Any,
    window_shape: Any,
    pooling_type: str,
    strides: Any = None,
    padding: str = "VALID",
    data_format: Optional[str] = None,
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.pool``: max or average pooling over 1 or 2 spatial dimensions."""
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    x = _array_ops.convert_to_tensor(input)
    rank = x.shape.rank
    if rank is None:
        rank = len(list(window_shape)) + 2
    n = rank - 2
    if dilations is not None and any(v != 1 for v in _as_list(dilations, n, "dilations")):
        raise NotImplementedError("fn.nn.pool: dilated pooling has no fn kernel")
    if n == 3:
        x5, first = _to_channels_last(x, data_format)
        k3, s3 = _as_list(window_shape, 3, "window_shape"), _as_list(strides, 3, "strides")
        return _from_channels_last(_conv3d.pool3d(pooling_type, x5, k3, s3, padding), first)
    x4, n, first = _to_nhwc(x, data_format, rank)
    k = _spatial(_as_list(window_shape, n, "window_shape"), n)
    s = _spatial(_as_list(strides, n, "strides"), n)
    op = _nn_ops.max_pool2d if pooling_type == "MAX" else _nn_ops.avg_pool2d
    y = op(x4, [1] + k + [1], [1] + s + [1], padding, name=name)
    return _from_nhwc(y, n, first)


def _pool_nd(
    kind: str, input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str], name: Optional[str]
) -> Any:
    x = _array_ops.convert_to_tensor(input)
    rank = x.shape.rank
    n = rank - 2 if rank is not None else 2
    return pool(x, _as_list(ksize, n, "ksize"), kind, _as_list(strides, n, "strides"), padding, data_format, name=name)


def max_pool(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None
) -> Any:
    """``tf.nn.max_pool`` (1-D or 2-D, channels last or first)."""
    return _pool_nd("MAX", input, ksize, strides, padding, data_format, name)


def avg_pool(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None
) -> Any:
    """``tf.nn.avg_pool`` (1-D or 2-D, channels last or first)."""
    return _pool_nd("AVG", input, ksize, strides, padding, data_format, name)


def max_pool1d(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NWC", name: Optional[str] = None
) -> Any:
    """``tf.nn.max_pool1d``."""
    return _pool_nd("MAX", input, ksize, strides, padding, data_format, name)


def avg_pool1d(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NWC", name: Optional[str] = None
) -> Any:
    """``tf.nn.avg_pool1d``."""
    return _pool_nd("AVG", input, ksize, strides, padding, data_format, name)


def conv_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: str = "SAME",
    data_format: Optional[str] = None,
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.conv_transpose``: the transpose of ``convolution`` (1-D or 2-D); ``filters`` are
    [spatial..., out, in]."""
    x = _array_ops.convert_to_tensor(input)
    w = _array_ops.convert_to_tensor(filters, dtype=x.dtype)
    rank = x.shape.rank
    if rank == 5:
        return _conv3d_transpose(x, w, output_shape, strides, padding, data_format, dilations)
    x4, n, first = _to_nhwc(x, data_format, rank)
    out = _static_ints(output_shape)
    if out is None:
        out_t = _shape_tensor(output_shape)
        if first:
            out_t = _array_ops.gather(out_t, [0] + list(range(2, rank)) + [1])
        out4 = out_t if n == 2 else _array_ops.concat([out_t[:1], [1], out_t[1:]], 0)
    else:
        if first:
            out = [out[0]] + out[2:] + [out[1]]
        out4 = out if n == 2 else [out[0], 1] + out[1:]
    if n == 1:
        w = _array_ops.expand_dims(w, 0)
    s = _spatial(_as_list(strides, n, "strides"), n)
    d = _spatial(_as_list(dilations, n, "dilations"), n)
    y = _nn_ops.conv2d_transpose(x4, w, out4, [1] + s + [1], padding, dilations=[1] + d + [1], name=name)
    return _from_nhwc(y, n, first)


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: str,
    data_format: Optional[str] = None,
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.separable_conv2d``: a depthwise convolution then a 1x1 (pointwise) convolution."""
    x = _array_ops.convert_to_tensor(input)
    first = data_format is not None and data_format.startswith("NC")
    if first:
        x = _array_ops.transpose(x, [0, 2, 3, 1])
    strides = list(strides) if not isinstance(strides, int) else [1, strides, strides, 1]
    if first and len(strides) == 4:
        strides = [1, strides[2], strides[3], 1]
    dw = _nn_ops.depthwise_conv2d(x, depthwise_filter, strides, padding, dilations=dilations)
    y = _nn_ops.conv2d(
        dw, _array_ops.convert_to_tensor(pointwise_filter, dtype=x.dtype), [1, 1, 1, 1], "VALID", name=name
    )
    return _array_ops.transpose(y, [0, 3, 1, 2]) if first else y


def depth_to_space(input: Any, block_size: int, data_format: str = "NHWC", name: Optional[str] = None) -> Any:
    """``tf.nn.depth_to_space``: moves channel blocks into b x b spatial blocks (DCR order)."""
    x = _array_ops.convert_to_tensor(input)
    if data_format == "NCHW":
        x = _array_ops.transpose(x, [0, 2, 3, 1])
    b = int(block_size)
    s = _array_ops.shape(x)
    n, h, w, c = s[0], s[1], s[2], s[3]
    y = _array_ops.reshape(x, _array_ops.stack([n, h, w, b, b, c // (b * b)]))
    y = _array_ops.transpose(y, [0, 1, 3, 2, 4, 5])
    y = _array_ops.reshape(y, _array_ops.stack([n, h * b, w * b, c // (b * b)]))
    return _array_ops.transpose(y, [0, 3, 1, 2]) if data_format == "NCHW" else y


def space_to_depth(input: Any, block_size: int, data_format: str = "NHWC", name: Optional[str] = None) -> Any:
    """``tf.nn.space_to_depth``: the inverse of ``depth_to_space``."""
    x = _array_ops.convert_to_tensor(input)
    if data_format == "NCHW":
        x = _array_ops.transpose(x, [0, 2, 3, 1])
    b = int(block_size)
    s = _array_ops.shape(x)
    n, h, w, c = s[0], s[1], s[2], s[3]
    y = _array_ops.reshape(x, _array_ops.stack([n, h // b, b, w // b, b, c]))
    y = _array_ops.transpose(y, [0, 1, 3, 2, 4, 5])
    y = _array_ops.reshape(y, _array_ops.stack([n, h // b, w // b, c * b * b]))
    return _array_ops.transpose(y, [0, 3, 1, 2]) if data_format == "NCHW" else y


def selu(features: Any, name: Optional[str] = None) -> Any:
    """``tf.nn.selu``: scale * elu(x, alpha) with TF's constants."""
    x = _array_ops.convert_to_tensor(features)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * _array_ops.where(x > 0, x, alpha * _math_ops.elu(x))


def softsign(features: Any, name: Optional[str] = None) -> Any:
    """``tf.nn.softsign``: x / (1 + |x|)."""
    x = _array_ops.convert_to_tensor(features)
    return x / (1 + _math_ops.abs(x))


def log_sigmoid(x: Any, name: Optional[str] = None) -> Any:
    """``tf.math.log_sigmoid``: -softplus(-x) (stable for large |x|)."""
    x = _array_ops.convert_to_tensor(x)
    return -_math_ops.softplus(-x)
