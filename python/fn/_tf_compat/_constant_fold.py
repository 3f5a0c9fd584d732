"""The value of a graph tensor computable before the graph runs, for ``tf.get_static_value``:
constants, and shapes/sizes/ranks of tensors whose shapes are fully known (TF's
``constant_value`` handles these ops too). Anything else is None."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fn import _core


def static_value(x: Any) -> Optional[np.ndarray]:
    """The NumPy value of a tensor (or plain value) known without running the graph: an eager
    tensor's value, a graph tensor folded from constants, else None (the tensor half of
    ``tf.get_static_value``, for modules below the composite types)."""
    if not _core.is_tensor(x):
        return np.asarray(x) if x is not None else None
    if x._is_eager:
        return x.numpy()
    return evaluate(x)


def evaluate(t: Any) -> Optional[np.ndarray]:
    graph = _core.current_graph()
    if graph is None:
        return None
    node, _, index = t.name.partition(":")
    nodes = {graph.node_name(i): i for i in range(graph.num_nodes())}
    if node not in nodes:
        return None
    return _fold(graph, nodes, nodes[node], int(index or 0), depth=0)


def _fold(graph: Any, nodes: dict, i: int, out: int, depth: int) -> Optional[np.ndarray]:
    if depth > 8:
        return None
    op = graph.node_op(i)
    if op == "Const":
        value = graph.node_attr(i, "value")
        return None if value is None else np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if op in ("Identity", "StopGradient"):
        src = graph.node_inputs(i)[0]
        name, _, k = src.partition(":")
        return _fold(graph, nodes, nodes[name], int(k or 0), depth + 1) if name in nodes else None
    if op in ("Shape", "Size", "Rank"):
        src = graph.node_inputs(i)[0]
        name, _, k = src.partition(":")
        if name not in nodes:
            return None
        dtype, shape = graph.node_outputs(nodes[name])[int(k or 0)]
        out_dtype = graph.node_outputs(i)[0][0].as_numpy_dtype
        if shape.rank is None:
            return None
        if op == "Rank":
            return np.asarray(shape.rank, out_dtype)
        if not shape.is_fully_defined():
            return None
        dims = shape.as_list()
        return np.asarray(dims if op == "Shape" else int(np.prod(dims)), out_dtype)
    return None
