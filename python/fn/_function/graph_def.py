"""``Graph.as_graph_def()``: the nodes of a traced graph as ``tf.compat.v1.GraphDef`` shows them.

``print(graph_def)`` writes TensorFlow's text protobuf (``node { name: "x" op: "Placeholder"
attr { key: "dtype" value { type: DT_FLOAT } } ... } versions { producer: ... }``); nodes keep
fn's op names and attrs, plus the ``T`` type attr TensorFlow's kernels carry. If/While
sub-graphs are written as TF's function ``library`` (``_graph_def_library``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional


from fn import _core
from fn._function.graph_def_library import Library, function_name, output_ref
from fn._function.graph_def_proto import AttrValue, GraphDef, NodeDef
from fn._runtime.device import node_device
from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import int32

_NO_T = {
    "Const",
    "Placeholder",
    "ReadVariableOp",
    "AssignVariableOp",
    "AssignAddVariableOp",
    "AssignSubVariableOp",
    "VarHandleOp",
    "Cast",
    "If",
    "StatelessIf",
    "While",
    "StatelessWhile",
    "PyCall",
    "NoOp",
    "Shape",
    "Size",
    "Rank",
    "CustomGradient",
}

_REDUCE = {"Sum", "Prod", "Max", "Min", "Mean", "All", "Any", "ArgMax", "ArgMin", "Cumsum", "Cumprod"}


_IF = {"If", "StatelessIf"}
_WHILE = {"While", "StatelessWhile"}


def graph_def(core: Any) -> GraphDef:
    """The GraphDef of a C++ graph (``fn._core.Graph``), with its control flow's functions."""
    library = Library(_node_defs)
    nodes = _node_defs(core, None, "", library)
    return GraphDef(nodes, library.in_tf_order())


def _node_defs(core: Any, arg_names: Optional[Dict[str, str]], prefix: str, library: Any) -> List[Any]:
    """The NodeDefs of ``core``: the top-level graph (``arg_names`` None), or a function body whose
    placeholders are the arguments ``arg_names`` and whose nodes are named ``prefix + name``."""
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
    redirect: Dict[str, str] = {}  # an If output -> the Identity TF reads it through

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
            out = f"{prefix}{src}:{output_ref(op, int(idx or 0))}"
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
            attr = {k: attr[k] for k in ("shape", "dtype") if k in attr} | attr  # TF's order
            if names[i] in args:  # the name asked for (`x` for a placeholder named `x_1`)
                attr["_user_specified_name"] = AttrValue(core.node_attr(i, "_user_specified_name") or names[i], "s")
            else:
                attr.pop("_user_specified_name", None)
        if op in _IF or op in _WHILE:
            attr = _control_flow_attrs(
                core,
                i,
                names[i],
                prefix,
                op,
                data_inputs,
                attr,
                dtype_of,
                spec_of,
                args if arg_names is None else set(),
                library,
                function_name,
            )
        node_inputs = [ref(x) for x in inputs]
        if op in _WHILE:  # TF's loop counter and maximum iterations are the first two loop variables
            limit_attr = attr.pop("maximum_iterations", None)
            limit = limit_attr.value if limit_attr is not None and limit_attr.value is not None else -1
            lead = []
            for what, start in (("maximum_iterations", limit), ("loop_counter", 0)):
                cname = f"{names[i]}/{what}"
                const = _int32_const(start)
                nodes.append(
                    NodeDef(prefix + cname, "Const", [], {"value": AttrValue(const), "dtype": AttrValue(const.dtype)})
                )
                names.append(cname)
                ops.append("Const")
                lead.append(ref(cname))
            node_inputs = lead[::-1] + node_inputs
            for k in range(len(outs[i])):
                redirect[names[i] if k == 0 else f"{names[i]}:{k}"] = f"{names[i]}:{k + 2}"
        nd = NodeDef(prefix + names[i], op, node_inputs, attr)
        nd.device = node_device(core, i)
        nodes.append(nd)
        if op in _IF:  # TF reads each output of a cond through an Identity in its scope
            for k, (dt, _) in enumerate(outs[i]):
                ident = f"{names[i]}/Identity" + (f"_{k}" if k else "")
                src = names[i] if k == 0 else f"{names[i]}:{k}"
                read = src if arg_names is None else f"{prefix}{names[i]}:output:{k}"
                nodes.append(NodeDef(prefix + ident, "Identity", [read], {"T": AttrValue(dt)}))
                redirect[src] = ident
                names.append(ident)
                ops.append("Identity")
    return nodes


def _int32_const(v: int) -> Any:
    return _core.convert_to_tensor(v, None, int32)


def _control_flow_attrs(
    core: Any,
    i: int,
    name: str,
    prefix: str,
    op: str,
    data_inputs: List[str],
    attr: Dict[str, AttrValue],
    dtype_of: Dict[str, Any],
    spec_of: Dict[str, Any],
    args: set,
    library: Any,
    function_name: Any,
) -> Dict[str, AttrValue]:
    """An If/While node's attrs in TF's order, its sub-graphs added to ``library``."""
    scope = prefix + name
    subs = dict(core.node_subgraphs(i))
    attr.pop("_compiled", None)
    empty = AttrValue([])
    if op in _IF:
        outer = data_inputs[1:]
        specs = [spec_of[x] for x in outer]
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
    outer = data_inputs
    specs = [spec_of.get(x) for x in outer]
    users = [x if x in args else None for x in outer]
    out = {}
    if "parallel_iterations" in attr:
        out["parallel_iterations"] = attr["parallel_iterations"]
    out["output_shapes"] = AttrValue([TensorShape([]), TensorShape([])] + [s.shape for s in specs])
    fnames = {key: function_name(subs[key], scope, key) for key in ("cond", "body")}
    for key in ("cond", "body"):  # the order while_v2 adds them to the graph
        library.add(subs[key], fnames[key], scope, outer, specs, users, loop=key)
    out["cond"] = AttrValue(fnames["cond"], "func")
    out["body"] = AttrValue(fnames["body"], "func")
    out["_read_only_resource_inputs"] = empty
    out["_num_original_outputs"] = AttrValue(len(outer) + 2)
    out["_lower_using_switch_merge"] = AttrValue(True)
    out["T"] = AttrValue([int32, int32] + [s.dtype for s in specs])
    out.update({k: v for k, v in attr.items() if k not in out and k != "output_shapes"})
    return out
