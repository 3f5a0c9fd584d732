"""More ``keras.layers``: ``Lambda``, ``Dropout``, ``BatchNormalization``,
``LayerNormalization``, ``Embedding``, ``Add``, ``Concatenate``, ``GlobalAveragePooling2D``,
``MultiHeadAttention``; and the training flag layers read when called without ``training=``
(set by a model's call, as Keras does)."""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator, List, Optional, Sequence

import numpy as np

from fn import _core, nn
from fn._ops import array_ops
from fn._ops import math_ops
from fn import random as fn_random
from fn._tensor.tensor_shape import TensorShape
from fn.dtypes import int32
from fn.keras import initializers
from fn.keras.layers import Layer

_local = threading.local()


@contextlib.contextmanager
def training_scope(training: Optional[bool]) -> Iterator[None]:
    """Layers called inside without an explicit ``training`` use this value."""
    previous = getattr(_local, "training", None)
    if training is not None:
        _local.training = bool(training)
    try:
        yield
    finally:
        _local.training = previous


def in_training(training: Any) -> bool:
    if training is None:
        return bool(getattr(_local, "training", None) or False)
    return bool(training)


class InputLayer(Layer):
    """``keras.layers.InputLayer``: where a functional model's input enters."""

    def __init__(self, shape: Any = None, batch_size: Optional[int] = None, dtype: Any = None,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(name=name, dtype=dtype)
        self.batch_shape = (batch_size,) + tuple(shape or ())
        self.built = True


class Lambda(Layer):
    """``keras.layers.Lambda``: wraps a function of the inputs."""

    def __init__(self, function: Callable, output_shape: Any = None, arguments: Optional[dict] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}

    def call(self, inputs: Any) -> Any:
        return self.function(inputs, **self.arguments)


class Dropout(Layer):
    """``keras.layers.Dropout``: in training, zeroes each input with probability ``rate`` and
    scales the rest by ``1 / (1 - rate)``; the identity otherwise."""

    def __init__(self, rate: float, noise_shape: Any = None, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not in_training(training) or self.rate == 0:
            return inputs
        shape = array_ops.shape(inputs) if self.noise_shape is None else self.noise_shape
        keep = math_ops.greater_equal(fn_random.uniform(shape, dtype=inputs.dtype, seed=self.seed), self.rate)
        return inputs * array_ops.cast(keep, inputs.dtype) / (1.0 - self.rate)


def _axes(rank: int, axis: Any) -> List[int]:
    axis = [axis] if isinstance(axis, int) else list(axis)
    return sorted(a % rank for a in axis)


class BatchNormalization(Layer):
    """``keras.layers.BatchNormalization``: in training, normalizes by the batch's moments and
    updates the moving ones (``moving = moving * momentum + batch * (1 - momentum)``); otherwise
    by the moving moments."""

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = "zeros", gamma_initializer: Any = "ones",
                 moving_mean_initializer: Any = "zeros", moving_variance_initializer: Any = "ones",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon, self.center, self.scale = axis, momentum, epsilon, center, scale
        self._inits = (gamma_initializer, beta_initializer, moving_mean_initializer, moving_variance_initializer)
        self.gamma = self.beta = None

    def build(self, input_shape: Any) -> None:
        shape = TensorShape(input_shape)
        axis = self.axis % shape.rank
        dim = shape[axis]
        g, b, mm, mv = self._inits
        if self.scale:
            self.gamma = self.add_weight("gamma", [dim], initializer=g)
        if self.center:
            self.beta = self.add_weight("beta", [dim], initializer=b)
        self.moving_mean = self.add_weight("moving_mean", [dim], initializer=mm, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", [dim], initializer=mv, trainable=False)
        self._reduce = [a for a in range(shape.rank) if a != axis]
        self._bshape = [1 if a != axis else dim for a in range(shape.rank)]
        self.built = True

    def call(self, inputs: Any, training: Any = None) -> Any:
        def b(v: Any) -> Any:
            return array_ops.reshape(v, self._bshape)
        if in_training(training) and self.trainable:
            mean = math_ops.reduce_mean(inputs, axis=self._reduce, keepdims=True)
            var = math_ops.reduce_mean(math_ops.square(inputs - mean), axis=self._reduce, keepdims=True)
            m = 1.0 - self.momentum
            flat_mean, flat_var = array_ops.reshape(mean, [-1]), array_ops.reshape(var, [-1])
            self.moving_mean.assign(self.moving_mean * self.momentum + flat_mean * m, read_value=False)
            self.moving_variance.assign(self.moving_variance * self.momentum + flat_var * m, read_value=False)
        else:
            mean, var = b(self.moving_mean.read_value()), b(self.moving_variance.read_value())
        x = (inputs - mean) * math_ops.rsqrt(var + self.epsilon)
        if self.scale:
            x = x * b(self.gamma.read_value())
        if self.center:
            x = x + b(self.beta.read_value())
        return x


class LayerNormalization(Layer):
    """``keras.layers.LayerNormalization``: normalizes each sample over ``axis``."""

    def __init__(self, axis: Any = -1, epsilon: float = 1e-3, center: bool = True, scale: bool = True,
                 beta_initializer: Any = "zeros", gamma_initializer: Any = "ones", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis, self.epsilon, self.center, self.scale = axis, epsilon, center, scale
        self._inits = (gamma_initializer, beta_initializer)
        self.gamma = self.beta = None

    def build(self, input_shape: Any) -> None:
        shape = TensorShape(input_shape)
        self._axes = _axes(shape.rank, self.axis)
        param = [shape[a] for a in self._axes]
        self._bshape = [shape[a] if a in self._axes else 1 for a in range(shape.rank)]
        if self.scale:
            self.gamma = self.add_weight("gamma", param, initializer=self._inits[0])
        if self.center:
            self.beta = self.add_weight("beta", param, initializer=self._inits[1])
        self.built = True

    def call(self, inputs: Any) -> Any:
        mean = math_ops.reduce_mean(inputs, axis=self._axes, keepdims=True)
        var = math_ops.reduce_mean(math_ops.square(inputs - mean), axis=self._axes, keepdims=True)
        x = (inputs - mean) * math_ops.rsqrt(var + self.epsilon)
        if self.scale:
            x = x * array_ops.reshape(self.gamma, self._bshape)
        if self.center:
            x = x + array_ops.reshape(self.beta, self._bshape)
        return x


class Embedding(Layer):
    """``keras.layers.Embedding``: rows of an ``(input_dim, output_dim)`` table by integer id."""

    def __init__(self, input_dim: int, output_dim: int, embeddings_initializer: Any = "uniform", **kwargs: Any
                 ) -> None:
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = embeddings_initializer
        self.embeddings = None

    def build(self, input_shape: Any = None) -> None:
        init = self.embeddings_initializer
        if init == "uniform":
            init = initializers.RandomUniform(-0.05, 0.05)
        self.embeddings = self.add_weight("embeddings", [self.input_dim, self.output_dim], initializer=init)
        self.built = True

    def _convert_inputs(self, inputs: Any) -> Any:
        if not _core.is_tensor(inputs):
            inputs = _core.convert_to_tensor(inputs, None, int32)
        return inputs

    def call(self, inputs: Any) -> Any:
        if inputs.dtype.is_floating:
            inputs = array_ops.cast(inputs, int32)
        return array_ops.gather(self.embeddings, inputs)


class _Merge(Layer):
    def _maybe_build(self, inputs: Any) -> None:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs} "
                             "(not a list of tensors)")
        self.built = True


class Add(_Merge):
    """``keras.layers.Add``: the elementwise sum of a list of inputs."""

    def call(self, inputs: Sequence[Any]) -> Any:
        out = inputs[0]
        for x in inputs[1:]:
            out = out + x
        return out


class Concatenate(_Merge):
    """``keras.layers.Concatenate``: joins a list of inputs along ``axis``."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Sequence[Any]) -> Any:
        return array_ops.concat(list(inputs), self.axis)


class GlobalAveragePooling2D(Layer):
    """``keras.layers.GlobalAveragePooling2D`` (channels_last): the mean over height and width."""

    def __init__(self, data_format: Optional[str] = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keepdims = keepdims

    def call(self, inputs: Any) -> Any:
        return math_ops.reduce_mean(inputs, axis=[1, 2], keepdims=self.keepdims)


class GlobalMaxPooling2D(GlobalAveragePooling2D):
    """``keras.layers.GlobalMaxPooling2D`` (channels_last)."""

    def call(self, inputs: Any) -> Any:
        return math_ops.reduce_max(inputs, axis=[1, 2], keepdims=self.keepdims)


class MultiHeadAttention(Layer):
    """``keras.layers.MultiHeadAttention``: ``softmax(q k^T / sqrt(key_dim)) v`` over
    ``num_heads`` projections of ``(batch, seq, features)`` inputs, then an output projection back
    to the query's features."""

    def __init__(self, num_heads: int, key_dim: int, value_dim: Optional[int] = None, dropout: float = 0.0,
                 use_bias: bool = True, output_shape: Optional[int] = None,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.num_heads, self.key_dim = int(num_heads), int(key_dim)
        self.value_dim = int(value_dim) if value_dim else self.key_dim
        self.dropout, self.use_bias, self._output_dim = dropout, use_bias, output_shape
        self._kinit, self._binit = kernel_initializer, bias_initializer

    def _projection(self, name: str, in_dim: int, heads_dim: tuple, bias_dim: tuple) -> tuple:
        kernel = self.add_weight(f"{name}/kernel", [in_dim, *heads_dim], initializer=self._kinit)
        bias = self.add_weight(f"{name}/bias", list(bias_dim), initializer=self._binit) if self.use_bias else None
        return kernel, bias

    def build(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> None:
        """Keras 3's weights and shapes: ``query/kernel`` ``(dim, heads, key_dim)``, ...,
        ``attention_output/kernel`` ``(heads, value_dim, dim)``, so ``set_weights`` takes Keras's."""
        q = TensorShape(query_shape)
        v = TensorShape(value_shape) if value_shape is not None else q
        k = TensorShape(key_shape) if key_shape is not None else v
        h = self.num_heads
        self._q = self._projection("query", q[-1], (h, self.key_dim), (h, self.key_dim))
        self._k = self._projection("key", k[-1], (h, self.key_dim), (h, self.key_dim))
        self._v = self._projection("value", v[-1], (h, self.value_dim), (h, self.value_dim))
        out_dim = self._output_dim or q[-1]
        kernel = self.add_weight("attention_output/kernel", [h, self.value_dim, out_dim], initializer=self._kinit)
        bias = self.add_weight("attention_output/bias", [out_dim], initializer=self._binit) if self.use_bias else None
        self._o = (kernel, bias)
        self._out_dim = out_dim
        self.built = True

    @staticmethod
    def _apply(x: Any, weights: tuple, rows: int, cols: int) -> Any:
        kernel, bias = weights
        y = math_ops.matmul(x, array_ops.reshape(kernel, [rows, cols]))
        return y + array_ops.reshape(bias, [cols]) if bias is not None else y

    def _maybe_build(self, inputs: Any) -> None:
        pass

    def __call__(self, query: Any, value: Any = None, key: Any = None, attention_mask: Any = None,
                 return_attention_scores: bool = False, training: Any = None, use_causal_mask: bool = False) -> Any:
        from fn.keras._functional import has_keras_tensor, symbolic_call
        if has_keras_tensor(query, value, key):
            return symbolic_call(self, self.__call__, (query, value, key), dict(
                attention_mask=attention_mask, return_attention_scores=return_attention_scores, training=training,
                use_causal_mask=use_causal_mask))
        query = self._convert_inputs(query)
        value = query if value is None else self._convert_inputs(value)
        key = value if key is None else self._convert_inputs(key)
        if not self.built:
            self.build(query.shape, value.shape, key.shape)
        return self.call(query, value, key, attention_mask, return_attention_scores, training, use_causal_mask)

    def _heads(self, x: Any, depth: int) -> Any:
        shape = array_ops.shape(x)
        x = array_ops.reshape(x, array_ops.stack([shape[0], shape[1], self.num_heads, depth]))
        return array_ops.transpose(x, [0, 2, 1, 3])

    def call(self, query: Any, value: Any, key: Any, attention_mask: Any = None, return_attention_scores: bool = False,
             training: Any = None, use_causal_mask: bool = False) -> Any:
        h = self.num_heads
        q = self._heads(self._apply(query, self._q, query.shape[-1], h * self.key_dim), self.key_dim)
        q = q * (1.0 / float(np.sqrt(self.key_dim)))
        k = self._heads(self._apply(key, self._k, key.shape[-1], h * self.key_dim), self.key_dim)
        v = self._heads(self._apply(value, self._v, value.shape[-1], h * self.value_dim), self.value_dim)
        scores = math_ops.matmul(q, k, transpose_b=True)           # (batch, heads, tq, tk)
        mask = None
        if attention_mask is not None:
            mask = array_ops.expand_dims(array_ops.cast(_core.convert_to_tensor(attention_mask), "bool"), 1)
        if use_causal_mask:
            tq, tk = array_ops.shape(scores)[2], array_ops.shape(scores)[3]
            rows = array_ops.expand_dims(array_ops.range(tq), 1)
            causal = math_ops.greater_equal(rows, array_ops.expand_dims(array_ops.range(tk), 0))
            mask = causal if mask is None else math_ops.logical_and(mask, causal)
        if mask is not None:
            scores = array_ops.where(mask, scores, array_ops.fill(array_ops.shape(scores), np.float32(-1e9)))
        weights = nn.softmax(scores, axis=-1)
        if self.dropout and in_training(training):
            keep = math_ops.greater_equal(fn_random.uniform(array_ops.shape(weights)), self.dropout)
            weights = weights * array_ops.cast(keep, weights.dtype) / (1.0 - self.dropout)
        out = array_ops.transpose(math_ops.matmul(weights, v), [0, 2, 1, 3])
        shape = array_ops.shape(out)
        out = array_ops.reshape(out, array_ops.stack([shape[0], shape[1], self.num_heads * self.value_dim]))
        out = self._apply(out, self._o, self.num_heads * self.value_dim, self._out_dim)
        return (out, weights) if return_attention_scores else out
