"""``fn.keras.layers`` (``tf.keras.layers``): the ``Layer`` base class, ``Dense``, ``Conv2D`` and a
few shape layers. A layer creates its weights (``fn.Variable``) the first time it is called (or
on ``build(input_shape)``); inside a Function that must be the Function's first trace, as for any
``fn.Variable``."""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from fn import _core, nn
from fn._ops import array_ops
from fn._ops import math_ops
from fn.dtypes import as_dtype, float32
from fn._state.module import Module
from fn._tensor.tensor_shape import TensorShape
from fn._state.variables import Variable
from fn.keras import activations, initializers
from fn.keras._variable import KerasVariable as _KerasVariable

_name_counts: Dict[str, int] = {}


def _snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)     # Keras's to_snake_case
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _unique_name(base: str) -> str:
    n = _name_counts.get(base, 0)
    _name_counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


def _layers_in(value: Any) -> List["Layer"]:
    if isinstance(value, Layer):
        return [value]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _layers_in(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _layers_in(v)]
    return []


def _is_symbolic(*values: Any) -> bool:
    from fn.keras._functional import has_keras_tensor
    return has_keras_tensor(values)


class Layer(Module):
    """The base of all layers (``tf.keras.layers.Layer``, an ``fn.Module``).

    Subclasses implement ``build(input_shape)`` (creating weights with ``add_weight``) and
    ``call(inputs)``. ``trainable_variables`` lists this layer's weights in creation order,
    then those of its sublayers in the order they were assigned."""

    def __init__(self, trainable: bool = True, name: Optional[str] = None, dtype: Any = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_own_weights", [])
        object.__setattr__(self, "_sublayers", [])
        super().__init__(name=name or _unique_name(_snake(type(self).__name__)))
        self.trainable = trainable
        self.built = False
        self._dtype = as_dtype(dtype) if dtype is not None else float32
        self.input_spec = None

    # -- tracking
    def __setattr__(self, key: str, value: Any) -> None:
        if not key.startswith("_") and "_sublayers" in self.__dict__:
            for layer in _layers_in(value):
                if layer is not self and all(layer is not s for s in self._sublayers):
                    self._sublayers.append(layer)
        Module.__setattr__(self, key, value)

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def compute_dtype(self) -> Any:
        return self._dtype

    @property
    def layers(self) -> List["Layer"]:
        return list(self._sublayers)

    def _all_layers(self) -> List["Layer"]:
        out: List[Layer] = [self]
        for s in self._sublayers:
            out.extend(x for x in s._all_layers() if all(x is not y for y in out))
        return out

    @property
    def weights(self) -> List[Variable]:
        return [w for layer in self._all_layers() for w in layer._own_weights]

    @property
    def variables(self) -> List[Variable]:
        return self.weights

    @property
    def trainable_variables(self) -> List[Variable]:
        if not self.trainable:
            return []
        return [w for layer in self._all_layers() if layer.trainable for w in layer._own_weights if w.trainable]

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self) -> List[Variable]:
        trainable = {id(v) for v in self.trainable_variables}
        return [w for w in self.weights if id(w) not in trainable]

    non_trainable_weights = non_trainable_variables

    # -- weights
    def _init_kernel_and_bias(self, activation: Any, use_bias: bool, kernel_initializer: Any,
                              bias_initializer: Any) -> None:
        """The activation, initialisers and (not yet built) kernel/bias of Dense and Conv2D."""
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel: Optional[Variable] = None
        self.bias: Optional[Variable] = None

    def add_weight(self, name: Optional[str] = None, shape: Any = None, dtype: Any = None, initializer: Any = None,
                   trainable: bool = True, **kwargs: Any) -> Variable:
        """A new ``fn.Variable`` owned by this layer, initialised by ``initializer``
        (default: glorot_uniform for floats)."""
        shape = tuple(TensorShape(shape if shape is not None else []).as_list())
        if any(d is None for d in shape):
            raise ValueError(f"Can't create weight '{name}' of unknown shape {shape}.")
        dtype = as_dtype(dtype) if dtype is not None else self._dtype
        init = initializers.get(initializer if initializer is not None else "glorot_uniform")
        value = init(shape, dtype=dtype)   # Keras passes dtype by keyword (`tf.random.normal` as initializer)
        name = name or "variable"
        v = _KerasVariable(value, name=name, path=f"{self.name}/{name}", trainable=trainable, dtype=dtype)
        self._own_weights.append(v)
        return v

    def build(self, input_shape: Any) -> None:
        """Creates the weights for inputs of ``input_shape`` (default: none)."""
        self.built = True

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return inputs

    def _maybe_build(self, inputs: Any) -> None:
        if self.built:
            return
        first = inputs[0] if isinstance(inputs, (list, tuple)) and inputs else inputs
        shape = first.shape if hasattr(first, "shape") else TensorShape(None)
        self._fn_build_shape = TensorShape(shape)   # saved models rebuild from it (Keras's build_config)
        self.build(TensorShape(shape))
        self.built = True

    def _convert_inputs(self, inputs: Any) -> Any:
        if isinstance(inputs, (list, tuple)):
            return type(inputs)(self._convert_inputs(x) for x in inputs)
        if isinstance(inputs, Variable):
            inputs = inputs.read_value()
        if not _core.is_tensor(inputs):
            inputs = _core.convert_to_tensor(inputs, None, self._dtype)
        if inputs.dtype.is_floating and inputs.dtype != self._dtype:
            inputs = array_ops.cast(inputs, self._dtype)
        return inputs

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_symbolic(inputs, args, kwargs):   # a functional-API call on keras.Input values
            from fn.keras._functional import symbolic_call
            return symbolic_call(self, self.__call__, (inputs, *args), kwargs)
        inputs = self._convert_inputs(inputs)
        self._maybe_build(inputs)
        return self.call(inputs, *args, **kwargs)

    def get_weights(self) -> List[Any]:
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights: Sequence[Any]) -> None:
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a weight list of "
                             f"length {len(weights)}, but the layer was expecting {len(mine)} weights.")
        for v, w in zip(mine, weights):
            v.assign(w)

    def count_params(self) -> int:
        return int(sum(w.shape.num_elements() for w in self.weights))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _pair(value: Union[int, Sequence[int]], name: str) -> Tuple[int, int]:
    if isinstance(value, int):
        return value, value
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value[0], value[0]
    if len(value) != 2:
        raise ValueError(f"The `{name}` argument must be a tuple of 2 integers. Received {name}={value}")
    return value  # type: ignore[return-value]


class Dense(Layer):
    """``tf.keras.layers.Dense``: ``activation(inputs @ kernel + bias)`` on the last axis."""

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. Received: units={units}")
        self.units = units
        self._init_kernel_and_bias(activation, use_bias, kernel_initializer, bias_initializer)

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        if input_shape.rank is None or input_shape[-1] is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {input_shape}")
        self.kernel = self.add_weight("kernel", [input_shape[-1], self.units], initializer=self.kernel_initializer)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer)
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = math_ops.matmul(inputs, self.kernel)
        if self.use_bias:
            x = nn.bias_add(x, self.bias)
        return self.activation(x)


class Conv2D(Layer):
    """``tf.keras.layers.Conv2D`` (channels_last): ``activation(conv2d(inputs, kernel) + bias)``
    with a ``(kh, kw, in_channels, filters)`` kernel."""

    def __init__(self, filters: int, kernel_size: Union[int, Sequence[int]], strides: Union[int, Sequence[int]] = (1, 1),
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Union[int, Sequence[int]] = (1, 1), activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(filters, int) or filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. "
                             f"Received filters={filters}.")
        self.filters = filters
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        padding = padding.lower()
        if padding not in ("valid", "same"):
            raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: padding={padding}")
        self.padding = padding
        if data_format not in (None, "channels_last"):
            raise NotImplementedError("fn.keras.layers.Conv2D supports data_format='channels_last' only")
        self.data_format = "channels_last"
        self._init_kernel_and_bias(activation, use_bias, kernel_initializer, bias_initializer)

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        if input_shape.rank != 4:
            raise ValueError(f"Input 0 of layer \"{self.name}\" is incompatible with the layer: expected ndim=4, "
                             f"found ndim={input_shape.rank}. Full shape received: {input_shape}")
        channels = input_shape[-1]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. The input_shape received "
                             f"is {input_shape}, where axis -1 (0-based) is the channel dimension, which found "
                             "to be `None`.")
        self.kernel = self.add_weight("kernel", [*self.kernel_size, channels, self.filters],
                                      initializer=self.kernel_initializer)
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer)
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = nn.conv2d(inputs, self.kernel, strides=list(self.strides), padding=self.padding.upper(),
                      dilations=list(self.dilation_rate))
        if self.use_bias:
            x = nn.bias_add(x, self.bias)
        return self.activation(x)


class Activation(Layer):
    """``tf.keras.layers.Activation``."""

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)


class ReLU(Activation):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("relu", **kwargs)


class Flatten(Layer):
    """``tf.keras.layers.Flatten``: ``(batch, ...) -> (batch, prod(...))``."""

    def call(self, inputs: Any) -> Any:
        rest = inputs.shape[1:]
        if rest.is_fully_defined():
            return array_ops.reshape(inputs, [-1, rest.num_elements()])
        return array_ops.reshape(inputs, array_ops.stack([array_ops.shape(inputs)[0], -1]))


class MaxPooling2D(Layer):
    """``tf.keras.layers.MaxPooling2D`` (channels_last)."""

    _op: Callable = staticmethod(nn.max_pool2d)

    def __init__(self, pool_size: Union[int, Sequence[int]] = (2, 2), strides: Any = None, padding: str = "valid",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = _pair(strides, "strides") if strides is not None else self.pool_size
        self.padding = padding.lower()

    def call(self, inputs: Any) -> Any:
        return type(self)._op(inputs, list(self.pool_size), list(self.strides), self.padding.upper())


class AveragePooling2D(MaxPooling2D):
    """``tf.keras.layers.AveragePooling2D``."""

    _op = staticmethod(nn.avg_pool2d)


MaxPool2D, AvgPool2D = MaxPooling2D, AveragePooling2D


class Sequential(Layer):
    """``tf.keras.Sequential`` (no ``fit``): calls its layers in order."""

    def __init__(self, layers: Optional[Sequence[Layer]] = None, name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self.layer_list: List[Layer] = []
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Layer) -> None:
        if not isinstance(layer, Layer):
            raise TypeError(f"Only instances of `fn.keras.layers.Layer` can be added to a Sequential model. "
                            f"Received: {layer!r}")
        self.layer_list.append(layer)
        if all(layer is not s for s in self._sublayers):
            self._sublayers.append(layer)

    def build(self, input_shape: Any) -> None:
        """Builds every layer by running zeros of ``input_shape`` (batch size 1 if unknown)
        through them."""
        dims = TensorShape(input_shape).as_list()
        if dims and dims[0] is None:
            dims[0] = 1
        if any(d is None for d in dims):
            raise ValueError(f"Sequential.build needs every dimension but the batch one, got {input_shape}")
        x = array_ops.zeros(dims, self._dtype)
        for layer in self.layer_list:
            x = layer(x)
        self.built = True

    def _maybe_build(self, inputs: Any) -> None:
        self.built = True   # the layers build themselves on this first call

    def call(self, inputs: Any) -> Any:
        x = inputs
        for layer in self.layer_list:
            x = layer(x)
        return x

# More layers live in their own module (they import Layer and Dense from this one).
from fn.keras._layers_more import (Add, BatchNormalization, Concatenate, Dropout, Embedding,  # noqa: E402
                                   GlobalAveragePooling2D, GlobalMaxPooling2D, InputLayer, Lambda,
                                   LayerNormalization, MultiHeadAttention)
from fn._public import export as _export  # noqa: E402
_export(globals(), hide=["Module", "Sequential", "TensorShape", "Variable", "float32"])
