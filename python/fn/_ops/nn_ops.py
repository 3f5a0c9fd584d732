"""``tf.nn``'s ops (``fn.nn`` re-exports them with the activations of ``math_ops``): conv2d,
bias_add, softmax and pooling on their C++ ops; cross-entropy losses
(the two fused softmax ops, sigmoid composed as TF does), dropout, leaky_relu, gelu, silu,
l2_loss, l2_normalize, moments, batch_normalization, conv1d, conv2d_transpose,
depthwise_conv2d and embedding_lookup. Compositions follow TensorFlow's ``nn_impl``/``nn_ops``
so values, dtypes and gradients match."""

from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy as np

from fn import _core, errors
from fn._ops.array_ops import (
    cast,
    concat,
    convert_to_tensor,
    expand_dims,
    gather,
    reshape,
    shape,
    squeeze,
    transpose,
    where,
)
from fn._ops.math_ops import (
    maximum,
    multiply,
    reduce_mean,
    reduce_sum,
    rsqrt,
    sigmoid,
    square,
    squared_difference,
    stop_gradient,
    tanh,
    zeros_like,
)
from fn._ops.random_ops import uniform
from fn.dtypes import float16, float32
from fn._ops.op_call import run_op_outputs as _run
from fn._ops.op_errors import attr_not_allowed
from fn._ops.array_ops import _shape_tensor
from fn._ops.clip_ops import clip_by_norm


def _sequence(value: Any, n: int, name: str) -> list:
    """A window attr as 4 values [1, h, w, 1] from an int, [v], [h, w] or [1, h, w, 1] (NHWC)."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, int):
        return [1] + [value] * n + [1]
    value = list(value)
    if len(value) == 1:
        return [1] + value * n + [1]
    if len(value) == n:
        return [1] + value + [1]
    if len(value) == n + 2:
        return value
    raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was {len(value)}")


def _padding_attrs(padding: Any) -> dict:
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"`padding` must be 'SAME' or 'VALID' or a list of paddings, got {padding!r}")
        return {"padding": p}
    pads = [list(p) for p in padding]
    if len(pads) != 4 or any(len(p) != 2 for p in pads):
        raise ValueError(f"When `padding` is a list it must have 4 [before, after] pairs, got {padding!r}")
    return {"padding": "EXPLICIT", "explicit_paddings": [int(v) for p in pads for v in p]}


def conv2d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.conv2d``: 2-D convolution of NHWC ``input`` with HWIO ``filters``."""
    input = convert_to_tensor(input)
    filters = _core.convert_to_tensor(filters, None, input.dtype)
    if isinstance(padding, str) and padding.upper() not in ("SAME", "VALID"):  # TF: the op's attr check
        raise attr_not_allowed("Conv2D", "padding", padding, ("SAME", "VALID", "EXPLICIT"))
    attrs = {
        "strides": _sequence(strides, 2, "strides"),
        "dilations": _sequence(dilations, 2, "dilations"),
        "data_format": data_format,
        **_padding_attrs(padding),
    }
    groups = _conv_groups(input, filters, 1 if data_format.startswith("NC") else 3)
    if groups > 1:
        return _grouped_conv2d(input, filters, attrs, groups, name)
    return _core.execute("Conv2D", [input, filters], attrs, name)[0]


def _conv_groups(input: Any, filters: Any, channel_axis: int) -> int:
    """How many groups a convolution has: input depth / filter depth when both are known and the
    filter is shallower (TF's grouped convolution); 1 otherwise (the kernel checks the rest)."""
    ic = input.shape.as_list()[channel_axis] if input.shape.rank == 4 else None
    fc = filters.shape.as_list()[2] if filters.shape.rank == 4 else None
    if ic is None or fc is None or fc == 0 or ic == 0 or ic == fc or ic % fc:  # ic == 0: no groups (was oc % 0)
        return 1
    oc = filters.shape.as_list()[3]
    if oc is not None and oc % (ic // fc):
        raise errors.InvalidArgumentError(
            None, None, f"output depth must be evenly divisible by number of groups: {oc} vs {ic // fc}"
        )
    return ic // fc


def _grouped_conv2d(input: Any, filters: Any, attrs: dict, groups: int, name: Optional[str]) -> Any:
    """A grouped convolution as TF computes it: group ``g`` convolves input channels
    ``[g*fc, (g+1)*fc)`` with output filters ``[g*oc/groups, (g+1)*oc/groups)``."""
    from fn._ops.array_ops import concat, split

    axis = 1 if attrs["data_format"].startswith("NC") else 3
    xs = split(input, groups, axis=axis)
    ws = split(filters, groups, axis=3)
    ys = [_core.execute("Conv2D", [x, w], attrs, None)[0] for x, w in zip(xs, ws)]
    return concat(ys, axis, name=name or "concat")


def bias_add(value: Any, bias: Any, data_format: Optional[str] = None, name: Optional[str] = None) -> Any:
    """``tf.nn.bias_add``: adds the 1-D ``bias`` along the channel (last) dimension."""
    value = convert_to_tensor(value)
    if _core.executing_eagerly():  # TF's eager path leaves a dtype mismatch to the kernel's check
        bias = _core.convert_to_tensor(bias, None, value.dtype)
    else:  # while tracing: convert_to_tensor(bias, dtype=value.dtype) (ValueError for a tensor)
        bias = _core.convert_to_tensor(bias, value.dtype)
    fmt = "NCHW" if data_format is not None and data_format.startswith("NC") else "NHWC"
    return _core.execute("BiasAdd", [value, bias], {"data_format": fmt}, name)[0]


def _over_axis(op: str, logits: Any, axis: Optional[int], name: Optional[str]) -> Any:
    logits = convert_to_tensor(logits)
    rank = logits._rank
    if axis is None or axis == -1 or (rank >= 0 and axis == rank - 1):
        return _core.execute(op, [logits], None, name)[0]
    if rank < 0:
        raise ValueError(f"{op} over axis {axis} needs a tensor of known rank")
    if axis < -rank or axis >= rank:  # TF's class and wording (it says `dim`)
        raise errors.InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of "
            f"dimensions in the input. Received: dim={axis}",
        )
    axis %= rank
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    out = _core.execute(op, [transpose(logits, perm)], None, name)[0]
    return transpose(out, perm)


def softmax(logits: Any, axis: Optional[int] = None, name: Optional[str] = None) -> Any:
    """``tf.nn.softmax``: exp(x) / sum(exp(x)) along ``axis`` (default: the last)."""
    return _over_axis("Softmax", logits, axis, name)


def log_softmax(logits: Any, axis: Optional[int] = None, name: Optional[str] = None) -> Any:
    """``tf.nn.log_softmax``: x - log(sum(exp(x))) along ``axis`` (default: the last)."""
    return _over_axis("LogSoftmax", logits, axis, name)


def _pool(
    op: str, input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str], name: Optional[str]
) -> Any:
    input = convert_to_tensor(input)
    attrs = {
        "ksize": _sequence(ksize, 2, "ksize"),
        "strides": _sequence(strides, 2, "strides"),
        "data_format": data_format or "NHWC",
        **_padding_attrs(padding),
    }
    return _core.execute(op, [input], attrs, name)[0]


def max_pool2d(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC", name: Optional[str] = None
) -> Any:
    """``tf.nn.max_pool2d``: the maximum of each ``ksize`` window of an NHWC tensor."""
    return _pool("MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool2d(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC", name: Optional[str] = None
) -> Any:
    """``tf.nn.avg_pool2d``: the mean of each window (padding excluded from the count)."""
    return _pool("AvgPool", input, ksize, strides, padding, data_format, name)


def _nd_pool(
    op: str, input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str], name: Optional[str]
) -> Any:
    input = convert_to_tensor(input)
    if input._rank not in (4, -1):
        raise NotImplementedError(f"fn.nn pooling supports 4-D (NHWC) inputs only, got rank {input._rank}")
    return _pool(op, input, ksize, strides, padding, data_format, name)


def max_pool(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None
) -> Any:
    """``tf.nn.max_pool`` (2-D inputs)."""
    return _nd_pool("MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None
) -> Any:
    """``tf.nn.avg_pool`` (2-D inputs)."""
    return _nd_pool("AvgPool", input, ksize, strides, padding, data_format, name)


# ---- losses ----


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None, name: Optional[str] = None) -> Any:
    """``tf.nn.sigmoid_cross_entropy_with_logits``: ``max(x, 0) - x * z + log(1 + exp(-|x|))``."""
    if labels is None or logits is None:
        raise ValueError(
            "Both `labels` and `logits` must be provided. Received: `labels`=%s and `logits`=%s" % (labels, logits)
        )
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)  # not cast: int labels fail in Mul, as in TF
    try:
        labels.shape.assert_is_compatible_with(logits.shape)
    except ValueError:
        raise ValueError(
            f"`logits` and `labels` must have the same shape, received ({logits.shape} vs {labels.shape})."
        ) from None
    zeros = zeros_like(logits)
    cond = logits >= zeros
    relu_logits = where(cond, logits, zeros)
    neg_abs_logits = where(cond, -logits, logits)
    return _core.execute(
        "AddV2",
        [relu_logits - logits * labels, _core.execute("Log1p", [_core.execute("Exp", [neg_abs_logits])[0]])[0]],
        None,
        name or "logistic_loss",
    )[0]


def _move_axis_last(t: Any, axis: int) -> Any:
    rank = t._rank
    if axis == -1 or (rank >= 0 and axis == rank - 1):
        return t, None
    if rank < 0:
        raise ValueError("fn.nn: a softmax over a non-last axis needs a tensor of known rank")
    # TF moves the axis with range(axis) and range(axis + 1, rank): other negative axes and axes
    # past the end fail in those ranges
    bad = (0, axis) if axis < 0 else (axis + 1, rank) if axis >= rank else None
    if bad is not None:
        msg = f"Requires start <= limit when delta > 0: {bad[0]}/{bad[1]}"
        if t._is_eager:
            raise errors.InvalidArgumentError(None, None, msg)
        raise ValueError(msg)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(t, perm), perm


def softmax_cross_entropy_with_logits(labels: Any, logits: Any, axis: int = -1, name: Optional[str] = None) -> Any:
    """``tf.nn.softmax_cross_entropy_with_logits``: ``-sum(labels * log_softmax(logits), axis)``
    (the SoftmaxCrossEntropyWithLogits op; gradients flow to labels too)."""
    logits = convert_to_tensor(logits)
    labels = _core.convert_to_tensor(labels, None, logits.dtype)
    if labels.dtype != logits.dtype:
        labels = cast(labels, logits.dtype)
    logits, perm = _move_axis_last(logits, axis)
    if perm is not None:
        labels = transpose(labels, perm)
    rank = logits._rank
    out_shape = None
    if rank != 2:
        if rank == 0:
            raise ValueError("Logits cannot be scalars - received shape ().")
        out_shape = shape(logits)[:-1]
        n = shape(logits)[-1:]
        logits = reshape(logits, concat([[-1], n], 0))
        labels = reshape(labels, concat([[-1], n], 0))
    loss = _run("SoftmaxCrossEntropyWithLogits", [logits, labels], None, name)[0]
    return reshape(loss, out_shape) if out_shape is not None else loss


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any, name: Optional[str] = None) -> Any:
    """``tf.nn.sparse_softmax_cross_entropy_with_logits``: ``-log_softmax(logits)[label]`` per
    row; out-of-range labels raise ``InvalidArgumentError`` eagerly (as TF's CPU kernel)."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    lr, xr = labels._rank, logits._rank
    if xr == 0:
        raise ValueError(f"Logits cannot be scalars - received shape {logits.shape}.")
    if lr >= 0 and xr >= 0:
        if lr != xr - 1:
            raise ValueError(
                "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                f"labels.shape={labels.shape} of rank {lr} and logits.shape={logits.shape} of rank {xr}"
            )
        if not labels.shape.is_compatible_with(logits.shape[:-1]):
            raise ValueError(
                "`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                f"labels.shape={labels.shape} and logits.shape={logits.shape}"
            )
    if xr == 2:
        return _run("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], None, name)[0]
    out_shape = shape(labels)
    flat_logits = reshape(logits, concat([[-1], shape(logits)[-1:]], 0))
    loss = _run("SparseSoftmaxCrossEntropyWithLogits", [flat_logits, reshape(labels, [-1])], None, None)[0]
    return reshape(loss, out_shape, name=name)


def l2_loss(t: Any, name: Optional[str] = None) -> Any:
    """``tf.nn.l2_loss``: ``sum(t ** 2) / 2``."""
    t = convert_to_tensor(t)
    return _core.execute("RealDiv", [reduce_sum(square(t)), convert_to_tensor(2, t.dtype)], None, name or "L2Loss")[0]


# ---- activations ----


def leaky_relu(features: Any, alpha: float = 0.2, name: Optional[str] = None) -> Any:
    """``tf.nn.leaky_relu``: ``x`` where positive, else ``alpha * x`` (integers become float32)."""
    features = convert_to_tensor(features)
    if features.dtype.is_integer:
        features = cast(features, float32)
    if _core.is_tensor(alpha):
        return maximum(alpha * features, features, name=name)
    a = convert_to_tensor(alpha, features.dtype)
    return where(features > convert_to_tensor(0, features.dtype), features, a * features, name=name)


def gelu(features: Any, approximate: bool = False, name: Optional[str] = None) -> Any:
    """``tf.nn.gelu``: ``x * Phi(x)`` (erf form), or the tanh approximation."""
    features = convert_to_tensor(features)
    if not features.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype={features.dtype}")
    dt = features.dtype
    half, one = convert_to_tensor(0.5, dt), convert_to_tensor(1.0, dt)
    if approximate:
        coeff = convert_to_tensor(0.044715, dt)
        inner = convert_to_tensor(0.7978845608028654, dt) * (features + coeff * features ** convert_to_tensor(3, dt))
        return half * features * (one + tanh(inner))
    erf = _core.execute("Erf", [features / convert_to_tensor(1.4142135623730951, dt)])[0]
    return half * features * (one + erf)


def silu(features: Any, beta: Any = 1.0, name: Optional[str] = None) -> Any:
    """``tf.nn.silu`` / ``tf.nn.swish``: ``x * sigmoid(beta * x)``."""
    features = convert_to_tensor(features)
    beta = _core.convert_to_tensor(beta, features.dtype)
    return features * sigmoid(beta * features)


# ---- normalisation ----


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: Optional[str] = None, dim: Any = None) -> Any:
    """``tf.math.l2_normalize``: ``x / sqrt(max(sum(x**2, axis), epsilon))``."""
    if dim is not None:
        axis = dim
    x = convert_to_tensor(x)
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    x_inv_norm = rsqrt(maximum(square_sum, convert_to_tensor(epsilon, x.dtype)))
    return multiply(x, x_inv_norm, name=name)


def moments(x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: Optional[str] = None) -> tuple:
    """``tf.nn.moments``: (mean, variance) over ``axes``; the variance does not backpropagate
    through the mean (TF's stop_gradient)."""
    x = convert_to_tensor(x)
    y = cast(x, float32) if x.dtype == float16 else x
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(squared_difference(y, stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean = squeeze(mean, axes)
        variance = squeeze(variance, axes)
    if x.dtype == float16:
        return cast(mean, float16), cast(variance, float16)
    return mean, variance


def batch_normalization(
    x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: float, name: Optional[str] = None
) -> Any:
    """``tf.nn.batch_normalization``: ``(x - mean) * scale / sqrt(variance + eps) + offset``."""
    x = convert_to_tensor(x)
    variance = convert_to_tensor(variance)
    mean = convert_to_tensor(mean)
    inv = rsqrt(variance + convert_to_tensor(variance_epsilon, variance.dtype))
    if scale is not None:
        inv = inv * scale
    shift = (offset - mean * inv) if offset is not None else -mean * inv
    return x * cast(inv, x.dtype) + cast(shift, x.dtype)


# ---- convolutions ----


def _conv_attrs(strides: list, padding: Any, dilations: list) -> dict:
    return {"strides": strides, "dilations": dilations, "data_format": "NHWC", **_padding_attrs(padding)}


def _one_stride(value: Any, name: str) -> int:
    if value is None:
        return 1
    if isinstance(value, int):
        return value
    value = list(value)
    if len(value) == 1:
        return int(value[0])
    if len(value) == 3:
        return int(value[1])
    raise ValueError(f"{name} should be of length 1 or 3 but was {len(value)}")


def conv1d(
    input: Any,
    filters: Any,
    stride: Any,
    padding: Any,
    data_format: str = "NWC",
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.conv1d``: 1-D convolution of NWC ``input`` with WIO ``filters`` (a Conv2D over a
    height-1 image, as TF computes it)."""
    if data_format not in ("NWC", "NHWC", None):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    x = expand_dims(convert_to_tensor(input), 1)
    w = expand_dims(_core.convert_to_tensor(filters, None, x.dtype), 0)
    s, d = _one_stride(stride, "stride"), _one_stride(dilations, "dilations")
    if not isinstance(padding, str):
        padding = [[0, 0], [0, 0]] + [list(p) for p in padding][1:2] + [[0, 0]]
    y = _run("Conv2D", [x, w], _conv_attrs([1, 1, s, 1], padding, [1, 1, d, 1]))[0]
    return squeeze(y, [1], name=name)


def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.conv2d_transpose``: the gradient of conv2d with respect to its input
    (Conv2DBackpropInput), ``filters`` in HW[out][in] layout."""
    x = convert_to_tensor(input)
    w = _core.convert_to_tensor(filters, None, x.dtype)
    attrs = _conv_attrs(_sequence(strides, 2, "strides"), padding, _sequence(dilations, 2, "dilations"))
    return _run("Conv2DBackpropInput", [_shape_tensor(output_shape), w, x], attrs, name or "conv2d_transpose")[0]


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: Any = None,
    dilations: Any = None,
    name: Optional[str] = None,
) -> Any:
    """``tf.nn.depthwise_conv2d``: each input channel convolved with its own ``channel_multiplier``
    filters ([kh, kw, C, M] -> C*M channels, channel c*M + m). Computed as one Conv2D with a
    block-diagonal [kh, kw, C, C*M] filter, so Conv2D's kernels and gradients apply."""
    x = convert_to_tensor(input)
    w = _core.convert_to_tensor(filter, None, x.dtype)
    if 0 <= x._rank < 3:  # TF's with_space_to_batch checks the input's rank first
        raise ValueError(f"`input.shape.rank` must be at least 3. Received: input.shape={x.shape} with rank {x._rank}")
    ws = w._shape_tuple
    if ws is not None and len(ws) != 4:
        # TF: the kernel's InvalidArgument eagerly, the shape function's ValueError while tracing
        if x._is_eager and w._is_eager:
            raise errors.InvalidArgumentError(None, None, f"filter must be 4-dimensional: {list(ws)}")
        raise ValueError(
            f"Shape must be rank 4 but is rank {len(ws)} for '{{{{node depthwise}}}} = "
            f"DepthwiseConv2dNative[]' with input shapes: {x.shape}, {w.shape}."
        )
    if ws is None or ws[2] is None or ws[3] is None:
        raise ValueError(f"fn.nn.depthwise_conv2d needs a 4-D filter with static channels, got {w.shape}")
    c, m = ws[2], ws[3]
    strides = list(strides)
    if len(strides) != 4:
        raise ValueError(f"strides must be a list of 4 ints, got {strides}")
    sel = convert_to_tensor(np.eye(c, dtype=x.dtype.as_numpy_dtype).reshape(1, 1, c, c, 1))
    full = reshape(expand_dims(w, 3) * sel, concat([shape(w)[:2], [c, c * m]], 0))
    dil = [1, 1, 1, 1] if dilations is None else _sequence(dilations, 2, "dilations")
    return _run("Conv2D", [x, full], _conv_attrs(strides, padding, dil), name)[0]


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: Optional[str] = None) -> Any:
    """``tf.nn.embedding_lookup``: rows of ``params`` at ``ids`` (one tensor, or a list of one)."""
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("fn.nn.embedding_lookup supports one params tensor (no partitioning)")
        params = params[0]
    params = convert_to_tensor(params)
    result = gather(params, ids, name=name)
    if max_norm is not None:
        rank = result._rank
        ids_rank = convert_to_tensor(ids)._rank
        result = clip_by_norm(result, max_norm, axes=list(range(ids_rank, rank)))
    return result


def dropout(x: Any, rate: Any, noise_shape: Any = None, seed: Optional[int] = None, name: Optional[str] = None) -> Any:
    """``tf.nn.dropout``: elements kept with probability ``1 - rate`` and scaled by
    ``1 / (1 - rate)``, the rest zeroed."""
    is_rate_number = isinstance(rate, numbers.Real)
    if is_rate_number and (rate < 0 or rate >= 1):
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(
            f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: x_dtype={x.dtype}"
        )
    if is_rate_number and rate == 0:
        return x
    rate_t = _core.convert_to_tensor(rate, x.dtype)
    scale = convert_to_tensor(1, x.dtype) / (convert_to_tensor(1, x.dtype) - rate_t)
    if noise_shape is None:
        noise_shape = shape(x)
    random_tensor = uniform(noise_shape, seed=seed, dtype=x.dtype)
    keep_mask = random_tensor >= rate_t
    ret = x * scale
    return where(keep_mask, ret, zeros_like(ret), name=name)
