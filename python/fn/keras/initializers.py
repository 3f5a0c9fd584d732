"""``fn.keras.initializers`` (``tf.keras.initializers``): initial values for layer weights,
computed eagerly with NumPy (``GlorotUniform`` is Keras's default for kernels)."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

from fn.dtypes import as_dtype, float32

_rng = np.random.default_rng()


def set_random_seed(seed: int) -> None:
    """Reseeds the generator unseeded initializers draw from (``keras.utils.set_random_seed``)."""
    global _rng
    _rng = np.random.default_rng(seed)


def _fans(shape: Sequence[int]) -> Tuple[float, float]:
    """Keras's fan-in/fan-out: kernels (..., in, out) multiply by the receptive field size."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = float(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: ``initializer(shape, dtype)`` returns a NumPy array."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = seed

    def _generator(self) -> np.random.Generator:
        return np.random.default_rng(self.seed) if self.seed is not None else _rng

    def __call__(self, shape: Sequence[int], dtype: Any = None) -> np.ndarray:
        dtype = as_dtype(dtype or float32)
        return np.asarray(self._sample(tuple(int(d) for d in shape)), dtype=dtype.as_numpy_dtype)

    def _sample(self, shape: Tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {"seed": self.seed}


class Zeros(Initializer):
    def _sample(self, shape: Tuple[int, ...]) -> np.ndarray:
        return np.zeros(shape)


class Ones(Initializer):
    def _sample(self, shape: Tuple[int, ...]) -> np.ndarray:
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value: Any = 0.0) -> None:
        super().__init__()
        self.value = value

    def _sample(self, shape: Tuple[int, ...]) -> np.ndarray:
        return np.broadcast_to(np.asarray(self.value), shape).copy()


class RandomUniform(Initializer):
    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def _sample(self, shape: Tuple[int, ...]) -> np.ndarray:
        return self._generator().uniform(self.minval, self.maxval, shape)


class RandomNormal(Initializer):
    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def _sample(self, shape: Tuple[int, ...]) -> np.ndarray:
        return self._generator().normal(self.mean, self.stddev, shape)


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n`` (n: fan_in, fan_out or their mean)."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal",
                 seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _sample(self, shape: Tuple[int, ...]) -> np.ndarray:
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        g = self._generator()
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * scale)
            return g.uniform(-limit, limit, shape)
        if self.distribution == "untruncated_normal":
            return g.normal(0.0, math.sqrt(scale), shape)
        stddev = math.sqrt(scale) / 0.87962566103423978   # truncated at 2 standard deviations
        out = g.normal(0.0, stddev, shape)
        bad = np.abs(out) > 2 * stddev
        while bad.any():
            out[bad] = g.normal(0.0, stddev, int(bad.sum()))
            bad = np.abs(out) > 2 * stddev
        return out


class GlorotUniform(VarianceScaling):
    """Uniform in ``[-limit, limit]``, ``limit = sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeNormal(VarianceScaling):
    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__(2.0, "fan_in", "uniform", seed)


_BY_NAME = {"zeros": Zeros, "ones": Ones, "constant": Constant, "random_uniform": RandomUniform,
            "random_normal": RandomNormal, "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
            "he_normal": HeNormal, "he_uniform": HeUniform, "variance_scaling": VarianceScaling}


def get(identifier: Union[None, str, Callable]) -> Optional[Callable]:
    """An initializer from a name (``'glorot_uniform'``), an instance or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = identifier if identifier in _BY_NAME else "".join(
            "_" + c.lower() if c.isupper() else c for c in identifier).lstrip("_")
        if key not in _BY_NAME:
            raise ValueError(f"Could not interpret initializer identifier: {identifier}")
        return _BY_NAME[key]()
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")

from fn._public import export as _export  # noqa: E402
_export(globals(), hide=["float32", "set_random_seed"])
