"""``fn.random``: ``uniform``, ``normal``, ``set_seed`` with TensorFlow's seed scheme.

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
from fn._array_ops import _shape_tensor, convert_to_tensor
from fn.dtypes import as_dtype, float32

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


def _math(op: str, a: Any, b: Any, name: Optional[str] = None) -> Any:
    return _core.execute(op, [a, b], None, name)[0]


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
            result = _math("Mul", result, convert_to_tensor(maxval, dtype), name)
        return result
    lo, hi = convert_to_tensor(minval, dtype), convert_to_tensor(maxval, dtype)
    return _math("AddV2", _math("Mul", result, _math("Sub", hi, lo)), lo, name or "random_uniform")


def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32, seed: Optional[int] = None,
           name: Optional[str] = None) -> Any:
    """``tf.random.normal``: ``mean + stddev * N(0, 1)`` samples."""
    dtype = as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Invalid dtype {dtype}: fn.random.normal needs a floating dtype")
    rnd = _random("RandomStandardNormal", [_shape_tensor(shape)], dtype, "dtype", seed, None)
    mul = _math("Mul", rnd, convert_to_tensor(stddev, dtype))
    return _math("AddV2", mul, convert_to_tensor(mean, dtype), name or "random_normal")


# shuffle, categorical and the stateless ops (issue 14); imported last (they use uniform).
from fn._random_ops import categorical, shuffle, stateless_normal, stateless_uniform  # noqa: E402,F401
from fn._tf_compat._random_extra import stateless_categorical, stateless_truncated_normal  # noqa: E402,F401

from fn._public import export as _export  # noqa: E402
_export(globals(), hide=["convert_to_tensor", "float32", "get_global_seed", "get_seed"])
