"""``tf.no_op`` and ``tf.group``: an Operation that computes nothing and exists for its control
inputs (TF's ``NoOp``). Eagerly there is nothing to wait for: both return None, as TF's."""

from __future__ import annotations

import contextlib
from typing import Any, Dict, List, Optional

from fn import _core
from fn import nest
from fn._function.operation import Operation


def no_op(name: Optional[str] = None) -> Any:
    """Mirrors ``tf.no_op``: None eagerly; inside a Function, a ``NoOp`` Operation."""
    if _core.executing_eagerly():
        return None
    _core.execute("NoOp", [], None, name or "NoOp")
    graph = _core.current_graph()
    return Operation(graph, graph.num_nodes() - 1)


def group(*inputs: Any, **kwargs: Any) -> Any:
    """Mirrors ``tf.group``: an Operation that runs after every one of ``inputs`` (nested Tensors
    or Operations) and has no output; None eagerly. As TF's, inputs on several devices wait
    through one ``NoOp`` per device (in device order, named in the group's scope)."""
    if _core.executing_eagerly():
        return None
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    from fn._function.control_dependencies import control_dependencies
    from fn._function.name_scope import name_scope
    from fn._runtime.device import device

    scope = name or "group_deps"
    by_device: Dict[str, List[Any]] = {}
    for x in nest.flatten(list(inputs)):
        if not hasattr(x, "device"):
            raise TypeError(
                "'inputs' should be zero or more (nested) Tensors. Received '%s' with type '%s'." % (x, type(x))
            )
        by_device.setdefault(x.device or "", []).append(x)
    deps: List[Any] = list(by_device.values())[0] if len(by_device) == 1 else []
    if len(by_device) > 1:
        with name_scope(_absolute_scope(scope)):
            for dev in sorted(by_device):
                with control_dependencies(by_device[dev]), device(dev) if dev else contextlib.nullcontext():
                    deps.append(no_op())
    with control_dependencies(deps):
        return no_op(scope)


def _absolute_scope(scope: str) -> str:
    """The group's scope as an absolute one (``gg/``), so that the group's own NoOp can still take
    the name ``gg`` (TF names an op created with ``name="gg/"`` exactly ``gg``)."""
    return scope + "/"
