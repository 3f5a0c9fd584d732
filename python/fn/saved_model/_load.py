"""``fn.saved_model.load``: rebuilds the saved object graph from plain objects and
``fn.Variable``s, and its functions from the serialized graphs (no user Python code runs)."""

from __future__ import annotations

import collections.abc
import io
import os
from typing import Any, Dict, Iterator, List

import numpy as np

from fn import _core, errors, nest
from fn._function.function import ConcreteFunction, FuncGraph
from fn._state.module import Module
from fn._state.variables import Variable
from fn.saved_model import _format
from fn.train import _checkpoint_io
from fn._tensor.tensor_spec import TensorSpec
from fn._function.function import _walk


class _UserObject(Module):
    """A loaded object (TensorFlow's ``_UserObject``): its attributes are the saved children."""

    def __repr__(self) -> str:
        return f"<fn.saved_model.load.._UserObject object at 0x{id(self):x}>"


class _LoadedFunction:
    """A saved ``fn.function`` attribute: calls the first saved concrete function that accepts
    the arguments."""

    def __init__(self, name: str, concretes: List[ConcreteFunction], input_signature: bool = False) -> None:
        self._name = name
        self._concretes = concretes
        self._input_signature = input_signature

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._concretes:  # saved before it was ever traced
            raise ValueError("Found zero restored functions for caller function.")
        problems = []
        for c in self._concretes:
            try:
                return c(*args, **kwargs)
            except (TypeError, ValueError, errors.InvalidArgumentError) as e:
                problems.append(str(e).splitlines()[0])
        if self._input_signature:  # TF rebuilds a tf.function with that signature: its binding TypeError
            first = problems[0]
            raise TypeError(
                first
                if first.startswith("Binding inputs to tf.function failed")
                else f"Binding inputs to tf.function failed due to `{first}`. Received args: {args!r} and "
                f"kwargs: {kwargs!r} for signature: {self._concretes[0].pretty_printed_signature()}."
            )
        options = "\n".join(f"  Option {i + 1}: {c.pretty_printed_signature()}" for i, c in enumerate(self._concretes))
        raise ValueError(
            "Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
            f"  Positional arguments ({len(args)} total): {args!r}\n  Keyword arguments: {kwargs!r}\n\n"
            f" Expected these arguments to match one of the following {len(self._concretes)} "
            f"option(s):\n\n{options}"
        )

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        return self._concretes[0]

    def __repr__(self) -> str:
        return f"<fn.saved_model loaded function {self._name}>"


class _SignatureFunction:
    """A serving signature: keyword (or positional) tensors in, a dict of named tensors out."""

    def __init__(self, concrete: ConcreteFunction) -> None:
        self._concrete = concrete
        self.structured_input_signature = ((), dict(zip(self._names(), self._specs())))
        outs = concrete.structured_outputs
        self.structured_outputs = self._named(outs, lambda t: t)

    def _entries(self) -> List[Any]:
        """(name, spec, keyword) per tensor input: the positional TensorSpecs, then keyword ones
        (a keyword-only parameter whose default is a tensor is an input too, as in TF). A nested
        argument's specs are named as TF's placeholders are: ``inputs``, ``inputs_1``, ..."""
        c = self._concrete
        out: List[Any] = []
        for names, kw in ((zip(c._arg_names, c._pos_values), False), (c._kw_values.items(), True)):
            for n, v in names:
                leaves = [x for x in nest.flatten(v) if isinstance(x, TensorSpec)]
                out += [(x.name or (n if k == 0 else f"{n}_{k}"), x, kw) for k, x in enumerate(leaves)]
        return out

    def _pack(self, given: Dict[str, Any]) -> Any:
        """The concrete function's (args, kwargs) with each TensorSpec leaf replaced by the value
        given under its signature name."""
        values = iter(given[n] for n, _, _ in self._entries())

        def fill(v: Any) -> Any:
            flat = [next(values) if isinstance(x, TensorSpec) else x for x in nest.flatten(v)]
            return nest.pack_sequence_as(v, flat)

        c = self._concrete
        args = [fill(v) for v in c._pos_values]
        return args, {k: fill(v) for k, v in c._kw_values.items()}

    def _specs(self) -> List[Any]:
        return [spec for _, spec, _ in self._entries()]

    def _names(self) -> List[str]:
        return [name for name, _, _ in self._entries()]

    @staticmethod
    def _named(outs: Any, fn: Any) -> Dict[str, Any]:
        if isinstance(outs, dict):
            return {k: _walk(v, fn) for k, v in outs.items()}
        flat: List[Any] = []
        _walk(outs, lambda t: flat.append(fn(t)))
        return {f"output_{i}": t for i, t in enumerate(flat)}

    def __call__(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        names = self._names()
        if len(args) > len(names):
            raise TypeError(
                f"signature_wrapper({', '.join('*, ' + n for n in names[:1])}"
                f"{''.join(', ' + n for n in names[1:])}) takes {len(names)} arguments but {len(args)} "
                "were given."
            )
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"signature_wrapper got an unexpected keyword argument '{k}'. Expected: {names}")
            given[k] = v
        missing = [n for n in names if n not in given]
        if missing:
            raise TypeError(f"signature_wrapper missing required arguments: {', '.join(missing)}.")
        args, keywords = self._pack(given)
        return self._named(self._concrete(*args, **keywords), lambda t: t)

    @property
    def inputs(self) -> List[Any]:
        return self._specs()


def _pairs(signatures: Any) -> List[Any]:
    """The saved signatures in order (a dict in files written before they kept their order)."""
    return list(signatures.items()) if isinstance(signatures, dict) else [tuple(p) for p in signatures]


def _load_concrete(record: Dict[str, Any], blobs: List[bytes], objects: List[Any]) -> ConcreteFunction:
    graph = _core.deserialize_graph(blobs[record["graph"]])
    captures = []
    for cap in record["captures"]:
        if "variable" in cap:
            captures.append(objects[cap["variable"]]._handle)
        else:
            captures.append(
                _core.convert_to_tensor(np.load(io.BytesIO(blobs[cap["constant"]]), allow_pickle=False), None, None)
            )
    core = _core.ConcreteFunctionCore(graph, captures, record["name"])
    core._graph_errors = True
    func_graph = FuncGraph(graph, record["function_name"])
    specs = iter(record["output_specs"])

    def out_leaf(d: Dict[str, Any]) -> Any:
        if "extension_spec" in d:  # an ExtensionType output: its components' specs come next
            spec = _format.spec_from_json(d)
            for _ in spec._component_specs():
                next(specs)
            return spec
        if "ragged_spec" in d:  # a RaggedTensor output: its components' specs come next
            for _ in range(1 + d["ragged_spec"]["ragged_rank"]):
                next(specs)
            return _format.spec_from_json(d)
        s = next(specs)
        return TensorSpec(s["shape"], s["dtype"])

    pos = tuple(_format.decode(v, _format.spec_from_json) for v in record["pos"])
    kw = {k: _format.decode(v, _format.spec_from_json) for k, v in record["kw"]}
    outputs = _format.decode(record["outputs"], out_leaf)
    variables = [objects[i] for i in record["variables"]] + [
        objects[c["variable"]] for c in record["captures"] if "variable" in c
    ]
    return ConcreteFunction(
        core, func_graph, record["function_name"], None, pos, kw, record["arg_names"], outputs, [], variables=variables
    )


def _attach(obj: Any, name: str, function: "_LoadedFunction") -> None:
    """Sets a loaded function as an attribute. Python looks ``__call__`` up on the type, so the
    object gets a class of its own that forwards to it, as TF's loader does (each loaded object
    has its own ``_UserObject`` class; other special methods stay plain attributes, as in TF)."""
    object.__setattr__(obj, name, function)
    if name != "__call__" or not isinstance(obj, _UserObject):
        return
    cls = type(obj)
    if cls is _UserObject:
        cls = type("_UserObject", (_UserObject,), {"__module__": _UserObject.__module__})
        obj.__class__ = cls

    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__[name](*args, **kwargs)

    forward.__name__ = name
    setattr(cls, name, forward)


def load(export_dir: Any, tags: Any = None, options: Any = None) -> Any:
    """``tf.saved_model.load``: the saved object, its variables restored, its functions and
    ``signatures`` callable."""
    export_dir = os.fspath(export_dir)
    header, blobs = _format.read(export_dir)
    reader = _checkpoint_io.CheckpointReader(os.path.join(export_dir, "variables", "variables"))
    graph = reader.object_graph
    kinds = header["nodes"]
    if len(kinds) != len(graph):
        raise errors.DataLossError(
            None, None, f"The SavedModel at {export_dir} is inconsistent: its variables do not match its object graph."
        )
    objects: List[Any] = []
    for node, kind in zip(graph, kinds):
        k = kind["kind"]
        if k == "variable":
            objects.append(
                Variable(np.asarray(reader.get_tensor(node["key"])), trainable=kind["trainable"], name=kind["name"])
            )
        elif k == "list":
            objects.append([])
        elif k == "dict":
            objects.append({})
        else:
            objects.append(_UserObject())
    for obj, node in zip(objects, graph):
        for name, cid in node["children"]:
            child = objects[cid]
            if isinstance(obj, list):
                obj.append(child)
            elif isinstance(obj, dict):
                obj[name] = child
            elif not isinstance(obj, Variable):
                if isinstance(getattr(type(obj), name, None), property):
                    # A saved child named like a Module property (`variables` of a Keras export
                    # archive): as in TF, the loaded attribute is the child.
                    obj.__class__ = type(type(obj).__name__, (type(obj),), {name: None})
                object.__setattr__(obj, name, child)
    concretes = [_load_concrete(r, blobs, objects) for r in header["functions"]]
    for node_id, name, indices, *signed in header["attached"]:
        _attach(
            objects[node_id], name, _LoadedFunction(name, [concretes[i] for i in indices], bool(signed and signed[0]))
        )
    root = objects[0]
    if isinstance(root, _UserObject):
        object.__setattr__(
            root,
            "signatures",
            _SignatureMap({k: _SignatureFunction(concretes[i]) for k, i in _pairs(header["signatures"])}),
        )
    return root


class _SignatureMap(collections.abc.Mapping):
    """A loaded SavedModel's ``signatures`` (TF's ``_SignatureMap``: a read-only mapping from
    signature keys to functions)."""

    def __init__(self, signatures: Dict[str, Any]) -> None:
        self._signatures = signatures

    def __getitem__(self, key: str) -> Any:
        return self._signatures[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._signatures)

    def __len__(self) -> int:
        return len(self._signatures)

    def __repr__(self) -> str:
        return "_SignatureMap({})".format(self._signatures)
