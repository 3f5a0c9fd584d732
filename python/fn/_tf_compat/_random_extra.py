"""Stateless random names Keras' TensorFlow backend calls and fn lacked:
``tf.nn.experimental.stateless_dropout`` (TF's formula over ``stateless_uniform``, so the same
mask as TF for the same seed), ``tf.random.stateless_truncated_normal`` and
``tf.random.stateless_categorical`` (TF's distributions; not TF's exact numbers)."""

from __future__ import annotations

import types
from typing import Any, Optional


def stateless_dropout(
    x: Any, rate: Any, seed: Any, rng_alg: Any = None, noise_shape: Any = None, name: Optional[str] = None
) -> Any:
    """``tf.nn.experimental.stateless_dropout``: zero each element with probability ``rate``,
    scale the rest by 1 / (1 - rate); the mask drawn from ``stateless_uniform(seed)``."""
    import fn

    x = fn.convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(
            f"x has to be a floating point tensor since it's going to be scaled. Got a {x.dtype.name} tensor instead."
        )
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    rate_t = fn.cast(fn.convert_to_tensor(rate), x.dtype)
    ret = x * (1 / (1 - rate_t))
    shape = fn.shape(x) if noise_shape is None else noise_shape
    # fn's uniform kernel draws float32/float64; half-precision masks compare a float32 draw.
    draw_dtype = x.dtype if x.dtype in (fn.float32, fn.float64) else fn.float32
    random = fn.random.stateless_uniform(shape, seed=seed, dtype=draw_dtype)
    keep = random >= fn.cast(rate_t, draw_dtype)
    return fn.where(keep, ret, fn.zeros([], x.dtype))


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
    import fn

    dtype = fn.as_dtype(dtype or fn.float32)
    seed = fn.cast(fn.convert_to_tensor(seed), fn.int64)
    out = None
    for k in range(8):
        draw = fn.random.stateless_normal(shape, seed=seed + fn.constant([0, 7919 * k], fn.int64), dtype=dtype)
        out = draw if out is None else fn.where(fn.abs(out) <= 2, out, draw)
    out = fn.clip_by_value(out, -2, 2)
    return out * fn.cast(stddev, dtype) + fn.cast(mean, dtype)


def stateless_categorical(
    logits: Any, num_samples: Any, seed: Any, dtype: Any = None, name: Optional[str] = None
) -> Any:
    """``tf.random.stateless_categorical``: ``num_samples`` class indices per row of ``logits``
    (Gumbel-max over stateless uniforms)."""
    import fn

    logits = fn.convert_to_tensor(logits)
    dtype = fn.as_dtype(dtype or fn.int64)
    batch, classes = fn.shape(logits)[0], fn.shape(logits)[1]
    u = fn.random.stateless_uniform(
        fn.stack([batch, num_samples, classes]), seed=seed, minval=1e-20, maxval=1.0, dtype=logits.dtype
    )
    gumbel = -fn.math.log(-fn.math.log(u))
    return fn.cast(fn.argmax(fn.expand_dims(logits, 1) + gumbel, axis=-1), dtype)


experimental = types.ModuleType("fn.nn.experimental", "``tf.nn.experimental``.")
experimental.stateless_dropout = stateless_dropout  # type: ignore[attr-defined]
