"""The ``library`` of ``Graph.as_graph_def()``: the sub-graphs of ``If``/``While`` nodes written as
TensorFlow writes its branch and loop functions (``FunctionDef``: a ``signature`` with argument
names derived from the node's name scope, ``node_def``s named ``cond/mul`` whose inputs read
``node:output_arg:index``, a ``ret`` map and ``arg_attr`` shapes), and the outer-graph parts TF
adds around them (an ``Identity`` per ``If`` output, ``Tin``, ``_lower_using_switch_merge``)."""

from __future__ import annotations

import functools
import itertools
import re
from typing import Any, Dict, List, Optional, Tuple

from fn import _core
from fn._function.flat_map_order import flat_map_order


def output_ref(op: str, index: int) -> str:
    """``arg:k``, how a FunctionDef names output ``index`` of an ``op`` node (``z:0`` for AddV2):
    TF's output argument names come from the op's definition (``fn._core.op_def``). An op with
    several output arguments gives one tensor per argument (Unique's ``y``, ``idx``)."""
    args = _output_args(op)
    if len(args) > 1 and index < len(args):
        return f"{args[index]}:0"
    return f"{args[0]}:{index}"


@functools.lru_cache(maxsize=None)
def _output_args(op: str) -> Tuple[str, ...]:
    if not _core.has_op(op):  # a function call node (TF's StatefulPartitionedCall): "output"
        return ("output",)
    return tuple(_core.op_def(op)["output_args"])


_uids = itertools.count(1)
_function_names: Dict[Tuple[int, str, str], str] = {}


def sanitize(name: str) -> str:
    """TF's argument names: lower case, ``/`` and other punctuation as ``_``."""
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def function_name(sub: Any, node_name: str, kind: str) -> str:
    """``cond_true_12``: the node's name, the branch kind and a process-wide number (TF's uid), the
    same for one sub-graph however often it is printed."""
    key = (sub.id, node_name, kind)
    name = _function_names.get(key)
    if name is None:
        name = f"{sanitize(node_name)}_{kind}_{next(_uids)}"
        _function_names[key] = name
    return name


def _returns(sub: Any) -> List[str]:
    """The sub-graph's outputs as ``node`` / ``node:k`` references (from its text form)."""
    m = re.search(r"(?m)^\s*return \((.*)\)\s*$", sub.to_text())
    if not m or not m.group(1).strip():
        return []
    return [r.strip().lstrip("%") for r in m.group(1).split(",")]


def _split_ref(ref: str) -> Tuple[str, int]:
    name, _, idx = ref.partition(":")
    return name, int(idx) if idx else 0


class Library:
    """Collects the FunctionDefs of one graph's control-flow nodes (recursively)."""

    def __init__(self, make_nodes: Any) -> None:
        self._make_nodes = make_nodes  # (core, arg names, prefix, ref) -> List[NodeDef]
        self.functions: List[Any] = []
        self._seen: set = set()
        self._inserted: List[str] = []

    def in_tf_order(self) -> List[Any]:
        """The functions in the order TF prints them: its graph's function library is a
        ``gtl::FlatMap`` keyed by name, so the order is that map's slot order."""
        by_name = {f.name: f for f in self.functions}
        return [by_name[n] for n in flat_map_order(self._inserted) if n in by_name]

    def add(
        self,
        sub: Any,
        fname: str,
        node_name: str,
        outer_inputs: List[str],
        arg_specs: List[Any],
        user_names: List[Optional[str]],
        loop: Optional[str] = None,
    ) -> None:
        """Adds ``sub`` as function ``fname``: its placeholders (args first, then captures) are
        the node's ``outer_inputs``; nodes are prefixed with ``node_name/``. A While's ``loop``
        function (``"cond"``/``"body"``) also takes TF's loop counter and maximum iterations
        first; the body counts and passes every loop variable (captures too) on."""
        if fname in self._seen:
            return
        self._seen.add(fname)
        self._inserted.append(fname)  # before its nested functions, as TF adds them
        from fn._function.graph_def_proto import AttrValue, NodeDef
        from fn._tensor.tensor_spec import TensorSpec
        from fn.dtypes import int32

        placeholders = list(sub.arg_placeholders) + list(sub.capture_placeholders)
        consumers: Dict[int, str] = {}
        ph_names = {sub.node_name(i): i for i in placeholders}
        for j in range(sub.num_nodes()):
            for ref in sub.node_inputs(j):
                src = _split_ref(ref.lstrip("^"))[0]
                if src in ph_names and ph_names[src] not in consumers:
                    consumers[ph_names[src]] = sub.node_name(j)
        arg_names: Dict[str, str] = {}
        used: set = set()
        inputs: List[Tuple[str, Any, Optional[str]]] = []
        scalar = TensorSpec([], int32)
        if loop:
            for lead in ("loop_counter", "maximum_iterations"):
                arg = sanitize(f"{node_name}/{node_name.rsplit('/', 1)[-1]}_{lead}")
                used.add(arg)
                inputs.append((arg, scalar, f"{node_name}/{lead}"))
        for k, i in enumerate(placeholders):
            outer = _split_ref(outer_inputs[k])[0] if k < len(outer_inputs) else "placeholder"
            if i in consumers and k >= len(sub.arg_placeholders):
                arg = sanitize(f"{node_name}/{consumers[i]}/{outer}")
            else:
                arg = sanitize(f"{node_name}/placeholder")
            base, n = arg, 0
            while arg in used:
                n += 1
                arg = f"{base}_{n}"
            used.add(arg)
            arg_names[sub.node_name(i)] = arg
            captured = k >= len(sub.arg_placeholders)
            inputs.append((arg, arg_specs[k], user_names[k] if i in consumers and captured else None))
        nodes = self._make_nodes(sub, arg_names, node_name + "/", self)
        results = []  # (value reference, dtype) per output
        for ref in _returns(sub):
            src, idx = _split_ref(ref)
            j = _index(sub, src)
            op = sub.node_op(j)
            if op in ("If", "StatelessIf"):  # read through the Identity TF adds per If output
                src, op, idx = f"{src}/Identity" + (f"_{idx}" if idx else ""), "Identity", 0
            elif op in ("While", "StatelessWhile"):  # past TF's loop counter and limit
                idx += 2
            value = arg_names.get(src) or f"{node_name}/{src}:{output_ref(op, idx)}"
            results.append((value, sub.node_outputs(j)[idx][0]))
        if loop == "body":
            counter, limit = inputs[0][0], inputs[1][0]
            one = NodeDef(
                f"{node_name}/add/y", "Const", [], {"value": AttrValue(_int32_scalar(1)), "dtype": AttrValue(int32)}
            )
            add = NodeDef(
                f"{node_name}/add", "AddV2", [counter, f"{node_name}/add/y:output:0"], {"T": AttrValue(int32)}
            )
            nodes += [one, add]
            carried = [(arg, spec.dtype) for arg, spec, _ in inputs[2 + len(results) :]]
            results = [(f"{node_name}/add:z:0", int32), (limit, int32)] + results + carried
        rets = []
        if not loop:  # a cond branch returns through its own Identity nodes (built by fn.cond)
            for ref, (value, dt) in zip(_returns(sub), results):
                rets.append((sanitize(f"{node_name}/{_split_ref(ref)[0]}"), value, dt))
        for k, (value, dt) in enumerate(results if loop else []):
            ident = f"{node_name}/Identity" + (f"_{k}" if k else "")
            nodes.append(("identity", ident, value, dt))
            rets.append((sanitize(ident), f"{ident}:output:0", dt))
        self.functions.append(FunctionDef(fname, inputs, rets, nodes))


def _int32_scalar(v: int) -> Any:
    from fn import _core
    from fn.dtypes import int32

    return _core.convert_to_tensor(v, None, int32)


def _index(sub: Any, name: str) -> int:
    for j in range(sub.num_nodes()):
        if sub.node_name(j) == name:
            return j
    raise KeyError(name)


class FunctionDef:
    """One ``library { function { ... } }`` entry."""

    def __init__(
        self,
        name: str,
        inputs: List[Tuple[str, Any, Optional[str]]],
        rets: List[Tuple[str, str, Any]],
        nodes: List[Any],
    ) -> None:
        self.name, self.inputs, self.rets, self.nodes = name, inputs, rets, nodes

    def lines(self, ind: str) -> List[str]:
        from fn._function.graph_def_proto import AttrValue, NodeDef, _block, _DT, _quote, _shape_lines

        sig = [f"{ind}    name: {_quote(self.name)}"]
        for arg, spec, _ in self.inputs:
            sig.append(
                _block(
                    "input_arg",
                    [
                        f"{ind}      name: {_quote(arg)}",
                        f"{ind}      type: {_DT.get(spec.dtype.name, spec.dtype.name)}",
                    ],
                    ind + "    ",
                )
            )
        for ret_name, _, dt in self.rets:
            sig.append(
                _block(
                    "output_arg",
                    [f"{ind}      name: {_quote(ret_name)}", f"{ind}      type: {_DT.get(dt.name, dt.name)}"],
                    ind + "    ",
                )
            )
        out = [_block("signature", sig, ind + "  ")]
        for n in self.nodes:
            if isinstance(n, tuple):  # the output Identity TF adds per result
                _, name, value, dt = n
                n = NodeDef(name, "Identity", [value], {"T": AttrValue(dt)})
            out.append(_block("node_def", n._lines(ind + "    "), ind + "  "))
        for key, value, _ in self.rets:
            out.append(_block("ret", [f"{ind}    key: {_quote(key)}", f"{ind}    value: {_quote(value)}"], ind + "  "))
        out.append(
            _block(
                "attr",
                [
                    f"{ind}    key: \"_construction_context\"",
                    _block("value", [f"{ind}      s: \"kEagerRuntime\""], ind + "    "),
                ],
                ind + "  ",
            )
        )
        for k, (_, spec, user) in enumerate(self.inputs):
            attrs = []
            if user:
                attrs.append(
                    _block(
                        "attr",
                        [
                            f"{ind}        key: \"_user_specified_name\"",
                            _block("value", [f"{ind}          s: {_quote(user)}"], ind + "        "),
                        ],
                        ind + "      ",
                    )
                )
            shape = _block("shape", _shape_lines(spec.shape, ind + "              "), ind + "            ")
            attrs.append(
                _block(
                    "attr",
                    [
                        f"{ind}        key: \"_output_shapes\"",
                        _block("value", [_block("list", [shape], ind + "          ")], ind + "        "),
                    ],
                    ind + "      ",
                )
            )
            out.append(_block("arg_attr", [f"{ind}    key: {k}", _block("value", attrs, ind + "    ")], ind + "  "))
        return out
