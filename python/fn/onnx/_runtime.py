"""Makes an exported ONNX model runnable by onnxruntime's CPU kernels: a node whose element type
has no kernel (``Erf`` on float16, ``Where`` on bool, ``Conv`` on float16...) computes in a wider
type that holds every value of its own (float16 -> float, int8 -> int32, bool -> int32) between
two ``Cast`` nodes. A node with no lossless widening (float64 ``Erf``, float64 ``Conv``) is refused
at export with an error naming the op and the type, rather than written as a model that fails to
load. The kernel table is generated from onnxruntime (tools/onnx_ort_kernels.py)."""

from __future__ import annotations

import itertools
from typing import Any, Dict, List, Optional, Tuple

from fn.onnx._ort_kernels import KERNELS

# Wider types that represent every value of the key, nearest first.
_WIDER = {
    "float16": ["float", "double"],
    "bfloat16": ["float", "double"],
    "float": ["double"],
    "bool": ["int32", "uint8", "int8", "int64", "float"],
    "int8": ["int32", "int16", "int64", "float", "double"],
    "uint8": ["int32", "int16", "int64", "float", "double"],
    "int16": ["int32", "int64", "float", "double"],
    "int32": ["int64", "double"],
    "uint16": ["int32", "int64", "float", "double"],
    "uint32": ["int64", "double"],
}
# Ops that carry values through unchanged for every type fn has (no kernel check needed).
_ANY_TYPE = {"Constant", "Identity", "If", "Loop", "Cast"}


def _type_names(onnx: Any) -> Dict[int, str]:
    tp = onnx.TensorProto
    return {
        tp.FLOAT: "float",
        tp.DOUBLE: "double",
        tp.FLOAT16: "float16",
        tp.BFLOAT16: "bfloat16",
        tp.INT8: "int8",
        tp.UINT8: "uint8",
        tp.INT16: "int16",
        tp.INT32: "int32",
        tp.INT64: "int64",
        tp.BOOL: "bool",
        tp.STRING: "string",
        tp.UINT16: "uint16",
        tp.UINT32: "uint32",
        tp.UINT64: "uint64",
    }


class _Typer:
    def __init__(self, onnx: Any, opset: int) -> None:
        self.onnx, self.opset = onnx, opset
        self.names = _type_names(onnx)
        self.codes = {v: k for k, v in self.names.items()}
        self.count = itertools.count()

    def collect(self, graph: Any, types: Dict[str, str]) -> Dict[str, str]:
        types = dict(types)
        for vi in itertools.chain(graph.input, graph.output, graph.value_info):
            t = vi.type.tensor_type.elem_type if vi.type.HasField("tensor_type") else 0
            if t in self.names:
                types[vi.name] = self.names[t]
        for init in graph.initializer:
            types[init.name] = self.names.get(init.data_type, "")
        for node in graph.node:
            if node.op_type == "Constant":
                for a in node.attribute:
                    if a.name == "value":
                        types[node.output[0]] = self.names.get(a.t.data_type, "")
        return types

    def bindings(self, node: Any) -> Dict[str, List[Tuple[bool, int]]]:
        """Constraint name -> the (is_output, index) positions bound to it, from the op schema."""
        schema = self.onnx.defs.get_schema(node.op_type, self.opset)
        out: Dict[str, List[Tuple[bool, int]]] = {}
        for is_out, formals, actual in ((False, schema.inputs, node.input), (True, schema.outputs, node.output)):
            for i, name in enumerate(actual):
                if not name:
                    continue
                formal = formals[min(i, len(formals) - 1)]
                out.setdefault(formal.type_str, []).append((is_out, i))
        return out

    def actual(self, node: Any, types: Dict[str, str]) -> Dict[str, str]:
        """Constraint name -> the element type ``node`` binds it to (where known)."""
        out: Dict[str, str] = {}
        for c, positions in self.bindings(node).items():
            for is_out, i in positions:
                t = types.get((node.output if is_out else node.input)[i])
                if t:
                    out[c] = t
                    break
        return out

    def plan(self, node: Any, types: Dict[str, str]) -> Optional[Dict[str, str]]:
        """The constraint -> type substitutions that make ``node`` runnable ({} when it already is),
        or None when no lossless widening has a kernel."""
        combos = KERNELS.get(node.op_type)
        if combos is None or node.op_type in _ANY_TYPE:
            return {}
        actual = self.actual(node, types)
        best: Optional[Dict[str, str]] = None
        for combo in combos:
            subst: Dict[str, str] = {}
            for c, allowed in combo.items():
                t = actual.get(c)
                if t is None or t in allowed:
                    continue
                wider = next((w for w in _WIDER.get(t, []) if w in allowed), None)
                if wider is None:
                    break
                subst[c] = wider
            else:
                if best is None or len(subst) < len(best):
                    best = subst
                if not subst:
                    return subst
        return best

    def rewrite(self, graph: Any, outer: Dict[str, str]) -> None:
        types = self.collect(graph, outer)
        nodes: List[Any] = []
        for node in graph.node:
            for a in node.attribute:
                if a.HasField("g"):
                    self.rewrite(a.g, types)
            subst = self.plan(node, types)
            if subst is None:
                t = {types.get(x) for x in node.input if x} - {None}
                raise NotImplementedError(
                    f"fn.onnx.export: onnxruntime has no {node.op_type} kernel for {', '.join(sorted(str(x) for x in t))} inputs "
                    f"(node '{node.name}') and no wider type holds the values exactly; compute this op in float32 "
                    "(tf.cast) before exporting."
                )
            if not subst:
                nodes.append(node)
                continue
            nodes.extend(self.widen(node, subst, types))
        del graph.node[:]
        graph.node.extend(nodes)

    def widen(self, node: Any, subst: Dict[str, str], types: Dict[str, str]) -> List[Any]:
        helper = self.onnx.helper
        before, after = [], []
        actual = self.actual(node, types)
        for c, positions in self.bindings(node).items():
            if c not in subst:
                continue
            code = self.codes[subst[c]]
            for is_out, i in positions:
                if is_out:
                    orig = node.output[i]
                    wide = f"{orig}/wide_{next(self.count)}"
                    node.output[i] = wide
                    after.append(
                        helper.make_node("Cast", [wide], [orig], name=wide + "/back", to=self.codes[actual[c]])
                    )
                else:
                    orig = node.input[i]
                    wide = f"{orig}/as_{subst[c]}_{next(self.count)}"
                    node.input[i] = wide
                    before.append(helper.make_node("Cast", [orig], [wide], name=wide, to=code))
        return before + [node] + after


def make_runnable(model: Any, opset: int) -> Any:
    """Rewrites ``model`` in place so every node has an onnxruntime CPU kernel for its types."""
    import onnx

    inferred = onnx.shape_inference.infer_shapes(model)
    typer = _Typer(onnx, opset)
    # shape inference adds the intermediate types; rewrite the inferred copy and keep its nodes
    typer.rewrite(inferred.graph, {})
    del model.graph.node[:]
    model.graph.node.extend(inferred.graph.node)
    return model
