"""Stateless random names Keras' TensorFlow backend calls and fn lacked:
``tf.nn.experimental.stateless_dropout`` (TF's formula over ``stateless_uniform``, so the same
mask as TF for the same seed), ``tf.random.stateless_truncated_normal`` and
``tf.random.stateless_categorical`` (TF's distributions; not TF's exact numbers)."""

from __future__ import annotations

import types
from typing import Any, Optional
from fn._ops import array_ops as _array_ops
from fn._ops import clip_ops as _clip_ops
from fn._ops import math_ops as _math_ops
from fn._ops import random_ops as _random_ops
from fn import dtypes as _dtypes


def stateless_dropout(
    x: Any, rate: Any, seed: Any, rng_alg: Any = None, noise_shape: Any = None, name: Optional[str] = None
) -> Any:
    """``tf.nn.experimental.stateless_dropout``: zero each element with probability ``rate``,
    scale the rest by 1 / (1 - rate); the mask drawn from ``stateless_uniform(seed)``."""
    x = _array_ops.convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(
            f"x has to be a floating point tensor since it's going to be scaled. Got a {x.dtype.name} tensor instead."
        )
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    rate_t = _array_ops.cast(_array_ops.convert_to_tensor(rate), x.dtype)
    ret = x * (1 / (1 - rate_t))
    shape = _array_ops.shape(x) if noise_shape is None else noise_shape
    # fn's uniform kernel draws float32/float64; half-precision masks compare a float32 draw.
    draw_dtype = x.dtype if x.dtype in (_dtypes.float32, _dtypes.float64) else _dtypes.float32
    random = _random_ops.stateless_uniform(shape, seed=seed, dtype=draw_dtype)
    keep = random >= _array_ops.cast(rate_t, draw_dtype)
    return _array_ops.where(keep, ret, _array_ops.zeros([], x.dtype))


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = None,
    name: Optional[str] = None,
    alg: Any = "auto_select",
) -> Any:
    """``tf.random.stateless_truncated_normal``: normal samples redrawn until within two standard
    deviations (eight stateless draws per element; the 1e-11 that miss all are clipped)."""
    dtype = _dtypes.as_dtype(dtype or _dtypes.float32)
    seed = _array_ops.cast(_array_ops.convert_to_tensor(seed), _dtypes.int64)
    out = None
    for k in range(8):
        draw = _random_ops.stateless_normal(
            shape, seed=seed + _array_ops.constant([0, 7919 * k], _dtypes.int64), dtype=dtype
        )
        out = draw if out is None else _array_ops.where(_math_ops.abs(out) <= 2, out, draw)
    out = _clip_ops.clip_by_value(out, -2, 2)
    return out * _array_ops.cast(stddev, dtype) + _array_ops.cast(mean, dtype)


def stateless_categorical(
    logits: Any, num_samples: Any, seed: Any, dtype: Any = None, name: Optional[str] = None
) -> Any:
    """``tf.random.stateless_categorical``: ``num_samples`` class indices per row of ``logits``
    (Gumbel-max over stateless uniforms)."""
    logits = _array_ops.convert_to_tensor(logits)
    dtype = _dtypes.as_dtype(dtype or _dtypes.int64)
    batch, classes = _array_ops.shape(logits)[0], _array_ops.shape(logits)[1]
    u = _random_ops.stateless_uniform(
        _array_ops.stack([batch, num_samples, classes]), seed=seed, minval=1e-20, maxval=1.0, dtype=logits.dtype
    )
    gumbel = -_math_ops.log(-_math_ops.log(u))
    return _array_ops.cast(_math_ops.argmax(_array_ops.expand_dims(logits, 1) + gumbel, axis=-1), dtype)


experimental = types.ModuleType("fn.nn.experimental", "``tf.nn.experimental``.")
experimental.stateless_dropout = stateless_dropout  # type: ignore[attr-defined]
