"""``tf.control_dependencies``: ops made inside the block run after the given ops. Eagerly,
ops run in program order already: callables among the inputs are called (as TF does) and the
block is plain. While tracing, every node the block adds to the graph gets the given ops'
nodes as control inputs (TF's ``^name`` inputs); anything that is not a value of the graph being
traced (eager tensors, outer graphs' tensors, other objects) adds nothing, as in TF's FuncGraph."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Optional

from fn import _core
from fn._function.operation import Operation


def _node_of(control: Any, graph: Any) -> Optional[int]:
    if hasattr(control, "_handle") and hasattr(control, "op"):  # a variable: its op, no read
        control = control.op
    if isinstance(control, Operation):
        return control._index if control._core_graph is graph else None
    if hasattr(control, "values") and hasattr(control, "indices") and not _core.is_tensor(control):
        control = control.values  # IndexedSlices / SparseTensor: their values' producer
    if not _core.is_tensor(control):  # TF's FuncGraph keeps what is not its own as an outer dependency
        return None
    if control._is_eager or control.graph is not graph:
        return None  # an eager value or an outer graph's tensor: already computed when the block runs
    return int(control._node_index)


@contextlib.contextmanager
def control_dependencies(control_inputs: Optional[List[Any]]) -> Iterator[None]:
    """Mirrors ``tf.control_dependencies``: a context in which new ops run after
    ``control_inputs`` (Operations or Tensors; None or [] add nothing)."""
    if _core.executing_eagerly():
        for control in control_inputs or ():
            if callable(control):
                control()
        yield
        return
    if any(c is None for c in control_inputs or ()):  # TF's FuncGraph passes None on to as_graph_element
        raise TypeError("Can not convert a NoneType into a Tensor or Operation.")
    graph = _core.current_graph()
    nodes = sorted({n for n in (_node_of(c, graph) for c in control_inputs or ()) if n is not None})
    start = graph.num_nodes()
    try:
        yield
    finally:
        if nodes:
            for i in range(start, graph.num_nodes()):
                graph.add_control_inputs(i, nodes)
