"""``tf.random``'s ops: ``uniform``, ``normal``, ``set_seed`` with TensorFlow's seed scheme,
``shuffle`` and ``categorical`` (compositions over stateful uniform draws; their numbers differ
from TensorFlow's), and the stateless ``stateless_uniform`` / ``stateless_normal`` (ops keyed by a
[2] seed as TF's, same numbers). ``fn.random`` re-exports them.

Random ops are stateful: every run draws new numbers, inside functions too. Each op draws from
a Philox stream keyed by two seeds derived from the global seed (``fn.random.set_seed``) and
the op's ``seed`` as TensorFlow derives them, so the same seeds give TensorFlow's numbers.
Eagerly, calls with the same op, dtype and seeds continue one stream (until ``set_seed``);
every traced op has its own stream.
"""
from __future__ import annotations

import random as _pyrandom
import threading
from typing import Any, Optional, Tuple

from fn import _core
from fn._ops.array_ops import _shape_tensor, cast, concat, convert_to_tensor, expand_dims, gather, shape
from fn._ops.math_ops import argmax, log
from fn._ops.op_call import run_op
from fn._ops.sort_ops import argsort
from fn.dtypes import as_dtype, float32, int32, int64
from fn.errors import InvalidArgumentError

_DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1

_lock = threading.Lock()
_global_seed: Optional[int] = None
_op_seed_rng: Optional[_pyrandom.Random] = None
_eager_states: dict = {}     # (op, dtype, seed, seed2) -> generator state of the eager "kernel"
_graph_counters: dict = {}   # traced graph id -> ops given an op seed from the global seed


def set_seed(seed: Optional[int]) -> None:
    """``tf.random.set_seed``: sets the global seed; random sequences restart from it."""
    global _global_seed, _op_seed_rng
    with _lock:
        _global_seed = None if seed is None else int(seed)
        _op_seed_rng = _pyrandom.Random(_global_seed)
        _eager_states.clear()


def get_global_seed() -> Optional[int]:
    return _global_seed


def get_seed(op_seed: Optional[int]) -> Tuple[int, int]:
    """The (seed, seed2) pair of an op, as ``tf.compat.v1.random.get_seed`` derives it."""
    with _lock:
        if _global_seed is not None:
            if op_seed is None:
                graph = _core.current_graph_id()
                if graph == 0:
                    op_seed = _op_seed_rng.randint(0, _MAXINT32)
                else:
                    op_seed = _graph_counters.get(graph, 0)
                    _graph_counters[graph] = op_seed + 1
            seeds = (_global_seed % _MAXINT32, int(op_seed) % _MAXINT32)
        elif op_seed is not None:
            seeds = (_DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
        else:
            return 0, 0   # nondeterministic
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _random(op: str, inputs: list, dtype: Any, dtype_attr: str, seed: Optional[int], name: Optional[str]) -> Any:
    s1, s2 = get_seed(seed)
    attrs = {dtype_attr: dtype, "seed": s1, "seed2": s2, "T": inputs[0].dtype}
    if _core.executing_eagerly() and (seed is not None or _global_seed is None):
        # Eager "kernels" are shared per (op, dtype, seeds) and continue their stream. An op seed
        # drawn from the global seed is new on each call, so its stream needs no keeping.
        key = (op, dtype.name, s1, s2)
        with _lock:
            state = _eager_states.get(key)
            if state is None:
                state = _eager_states[key] = _core._random_state()
    else:
        state = _core._random_state()
    attrs["_state"] = state
    return _core.execute(op, inputs, attrs, name)[0]


def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = float32, seed: Optional[int] = None,
            name: Optional[str] = None) -> Any:
    """``tf.random.uniform``: values in ``[minval, maxval)`` (floats default to ``[0, 1)``;
    integer dtypes need ``maxval``)."""
    dtype = as_dtype(dtype)
    shape_t = _shape_tensor(shape)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dtype}.")
        lo = convert_to_tensor(minval, dtype)
        hi = convert_to_tensor(maxval, dtype)
        return _random("RandomUniformInt", [shape_t, lo, hi], dtype, "Tout", seed, name or "random_uniform")
    if not dtype.is_floating:
        raise ValueError(f"Invalid dtype {dtype}: fn.random.uniform needs a floating or integer dtype")
    if maxval is None:
        maxval = 1
    minval_is_zero = isinstance(minval, int) and minval == 0
    maxval_is_one = isinstance(maxval, int) and maxval == 1
    result = _random("RandomUniform", [shape_t], dtype, "dtype", seed, None)
    if minval_is_zero:
        if not maxval_is_one:
            result = run_op("Mul", [result, convert_to_tensor(maxval, dtype)], None, name)
        return result
    lo, hi = convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype)
    return run_op("AddV2", [run_op("Mul", [result, run_op("Sub", [hi, lo])]), lo], None, name or "random_uniform")


def _normal_like(op: str, shape: Any, mean: Any, stddev: Any, dtype: Any, seed: Optional[int], name: str) -> Any:
    """``mean + stddev * op(shape)`` for the normal-like stateful draws."""
    dtype = as_dtype(dtype)
    shape_t = _shape_tensor(shape)
    mean_t, stddev_t = convert_to_tensor(mean, dtype), convert_to_tensor(stddev, dtype)   # TF's order
    rnd = _random(op, [shape_t], dtype, "dtype", seed, None)
    return run_op("AddV2", [run_op("Mul", [rnd, stddev_t]), mean_t], None, name)


def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32, seed: Optional[int] = None,
           name: Optional[str] = None) -> Any:
    """``tf.random.normal``: ``mean + stddev * N(0, 1)`` samples."""
    if not as_dtype(dtype).is_floating:
        raise ValueError(f"Invalid dtype {as_dtype(dtype)}: fn.random.normal needs a floating dtype")
    return _normal_like("RandomStandardNormal", shape, mean, stddev, dtype, seed, name or "random_normal")


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32,
                     seed: Optional[int] = None, name: Optional[str] = None) -> Any:
    """``tf.random.truncated_normal``: normal samples redrawn until within two standard
    deviations of ``mean`` (TF's numbers for the same seeds)."""
    if not as_dtype(dtype).is_floating:
        raise ValueError(f"Invalid dtype {as_dtype(dtype)}: fn.random.truncated_normal needs a floating dtype")
    return _normal_like("TruncatedNormal", shape, mean, stddev, dtype, seed, name or "truncated_normal")


def shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> Any:
    """``tf.random.shuffle``: ``value`` with its first dimension randomly permuted."""
    value = convert_to_tensor(value)
    if value._rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    keys = uniform(shape(value)[:1], seed=seed)
    return gather(value, argsort(keys), name=name)


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: Optional[int] = None,
                name: Optional[str] = None) -> Any:
    """``tf.random.categorical``: ``num_samples`` class indices per row of ``logits`` [batch,
    classes], drawn with probabilities softmax(logits) (the Gumbel-max trick)."""
    logits = convert_to_tensor(logits)
    if logits._rank not in (-1, 2):
        if _core.executing_eagerly():
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
    # TF's Tseed attr prefers int64 (a hint: a huge int is its OverflowError while tracing)
    s = _core.convert_to_tensor(seed, None, int64) if not _core.is_tensor(seed) else seed
    if s.dtype not in (int32, int64):
        s = cast(s, int64)
    return s


def stateless_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None, dtype: Any = float32,
                      name: Optional[str] = None, alg: str = "auto_select") -> Any:
    """``tf.random.stateless_uniform``: deterministic uniform numbers in ``[minval, maxval)`` from
    a shape-[2] ``seed`` (TensorFlow's numbers for the same seed; integers over the whole range
    when both bounds are None)."""
    dtype = as_dtype(dtype)
    # TF's argument checks first (ValueError), then fn's gap: integer draws
    if dtype.name not in ("float16", "bfloat16", "float32", "float64", "int32", "int64", "uint32", "uint64"):
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are (tf.float16, "
                         "tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint32, tf.uint64).")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype!r}, argument `minval` and `maxval` must be both "
                             f"None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype.is_unsigned:
            raise ValueError(f"Argument `dtype` got invalid value {dtype!r} when argument `minval` is not None. "
                             "Please don't use unsigned integers in this case.")
        return _stateless_int(shape, seed, minval, maxval, dtype, name)
    if maxval is None:
        maxval = 1
    if dtype.name in ("float16", "bfloat16"):
        rnd = _half_uniform(shape, seed, dtype)
    else:
        rnd = _core.execute("StatelessRandomUniform", [_shape_tensor(shape), _seed_tensor(seed)], {"dtype": dtype},
                            None)[0]
    lo = convert_to_tensor(minval, dtype)
    hi = convert_to_tensor(maxval, dtype)
    return _core.execute("AddV2", [rnd * (hi - lo), lo], None, name or "stateless_random_uniform")[0]


def _stateless_int(shape: Any, seed: Any, minval: Any, maxval: Any, dtype: Any, name: Optional[str]) -> Any:
    """Integer ``stateless_uniform``: the whole range (``minval`` None) or ``[minval, maxval)``, drawn by
    the V2 ops from the seed's scrambled key and counter (TF's ``get_key_counter_alg``, Philox)."""
    shape_t = _shape_tensor(shape)
    name = name or "stateless_random_uniform"
    if minval is None:
        key, counter = _core.execute("StatelessRandomGetKeyCounter", [_seed_tensor(seed)], None, None)
        alg_t = convert_to_tensor(3, int32)  # Philox on the CPU, as TF's auto-select
        return _core.execute("StatelessRandomUniformFullIntV2", [shape_t, key, counter, alg_t], {"dtype": dtype},
                             name)[0]
    lo = convert_to_tensor(minval, dtype)
    hi = convert_to_tensor(maxval, dtype)
    key, counter = _core.execute("StatelessRandomGetKeyCounter", [_seed_tensor(seed)], None, None)
    alg_t = convert_to_tensor(3, int32)
    return _core.execute("StatelessRandomUniformIntV2", [shape_t, key, counter, alg_t, lo, hi], None, name)[0]


def _half_uniform(shape: Any, seed: Any, dtype: Any) -> Any:
    """Uniform [0, 1) float16/bfloat16 as TF draws them: one 32-bit Philox sample per element, as
    float32 draws, whose low 10 (float16) or 7 (bfloat16) bits are the mantissa of a number in
    [1, 2), minus 1. The float32 draw keeps the low 23 bits (``f * 2**23`` is that integer)."""
    f = _core.execute("StatelessRandomUniform", [_shape_tensor(shape), _seed_tensor(seed)], {"dtype": float32},
                      None)[0]
    bits = 10 if dtype.name == "float16" else 7
    low = _core.execute("BitwiseAnd", [cast(f * float(2**23), int32), convert_to_tensor((1 << bits) - 1, int32)],
                        None, None)[0]
    return cast(cast(low, float32) / float(1 << bits), dtype)


def stateless_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32,
                     name: Optional[str] = None, alg: str = "auto_select") -> Any:
    """``tf.random.stateless_normal``: deterministic ``mean + stddev * N(0, 1)`` samples from a
    shape-[2] ``seed`` (TensorFlow's numbers for the same seed)."""
    dtype = as_dtype(dtype)
    # TF's order: shape, mean and stddev converted before the seed is read
    shape_t = _shape_tensor(shape)
    mean_t, stddev_t = convert_to_tensor(mean, dtype), convert_to_tensor(stddev, dtype)
    rnd = _core.execute("StatelessRandomNormal", [shape_t, _seed_tensor(seed)], {"dtype": dtype}, None)[0]
    return _core.execute("AddV2", [rnd * stddev_t, mean_t], None, name or "stateless_random_normal")[0]


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32,
                               name: Optional[str] = None, alg: str = "auto_select") -> Any:
    """``tf.random.stateless_truncated_normal``: deterministic normal samples within two standard
    deviations of ``mean`` from a shape-[2] ``seed`` (the seed scrambled into a Philox key and
    counter as TF's StatelessRandomGetKeyCounter; TensorFlow's numbers)."""
    dtype = as_dtype(dtype)
    shape_t = _shape_tensor(shape)
    mean_t, stddev_t = convert_to_tensor(mean, dtype), convert_to_tensor(stddev, dtype)
    key, counter = _core.execute("StatelessRandomGetKeyCounter", [_seed_tensor(seed)], None, None)
    alg_t = convert_to_tensor(3, int32)   # Philox on the CPU, as TF's auto-select
    rnd = _core.execute("StatelessTruncatedNormalV2", [shape_t, key, counter, alg_t], {"dtype": dtype}, None)[0]
    return _core.execute("AddV2", [rnd * stddev_t, mean_t], None, name or "stateless_truncated_normal")[0]
