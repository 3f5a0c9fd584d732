"""``fn.train.Checkpoint`` (``tf.train.Checkpoint``): saves the variables an object graph
reaches, keyed by attribute path, and restores them by matching the saved graph to the live
one; values for objects that do not exist yet are restored when they are assigned."""

from __future__ import annotations

import functools
import os
from typing import Any, Dict, List, Set

import numpy as np

from fn import errors
from fn._state import trackable as _trackable
from fn._state.serialize import to_numpy
from fn.train import _checkpoint_io as io
from fn.train import _state
from fn._state.variables import Variable, init_scope

_VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"
# Objects with a state of their own (fn.data iterators): ``_fn_checkpoint_state() -> ndarray``
# is saved under this key and given back to ``_fn_restore_state(ndarray)``.
_STATE = "/.ATTRIBUTES/ITERATOR_STATE"


def _tf_dtype_name(name: str) -> str:
    # TF's kernel messages use DataTypeString: `double`, `half`, not the Python `float64`.
    return {"float64": "double", "float16": "half"}.get(name, name)


def _collect(root: Any) -> tuple:
    """(tensors by key, the serialized object graph) of everything ``root`` reaches."""
    nodes, edges, paths = _trackable.walk(root)
    tensors: Dict[str, tuple] = {}
    graph: List[dict] = []
    for obj, mine, path in zip(nodes, edges, paths):
        entry: dict = {"children": [[name, nid] for name, nid in mine]}
        if _trackable.is_variable(obj):
            key = path + _VALUE
            tensors[key] = (obj.dtype.name, to_numpy(obj.read_value()))
            entry["key"] = key
        elif hasattr(obj, "_fn_checkpoint_state"):
            key = path + _STATE
            state = np.asarray(obj._fn_checkpoint_state())
            tensors[key] = (str(state.dtype), state)
            entry["state_key"] = key
        graph.append(entry)
    return tensors, graph


def _assign(variable: Any, value: np.ndarray, key: str = "", saved_dtype: Any = None) -> None:
    """Restores one variable. The saved dtype must be the variable's (TF's RestoreV2 refuses a
    mismatch rather than casting: a float saved into an int variable would silently truncate)."""
    if saved_dtype is not None and saved_dtype != variable.dtype.name:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"tensor_name = {key}; expected dtype {_tf_dtype_name(variable.dtype.name)} does not "
            f"equal original dtype {_tf_dtype_name(saved_dtype)}",
        )
    shape = tuple(np.shape(value))
    if not variable.shape.is_compatible_with(shape):
        shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
        var_shape = tuple(variable.shape.as_list()) if variable.shape.rank is not None else None
        raise ValueError(
            f"Received incompatible tensor with shape {shape_text} when attempting to restore "
            f"variable with shape {var_shape} and name {variable.name}."
        )
    if value.dtype != object and np.dtype(variable.dtype.as_numpy_dtype) != value.dtype:
        value = value.astype(variable.dtype.as_numpy_dtype)
    variable.assign(value, read_value=False)


class _Restore:
    """One restoration: the reader, which checkpoint nodes found a Python object, and which
    Python objects found a checkpoint node."""

    def __init__(self, reader: io.CheckpointReader, root: Any) -> None:
        self.reader = reader
        self.graph = reader.object_graph
        self.matched_nodes: Set[int] = set()
        self.matched_objects: Dict[int, Any] = {}
        self.root = root

    def match(self, node_id: int, obj: Any) -> None:
        obj = _trackable.unwrap(obj)
        if node_id in self.matched_nodes or id(obj) in self.matched_objects:
            return
        if _trackable.is_uninitialized_variable(obj):  # a Keras Variable made in a symbolic build
            _trackable.add_deferred(obj, "_value", lambda value: self.match(node_id, value))
            return
        self.matched_nodes.add(node_id)
        self.matched_objects[id(obj)] = obj
        node = self.graph[node_id]
        if _trackable.is_variable(obj):
            if "key" in node:
                key = node["key"]
                _assign(obj, np.asarray(self.reader.get_tensor(key)), key, self.reader.dtype_name(key))
            return
        if "state_key" in node and hasattr(obj, "_fn_restore_state"):
            obj._fn_restore_state(np.asarray(self.reader.get_tensor(node["state_key"])))
        for name, cid in node["children"]:
            c = _trackable.child(obj, name)
            if c is not None:
                self.match(cid, c)
            else:
                _trackable.add_deferred(obj, name, functools.partial(self.match, cid))

    def unmatched_objects(self) -> List[Any]:
        nodes, _, _ = _trackable.walk(self.root)
        return [
            o
            for o in nodes
            if id(o) not in self.matched_objects and (_trackable.is_variable(o) or _trackable.is_trackable_object(o))
        ]

    def unmatched_nodes(self) -> List[int]:
        return [i for i, n in enumerate(self.graph) if i not in self.matched_nodes and "key" in n]


class CheckpointLoadStatus:
    """What ``Checkpoint.restore``/``read`` return (``tf.train.CheckpointLoadStatus``): the
    ``assert_*`` methods check how well the checkpoint and the objects matched."""

    def __init__(self, restore: _Restore) -> None:
        self._restore = restore

    def assert_consumed(self) -> "CheckpointLoadStatus":
        """Every checkpointed value found an object, and every object a value."""
        nodes = self._restore.unmatched_nodes()
        if nodes:
            key = self._restore.graph[nodes[0]]["key"]
            path = ".".join(["(root)"] + key[: -len(_VALUE)].split("/"))
            raise AssertionError(
                f"Unresolved object in checkpoint {path}: attributes {{\n  name: \"VARIABLE_VALUE\"\n"
                f"  checkpoint_key: \"{key}\"\n}}\nhas_checkpoint_values {{\n  value: true\n}}\n"
            )
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> "CheckpointLoadStatus":
        """Every object the root reaches now found a checkpointed value."""
        objects = self._restore.unmatched_objects()
        if objects:
            shown = objects[:10]
            raise AssertionError(
                f"Found {len(objects)} Python objects that were not bound to checkpointed values, "
                "likely due to changes in the Python program. Showing "
                f"{len(shown)} of {len(objects)} unmatched objects: {shown!r}"
            )
        return self

    def assert_nontrivial_match(self) -> "CheckpointLoadStatus":
        if len(self._restore.matched_nodes) <= 1:
            raise AssertionError(
                "Nothing except the root object matched a checkpointed value. Typically this "
                "means that the checkpoint does not match the Python program. The following "
                "objects have no matching checkpointed value: "
                f"{self._restore.unmatched_objects()!r}"
            )
        return self

    def expect_partial(self) -> "CheckpointLoadStatus":
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Restoration is eager: nothing left to run."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Restoration is eager: nothing left to run."""


class InitializationOnlyStatus:
    """``restore(None)``: nothing to restore (``tf.train`` returns the same kind of object)."""

    def assert_consumed(self) -> Any:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def expect_partial(self) -> "InitializationOnlyStatus":
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        pass

    def initialize_or_restore(self, session: Any = None) -> None:
        pass


class Checkpoint:
    """``tf.train.Checkpoint(**objects)``: ``save``/``write`` the variables the objects reach,
    ``restore``/``read`` them into the same structure (matched by attribute path)."""

    _fn_trackable = True
    _save_counter: Any  # set with object.__setattr__ (this class's __setattr__ tracks children)
    _saved: List[str]

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_saved", [])
        if root is not None:
            kwargs["root"] = root
        for name, value in sorted(kwargs.items()):
            if not _trackable.is_trackable(value):
                raise ValueError(
                    f"`Checkpoint` was expecting {name} to be a trackable object (an object derived "
                    f"from `Trackable`), got {value}. If you believe this object should be trackable "
                    "(i.e. it is part of the TensorFlow Python API and manages state), please open "
                    "an issue."
                )
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if type(value) is list:  # TF wraps list attributes (items added later are restored too)
            value = _trackable.ListWrapper(value)
        object.__setattr__(self, name, value)
        _trackable.on_setattr(self, name, value)

    def _fn_trackable_children(self) -> List[tuple]:
        out = [(k, v) for k, v in vars(self).items() if not k.startswith("_")]
        if self._save_counter is not None:
            out.append(("save_counter", self._save_counter))
        return out

    @property
    def save_counter(self) -> Any:
        """How many times ``save`` ran (an int64 variable, created on first use)."""
        if self._save_counter is None:
            with init_scope():
                v = Variable(np.int64(0), trainable=False, name="save_counter")
            object.__setattr__(self, "_save_counter", v)
            _trackable.on_setattr(self, "save_counter", v)
        return self._save_counter

    # -- writing
    def write(self, file_prefix: Any, options: Any = None) -> str:
        """Writes a checkpoint at ``file_prefix`` (no numbering, no ``checkpoint`` state file)."""
        file_prefix = os.fspath(file_prefix)
        tensors, graph = _collect(self)
        return io.write(file_prefix, tensors, graph)

    def save(self, file_prefix: Any, options: Any = None) -> str:
        """Writes ``<file_prefix>-<n>`` (n = the incremented ``save_counter``) and records it in the
        folder's ``checkpoint`` state file; returns the path."""
        counter = self.save_counter
        counter.assign_add(np.int64(1), read_value=False)
        path = f"{os.fspath(file_prefix)}-{int(counter.numpy())}"
        self.write(path)
        self._saved.append(path)
        _state.update(os.path.dirname(path), path, self._saved)
        return path

    # -- reading
    def read(self, save_path: Any, options: Any = None) -> CheckpointLoadStatus:
        """Restores the values saved at ``save_path`` into the objects (deferred for those not
        created yet)."""
        save_path = os.fspath(save_path)
        try:
            reader = io.CheckpointReader(save_path)
        except Exception as e:
            from fn import errors

            if isinstance(e, errors.NotFoundError):
                raise errors.NotFoundError(
                    None,
                    None,
                    "Error when restoring from checkpoint or SavedModel at "
                    f"{save_path}: {e}\nPlease double-check that the path is correct. You "
                    "may be missing the checkpoint suffix (e.g. the '-1' in "
                    "'path/to/ckpt-1').",
                ) from None
            raise
        restore = _Restore(reader, self)
        if any(name == "save_counter" for name, _ in reader.object_graph[0]["children"]):
            self.save_counter  # noqa: B018  (created so the saved count restores into it)
        restore.match(0, self)
        return CheckpointLoadStatus(restore)

    def restore(self, save_path: Any, options: Any = None) -> Any:
        """``read``, and ``None`` gives an initialization-only status."""
        if save_path is None:
            return InitializationOnlyStatus()
        save_path = os.fspath(save_path)
        if os.path.isdir(save_path):
            latest = _state.latest_checkpoint(save_path)
            save_path = latest if latest is not None else save_path
        return self.read(save_path)

    def __repr__(self) -> str:
        return f"<fn.train.Checkpoint object at 0x{id(self):x}>"
