"""``fn.nn``: neural-network ops with TensorFlow's names and arguments: activations (from the
math family), convolution, pooling, bias and softmax (NHWC layout; float32 runs on oneDNN)."""
from __future__ import annotations

from typing import Any, Optional

from fn import _core, errors
from fn._array_ops import convert_to_tensor, transpose
from fn._math_ops import elu, relu, relu6, sigmoid, softplus, tanh  # noqa: F401
from fn._distribute._losses import compute_average_loss, scale_regularization_loss  # noqa: F401


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


def conv2d(input: Any, filters: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
           dilations: Any = None, name: Optional[str] = None) -> Any:
    """``tf.nn.conv2d``: 2-D convolution of NHWC ``input`` with HWIO ``filters``."""
    input = convert_to_tensor(input)
    filters = _core.convert_to_tensor(filters, None, input.dtype)
    attrs = {"strides": _sequence(strides, 2, "strides"), "dilations": _sequence(dilations, 2, "dilations"),
             "data_format": data_format, **_padding_attrs(padding)}
    return _core.execute("Conv2D", [input, filters], attrs, name)[0]


def bias_add(value: Any, bias: Any, data_format: Optional[str] = None, name: Optional[str] = None) -> Any:
    """``tf.nn.bias_add``: adds the 1-D ``bias`` along the channel (last) dimension."""
    value = convert_to_tensor(value)
    bias = _core.convert_to_tensor(bias, None, value.dtype)
    fmt = "NCHW" if data_format is not None and data_format.startswith("NC") else "NHWC"
    return _core.execute("BiasAdd", [value, bias], {"data_format": fmt}, name)[0]


def _over_axis(op: str, logits: Any, axis: Optional[int], name: Optional[str]) -> Any:
    logits = convert_to_tensor(logits)
    rank = logits._rank
    if axis is None or axis == -1 or (rank >= 0 and axis == rank - 1):
        return _core.execute(op, [logits], None, name)[0]
    if rank < 0:
        raise ValueError(f"{op} over axis {axis} needs a tensor of known rank")
    if axis < -rank or axis >= rank:   # TF's class and wording (it says `dim`)
        raise errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of "
            f"dimensions in the input. Received: dim={axis}")
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


def _pool(op: str, input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str],  # noqa: A002
          name: Optional[str]) -> Any:
    input = convert_to_tensor(input)
    attrs = {"ksize": _sequence(ksize, 2, "ksize"), "strides": _sequence(strides, 2, "strides"),
             "data_format": data_format or "NHWC", **_padding_attrs(padding)}
    return _core.execute(op, [input], attrs, name)[0]


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
               name: Optional[str] = None) -> Any:
    """``tf.nn.max_pool2d``: the maximum of each ``ksize`` window of an NHWC tensor."""
    return _pool("MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
               name: Optional[str] = None) -> Any:
    """``tf.nn.avg_pool2d``: the mean of each window (padding excluded from the count)."""
    return _pool("AvgPool", input, ksize, strides, padding, data_format, name)


def _nd_pool(op: str, input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str],  # noqa: A002
             name: Optional[str]) -> Any:
    input = convert_to_tensor(input)
    if input._rank not in (4, -1):
        raise NotImplementedError(f"fn.nn pooling supports 4-D (NHWC) inputs only, got rank {input._rank}")
    return _pool(op, input, ksize, strides, padding, data_format, name)


def max_pool(input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str] = None,  # noqa: A002
             name: Optional[str] = None) -> Any:
    """``tf.nn.max_pool`` (2-D inputs)."""
    return _nd_pool("MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool(input: Any, ksize: Any, strides: Any, padding: Any, data_format: Optional[str] = None,  # noqa: A002
             name: Optional[str] = None) -> Any:
    """``tf.nn.avg_pool`` (2-D inputs)."""
    return _nd_pool("AvgPool", input, ksize, strides, padding, data_format, name)

# Losses, activations, normalisation and convolutions composed in fn._nn_ops (issue 14).
from fn._nn_ops import (batch_normalization, conv1d, conv2d_transpose, depthwise_conv2d, dropout,  # noqa: E402,F401
                        embedding_lookup, gelu, l2_loss, l2_normalize, leaky_relu, moments,
                        sigmoid_cross_entropy_with_logits, silu, softmax_cross_entropy_with_logits,
                        sparse_softmax_cross_entropy_with_logits)
from fn._nn_ops import silu as swish  # noqa: E402,F401
from fn._sort_ops import top_k  # noqa: E402,F401
from fn._tf_compat._nn_extra import (avg_pool, avg_pool1d, conv_transpose, convolution,  # noqa: E402,F401,F811
                                     depth_to_space, max_pool, max_pool1d, pool, selu,
                                     separable_conv2d, softsign, space_to_depth)
from fn._tf_compat._random_extra import experimental  # noqa: E402,F401

from fn._public import export as _export  # noqa: E402
_export(globals(), hide=["convert_to_tensor", "transpose"])
