"""The object graph that checkpoints and SavedModels save: objects (``fn.Module``s, Keras
layers and optimizers, ``fn.train.Checkpoint``s, lists, dicts) and the ``fn.Variable``s they
reach through attributes, named by attribute path as TensorFlow's ``Trackable`` objects are.
Also the hook that restores a checkpointed value into an attribute assigned after the restore
(TensorFlow's deferred restoration)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

from fn._state.variables import Variable

DEFERRED = "_fn_deferred_restores"


def is_variable(obj: Any) -> bool:
    return isinstance(obj, Variable)


def is_trackable_object(obj: Any) -> bool:
    """An object whose attributes are followed (not a container, not a variable): its class says
    so (``_fn_trackable``: ``fn.Module``, Keras optimizers, ``fn.train.Checkpoint``) or it names
    its children (``_fn_trackable_children``)."""
    return getattr(type(obj), "_fn_trackable", False) or hasattr(obj, "_fn_trackable_children")


def is_trackable(obj: Any) -> bool:
    if is_variable(obj) or is_trackable_object(obj):
        return True
    if isinstance(obj, (list, tuple)):
        return any(is_trackable(x) for x in obj)
    if isinstance(obj, dict):
        return any(is_trackable(x) for x in obj.values())
    return False


def children(obj: Any) -> List[Tuple[str, Any]]:
    """The named trackable children of ``obj``: list items by index, dict items by key, object
    attributes (public ones first, then ``_``-prefixed ones, each in assignment order)."""
    if is_variable(obj):
        return []
    if isinstance(obj, (list, tuple)):
        return [(str(i), x) for i, x in enumerate(obj) if is_trackable(x)]
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if is_trackable(v)]
    custom = getattr(obj, "_fn_trackable_children", None)
    if custom is not None:
        return [(k, v) for k, v in custom() if is_trackable(v)]
    items = [(k, v) for k, v in vars(obj).items() if not k.startswith("_fn_") and is_trackable(v)]
    return [kv for kv in items if not kv[0].startswith("_")] + [kv for kv in items if kv[0].startswith("_")]


def child(obj: Any, name: str) -> Any:
    """The child called ``name`` (None when ``obj`` has none yet)."""
    for k, v in children(obj):
        if k == name:
            return v
    return None


def walk(root: Any) -> Tuple[List[Any], List[List[Tuple[str, int]]], List[str]]:
    """Breadth-first: the objects (root first, each once), each object's (name, node id) edges,
    and each object's path (the first found, so the shortest)."""
    nodes: List[Any] = [root]
    ids: Dict[int, int] = {id(root): 0}
    paths: List[str] = [""]
    edges: List[List[Tuple[str, int]]] = []
    i = 0
    while i < len(nodes):
        obj = nodes[i]
        mine: List[Tuple[str, int]] = []
        for name, c in children(obj):
            if id(c) not in ids:
                ids[id(c)] = len(nodes)
                nodes.append(c)
                paths.append(f"{paths[i]}/{_escape(name)}" if paths[i] else _escape(name))
            mine.append((name, ids[id(c)]))
        edges.append(mine)
        i += 1
    return nodes, edges, paths


def _escape(name: str) -> str:
    return name.replace(".", "..").replace("/", "./")  # TensorFlow's escape_local_name


def add_deferred(obj: Any, name: str, restore: Callable[[Any], None]) -> bool:
    """Remembers that assigning ``obj.name`` later should call ``restore(value)``."""
    if isinstance(obj, (list, tuple, dict)) or not hasattr(obj, "__dict__"):
        return False
    pending = obj.__dict__.get(DEFERRED)
    if pending is None:
        pending = {}
        object.__setattr__(obj, DEFERRED, pending)
    pending[name] = restore
    return True


def on_setattr(obj: Any, name: str, value: Any) -> None:
    """Called after ``obj.name = value`` on trackable objects: runs a pending restoration."""
    pending = obj.__dict__.get(DEFERRED)
    if pending and name in pending and is_trackable(value):
        pending.pop(name)(value)
