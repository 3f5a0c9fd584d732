"""``tf.Operation``: a node of a traced graph, and ``Tensor.op`` for the graph's tensors
(installed on Tensor with its other Python methods, by ``fn._tensor.methods``).

An Operation is a view of one node of a C++ graph (``fn._core.Graph``): its name, op type, data
inputs and outputs as symbolic Tensors, control inputs, attrs (``get_attr``) and ``node_def``,
as TensorFlow's public ``tf.Operation`` shows them.
"""
from __future__ import annotations

from typing import Any, List, Optional

from fn._runtime.device import node_device
from fn._tensor.tensor_shape import TensorShape


class Operation:
    """A node of a graph (``tf.Operation``): ``name``, ``type``, ``inputs``, ``outputs``,
    ``control_inputs``, ``get_attr``, ``node_def``."""

    __slots__ = ("_core_graph", "_index", "_graph", "_node_def")

    def __init__(self, core_graph: Any, index: int, graph: Any = None) -> None:
        self._core_graph, self._index = core_graph, index
        self._graph = graph  # the FuncGraph view, when the caller has it
        self._node_def: Any = None

    @property
    def name(self) -> str:
        return self._core_graph.node_name(self._index)

    @property
    def type(self) -> str:
        return self._core_graph.node_op(self._index)

    @property
    def graph(self) -> Any:
        return self._graph if self._graph is not None else self._core_graph

    @property
    def inputs(self) -> List[Any]:
        """The data inputs, as the Tensors (node outputs) this op reads."""
        g = self._core_graph
        return [g.node_tensor(n, k) for n, k in g.node_input_refs(self._index)]

    @property
    def outputs(self) -> List[Any]:
        g = self._core_graph
        return [g.node_tensor(self._index, k) for k in range(len(g.node_outputs(self._index)))]

    def values(self) -> tuple:
        """``tf.Operation.values()``: the outputs as a tuple."""
        return tuple(self.outputs)

    @property
    def control_inputs(self) -> List["Operation"]:
        return [Operation(self._core_graph, c, self._graph) for c in self._core_graph.node_control_inputs(self._index)]

    @property
    def device(self) -> str:
        """The device requested for the op while it was traced (``tf.device``), as TF's
        ``DeviceSpec`` string (``/device:CPU:0``); "" when none was."""
        return node_device(self._core_graph, self._index)

    @property
    def node_def(self) -> Any:
        """The node as ``GraphDef`` shows it (TF's ``NodeDef``: name, op, input, attr)."""
        if self._node_def is None:
            from fn._function.graph_def import graph_def  # the exporter imports this module's users

            name = self.name
            self._node_def = next((n for n in graph_def(self._core_graph).node if n.name == name), None)
        return self._node_def

    def get_attr(self, name: str) -> Any:
        """The value of attr ``name`` (``tf.Operation.get_attr``): strings as bytes, dtypes as
        DTypes, shapes as ``TensorShapeProto``s. ``ValueError`` names a missing attr as TF does."""
        nd = self.node_def
        attr: Optional[Any] = nd.attr.get(name) if nd is not None else None
        if attr is None:
            raise ValueError(f"Operation '{self.name}' has no attr named '{name}'.")
        value = attr.value
        if isinstance(value, str):
            return value.encode("utf-8")
        if isinstance(value, TensorShape):   # TF returns the proto of shape attrs
            return value.as_proto()
        if isinstance(value, list):
            return [v.encode("utf-8") if isinstance(v, str) else v.as_proto() if isinstance(v, TensorShape) else v
                    for v in value]
        return value

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Operation) and other._core_graph is self._core_graph
                and other._index == self._index)

    def __hash__(self) -> int:
        return hash((id(self._core_graph), self._index))

    def __repr__(self) -> str:
        return f"<fn.Operation '{self.name}' type={self.type}>"


def _tensor_op(t: Any) -> Optional[Operation]:
    """``Tensor.op``: the Operation that produces a graph tensor (TF: undefined when eager)."""
    if t._is_eager:
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")
    g = t.graph
    if g is None:
        return None
    return Operation(g, t._node_index)

