"""``tf.random.Generator`` and its module functions, as TensorFlow's ``stateful_random_ops.py``.

A generator's state is an int64 ``fn.Variable`` ``[counter_lo, counter_hi, key]`` (Philox).
Each draw runs ``RngReadAndSkip`` (reads the state and moves its counter on by 256 blocks per
output element, TF's reservation) and then a stateless V2 op keyed by the state it read, so the
same seed gives TensorFlow's numbers, eagerly and inside ``fn.function`` (where the state
update is an op of the graph). ThreeFry exists in TF only under XLA: on CPU TF raises
``UnimplementedError``, and so does fn.
"""

from __future__ import annotations

import contextlib
import enum
import os
from typing import Any, Iterator, List, Optional, Tuple, Union

import numpy as np

from fn import _core
from fn._ops.op_call import run_op
from fn._ops.array_ops import _shape_tensor, cast, concat, constant, convert_to_tensor, reshape, stack, unstack, zeros
from fn._ops.array_ops import shape as array_shape
from fn._ops.math_ops import maximum, reduce_prod
from fn._state.variables import Variable, init_scope
from fn.dtypes import as_dtype, float32, int32, int64, uint64
from fn._distribute import context
from fn.config import experimental as _cfg_exp
from fn.errors import InvalidArgumentError


class _LazyModule:
    """fn._distribute.context, imported on first use (fn._distribute imports much of fn)."""

    def __getattr__(self, name: str) -> Any:

        return getattr(context, name)


_dist_context = _LazyModule()

_STATE_SIZE = 3  # Philox: two counter words and one key word (int64 each)
_COUNTER_SIZE = 2
_SEED_BITS = 64
_SEED_MASK = (1 << 64) - 1


class Algorithm(enum.Enum):
    """``tf.random.Algorithm``: the RNG algorithms of ``Generator`` and the stateless ops."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _unsupported_alg_error_msg(alg: Any) -> str:
    names: Tuple[Any, ...]
    if isinstance(alg, int):
        names = (1, 2, 3)
    elif isinstance(alg, str):
        names = ("philox", "threefry", "auto_select")
    else:
        names = (Algorithm.PHILOX, Algorithm.THREEFRY, Algorithm.AUTO_SELECT)
    return (
        f"Argument `alg` got unsupported value {alg}. Supported values are {names[0]} for the Philox "
        f"algorithm, {names[1]} for the ThreeFry algorithm, and {names[2]} for auto-selection."
    )


def _alg_to_int(alg: Any) -> Any:
    """TF's ``convert_alg_to_int``: an int, an ``Algorithm``, a tensor or a name."""
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, (int, np.integer)) and not isinstance(alg, bool):
        return int(alg)
    if _core.is_tensor(alg):
        return alg
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        table = {"philox": 1, "threefry": 2, "autoselect": 3}
        if canon in table:
            return table[canon]
        raise ValueError(_unsupported_alg_error_msg(alg))
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def _state_size(alg: Any) -> int:
    if _core.is_tensor(alg) or alg in (1, 2, 3):
        return 2 if alg == 2 else 3
    raise ValueError(_unsupported_alg_error_msg(alg))


def _uint_to_int(n: Any) -> Any:
    if isinstance(n, (int, np.integer)) and int(n) > 2**63 - 1:
        return int(n) - 2**64
    return n


def _to_state_tensor(t: Any) -> Any:
    """Values as int64 (uint64 values above int64's range wrap, as TF's ``_uint_to_int``)."""
    if _core.is_tensor(t) or isinstance(t, Variable):
        return cast(t, int64)
    if isinstance(t, (list, tuple)):
        t = [_to_state_tensor_py(x) for x in t]
    else:
        t = _to_state_tensor_py(t)
    return convert_to_tensor(np.asarray(t, dtype=np.int64))


def _to_state_tensor_py(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [_to_state_tensor_py(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.astype(np.int64)
    return _uint_to_int(int(x))


def _make_1d_state(size: int, seed: Any) -> Any:
    """TF's ``_make_1d_state``: a Python int chopped into 64-bit words (low first), or a vector
    cut to ``size`` and padded with zeros on the left (so a small seed lands in the key)."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seed = int(seed)
        words = []
        for _ in range(size):
            words.append(seed & _SEED_MASK)
            seed >>= _SEED_BITS
        seed = words
    s = reshape(_to_state_tensor(seed), [-1])[0:size]
    n = s.shape[0]
    if n is not None:
        if n < size:
            s = concat([zeros([size - n], int64), s], 0)
        return s
    # Length known only when the function runs: pad by max(size - n, 0) zeros.
    n = array_shape(s, out_type=int32)[0]
    pad = zeros(reshape(maximum(size - n, 0), [1]), int64)
    return reshape(concat([pad, s], 0), [size])


def create_rng_state(seed: Any, alg: Any) -> Any:
    """``tf.random.create_rng_state``: the int64 state vector a seed gives for ``alg``."""
    alg = _alg_to_int(alg)
    return _make_1d_state(_state_size(alg), seed)


def _check_state_shape(shape: Any, alg: Any) -> None:
    if _core.is_tensor(alg) and not _core.executing_eagerly():
        return
    size = _state_size(int(alg))
    if not shape.is_compatible_with([size]):
        raise ValueError(f"Shapes {shape} and {[size]} are incompatible")


class Generator:
    """``tf.random.Generator``: a random-number generator with its state in a ``fn.Variable``."""

    _fn_trackable = True  # checkpoints and SavedModels reach its state variable

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> "Generator":
        return cls(alg=alg, state=state)

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> "Generator":
        """A generator whose state is ``create_rng_state(seed, alg)`` (Philox by default)."""
        alg = _alg_to_int(Algorithm.PHILOX.value if alg is None else alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> "Generator":
        """A generator seeded from the operating system's entropy."""

        if getattr(_cfg_exp, "is_op_determinism_enabled", lambda: False)():
            raise RuntimeError('"from_non_deterministic_state" cannot be called when determinism is enabled.')
        alg = _alg_to_int(Algorithm.PHILOX.value if alg is None else alg)
        words = np.frombuffer(os.urandom(8 * _state_size(alg)), dtype=np.int64).copy()
        return cls(state=words, alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> "Generator":
        counter = _to_state_tensor(counter)
        key = _to_state_tensor(key)
        alg = _alg_to_int(alg)
        if not counter.shape.is_compatible_with([_state_size(alg) - 1]):
            raise ValueError(f"Shapes {counter.shape} and {[_state_size(alg) - 1]} are incompatible")
        if not key.shape.is_compatible_with([]):
            raise ValueError(f"Shapes {key.shape} and () are incompatible")
        return cls(state=concat([counter, reshape(key, [1])], 0), alg=alg)

    def __init__(self, copy_from: Optional["Generator"] = None, state: Any = None, alg: Any = None) -> None:
        # As TF: a generator made in a strategy's scope keys each replica's stream by its replica id.
        self._distribution_strategy = _dist_context.get_strategy() if _dist_context.has_strategy() else None
        if copy_from is not None:
            if (alg or state) is not None:
                raise AssertionError()
            self._state_var = self._create_variable(copy_from.state)
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise AssertionError()
        alg = _alg_to_int(alg)
        if isinstance(state, Variable):
            _check_state_shape(state.shape, alg)
            self._state_var = state
        else:
            state = _to_state_tensor(state)
            _check_state_shape(state.shape, alg)
            self._state_var = self._create_variable(state)
        self._alg = alg

    @staticmethod
    def _create_variable(initial: Any) -> Variable:
        with init_scope():
            if _core.is_tensor(initial) and not initial._is_eager:
                return Variable(initial, trainable=False, name="StateVar", dtype=int64)
        return Variable(initial, trainable=False, name="StateVar", dtype=int64)

    # -- state
    @property
    def state(self) -> Variable:
        """The internal state of the RNG (an int64 ``fn.Variable``)."""
        return self._state_var

    @property
    def algorithm(self) -> Any:
        """The RNG algorithm id (1: Philox, 2: ThreeFry, 3: auto-select)."""
        return self._alg

    @property
    def key(self) -> Any:
        """The key part of the state (its last element)."""
        if self._alg in (1, 2, 3):
            return self._state_var[-1]
        raise ValueError(_unsupported_alg_error_msg(self._alg))

    def reset(self, state: Any) -> None:
        state = _to_state_tensor(state)
        _check_state_shape(state.shape, self._alg)
        self._state_var.assign(state)

    def reset_from_seed(self, seed: Any) -> None:
        self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        counter = _to_state_tensor(counter)
        key = _to_state_tensor(key)
        if not counter.shape.is_compatible_with([_state_size(self._alg) - 1]):
            raise ValueError(f"Shapes {counter.shape} and {[_state_size(self._alg) - 1]} are incompatible")
        if not key.shape.is_compatible_with([]):
            raise ValueError(f"Shapes {key.shape} and () are incompatible")
        self._state_var.assign(concat([counter, reshape(key, [1])], 0))

    def _skip_single_var(self, var: Any, delta: Any) -> Any:
        alg = cast(convert_to_tensor(self._alg), int32)
        return run_op("RngReadAndSkip", [var.handle, alg, cast(convert_to_tensor(delta), int64)], None, None)

    def skip(self, delta: Any) -> Any:
        """Moves the counter on as ``normal([delta])`` would; returns the state before. A
        generator of a strategy, used in its cross-replica context, moves every replica's copy
        of the state (``extended.update``) and returns the primary copy's old state."""
        strategy = self._distribution_strategy
        if strategy is not None and not _dist_context.is_saving_non_distributed():
            with _enter_or_assert_strategy(strategy):
                if _dist_context.in_cross_replica_context():
                    old = strategy.extended.update(self.state, lambda v: self._skip_single_var(v, delta))
                    return getattr(old, "_values", (old,))[0]
        return self._skip_single_var(self.state, delta)

    def _preprocess_key(self, key: Any) -> Any:
        """In a replica of the generator's strategy, the key is hashed with the replica id
        (TF: one ``StatelessRandomUniformFullIntV2`` draw keyed by the key, at counter [id, 0])."""
        strategy = self._distribution_strategy
        if strategy is None or _dist_context.is_saving_non_distributed():
            return key
        with _enter_or_assert_strategy(strategy):
            ctx = _dist_context.get_replica_context()
            if ctx is None:
                return key
            replica_id = cast(stack([cast(ctx.replica_id_in_sync_group, int64), constant(0, int64)]), int64)
            alg = cast(convert_to_tensor(self._alg), int32)
            shape = convert_to_tensor(np.array([1], np.int32))
            return run_op(
                "StatelessRandomUniformFullIntV2",
                [shape, key, replica_id, alg],
                {"dtype": int64, "Tshape": int32},
                None,
            )

    def _prepare_key_counter(self, shape: Any) -> tuple:
        counter_key = self.skip(reduce_prod(shape))
        key = self._preprocess_key(counter_key[_COUNTER_SIZE : _COUNTER_SIZE + 1])
        return key, counter_key[:_COUNTER_SIZE]

    def _stateless(
        self, op: str, shape: Any, dtype: Any, extra: Optional[list] = None, name: Optional[str] = None
    ) -> Any:
        key, counter = self._prepare_key_counter(shape)
        alg = cast(convert_to_tensor(self._alg), int32)
        attrs = {"dtype": dtype, "Tshape": shape.dtype}
        return run_op(op, [shape, key, counter, alg] + (extra or []), attrs, name)

    # -- distributions
    def _scaled(self, op: str, shape: Any, mean: Any, stddev: Any, dtype: Any, name: str) -> Any:
        """``mean + stddev * op(shape)`` (the normal-like draws)."""
        dtype = as_dtype(dtype)
        shape = _shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype)
        stddev = convert_to_tensor(stddev, dtype)
        rnd = self._stateless(op, shape, dtype)
        return run_op("AddV2", [rnd * stddev, mean], None, name)

    def normal(
        self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32, name: Optional[str] = None
    ) -> Any:
        """Normal samples ``mean + stddev * N(0, 1)``."""
        return self._scaled("StatelessRandomNormalV2", shape, mean, stddev, dtype, name or "stateful_normal")

    def truncated_normal(
        self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32, name: Optional[str] = None
    ) -> Any:
        """Normal samples redrawn until within two standard deviations of ``mean``."""
        return self._scaled("StatelessTruncatedNormalV2", shape, mean, stddev, dtype, name or "truncated_normal")

    def uniform(
        self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = float32, name: Optional[str] = None
    ) -> Any:
        """Uniform samples in ``[minval, maxval)`` (floats default to ``[0, 1)``; integers need
        both bounds, or neither for the full range)."""
        dtype = as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(
                    f"For integer dtype {dtype}, minval and maxval must be both `None` or both "
                    f"non-`None`; got minval={minval} and maxval={maxval}"
                )
        elif maxval is None:
            maxval = 1
        shape = _shape_tensor(shape)
        if dtype.is_integer and minval is None:
            return self._uniform_full_int(shape, dtype, name)
        lo = convert_to_tensor(minval, dtype)
        hi = convert_to_tensor(maxval, dtype)
        if dtype.is_integer:
            return self._stateless("StatelessRandomUniformIntV2", shape, dtype, [lo, hi], name or "stateful_uniform")
        rnd = self._stateless("StatelessRandomUniformV2", shape, dtype)
        return run_op("AddV2", [rnd * (hi - lo), lo], None, name or "stateful_uniform")

    def _uniform_full_int(self, shape: Any, dtype: Any, name: Optional[str]) -> Any:
        return self._stateless(
            "StatelessRandomUniformFullIntV2", shape, dtype, None, name or "stateful_uniform_full_int"
        )

    def uniform_full_int(self, shape: Any, dtype: Any = uint64, name: Optional[str] = None) -> Any:
        """``tf.random.Generator.uniform_full_int``: integers over the dtype's whole range
        (int32, int64, uint32 or uint64; TF's bits)."""
        return self._uniform_full_int(_shape_tensor(shape), as_dtype(dtype), name)

    def binomial(self, shape: Any, counts: Any, probs: Any, dtype: Any = int32, name: Optional[str] = None) -> Any:
        """Binomial samples for ``counts`` trials of success probability ``probs`` (broadcast
        against the trailing dimensions of ``shape``)."""
        dtype = as_dtype(dtype)
        counts = convert_to_tensor(counts)
        probs = convert_to_tensor(probs)
        if counts.dtype != probs.dtype:
            if _core.executing_eagerly():  # TF's kernel check eagerly, op_def_library's while tracing
                raise InvalidArgumentError(
                    None,
                    None,
                    f"cannot compute StatefulRandomBinomial as input #4(zero-based) "
                    f"was expected to be a {_c_name(counts.dtype)} tensor but is a "
                    f"{_c_name(probs.dtype)} tensor [Op:StatefulRandomBinomial]",
                )
            raise TypeError(
                f"Input 'probs' of 'StatefulRandomBinomial' Op has type {probs.dtype.name} that does "
                f"not match type {counts.dtype.name} of argument 'counts'."
            )
        shape = _shape_tensor(shape)
        alg = convert_to_tensor(np.int64(self._alg) if not _core.is_tensor(self._alg) else self._alg)
        return run_op(
            "StatefulRandomBinomial",
            [self._state_var.handle, alg, shape, counts, probs],
            {"dtype": dtype, "T": counts.dtype, "out_dtype": shape.dtype},
            name or "binomial",
        )

    # -- seeds and new generators
    def _make_int64_keys(self, shape: Any = ()) -> Any:
        return self.uniform_full_int(shape=shape, dtype=int64)

    def make_seeds(self, count: int = 1) -> Any:
        """``count`` seed pairs for the stateless ops, as a ``[2, count]`` int64 tensor."""
        if self._alg not in (1, 2, 3):
            raise ValueError(_unsupported_alg_error_msg(self._alg))
        keys = self._make_int64_keys(shape=[count])
        return stack([keys, keys * 0])

    def split(self, count: int = 1) -> List["Generator"]:
        """``count`` new generators keyed from this one's draws (this one's state moves on)."""
        if self._alg not in (1, 2, 3):
            raise ValueError(_unsupported_alg_error_msg(self._alg))
        keys = self._make_int64_keys(shape=[count])
        size = _state_size(self._alg)
        return [
            Generator(state=concat([zeros([size - 1], int64), reshape(k, [1])], 0), alg=self._alg)
            for k in unstack(keys, num=count)
        ]


@contextlib.contextmanager
def _enter_or_assert_strategy(strategy: Any) -> Iterator[None]:
    """TF's ``distribute_lib.enter_or_assert_strategy``: enter ``strategy``'s scope when no
    strategy is current; inside another strategy's scope, TF's RuntimeError."""
    if not _dist_context.has_strategy():
        with strategy.scope():
            yield
        return
    current = _dist_context.get_strategy()
    if current is not strategy:
        raise RuntimeError("Mixing different tf.distribute.Strategy objects: %s is not %s" % (current, strategy))
    yield


def _c_name(dtype: Any) -> str:
    """The C type name TF's kernel errors use (float, double, ...)."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


_global_generator: Optional[Generator] = None


def get_global_generator() -> Generator:
    """``tf.random.get_global_generator``: created from a non-deterministic state on first use."""
    global _global_generator
    if _global_generator is None:
        with init_scope():
            _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator: Union[Generator, Any]) -> None:
    """``tf.random.set_global_generator``: replaces the global generator."""
    global _global_generator
    _global_generator = generator


def experimental_module(parent: str) -> Any:
    """``tf.random.experimental``: a module holding the Generator API under its older names."""
    import sys
    import types

    mod: Any = types.ModuleType(parent + ".experimental", "``tf.random.experimental``")
    for name, value in (
        ("Algorithm", Algorithm),
        ("Generator", Generator),
        ("create_rng_state", create_rng_state),
        ("get_global_generator", get_global_generator),
        ("set_global_generator", set_global_generator),
    ):
        setattr(mod, name, value)
    mod.__all__ = sorted(n for n in vars(mod) if not n.startswith("_"))
    sys.modules[mod.__name__] = mod
    return mod
