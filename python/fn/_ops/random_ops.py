"""``tf.random`` ops beyond uniform/normal: ``shuffle`` and ``categorical`` (compositions over
stateful uniform draws; their numbers differ from TensorFlow's), and the stateless
``stateless_uniform`` / ``stateless_normal`` (ops keyed by a [2] seed as TF's, same numbers)."""
from __future__ import annotations

from typing import Any, Optional

from fn import _core
from fn._ops.array_ops import _shape_tensor, cast, concat, convert_to_tensor, expand_dims, gather, shape
from fn._ops.math_ops import argmax, log
from fn._ops.sort_ops import argsort
from fn.dtypes import as_dtype, float32, int32, int64


def shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> Any:
    """``tf.random.shuffle``: ``value`` with its first dimension randomly permuted."""
    from fn.random import uniform
    value = convert_to_tensor(value)
    if value._rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    keys = uniform(shape(value)[:1], seed=seed)
    return gather(value, argsort(keys), name=name)


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: Optional[int] = None,
                name: Optional[str] = None) -> Any:
    """``tf.random.categorical``: ``num_samples`` class indices per row of ``logits`` [batch,
    classes], drawn with probabilities softmax(logits) (the Gumbel-max trick)."""
    from fn.random import uniform
    logits = convert_to_tensor(logits)
    if logits._rank not in (-1, 2):
        if _core.executing_eagerly():
            from fn.errors import InvalidArgumentError
            raise InvalidArgumentError(None, None, f"logits should be a matrix, got shape "
                                       f"[{','.join(str(d) for d in logits.shape.as_list())}] [Op:Multinomial]")
        raise ValueError(f"Shape must be rank 2 but is rank {logits._rank}")
    dtype = int64 if dtype is None else as_dtype(dtype)
    if dtype not in (int32, int64):
        raise ValueError(f"Invalid dtype {dtype}: categorical samples are int32 or int64")
    n = convert_to_tensor(num_samples, int32) if not _core.is_tensor(num_samples) else num_samples
    dims = shape(logits)
    u_shape = concat([dims[:1], expand_dims(n, 0), dims[1:]], 0)
    u = uniform(u_shape, minval=1e-20, maxval=1.0, dtype=float32, seed=seed)
    gumbel = -log(-log(u))
    scores = expand_dims(cast(logits, float32), 1) + gumbel
    return argmax(scores, axis=-1, output_type=dtype, name=name)


def _seed_tensor(seed: Any) -> Any:
    s = convert_to_tensor(seed) if not _core.is_tensor(seed) else seed
    if s.dtype not in (int32, int64):
        s = cast(s, int64)
    return s


def stateless_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None, dtype: Any = float32,  # noqa: A002
                      name: Optional[str] = None, alg: str = "auto_select") -> Any:
    """``tf.random.stateless_uniform``: deterministic uniform floats in ``[minval, maxval)`` from
    a shape-[2] ``seed`` (TensorFlow's numbers for the same seed, float32/float64)."""
    dtype = as_dtype(dtype)
    if not dtype.is_floating:
        raise NotImplementedError("fn.random.stateless_uniform supports floating dtypes")
    if maxval is None:
        maxval = 1
    rnd = _core.execute("StatelessRandomUniform", [_shape_tensor(shape), _seed_tensor(seed)], {"dtype": dtype},
                        None)[0]
    lo = convert_to_tensor(minval, dtype)
    hi = convert_to_tensor(maxval, dtype)
    return _core.execute("AddV2", [rnd * (hi - lo), lo], None, name or "stateless_random_uniform")[0]


def stateless_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32,  # noqa: A002
                     name: Optional[str] = None, alg: str = "auto_select") -> Any:
    """``tf.random.stateless_normal``: deterministic ``mean + stddev * N(0, 1)`` samples from a
    shape-[2] ``seed`` (TensorFlow's numbers for the same seed)."""
    dtype = as_dtype(dtype)
    rnd = _core.execute("StatelessRandomNormal", [_shape_tensor(shape), _seed_tensor(seed)], {"dtype": dtype},
                        None)[0]
    return _core.execute("AddV2", [rnd * convert_to_tensor(stddev, dtype), convert_to_tensor(mean, dtype)], None,
                         name or "stateless_random_normal")[0]
