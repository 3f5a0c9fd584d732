"""The graph of a ConcreteFunction as TF shows it: ``FuncGraph``, ``Operation``, ``GraphDef``."""
from __future__ import annotations

from typing import Any, Dict, List


class NodeDef:
    """One node of ``Graph.as_graph_def()`` (``tf.compat.v1.NodeDef``'s fields we support)."""

    __slots__ = ("name", "op", "input", "attr", "device")

    def __init__(self, name: str, op: str, inputs: List[str], attr: Dict[str, str]) -> None:
        self.name, self.op, self.input, self.attr, self.device = name, op, inputs, attr, ""

    def __repr__(self) -> str:
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class GraphDef:
    """``Graph.as_graph_def()``: the nodes, in order."""

    def __init__(self, node: List[NodeDef]) -> None:
        self.node = node

    def __repr__(self) -> str:
        return "\n".join(f"node {{ name: {n.name!r} op: {n.op!r} input: {n.input!r} }}" for n in self.node)


class Operation:
    """A node of a graph, as ``tf.Operation`` shows it (name, type, inputs, outputs)."""

    def __init__(self, graph: "FuncGraph", index: int) -> None:
        self._graph, self._index = graph, index

    @property
    def name(self) -> str:
        return self._graph._core.node_name(self._index)

    @property
    def type(self) -> str:
        return self._graph._core.node_op(self._index)

    @property
    def inputs(self) -> List[str]:
        return self._graph._core.node_inputs(self._index)

    def __repr__(self) -> str:
        return f"<fn.Operation '{self.name}' type={self.type}>"


class FuncGraph:
    """The graph of a ConcreteFunction (``tf.Graph``/FuncGraph view over the C++ graph)."""

    def __init__(self, core_graph: Any, name: str) -> None:
        self._core = core_graph
        self.name = name
        self.inputs: List[Any] = []
        self.outputs: List[Any] = []
        self.structured_outputs: Any = None

    def as_graph_def(self) -> GraphDef:
        g = self._core
        nodes = []
        for i in range(g.num_nodes()):
            attrs = {k: g.node_attr_text(i, k) for k in g.node_attr_names(i)}
            nodes.append(NodeDef(g.node_name(i), g.node_op(i), list(g.node_inputs(i)), attrs))
        return GraphDef(nodes)

    def get_operations(self) -> List[Operation]:
        return [Operation(self, i) for i in range(self._core.num_nodes())]

    def get_operation_by_name(self, name: str) -> Operation:
        for op in self.get_operations():
            if op.name == name:
                return op
        raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")

    def to_text(self) -> str:
        """The graph as readable text, one node a line."""
        return self._core.to_text()

    def to_dot(self) -> str:
        """The graph in Graphviz DOT (sub-graphs of If/While as clusters)."""
        from fn import _visualize as visualize
        return visualize.to_dot(self, self.name)

    def _repr_svg_(self) -> str:
        """Notebooks render the graph as a picture."""
        from fn import _visualize as visualize
        return visualize.to_svg(self, self.name)

    def __repr__(self) -> str:
        return f"<fn.FuncGraph {self.name!r} with {self._core.num_nodes()} nodes>"
