"""``Graph.as_graph_def()``: the nodes of a traced graph as ``tf.compat.v1.GraphDef`` shows them.

``print(graph_def)`` writes TensorFlow's text protobuf (``node { name: "x" op: "Placeholder"
attr { key: "dtype" value { type: DT_FLOAT } } ... } versions { producer: ... }``); nodes keep
fn's op names and attrs, plus the ``T`` type attr TensorFlow's kernels carry. If/While
sub-graphs are written as TF's function ``library`` (``_graph_def_library``).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

_DT = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF", "bfloat16": "DT_BFLOAT16",
       "int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64",
       "uint8": "DT_UINT8", "uint16": "DT_UINT16", "uint32": "DT_UINT32", "uint64": "DT_UINT64",
       "bool": "DT_BOOL", "string": "DT_STRING", "resource": "DT_RESOURCE", "variant": "DT_VARIANT",
       "complex64": "DT_COMPLEX64", "complex128": "DT_COMPLEX128"}
_VAL = {"float32": "float_val", "float64": "double_val", "float16": "half_val", "int8": "int_val",
        "int16": "int_val", "int32": "int_val", "uint8": "int_val", "uint16": "int_val",
        "int64": "int64_val", "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val",
        "string": "string_val"}
# Ops whose attrs already say every type (no ``T``).
_NO_T = {"Const", "Placeholder", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
         "AssignSubVariableOp", "VarHandleOp", "Cast", "If", "StatelessIf", "While", "StatelessWhile",
         "PyCall", "NoOp", "Shape", "Size", "Rank", "CustomGradient"}

_REDUCE = {"Sum", "Prod", "Max", "Min", "Mean", "All", "Any", "ArgMax", "ArgMin", "Cumsum", "Cumprod"}


def _quote(b: Any) -> str:
    """A protobuf text string literal (C escapes, octal for other bytes)."""
    if isinstance(b, str):
        b = b.encode()
    out = []
    for c in bytes(b):
        ch = chr(c)
        if ch in "\"'\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif 32 <= c < 127:
            out.append(ch)
        else:
            out.append("\\%03o" % c)
    return '"' + "".join(out) + '"'


def _num(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if np.isnan(f):
            return "nan"
        if np.isinf(f):
            return "inf" if f > 0 else "-inf"
        if f == int(f) and abs(f) < 1e16:
            return str(int(f))
        return np.format_float_positional(v, trim="-") if abs(f) >= 1e-4 else repr(f)
    return str(int(v))


def _shape_lines(shape: Any, ind: str) -> List[str]:
    dims = getattr(shape, "dims", None) if shape is not None else None
    if dims is None:
        return [ind + "unknown_rank: true"]
    return [f"{ind}dim {{\n{ind}  size: {-1 if d is None else int(d)}\n{ind}}}" for d in dims]


def _block(name: str, lines: List[str], ind: str) -> str:
    body = "\n".join(lines)
    return f"{ind}{name} {{\n{body}\n{ind}}}" if lines else f"{ind}{name} {{\n{ind}}}"


class AttrValue:
    """One attr (``tf.compat.v1.AttrValue``): the Python value and how protobuf text shows it."""

    def __init__(self, value: Any, kind: Optional[str] = None) -> None:
        self.value = value
        self._kind = kind

    def _lines(self, ind: str) -> List[str]:
        from fn._tensor.tensor_shape import TensorShape
        from fn.dtypes import DType
        v = self.value
        if self._kind == "func":
            return [_block("func", [f"{ind}  name: {_quote(v)}"], ind)]
        if self._kind == "s" or isinstance(v, (str, bytes)):
            return [f"{ind}s: {_quote(v)}"]
        if isinstance(v, bool):
            return [f"{ind}b: {_num(v)}"]
        if isinstance(v, int):
            return [f"{ind}i: {v}"]
        if isinstance(v, float):
            return [f"{ind}f: {_num(v)}"]
        if isinstance(v, DType):
            return [f"{ind}type: {_DT.get(v.name, v.name)}"]
        if isinstance(v, TensorShape):
            return [_block("shape", _shape_lines(v, ind + "  "), ind)]
        if isinstance(v, list):
            inner = []
            for x in v:
                if isinstance(x, DType):
                    inner.append(f"{ind}  type: {_DT.get(x.name, x.name)}")
                elif isinstance(x, TensorShape):
                    inner.append(_block("shape", _shape_lines(x, ind + "    "), ind + "  "))
                elif isinstance(x, float):
                    inner.append(f"{ind}  f: {_num(x)}")
                else:
                    inner.append(f"{ind}  i: {int(x)}")
            return [_block("list", inner, ind)]
        if hasattr(v, "numpy") and hasattr(v, "dtype"):
            return [_block("tensor", _tensor_lines(v, ind + "  "), ind)]
        if hasattr(v, "num_nodes"):
            return [_block("func", [f"{ind}  name: {_quote(v.name)}"], ind)]
        return [f"{ind}s: {_quote(str(v))}"]

    def __str__(self) -> str:
        return "\n".join(self._lines("")) + "\n"

    __repr__ = __str__


def _tensor_lines(t: Any, ind: str) -> List[str]:
    name = t.dtype.name
    lines = [f"{ind}dtype: {_DT.get(name, name)}",
             _block("tensor_shape", [ln for ln in _shape_lines(t.shape, ind + "  ")
                                     if t.shape.rank != 0], ind)]
    arr = np.asarray(t.numpy())
    field = _VAL.get(name)
    if name == "string":
        lines += [f"{ind}string_val: {_quote(x)}" for x in arr.reshape(-1)]
    elif arr.size == 1 or (arr.size and field and (arr == arr.reshape(-1)[0]).all()):
        lines.append(f"{ind}{field}: {_num(arr.reshape(-1)[0])}")
    elif arr.size:
        lines.append(f"{ind}tensor_content: {_quote(arr.tobytes())}")
    return lines


class NodeDef:
    """One node of ``Graph.as_graph_def()`` (``tf.compat.v1.NodeDef``'s fields)."""

    __slots__ = ("name", "op", "input", "attr", "device")

    def __init__(self, name: str, op: str, inputs: List[str], attr: Dict[str, AttrValue]) -> None:
        self.name, self.op, self.input, self.attr, self.device = name, op, inputs, attr, ""

    def _lines(self, ind: str) -> List[str]:
        lines = [f"{ind}name: {_quote(self.name)}", f"{ind}op: {_quote(self.op)}"]
        lines += [f"{ind}input: {_quote(i)}" for i in self.input]
        if self.device:
            lines.append(f"{ind}device: {_quote(self.device)}")
        for k, v in self.attr.items():
            value = _block("value", v._lines(ind + "    "), ind + "  ")
            lines.append(f"{ind}attr {{\n{ind}  key: {_quote(k)}\n{value}\n{ind}}}")
        return lines

    def __str__(self) -> str:
        return "\n".join(self._lines("")) + "\n"

    def __repr__(self) -> str:
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class GraphDef:
    """``Graph.as_graph_def()``: the nodes, in order; prints as TensorFlow's text protobuf."""

    def __init__(self, node: List[NodeDef], functions: Optional[List[Any]] = None) -> None:
        self.node = node
        self._functions = functions or []

    def __str__(self) -> str:
        from fn import version
        parts = [_block("node", n._lines("  "), "") for n in self.node]
        versions = [f"  producer: {version.GRAPH_DEF_VERSION}"]
        if self._functions:
            parts.append(_block("library", [_block("function", f.lines("  "), "  ") for f in self._functions], ""))
            versions.append("  min_consumer: 12")
        parts.append(_block("versions", versions, ""))
        return "\n".join(parts) + "\n"

    def __repr__(self) -> str:
        return str(self)


_IF = {"If", "StatelessIf"}
_WHILE = {"While", "StatelessWhile"}


def graph_def(core: Any) -> GraphDef:
    """The GraphDef of a C++ graph (``fn._core.Graph``), with its control flow's functions."""
    from fn._function.graph_def_library import Library
    library = Library(_node_defs)
    nodes = _node_defs(core, None, "", library)
    return GraphDef(nodes, library.in_tf_order())


def _node_defs(core: Any, arg_names: Optional[Dict[str, str]], prefix: str, library: Any) -> List[Any]:
    """The NodeDefs of ``core``: the top-level graph (``arg_names`` None), or a function body whose
    placeholders are the arguments ``arg_names`` and whose nodes are named ``prefix + name``."""
    from fn._function.graph_def_library import _output_arg, function_name
    from fn._tensor.tensor_spec import TensorSpec
    n = core.num_nodes()
    names = [core.node_name(i) for i in range(n)]
    ops = [core.node_op(i) for i in range(n)]
    outs = [core.node_outputs(i) for i in range(n)]
    dtype_of, spec_of = {}, {}
    for i in range(n):
        for k, (dt, shape) in enumerate(outs[i]):
            key = names[i] if k == 0 else f"{names[i]}:{k}"
            dtype_of[key] = dt
            spec_of[key] = TensorSpec(shape, dt)
    args = set()
    try:
        args = {names[i] for i in core.arg_placeholders}
    except (AttributeError, TypeError, IndexError):
        pass
    redirect: Dict[str, str] = {}   # an If output -> the Identity TF reads it through

    def ref(r: str) -> str:
        control = r.startswith("^")
        r = r.lstrip("^")
        r = redirect.get(r, r)
        src, _, idx = r.partition(":")
        if arg_names is None:
            out = r
        elif src in arg_names:
            out = arg_names[src]
        else:
            j = names.index(src) if src in names else -1
            op = ops[j] if j >= 0 else "Identity"
            out = f"{prefix}{src}:{_output_arg(op)}:{idx or 0}"
        return ("^" + prefix + src) if control else out

    nodes: List[Any] = []
    for i in range(n):
        op = ops[i]
        if arg_names is not None and names[i] in arg_names:
            continue
        inputs = list(core.node_inputs(i))
        attr: Dict[str, AttrValue] = {}
        for k in core.node_attr_names(i):
            v = core.node_attr(i, k)
            if v is not None:
                attr[k] = AttrValue(v)
        data_inputs = [x for x in inputs if not x.startswith("^")]
        if op not in _NO_T and "T" not in attr and (data_inputs or outs[i]):
            t = dtype_of.get(data_inputs[0]) if data_inputs else outs[i][0][0]
            if t is not None:
                attr["T"] = AttrValue(t)
        if op in _REDUCE and "Tidx" not in attr and len(data_inputs) > 1:
            attr["Tidx"] = AttrValue(dtype_of.get(data_inputs[1]))
        if op == "Placeholder":
            attr = {k: attr[k] for k in ("shape", "dtype") if k in attr} | attr   # TF's order
            if names[i] in args:
                attr["_user_specified_name"] = AttrValue(names[i], "s")
        if op in _IF or op in _WHILE:
            attr = _control_flow_attrs(core, i, names[i], prefix, op, data_inputs, attr, dtype_of, spec_of,
                                       args if arg_names is None else set(), library, function_name)
        node_inputs = [ref(x) for x in inputs]
        if op in _WHILE:   # TF's loop counter and maximum iterations are the first two loop variables
            limit = attr.pop("maximum_iterations", None)
            limit = limit.value if limit is not None and limit.value is not None else -1
            lead = []
            for what, value in (("maximum_iterations", limit), ("loop_counter", 0)):
                cname = f"{names[i]}/{what}"
                const = _int32_const(value)
                nodes.append(NodeDef(prefix + cname, "Const", [], {"value": AttrValue(const),
                                                                     "dtype": AttrValue(const.dtype)}))
                names.append(cname)
                ops.append("Const")
                lead.append(ref(cname))
            node_inputs = lead[::-1] + node_inputs
            for k in range(len(outs[i])):
                redirect[names[i] if k == 0 else f"{names[i]}:{k}"] = f"{names[i]}:{k + 2}"
        nodes.append(NodeDef(prefix + names[i], op, node_inputs, attr))
        if op in _IF:   # TF reads each output of a cond through an Identity in its scope
            for k, (dt, _) in enumerate(outs[i]):
                ident = f"{names[i]}/Identity" + (f"_{k}" if k else "")
                src = names[i] if k == 0 else f"{names[i]}:{k}"
                value = src if arg_names is None else f"{prefix}{names[i]}:output:{k}"
                nodes.append(NodeDef(prefix + ident, "Identity", [value], {"T": AttrValue(dt)}))
                redirect[src] = ident
                names.append(ident)
                ops.append("Identity")
    return nodes


def _int32_const(v: int) -> Any:
    from fn import _core
    from fn.dtypes import int32
    return _core.convert_to_tensor(v, None, int32)


def _control_flow_attrs(core: Any, i: int, name: str, prefix: str, op: str, data_inputs: List[str],
                        attr: Dict[str, AttrValue], dtype_of: Dict[str, Any], spec_of: Dict[str, Any],
                        args: set, library: Any, function_name: Any) -> Dict[str, AttrValue]:
    """An If/While node's attrs in TF's order, its sub-graphs added to ``library``."""
    scope = prefix + name
    subs = dict(core.node_subgraphs(i))
    attr.pop("_compiled", None)
    empty = AttrValue([])
    if op in _IF:
        outer = data_inputs[1:]
        specs = [spec_of.get(x) for x in outer]
        users = [x if x in args else None for x in outer]
        fnames = {}
        for key, kind in (("then_branch", "true"), ("else_branch", "false")):
            fnames[key] = function_name(subs[key], scope, kind)
            library.add(subs[key], fnames[key], scope, outer, specs, users)
        out = {"then_branch": AttrValue(fnames["then_branch"], "func")}
        if "output_shapes" in attr:
            out["output_shapes"] = attr["output_shapes"]
        out["else_branch"] = AttrValue(fnames["else_branch"], "func")
        out["_read_only_resource_inputs"] = empty
        out["_lower_using_switch_merge"] = AttrValue(True)
        for k in ("Tout",):
            if k in attr:
                out[k] = attr[k]
        out["Tin"] = AttrValue([dtype_of.get(x) for x in outer])
        out.update({k: v for k, v in attr.items() if k not in out and k not in ("then_branch", "else_branch")})
        return out
    from fn._tensor.tensor_shape import TensorShape
    from fn.dtypes import int32
    outer = data_inputs
    specs = [spec_of.get(x) for x in outer]
    users = [x if x in args else None for x in outer]
    out = {}
    if "parallel_iterations" in attr:
        out["parallel_iterations"] = attr["parallel_iterations"]
    out["output_shapes"] = AttrValue([TensorShape([]), TensorShape([])] + [s.shape for s in specs])
    fnames = {key: function_name(subs[key], scope, key) for key in ("cond", "body")}
    for key in ("cond", "body"):   # the order while_v2 adds them to the graph
        library.add(subs[key], fnames[key], scope, outer, specs, users, loop=key)
    out["cond"] = AttrValue(fnames["cond"], "func")
    out["body"] = AttrValue(fnames["body"], "func")
    out["_read_only_resource_inputs"] = empty
    out["_num_original_outputs"] = AttrValue(len(outer) + 2)
    out["_lower_using_switch_merge"] = AttrValue(True)
    out["T"] = AttrValue([int32, int32] + [s.dtype for s in specs])
    out.update({k: v for k, v in attr.items() if k not in out and k != "output_shapes"})
    return out
