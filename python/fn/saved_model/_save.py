"""``fn.saved_model.save``: the traced concrete functions of an object (graph IR serialized by
the C++ core), its variables (an fn checkpoint) and its signatures, loadable without the
Python source that made them."""

from __future__ import annotations

import inspect
import io
import os
from typing import Any, Dict, List, Tuple

import numpy as np

from fn import _core
from fn._state import trackable as _trackable
from fn._function.function import ConcreteFunction, Function, _walk
from fn.saved_model import _format
from fn.train import _checkpoint_io
from fn.train._checkpoint import _collect
from fn._function.function import function
from fn._tensor.tensor_spec import TensorSpec
from fn._distribute.context import saving_non_distributed


class _Out:
    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i


def _functions_of(obj: Any) -> List[Tuple[str, Function]]:
    out: List[Tuple[str, Function]] = []
    for name in dir(type(obj)):
        if isinstance(inspect.getattr_static(type(obj), name, None), Function):
            out.append((name, getattr(obj, name)))
    for name, value in vars(obj).items():
        if isinstance(value, Function) and all(name != n for n, _ in out):
            out.append((name, value))
    return out


def _concretes(f: Function, saving_retrace: Any = frozenset()) -> List[ConcreteFunction]:
    """The concrete functions saved for ``f``: its traces, except that a trace made in a replica of
    a multi-replica strategy or capturing a mirrored variable's replica copies (``saving_retrace``:
    their variable ids) is replaced by a trace made as one replica on the primary copies (TF's
    saving of distributed functions)."""
    found: List[ConcreteFunction] = []
    for _, c in f._cache_items():
        context = getattr(c, "_fn_trace_context", None)
        if context == ("saving_non_distributed",):
            continue
        if context is not None or any(
            t is not None and t.dtype.name == "resource" and _core.variable_info(t)[0] in saving_retrace
            for t in c._core.captures
        ):
            with _saving_non_distributed():
                c = f.get_concrete_function(*c._pos_values, **c._kw_values)
        if all(c is not x for x in found):
            found.append(c)
    if not found and f._input_signature is not None:
        found = [f.get_concrete_function()]
    return found


def _saving_non_distributed() -> Any:

    return saving_non_distributed()


def _keras_default_signature(obj: Any) -> Any:
    """A built Keras model's call as ``serving_default``: Keras' own ``_default_save_signature``
    (its inputs' specs, as TF's SavedModel takes it), or None when the model is not built."""
    try:
        return obj._default_save_signature
    except Exception:  # TF lists an attribute whose getter raises as absent
        return None


def _valid_signature(c: ConcreteFunction) -> bool:
    """TF's ``_valid_signature``: a signature needs outputs, all of them tensors."""
    outs = _flat(c.structured_outputs) if c.structured_outputs is not None else []
    return bool(outs) and all(_core.is_tensor(t) for t in outs)


def _find_function_to_export(obj: Any) -> Any:
    """The default ``serving_default`` when ``signatures`` is not given (TF's
    ``find_function_to_export``): a Keras model's ``_default_save_signature`` when it has one,
    else the root's one function with an ``input_signature`` whose concrete function can be a
    signature (it returns tensors), else none."""
    if _is_keras_model(obj):
        default = _keras_default_signature(obj)
        if isinstance(default, Function):
            return default
    candidates = [
        c
        for c in (f.get_concrete_function() for _, f in _functions_of(obj) if f._input_signature is not None)
        if _valid_signature(c)
    ]
    return candidates[0] if len(candidates) == 1 else None


def _is_keras_model(obj: Any) -> bool:
    return hasattr(type(obj), "_default_save_signature") and hasattr(obj, "built")


def _attach_custom_gradients(g: Any) -> None:
    """Traces the Python gradient of each ``CustomGradient`` node (``tf.custom_gradient``) into a
    graph the node carries, so the loaded function keeps its custom gradient (TF's
    ``SaveOptions(experimental_custom_gradients=True)``, its default)."""
    for i in range(g.num_nodes()):
        if g.node_op(i) != "CustomGradient":
            continue
        grad = g._node_host(i, "grad_fn")
        if grad is None:
            continue
        n = int(g.node_attr(i, "num_outputs"))
        specs = g.node_outputs(i)[:n]
        grad_graph = _core.Graph(f"{g.node_name(i)}_grad")
        builder = _core.GraphBuilder(grad_graph)
        with _core.ContextScope(builder):
            dys = [builder.add_placeholder(f"dy_{k}", dt, shape) for k, (dt, shape) in enumerate(specs)]
            ys = [builder.add_placeholder(f"y_{k}", dt, shape) for k, (dt, shape) in enumerate(specs)]
            grads = grad(dys, ys)
            flat = [_core.execute("Identity", [t], None, None)[0] for t in grads if t is not None]
            builder.set_outputs(flat)
        if list(builder.capture_placeholders()):
            raise ValueError(
                f"Unable to save the custom gradient of node '{g.node_name(i)}': its gradient "
                "function uses tensors or variables from outside it."
            )
        g._set_custom_gradient_graph(i, grad_graph, [1 if t is None else 0 for t in grads])


class _Saver:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.nodes, self.edges, _ = _trackable.walk(root)
        self.var_nodes = {v._id: i for i, v in enumerate(self.nodes) if _trackable.is_variable(v)}
        # Replica copies of mirrored variables (tf.distribute): functions are retraced on the primary.
        self.mirror_copies = frozenset(
            c._id for v in self.nodes if _trackable.is_variable(v) for c in getattr(v, "_mirrored_values", ())[1:]
        )
        self.blobs: List[bytes] = []
        self.functions: List[Dict[str, Any]] = []
        self.index: Dict[int, int] = {}

    def blob(self, data: bytes) -> int:
        self.blobs.append(data)
        return len(self.blobs) - 1

    def concrete(self, c: ConcreteFunction) -> int:
        if id(c) in self.index:
            return self.index[id(c)]
        _attach_custom_gradients(c.graph._core)
        graph = self.blob(_core.serialize_graph(c.graph._core))
        captures = []
        for t in c._core.captures:
            if t is None:
                raise ValueError(f"Unable to save function {c._core.name}: a variable it captured was deleted.")
            if t.dtype.name == "resource":
                vid = _core.variable_info(t)[0]
                if vid not in self.var_nodes:
                    raise AssertionError(
                        f"Tried to export a function which references an 'untracked' resource. TensorFlow objects "
                        f"(e.g. tf.Variable) captured by functions must be 'tracked' by assigning them to an "
                        f"attribute of a tracked object or assigned to an attribute of the main object directly. "
                        f"(function {c._core.name}, variable {_core.variable_info(t)[4]})"
                    )
                captures.append({"variable": self.var_nodes[vid]})
            else:
                buf = io.BytesIO()
                np.save(buf, np.asarray(t.numpy()), allow_pickle=False)
                captures.append({"constant": self.blob(buf.getvalue())})
        counter = iter(range(1 << 30))
        marked = _walk(c.structured_outputs, lambda t: _Out(next(counter)))

        def out_leaf(x: Any) -> Any:
            if getattr(type(x), "_fn_trace_from_spec", False) or _format._is_extension_spec(x):
                # a RaggedTensor or ExtensionType output: its spec
                return _format.spec_json(x)
            return {"out": x.i} if isinstance(x, _Out) else None

        spec_leaf = self.spec_leaf
        outputs_spec = _walk(c.structured_outputs, lambda t: t)
        out_specs = [
            {"dtype": t.dtype.name, "shape": t.shape.as_list() if t.shape.rank is not None else None}
            for t in _flat(outputs_spec)
        ]
        self.functions.append(
            {
                "name": c._core.name,
                "function_name": c._function_name,
                "graph": graph,
                "captures": captures,
                "arg_names": list(c._arg_names),
                "pos": [_format.encode(v, spec_leaf) for v in c._pos_values],
                "kw": [[k, _format.encode(v, spec_leaf)] for k, v in c._kw_values.items()],
                "outputs": _format.encode(marked, out_leaf),
                "output_specs": out_specs,
                "variables": [self.var_nodes[v._id] for v in c._variables if v._id in self.var_nodes],
            }
        )
        self.index[id(c)] = len(self.functions) - 1
        return self.index[id(c)]

    @staticmethod
    def spec_leaf(x: Any) -> Any:
        composite = getattr(type(x), "_fn_trace_from_spec", False) or _format._is_extension_spec(x)
        return _format.spec_json(x) if isinstance(x, TensorSpec) or composite else None


def _flat(structure: Any) -> List[Any]:
    out: List[Any] = []
    _walk(structure, lambda t: out.append(t))
    return out


def _signature_concrete(value: Any, key: str) -> ConcreteFunction:
    if isinstance(value, ConcreteFunction):
        return value
    if isinstance(value, Function):
        if value._input_signature is not None:
            return value.get_concrete_function()
        found = _concretes(value)
        if len(found) == 1:
            return found[0]
        raise ValueError(
            f"Function {value._name} used as signature '{key}' must have an `input_signature` or "
            "exactly one traced concrete function; pass `f.get_concrete_function(...)` instead."
        )
    raise ValueError(
        f"Expected a TensorFlow function for which to generate a signature, but got {value!r}. Only "
        "`tf.functions` with an input signature or concrete functions can be used as a signature."
    )


def save(obj: Any, export_dir: Any, signatures: Any = None, options: Any = None) -> None:
    """``tf.saved_model.save``: writes ``obj``'s variables, every concrete function traced on
    its (and its children's) ``fn.function`` attributes, and ``signatures`` (a function, a
    concrete function, or a dict of them; default: the one function with an
    ``input_signature`` on ``obj``, or a built Keras model's call) to ``export_dir``."""
    if not _trackable.is_trackable_object(obj):
        raise ValueError(
            f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
            f"`Trackable` class, for export. Got {obj} with type {type(obj)}."
        )
    export_dir = os.fspath(export_dir)
    saver = _Saver(obj)
    attached: List[List[Any]] = []
    for node_id, o in enumerate(saver.nodes):
        if _trackable.is_variable(o) or isinstance(o, (list, tuple, dict)):
            continue
        for name, f in _functions_of(o):
            attached.append(
                [
                    node_id,
                    name,
                    [saver.concrete(c) for c in _concretes(f, saver.mirror_copies)],
                    f._input_signature is not None,
                ]
            )
    if signatures is None:
        signatures = _find_function_to_export(obj)
    if signatures is not None and not isinstance(signatures, dict):
        signatures = {"serving_default": signatures}
    sigs = {key: saver.concrete(_signature_concrete(value, key)) for key, value in (signatures or {}).items()}
    kinds = []
    for o in saver.nodes:
        if _trackable.is_variable(o):
            kinds.append({"kind": "variable", "trainable": bool(o.trainable), "name": o.name.split(":")[0]})
        elif isinstance(o, (list, tuple)):
            kinds.append({"kind": "list"})
        elif isinstance(o, dict):
            kinds.append({"kind": "dict"})
        else:
            kinds.append({"kind": "object"})
    tensors, graph = _collect(obj)
    os.makedirs(os.path.join(export_dir, "variables"), exist_ok=True)
    _checkpoint_io.write(os.path.join(export_dir, "variables", "variables"), tensors, graph)
    _format.write(
        export_dir,
        # signatures as [key, function] pairs: the header's dicts are written with sorted keys,
        # and the loaded `signatures` keep the order they were given in (as TF's).
        {"nodes": kinds, "functions": saver.functions, "attached": attached, "signatures": list(sigs.items())},
        saver.blobs,
    )
