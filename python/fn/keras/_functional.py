"""Keras's functional API: ``keras.Input`` gives a ``KerasTensor`` (a shape and dtype, no
value); calling a layer on KerasTensors builds the layer and records a node; a functional
``Model(inputs, outputs)`` replays those nodes in order on real tensors."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from fn import nest
from fn._tensor.tensor_shape import TensorShape
from fn.dtypes import as_dtype, float32


class Node:
    """One layer call in a functional graph: the layer, its arguments (KerasTensors inside) and
    the KerasTensors it produced."""

    def __init__(self, layer: Any, args: tuple, kwargs: dict) -> None:
        self.layer, self.args, self.kwargs = layer, args, kwargs
        self.outputs: Any = None

    def inputs(self) -> List["KerasTensor"]:
        return [x for x in nest.flatten((self.args, self.kwargs)) if isinstance(x, KerasTensor)]


class KerasTensor:
    """``keras.KerasTensor``: a symbolic input or layer output of a functional model."""

    def __init__(self, shape: Any, dtype: Any = float32, node: Optional[Node] = None, name: Optional[str] = None
                 ) -> None:
        self.shape = TensorShape(shape)
        self.dtype = as_dtype(dtype)
        self.node = node
        self.name = name

    @property
    def ndim(self) -> Optional[int]:
        return self.shape.rank

    def __repr__(self) -> str:
        shape = tuple(self.shape.as_list()) if self.shape.rank is not None else None
        return f"<KerasTensor shape={shape}, dtype={self.dtype.name}, sparse=False, name={self.name}>"

    def _op(self, fn: Callable, *others: Any) -> "KerasTensor":
        from fn.keras._layers_more import Lambda
        return Lambda(lambda xs: fn(*xs))([self, *others])

    def __add__(self, o: Any) -> Any: return self._op(lambda a, b: a + b, o)
    def __radd__(self, o: Any) -> Any: return self._op(lambda a, b: b + a, o)
    def __sub__(self, o: Any) -> Any: return self._op(lambda a, b: a - b, o)
    def __rsub__(self, o: Any) -> Any: return self._op(lambda a, b: b - a, o)
    def __mul__(self, o: Any) -> Any: return self._op(lambda a, b: a * b, o)
    def __rmul__(self, o: Any) -> Any: return self._op(lambda a, b: b * a, o)
    def __truediv__(self, o: Any) -> Any: return self._op(lambda a, b: a / b, o)
    def __neg__(self) -> Any: return self._op(lambda a: -a)
    def __getitem__(self, key: Any) -> Any: return self._op(lambda a: a[key])


def Input(shape: Any = None, batch_size: Optional[int] = None, dtype: Any = None, sparse: Any = None,
          batch_shape: Any = None, name: Optional[str] = None, tensor: Any = None, optional: bool = False
          ) -> KerasTensor:
    """``keras.Input``: a symbolic input of ``(batch_size, *shape)``."""
    from fn.keras._layers_more import InputLayer
    if batch_shape is None:
        if shape is None:
            raise ValueError("You must pass a `shape` argument.")
        batch_shape = (batch_size,) + tuple(shape)
    layer = InputLayer(tuple(batch_shape)[1:], batch_shape[0], dtype=dtype, name=name or _input_name())
    node = Node(layer, (), {})
    kt = KerasTensor(batch_shape, dtype or float32, node, layer.name)
    node.outputs = kt
    layer._fn_output_shape = kt.shape
    return kt


_inputs_made = [0]


def _input_name() -> str:
    n = _inputs_made[0]
    _inputs_made[0] += 1
    return "input_layer" if n == 0 else f"input_layer_{n}"


def has_keras_tensor(*values: Any) -> bool:
    return any(isinstance(x, KerasTensor) for x in nest.flatten(values))


def _dummy(kt: KerasTensor) -> Any:
    from fn import _core
    dims = [1 if d is None else d for d in (kt.shape.as_list() if kt.shape.rank is not None else [1])]
    return _core.convert_to_tensor(np.zeros(dims, kt.dtype.as_numpy_dtype), None, None)


def _spec(kt: KerasTensor) -> Any:
    from fn._tensor.tensor_spec import TensorSpec
    return TensorSpec(kt.shape, kt.dtype)


def symbolic_call(layer: Any, call: Callable, args: tuple, kwargs: dict) -> Any:
    """Calls ``layer`` on KerasTensors: builds it with an eager call on zeros, reads the output
    shapes from a trace with the symbolic shapes, and records the node."""
    from fn._function.function import function
    kts = [x for x in nest.flatten((args, kwargs)) if isinstance(x, KerasTensor)]
    dummies = nest.map_structure(lambda x: _dummy(x) if isinstance(x, KerasTensor) else x, (args, kwargs))
    eager_out = call(*dummies[0], **dummies[1])        # builds the weights
    try:
        def traced(*tensors: Any) -> Any:
            it = iter(tensors)
            a, k = nest.map_structure(lambda x: next(it) if isinstance(x, KerasTensor) else x, (args, kwargs))
            return call(*a, **k)
        concrete = function(traced, autograph=False).get_concrete_function(*[_spec(k) for k in kts])
        out_shapes = nest.map_structure(lambda t: t.shape, concrete.structured_outputs)
    except Exception:   # a layer the trace cannot follow: the batch dim of the eager call becomes None
        out_shapes = nest.map_structure(lambda t: TensorShape([None] + t.shape.as_list()[1:]), eager_out)
    node = Node(layer, args, kwargs)
    node.outputs = nest.map_structure(
        lambda t, s: KerasTensor(s, t.dtype, node, layer.name), eager_out, out_shapes)
    layer._fn_output_shape = nest.map_structure(lambda k: k.shape, node.outputs)
    return node.outputs


def nodes_between(inputs: Sequence[KerasTensor], outputs: Any) -> List[Node]:
    """The nodes from ``inputs`` to ``outputs`` in an order where each follows its inputs."""
    order: List[Node] = []
    seen: set = set()
    input_ids = {id(x) for x in inputs}

    def visit(kt: KerasTensor) -> None:
        node = kt.node
        if node is None or id(node) in seen:
            return
        if id(kt) in input_ids:
            return
        seen.add(id(node))
        if not node.args and not node.kwargs:
            raise ValueError(f"Graph disconnected: cannot find the value of {kt}: it is an input that was "
                             "not passed to the Model's `inputs`.")
        for x in node.inputs():
            visit(x)
        order.append(node)
    for out in nest.flatten(outputs):
        if not isinstance(out, KerasTensor):
            raise ValueError(f"All `outputs` of a functional Model must be KerasTensors; received {out!r}")
        visit(out)
    return order


def run_nodes(nodes: List[Node], inputs: Sequence[KerasTensor], values: Sequence[Any], outputs: Any) -> Any:
    """Replays ``nodes`` with ``values`` fed for ``inputs``; returns the ``outputs`` structure."""
    env: Dict[int, Any] = {id(k): v for k, v in zip(inputs, values)}

    def value(x: Any) -> Any:
        return env[id(x)] if isinstance(x, KerasTensor) else x
    for node in nodes:
        args, kwargs = nest.map_structure(value, (node.args, node.kwargs))
        out = node.layer(*args, **kwargs)
        for kt, v in zip(nest.flatten(node.outputs), nest.flatten(out)):
            env[id(kt)] = v
    return nest.map_structure(value, outputs)


def layers_of(nodes: List[Node]) -> List[Any]:
    out: List[Any] = []
    for node in nodes:
        if all(node.layer is not x for x in out):
            out.append(node.layer)
    return out
