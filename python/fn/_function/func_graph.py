"""The graph of a ConcreteFunction as TF shows it: ``FuncGraph``, ``Operation``, ``GraphDef``."""

from __future__ import annotations

from typing import Any, List

from fn._function import visualize
from fn._function.graph_def import graph_def
from fn._function.graph_def_proto import GraphDef
from fn._function.operation import Operation


class FuncGraph:
    """The graph of a ConcreteFunction (``tf.Graph``/FuncGraph view over the C++ graph)."""

    def __init__(self, core_graph: Any, name: str) -> None:
        self._core = core_graph
        self.name = name
        self.inputs: List[Any] = []
        self.outputs: List[Any] = []
        self.structured_outputs: Any = None

    def as_graph_def(self) -> GraphDef:
        return graph_def(self._core)

    def get_operations(self) -> List[Operation]:
        return [Operation(self._core, i, self) for i in range(self._core.num_nodes())]

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
        return visualize.to_dot(self, self.name)

    def _repr_svg_(self) -> str:
        """Notebooks render the graph as a picture."""
        return visualize.to_svg(self, self.name)

    def __repr__(self) -> str:
        return f"<fn.FuncGraph {self.name!r} with {self._core.num_nodes()} nodes>"
