"""``keras.Model``: functional (``Model(inputs, outputs)``) or subclassed (``call``) models, and
``Sequential``; the training API (``compile``/``fit``/``evaluate``/``predict``, in
``_trainer.py``), ``summary`` and ``save_weights``/``load_weights``."""
from __future__ import annotations

import inspect
from typing import Any, List, Optional, Sequence

from fn import nest
from fn._tensor.tensor_shape import TensorShape
from fn.keras import _functional
from fn.keras import layers as layers_mod
from fn.keras._layers_more import InputLayer, training_scope
from fn.keras._trainer import Trainer
from fn.keras.layers import Layer


def _accepts(method: Any, name: str) -> bool:
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


class Model(Trainer, Layer):
    """``keras.Model``. ``Model(inputs, outputs)`` builds a functional model from
    ``keras.Input`` KerasTensors; a subclass defines ``call`` (and its layers as attributes)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        name = kwargs.pop("name", None)
        if inputs is not None and name is None:
            name = layers_mod._unique_name("functional")
        Layer.__init__(self, name=name, trainable=kwargs.pop("trainable", True), dtype=kwargs.pop("dtype", None))
        Trainer.__init__(self)
        self._fn_functional = None
        if inputs is not None:
            if outputs is None:
                raise ValueError("A functional Model needs both `inputs` and `outputs`.")
            flat_in = nest.flatten(inputs)
            if not all(isinstance(x, _functional.KerasTensor) for x in flat_in):
                raise ValueError(f"All `inputs` values must be KerasTensors. Received: inputs={inputs}")
            nodes = _functional.nodes_between(flat_in, outputs)
            self._fn_functional = (inputs, flat_in, nodes, outputs)
            for layer in [x.node.layer for x in flat_in] + _functional.layers_of(nodes):
                if all(layer is not s for s in self._sublayers):
                    self._sublayers.append(layer)
            self.built = True

    # -- structure
    @property
    def inputs(self) -> Any:
        return self._fn_functional[1] if self._fn_functional else None

    @property
    def outputs(self) -> Any:
        return nest.flatten(self._fn_functional[3]) if self._fn_functional else None

    @property
    def layers(self) -> List[Layer]:
        return [x for x in self._sublayers if not isinstance(x, InputLayer)] if not self._fn_functional \
            else list(self._sublayers)

    def get_layer(self, name: Optional[str] = None, index: Optional[int] = None) -> Layer:
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[x.name for x in self.layers]}.")

    # -- calling
    def __call__(self, inputs: Any, *args: Any, training: Any = None, mask: Any = None, **kwargs: Any) -> Any:
        if _functional.has_keras_tensor(inputs, args, kwargs):
            return _functional.symbolic_call(self, self._fn_call_training, (inputs, *args), kwargs)
        return self._fn_call_training(inputs, *args, training=training, **kwargs)

    def _fn_call_training(self, inputs: Any, *args: Any, training: Any = None, **kwargs: Any) -> Any:
        with training_scope(training):
            if training is not None and _accepts(self.call, "training"):
                kwargs["training"] = training
            return Layer.__call__(self, inputs, *args, **kwargs)

    def _maybe_build(self, inputs: Any) -> None:
        self.built = True    # layers build themselves on the first call

    def build(self, input_shape: Any) -> None:
        if self._fn_functional is None and not self.built and input_shape is not None:
            import numpy as np
            dims = [1 if d is None else d for d in TensorShape(input_shape).as_list()]
            self(np.zeros(dims, np.float32))
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if self._fn_functional is None:
            raise NotImplementedError(f"Model {self.name} does not have a `call()` method implemented.")
        _, flat_in, nodes, outputs = self._fn_functional
        values = nest.flatten(inputs) if isinstance(inputs, (list, tuple, dict)) else [inputs]
        if len(values) != len(flat_in):
            raise ValueError(f"Model {self.name} expects {len(flat_in)} input(s), but it received {len(values)} "
                             "input tensors.")
        values = [self._convert_inputs(v) if not isinstance(v, (list, tuple)) else v for v in values]
        return _functional.run_nodes(nodes, flat_in, values, outputs)

    def _convert_inputs(self, inputs: Any) -> Any:
        if isinstance(inputs, dict):
            return {k: Layer._convert_inputs(self, v) for k, v in inputs.items()}
        return Layer._convert_inputs(self, inputs)

    # -- weights files
    def save_weights(self, filepath: Any, overwrite: bool = True) -> None:
        """``keras.Model.save_weights``: every weight, in order, in one file (fn's checkpoint
        format with the data appended; the name must end in ``.weights.h5`` as Keras requires)."""
        import os
        from fn._state.serialize import to_numpy
        from fn.train import _checkpoint_io as io
        filepath = os.fspath(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath}")
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(filepath)
        weights = self.weights
        tensors = {f"weights/{i:05d}": (w.dtype.name, to_numpy(w.read_value())) for i, w in enumerate(weights)}
        names = [{"children": [], "key": f"weights/{i:05d}", "name": w.name} for i, w in enumerate(weights)]
        io.write(filepath, tensors, names, single_file=True, kind="fn-weights")

    def load_weights(self, filepath: Any, skip_mismatch: bool = False, **kwargs: Any) -> None:
        """``keras.Model.load_weights``: the weights ``save_weights`` wrote, in order."""
        import os
        from fn.train import _checkpoint_io as io
        from fn.train._checkpoint import _assign
        filepath = os.fspath(filepath)
        if not filepath.endswith(".weights.h5"):
            raise ValueError("File format not supported: filepath={}. Keras 3 only supports V3 `.keras` and "
                             "`.weights.h5` files.".format(filepath))
        reader = io.CheckpointReader(filepath, single_file=True)
        keys = sorted(k for k in reader.get_variable_to_shape_map() if k.startswith("weights/"))
        weights = self.weights
        if len(keys) != len(weights):
            raise ValueError(f"A total of {len(keys)} objects could not be loaded: the file holds {len(keys)} "
                             f"weights, but the model '{self.name}' has {len(weights)}.")
        import numpy as np
        for key, w in zip(keys, weights):
            value = np.asarray(reader.get_tensor(key))
            if skip_mismatch and not w.shape.is_compatible_with(value.shape):
                continue
            _assign(w, value)

    def save(self, filepath: Any, overwrite: bool = True, **kwargs: Any) -> None:
        """``keras.Model.save``: the architecture, weights and compile settings in a ``.keras``
        zip (fn's own contents; read back by ``keras.models.load_model``)."""
        import os
        from fn.keras._saving import save_model
        filepath = os.fspath(filepath)
        if not filepath.endswith(".keras"):
            raise ValueError("Invalid filepath extension for saving. Please add either a `.keras` extension for the "
                             f"native Keras format (recommended) or a `.h5` extension. Received: filepath={filepath}.")
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(filepath)
        save_model(self, filepath)

    def summary(self, line_length: Optional[int] = None, positions: Any = None, print_fn: Any = None,
                **kwargs: Any) -> None:
        """``keras.Model.summary``: the layers, their output shapes and parameter counts."""
        from fn.keras._summary import summary_text
        text = summary_text(self)
        (print_fn or print)(text)


class Sequential(layers_mod.Sequential, Model):
    """``keras.Sequential``: a ``Model`` that calls its layers in order (may start with
    ``keras.Input``)."""

    def __init__(self, layers: Optional[Sequence[Any]] = None, name: Optional[str] = None, **kwargs: Any) -> None:
        self._fn_input: Any = None
        layers_mod.Sequential.__init__(self, layers=None, name=name, **kwargs)
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Any) -> None:
        if isinstance(layer, _functional.KerasTensor):
            self._fn_input = layer
            return
        if isinstance(layer, InputLayer):
            self._fn_input = _functional.KerasTensor(layer.batch_shape)
            return
        layers_mod.Sequential.add(self, layer)
        if self._fn_input is not None:
            x = self._fn_input
            for each in self.layer_list:
                x = each(x) if not getattr(each, "_fn_output_shape", None) or each is layer else \
                    _functional.KerasTensor(each._fn_output_shape)
            self.built = True

    def pop(self) -> Layer:
        layer = self.layer_list.pop()
        self._sublayers.remove(layer)
        return layer

    def build(self, input_shape: Any = None) -> None:
        if input_shape is not None and self._fn_input is None:
            self._fn_input = _functional.KerasTensor(TensorShape(input_shape))
            x = self._fn_input
            for layer in self.layer_list:
                x = layer(x)
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        x = inputs
        for layer in self.layer_list:
            x = layer(x, training=training) if training is not None and _accepts(layer.call, "training") \
                else layer(x)
        return x

    @property
    def layers(self) -> List[Layer]:
        return list(self.layer_list)
