"""The object graph that checkpoints and SavedModels save: objects (``fn.Module``s, Keras
layers and optimizers, ``fn.train.Checkpoint``s, lists, dicts) and the ``fn.Variable``s they
reach through attributes, named by attribute path as TensorFlow's ``Trackable`` objects are.
Also the hook that restores a checkpointed value into an attribute assigned after the restore
(TensorFlow's deferred restoration)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Tuple

from fn._state.variables import Variable
from fn._state.variables import init_scope

DEFERRED = "_fn_deferred_restores"


def is_variable(obj: Any) -> bool:
    return isinstance(obj, Variable)


def unwrap(obj: Any) -> Any:
    """The object a checkpoint saves for ``obj``: a Keras ``Variable`` (an object acting as a
    resource variable) saves the ``fn.Variable`` it holds, as TF saves it under the same name."""
    if getattr(type(obj), "_should_act_as_resource_variable", False) and not is_variable(obj):
        inner = obj.__dict__.get("_value")
        if is_variable(inner):
            return inner
    return obj


def is_uninitialized_variable(obj: Any) -> bool:
    """A Keras ``Variable`` whose ``fn.Variable`` is not made yet (Keras defers it in symbolic
    builds); restoring into it waits until it is."""
    return (
        getattr(type(obj), "_should_act_as_resource_variable", False)
        and not is_variable(obj)
        and obj.__dict__.get("_value", False) is None
    )


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
        return [(str(i), unwrap(x)) for i, x in enumerate(obj) if is_trackable(unwrap(x))]
    if isinstance(obj, dict):
        return [(str(k), unwrap(v)) for k, v in obj.items() if is_trackable(unwrap(v))]
    custom = getattr(obj, "_fn_trackable_children", None)
    if custom is not None:
        return [(k, unwrap(v)) for k, v in custom() if is_trackable(unwrap(v))]
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


class ListWrapper(list):
    """TF's ``ListWrapper``: a list assigned to a ``tf.train.Checkpoint`` attribute. Items added
    after a restore get the values checkpointed at their index (deferred restoration)."""

    def __repr__(self) -> str:
        return f"ListWrapper({list.__repr__(self)})"

    def _fn_added(self, start: int) -> None:
        pending = self.__dict__.get(DEFERRED)
        if not pending:
            return
        for i in range(start, len(self)):
            item = unwrap(self[i])
            if str(i) in pending and is_trackable(item):
                with init_scope():
                    pending.pop(str(i))(item)

    def append(self, value: Any) -> None:
        super().append(value)
        self._fn_added(len(self) - 1)

    def extend(self, values: Any) -> None:
        n = len(self)
        super().extend(values)
        self._fn_added(n)

    def insert(self, index: Any, value: Any) -> None:
        super().insert(index, value)
        self._fn_added(0)

    def __setitem__(self, index: Any, value: Any) -> None:
        super().__setitem__(index, value)
        self._fn_added(0)

    # list's C += would skip extend(); typeshed's list.__add__ overloads make mypy reject any override
    def __iadd__(self, values: Iterable[Any]) -> "ListWrapper":  # type: ignore[misc]
        self.extend(values)
        return self


def add_deferred(obj: Any, name: str, restore: Callable[[Any], None]) -> bool:
    """Remembers that assigning ``obj.name`` later should call ``restore(value)`` (for a
    ListWrapper, adding an item at index ``name``)."""
    if (isinstance(obj, (list, tuple, dict)) and not isinstance(obj, ListWrapper)) or not hasattr(obj, "__dict__"):
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
    value = unwrap(value)
    if pending and name in pending and (is_trackable(value) or isinstance(value, ListWrapper)):
        with init_scope():  # restored now, even when the attribute is set while tracing (Keras' build)
            pending.pop(name)(value)
