"""``fn.onnx.export``: a concrete function's graph as an ONNX model (opset 18). Each fn op maps
to a few ONNX nodes; NHWC convolutions and pools are wrapped in transposes; ``If`` and ``While``
become ONNX ``If`` and ``Loop`` whose sub-graphs read outer values by name; variables become
initializers holding their current values. An op with no mapping is an error naming it."""

from __future__ import annotations

import itertools
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from fn import _core
from fn.onnx import _ir, _runtime
from fn._function.function import ConcreteFunction, Function
from fn.saved_model._save import _is_keras_model
from fn._tensor.tensor_spec import TensorSpec
from fn._function.function import _walk
from fn.saved_model._save import _keras_default_signature
from fn._state.serialize import atomic_write

OPSET = 18
_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


def _onnx() -> Any:
    try:
        import onnx
        from onnx import helper
    except ImportError as e:  # pragma: no cover
        raise ImportError("fn.onnx.export needs the `onnx` package (pip install onnx)") from e
    return onnx, helper


class _Scope:
    """One (sub-)graph being converted: its ONNX nodes, and the ONNX name of each fn value."""

    def __init__(self, exporter: "_Exporter", graph: _ir.Graph, prefix: str, feeds: Dict[int, str]) -> None:
        self.x, self.g, self.prefix = exporter, graph, prefix
        self.nodes: List[Any] = []
        self.names: Dict[Tuple[int, int], str] = {}
        self.consts: Dict[Tuple[int, int], np.ndarray] = {}
        self.feeds = feeds  # placeholder node index -> ONNX name

    def fresh(self, hint: str) -> str:
        return self.x.fresh(self.prefix + hint)

    def add(self, op: str, inputs: Sequence[str], n_out: int = 1, name: str = "", **attrs: Any) -> List[str]:
        outs = [self.fresh((name or op) + f":{i}") for i in range(n_out)]
        self.nodes.append(self.x.helper.make_node(op, list(inputs), outs, name=self.fresh(name or op), **attrs))
        return outs

    def one(self, op: str, inputs: Sequence[str], **attrs: Any) -> str:
        return self.add(op, inputs, **attrs)[0]

    def const(self, value: Any, dtype: Any = None) -> str:
        arr = np.asarray(value, dtype=dtype)
        out = self.fresh("const")
        self.nodes.append(
            self.x.helper.make_node("Constant", [], [out], name=out, value=self.x.numpy_helper.from_array(arr, out))
        )
        return out

    def value(self, ref: Tuple[int, int]) -> str:
        return self.names[ref]

    def static(self, ref: Tuple[int, int], node: _ir.Node, what: str) -> np.ndarray:
        if ref not in self.consts:
            raise NotImplementedError(
                f"fn.onnx.export: {node.op} node '{node.name}' needs a constant {what}; it is "
                "computed at run time, which this exporter does not support."
            )
        return self.consts[ref]


def _facts(op: str) -> Optional[Dict[str, Any]]:
    """The op's facts from its C++ definition (``_core.op_def``); None for a type fn has no op of.
    An op whose definition names its ONNX equivalent (``with_class(..., "Add")``) is exported by
    that fact alone: adding such an op needs no line here."""
    d = _FACTS.get(op)
    if d is None and op not in _FACTS:
        d = _FACTS[op] = _core.op_def(op) if _core.has_op(op) else None
    return d


_FACTS: Dict[str, Optional[Dict[str, Any]]] = {}


class _Exporter:
    def __init__(self) -> None:
        onnx, helper = _onnx()
        from onnx import numpy_helper

        self.onnx, self.helper, self.numpy_helper = onnx, helper, numpy_helper
        self._count = itertools.count()
        self.used: set = set()
        self.initializers: List[Any] = []

    def fresh(self, hint: str) -> str:
        hint = hint.replace(" ", "_")
        name = hint
        while name in self.used:
            name = f"{hint}_{next(self._count)}"
        self.used.add(name)
        return name

    def elem(self, dtype: str) -> int:
        table = {
            "float32": "FLOAT",
            "float64": "DOUBLE",
            "float16": "FLOAT16",
            "bfloat16": "BFLOAT16",
            "int8": "INT8",
            "uint8": "UINT8",
            "uint16": "UINT16",
            "uint32": "UINT32",
            "uint64": "UINT64",
            "int16": "INT16",
            "int32": "INT32",
            "int64": "INT64",
            "bool": "BOOL",
            "string": "STRING",
        }
        if dtype not in table:
            raise NotImplementedError(f"fn.onnx.export: dtype {dtype} has no ONNX equivalent")
        return getattr(self.onnx.TensorProto, table[dtype])

    def value_info(self, name: str, spec: _ir.Spec) -> Any:
        # Unknown dimensions get symbolic names.
        shape = None if spec.shape is None else [d if d >= 0 else f"{name}_dim{i}" for i, d in enumerate(spec.shape)]
        return self.helper.make_tensor_value_info(name, self.elem(spec.dtype), shape)

    # -- graphs
    def convert(self, scope: _Scope) -> None:
        for i, node in enumerate(scope.g.nodes):
            if i in scope.feeds:
                scope.names[(i, 0)] = scope.feeds[i]
                continue
            handler = getattr(self, "op_" + node.op, None)
            ins: List[Any] = [scope.names.get(r) for r in node.inputs]
            facts = _facts(node.op)
            onnx_op, op_class = (facts["onnx"], facts["op_class"]) if facts else ("", "")
            if onnx_op and op_class in ("unary", "binary"):
                outs = [scope.one(onnx_op, ins[: 1 if op_class == "unary" else 2], name=node.name)]
            elif onnx_op and op_class == "reduction":
                outs = [self.reduce(scope, node, ins, onnx_op)]
            elif handler is not None:
                outs = handler(scope, node, ins)
            else:
                raise NotImplementedError(
                    f"fn.onnx.export: op '{node.op}' (node '{node.name}') cannot be exported to ONNX. Supported "
                    f"ops: {', '.join(sorted(supported_ops()))}."
                )
            for k, name in enumerate(outs):
                scope.names[(i, k)] = name
            if node.op == "Const":
                scope.consts[(i, 0)] = node.attrs["value"]
            elif node.op == "Identity" and node.inputs and node.inputs[0] in scope.consts:
                scope.consts[(i, 0)] = scope.consts[node.inputs[0]]

    def subgraph(
        self,
        outer: _Scope,
        g: _ir.Graph,
        prefix: str,
        arg_names: Sequence[str],
        captured: Sequence[str],
        carried_outputs: Optional[Callable[[_Scope], List[str]]] = None,
    ) -> Tuple[_Scope, List[str]]:
        """Converts ``g`` with its argument placeholders fed ``arg_names`` and capture placeholders
        the outer names ``captured`` (ONNX sub-graphs see outer values by name)."""
        feeds = dict(zip(g.args, arg_names))
        feeds.update(zip(g.captures, captured))
        scope = _Scope(self, g, prefix, feeds)
        self.convert(scope)
        outs = [scope.names[r] for r in g.outputs]
        return scope, outs

    def make_graph(self, scope: _Scope, name: str, inputs: List[Any], outputs: List[Tuple[str, _ir.Spec]]) -> Any:
        out_infos, nodes = [], list(scope.nodes)
        for n, spec in outputs:
            final = self.fresh(name + "_out")
            nodes.append(self.helper.make_node("Identity", [n], [final], name=final))
            out_infos.append(self.value_info(final, spec))
        return self.helper.make_graph(nodes, name, inputs, out_infos)

    # -- ops
    def op_Const(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.const(n.attrs["value"])]

    def op_Placeholder(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        raise NotImplementedError(f"fn.onnx.export: placeholder '{n.name}' has no value")

    def op_ReadVariableOp(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Identity", ins[:1], name=n.name)]

    def op_Cast(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Cast", ins[:1], name=n.name, to=self.elem(n.attrs["DstT"][1]))]

    def op_BiasAdd(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        bias = ins[1]
        if str(n.attrs.get("data_format", "NHWC")).startswith(
            "NC"
        ):  # the bias runs along dim 1: [C, 1, ..., 1] broadcasts there
            shape = n.outputs[0].shape
            if shape is None:
                raise NotImplementedError(f"fn.onnx.export: BiasAdd node '{n.name}' (NCHW) needs a known rank")
            bias = s.one("Reshape", [bias, s.const([-1] + [1] * (len(shape) - 2), np.int64)])
        return [s.one("Add", [ins[0], bias], name=n.name)]

    def op_Square(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Mul", [ins[0], ins[0]], name=n.name)]

    def op_SquaredDifference(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        d = s.one("Sub", ins[:2])
        return [s.one("Mul", [d, d], name=n.name)]

    def op_Rsqrt(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Reciprocal", [s.one("Sqrt", ins[:1])], name=n.name)]

    def op_Relu(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        if n.outputs[0].dtype.startswith(("int", "uint")):  # no integer Relu kernels in onnxruntime
            zero = s.one("Cast", [s.const(0, np.int32)], to=self.elem(n.outputs[0].dtype))
            return [s.one("Max", [ins[0], zero], name=n.name)]
        return [s.one("Relu", ins[:1], name=n.name)]

    def op_Relu6(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        dt = np.dtype(_ir._NP[n.outputs[0].dtype])
        return [s.one("Clip", [ins[0], s.const(0, dt), s.const(6, dt)], name=n.name)]

    def op_NotEqual(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Not", [s.one("Equal", ins[:2])], name=n.name)]

    def op_SelectV2(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Where", ins[:3], name=n.name)]

    op_Select = op_SelectV2

    def op_Softmax(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Softmax", ins[:1], name=n.name, axis=-1)]

    def op_LogSoftmax(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("LogSoftmax", ins[:1], name=n.name, axis=-1)]

    def op_MatMul(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        a, b = ins[0], ins[1]
        if n.attrs.get("transpose_a") or n.attrs.get("adj_x"):
            a = self._swap_last(s, a, n.outputs[0].shape)
        if n.attrs.get("transpose_b") or n.attrs.get("adj_y"):
            b = self._swap_last(s, b, n.outputs[0].shape)
        return [s.one("MatMul", [a, b], name=n.name)]

    op_BatchMatMulV2 = op_MatMul
    op_BatchMatMul = op_MatMul

    def _swap_last(self, s: _Scope, x: str, shape: Optional[List[int]]) -> str:
        if shape is None:
            raise NotImplementedError("fn.onnx.export: a transposed matmul needs a known rank")
        r = len(shape)
        perm = list(range(r - 2)) + [r - 1, r - 2]
        return s.one("Transpose", [x], perm=perm)

    def reduce(self, s: _Scope, n: _ir.Node, ins: List[str], onnx_op: str) -> str:
        """A Reduction op (its definition's class) as ONNX's ``onnx_op`` over the same axes (bools
        as int32 0/1, as its definition states for Any/All)."""
        axes = s.one("Cast", [ins[1]], to=self.onnx.TensorProto.INT64)
        axes = s.one("Reshape", [axes, s.const([-1], np.int64)])
        x = ins[0]
        keep = int(bool(n.attrs.get("keep_dims")))
        boolean = n.outputs[0].dtype == "bool"
        if boolean:
            x = s.one("Cast", [x], to=self.onnx.TensorProto.INT32)
        if onnx_op == "ReduceMean":
            # ReduceMean of nothing is 0 in onnxruntime, NaN in TF: the sum over the count
            total = s.one("ReduceSum", [x, axes], keepdims=keep, noop_with_empty_axes=0)
            dims = s.one("Shape", [x])
            rank = s.one("Size", [dims])
            pos = s.one("Where", [s.one("Less", [axes, s.const(0, np.int64)]), s.one("Add", [axes, rank]), axes])
            count = s.one("ReduceProd", [s.one("Gather", [dims, pos]), s.const([0], np.int64)], keepdims=0)
            return s.one("Div", [total, s.one("Cast", [count], to=self.elem(n.outputs[0].dtype))], name=n.name)
        out = s.one(onnx_op, [x, axes], keepdims=keep, noop_with_empty_axes=0)
        if onnx_op in ("ReduceMax", "ReduceMin") and n.outputs[0].dtype.startswith(("float", "bfloat")):
            # TF's max/min of a slice holding NaN is NaN; onnxruntime skips NaNs
            nan = s.one("Cast", [s.const(np.nan, np.float32)], to=self.elem(n.outputs[0].dtype))
            isnan = s.one("Cast", [s.one("Not", [s.one("Equal", [x, x])])], to=self.onnx.TensorProto.INT32)
            any_nan = s.one(
                "Greater",
                [s.one("ReduceMax", [isnan, axes], keepdims=keep, noop_with_empty_axes=0), s.const(0, np.int32)],
            )
            return s.one("Where", [any_nan, nan, out], name=n.name)
        out = s.one("Identity", [out], name=n.name)
        # an empty All/Any reduces to INT_MAX/INT_MIN: true/false as TF's
        return s.one("Greater", [out, s.const(0, np.int32)], name=n.name) if boolean else out

    def op_ArgMax(self, s: _Scope, n: _ir.Node, ins: List[str], op: str = "ArgMax") -> List[str]:
        axis = int(s.static(n.inputs[1], n, "axis"))
        out = s.one(op, [ins[0]], axis=axis, keepdims=0)
        if n.outputs[0].dtype != "int64":
            out = s.one("Cast", [out], to=self.elem(n.outputs[0].dtype))
        return [out]

    def op_ArgMin(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return self.op_ArgMax(s, n, ins, "ArgMin")

    def _i64(self, s: _Scope, x: str) -> str:
        return s.one("Cast", [x], to=self.onnx.TensorProto.INT64)

    def op_Reshape(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Reshape", [ins[0], self._i64(s, ins[1])], name=n.name)]

    def op_Transpose(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        perm = [int(p) for p in s.static(n.inputs[1], n, "perm")]
        return [s.one("Transpose", [ins[0]], name=n.name, perm=perm)]

    def op_ConcatV2(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        axis = int(s.static(n.inputs[-1], n, "axis"))
        return [s.one("Concat", ins[:-1], name=n.name, axis=axis)]

    def op_Pack(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        axis = int(n.attrs.get("axis", 0))
        parts = [s.one("Unsqueeze", [x, s.const([axis], np.int64)]) for x in ins]
        return [s.one("Concat", parts, name=n.name, axis=axis)]

    def op_ExpandDims(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        axis = self._i64(s, s.one("Reshape", [ins[1], s.const([-1], np.int64)]))
        return [s.one("Unsqueeze", [ins[0], axis], name=n.name)]

    def op_Squeeze(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        dims = n.attrs.get("squeeze_dims") or []
        if not dims:
            return [s.one("Squeeze", [ins[0]], name=n.name)]
        return [s.one("Squeeze", [ins[0], s.const(list(dims), np.int64)], name=n.name)]

    def op_Shape(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        out = s.one("Shape", ins[:1])
        return [s.one("Cast", [out], name=n.name, to=self.elem(n.outputs[0].dtype))]

    def op_Size(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        out = s.one("Size", ins[:1])
        return [s.one("Cast", [out], name=n.name, to=self.elem(n.outputs[0].dtype))]

    def op_Fill(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Expand", [ins[1], self._i64(s, ins[0])], name=n.name)]

    def op_Range(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Range", ins[:3], name=n.name)]

    def op_Tile(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Tile", [ins[0], self._i64(s, ins[1])], name=n.name)]

    def op_GatherV2(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        axis = int(s.static(n.inputs[2], n, "axis")) if len(ins) > 2 else 0
        return [s.one("Gather", ins[:2], name=n.name, axis=axis)]

    def op_FloorMod(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        x, y = ins[0], ins[1]
        if n.outputs[0].dtype not in ("float16", "bfloat16", "float32", "float64"):
            return [s.one("Mod", [x, y], name=n.name)]  # ONNX's integer Mod is floored, as TF's
        # TF's float floormod takes the sign of y (fmod(x, y), plus y when the signs differ);
        # ONNX runs floating Mod only as C fmod (fmod=1)
        r = s.one("Mod", [x, y], fmod=1)
        zero = s.one("Cast", [s.const(0, np.float32)], to=self.elem(n.outputs[0].dtype))
        differ = s.one("Xor", [s.one("Less", [r, zero]), s.one("Less", [y, zero])])
        fix = s.one("And", [differ, s.one("Not", [s.one("Equal", [r, zero])])])
        return [s.one("Where", [fix, s.one("Add", [r, y]), r], name=n.name)]

    def op_OneHot(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        # indices == range(depth), broadcast along `axis`: exact for every dtype, and a negative
        # or too large index gives an all-off row as in TF (ONNX OneHot counts negatives from the end)
        rank = self._rank(s, n.inputs[0])
        if rank is None:
            raise NotImplementedError(f"fn.onnx.export: OneHot '{n.name}' on indices of unknown rank")
        axis = int(n.attrs.get("axis", -1))
        axis = rank if axis == -1 else axis
        depth = self._i64(s, ins[1])
        positions = s.one("Range", [s.const(0, np.int64), depth, s.const(1, np.int64)])
        positions = s.one("Reshape", [positions, s.const([-1] + [1] * (rank - axis), np.int64)])
        idx = s.one("Unsqueeze", [self._i64(s, ins[0]), s.const([axis], np.int64)])
        hit = s.one("Equal", [idx, positions])
        return [s.one("Where", [hit, ins[2], ins[3]], name=n.name)]

    def _rank(self, s: _Scope, ref: Tuple[int, int]) -> Optional[int]:
        shape = self._spec(s, ref).shape
        return None if shape is None else len(shape)

    def _spec(self, s: _Scope, ref: Tuple[int, int]) -> _ir.Spec:
        return s.g.nodes[ref[0]].outputs[ref[1]]

    def op_Pad(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        pads = s.one("Reshape", [s.one("Transpose", [self._i64(s, ins[1])], perm=[1, 0]), s.const([-1], np.int64)])
        return [s.one("Pad", [ins[0], pads], name=n.name)]

    def op_StridedSlice(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        strides = s.static(n.inputs[3], n, "strides").astype(np.int64)
        a = n.attrs
        if a.get("ellipsis_mask") or a.get("new_axis_mask"):
            raise NotImplementedError(f"fn.onnx.export: StridedSlice '{n.name}' with an ellipsis or new axis")
        r = len(strides)

        def mask(name: str) -> np.ndarray:
            return np.array([bool(a.get(name, 0) >> i & 1) for i in range(r)])

        bm, em, sm = mask("begin_mask"), mask("end_mask"), mask("shrink_axis_mask")
        starts, ends = self._i64(s, ins[1]), self._i64(s, ins[2])  # begin/end may be run-time values
        if bm.any():
            fill = np.where(strides > 0, 0, _INT64_MAX).astype(np.int64)
            starts = s.one("Where", [s.const(bm), s.const(fill), starts])
        if em.any():
            fill = np.where(strides > 0, _INT64_MAX, _INT64_MIN).astype(np.int64)
            ends = s.one("Where", [s.const(em), s.const(fill), ends])
        if sm.any():
            last = s.one("Equal", [starts, s.const(np.full(r, -1, np.int64))])
            after = s.one(
                "Where",
                [
                    last,
                    s.const(np.full(r, _INT64_MAX, np.int64)),
                    s.one("Add", [starts, s.const(np.ones(r, np.int64))]),
                ],
            )
            ends = s.one("Where", [s.const(sm), after, ends])
        back = (strides < 0) & ~bm
        if back.any():
            # TF clamps a negative-stride begin below -dim to "before the first element" (an empty
            # slice); ONNX clamps it to the first element: make those slices empty explicitly
            dims = s.one("Slice", [s.one("Shape", [ins[0]]), s.const([0], np.int64), s.const([r], np.int64)])
            below = s.one("Less", [s.one("Add", [starts, dims]), s.const(np.zeros(r, np.int64))])
            empty = s.one("And", [s.const(back), below])
            zeros = s.const(np.zeros(r, np.int64))
            starts, ends = s.one("Where", [empty, zeros, starts]), s.one("Where", [empty, zeros, ends])
        out = s.one("Slice", [ins[0], starts, ends, s.const(np.arange(r, dtype=np.int64)), s.const(strides)])
        if sm.any():
            out = s.one("Squeeze", [out, s.const(np.nonzero(sm)[0].astype(np.int64))])
        return [s.one("Identity", [out], name=n.name)]

    def _nchw(self, s: _Scope, n: _ir.Node, x: str) -> str:
        if n.attrs.get("data_format", "NHWC") != "NHWC":
            raise NotImplementedError(f"fn.onnx.export: {n.op} '{n.name}' with data_format {n.attrs['data_format']}")
        return s.one("Transpose", [x], perm=[0, 3, 1, 2])

    def _pads(
        self, s: _Scope, n: _ir.Node, kernel: Sequence[int] = (1, 1), dilations: Sequence[int] = (1, 1)
    ) -> Dict[str, Any]:
        padding = n.attrs.get("padding", "VALID")
        if padding == "SAME":
            st = n.attrs["strides"][1:3]
            eff = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
            if all(e >= t for e, t in zip(eff, st)):
                return {"auto_pad": "SAME_UPPER"}
            # a window smaller than its stride: onnxruntime's SAME_UPPER then asks for negative
            # padding, TF pads max(0, ...): explicit pads, which need the spatial size
            shape = n.inputs and self._spec(s, n.inputs[0]).shape
            if not shape or any(d < 0 for d in shape[1:3]):
                raise NotImplementedError(
                    f"fn.onnx.export: {n.op} '{n.name}' with SAME padding, a window smaller "
                    "than its stride and an unknown spatial size"
                )
            total = [max((-(-size // t) - 1) * t + e - size, 0) for size, t, e in zip(shape[1:3], st, eff)]
            return {"pads": [total[0] // 2, total[1] // 2, total[0] - total[0] // 2, total[1] - total[1] // 2]}
        if padding == "VALID":
            return {"auto_pad": "VALID"}
        ex = list(n.attrs.get("explicit_paddings") or [])
        return {"pads": [ex[2], ex[4], ex[3], ex[5]]}

    def op_Conv2D(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        x = self._nchw(s, n, ins[0])
        w = s.one("Transpose", [ins[1]], perm=[3, 2, 0, 1])  # HWIO -> OIHW
        st, dil = n.attrs["strides"], n.attrs.get("dilations", [1, 1, 1, 1])
        fshape = self._spec(s, n.inputs[1]).shape or [1, 1]
        y = s.one(
            "Conv", [x, w], strides=[st[1], st[2]], dilations=[dil[1], dil[2]], **self._pads(s, n, fshape[:2], dil[1:3])
        )
        return [s.one("Transpose", [y], name=n.name, perm=[0, 2, 3, 1])]

    def _pool(self, s: _Scope, n: _ir.Node, ins: List[str], op: str, **extra: Any) -> List[str]:
        x = self._nchw(s, n, ins[0])
        k, st = n.attrs["ksize"], n.attrs["strides"]
        y = s.one(op, [x], kernel_shape=[k[1], k[2]], strides=[st[1], st[2]], **self._pads(s, n, k[1:3]), **extra)
        return [s.one("Transpose", [y], name=n.name, perm=[0, 2, 3, 1])]

    def op_MaxPool(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return self._pool(s, n, ins, "MaxPool")

    def op_AvgPool(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return self._pool(s, n, ins, "AveragePool", count_include_pad=0)

    def op_LeakyRelu(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("LeakyRelu", ins[:1], name=n.name, alpha=float(n.attrs.get("alpha", 0.2)))]

    def op_AddN(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        return [s.one("Sum", ins, name=n.name)]

    def op_DivNoNan(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        # 0 where y == 0, whatever x is (a NaN or inf numerator included)
        z = s.one("Cast", [s.const(0, np.float32)], to=self.elem(n.outputs[0].dtype))
        zero = s.one("Equal", [ins[1], z])
        safe = s.one(
            "Where", [zero, s.one("Add", [ins[1], s.one("Cast", [zero], to=self.elem(n.outputs[0].dtype))]), ins[1]]
        )
        q = s.one("Div", [ins[0], safe])
        return [s.one("Where", [zero, z, q], name=n.name)]

    # -- control flow
    def op_StatelessIf(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        branches = []
        for key in ("then_branch", "else_branch"):
            sub, outs = self.subgraph(s, n.attrs[key], s.prefix + n.name + "/" + key + "/", [], ins[1:])
            branches.append(self.make_graph(sub, self.fresh(n.name + "_" + key), [], list(zip(outs, n.outputs))))
        return s.add(
            "If", [ins[0]], n_out=len(n.outputs), name=n.name, then_branch=branches[0], else_branch=branches[1]
        )

    op_If = op_StatelessIf

    def op_While(self, s: _Scope, n: _ir.Node, ins: List[str]) -> List[str]:
        k = len(n.outputs)
        carried, captured = ins[:k], ins[k:]
        cond_g, body_g = n.attrs["cond"], n.attrs["body"]
        # the first test, outside the loop
        first, (c0,) = self.subgraph(s, cond_g, s.prefix + n.name + "/cond0/", carried, captured)
        s.nodes.extend(first.nodes)
        # body(iteration, cond, v...) -> (cond', v'...): the fn body, then the fn cond on its result
        it_name, cond_in = self.fresh(n.name + "/iter"), self.fresh(n.name + "/cond_in")
        vars_in = [self.fresh(n.name + f"/v{i}") for i in range(k)]
        body, new_vars = self.subgraph(s, body_g, s.prefix + n.name + "/body/", vars_in, captured)
        test, (c1,) = self.subgraph(s, cond_g, s.prefix + n.name + "/cond/", new_vars, captured)
        body.nodes.extend(test.nodes)
        inputs = [
            self.helper.make_tensor_value_info(it_name, self.onnx.TensorProto.INT64, []),
            self.helper.make_tensor_value_info(cond_in, self.onnx.TensorProto.BOOL, []),
        ]
        inputs += [self.value_info(v, spec) for v, spec in zip(vars_in, n.outputs)]
        outs = [(c1, _ir.Spec("bool", []))] + list(zip(new_vars, n.outputs))
        graph = self.make_graph(body, self.fresh(n.name + "_body"), inputs, outs)
        max_iter = n.attrs.get("maximum_iterations", -1)
        trip = s.const(max_iter if max_iter is not None and max_iter >= 0 else _INT64_MAX, np.int64)
        return s.add("Loop", [trip, c0] + carried, n_out=k, name=n.name, body=graph)

    op_StatelessWhile = op_While


def supported_ops() -> List[str]:
    """fn's op types the exporter converts: by a handler of its own, or by the ONNX equivalent
    its definition names."""
    named = [m[3:] for m in dir(_Exporter) if m.startswith("op_")]
    by_facts = [op for op, d in _core.op_defs().items() if d["onnx"]]
    return sorted(set(named) | set(by_facts))


def export(
    concrete_function: Any,
    path: Any = None,
    opset: int = OPSET,
    input_names: Optional[List[str]] = None,
    output_names: Optional[List[str]] = None,
) -> Any:
    """Writes ``concrete_function`` (from ``f.get_concrete_function(...)``; a Function with an
    ``input_signature`` or a built Keras model also work) as an ONNX model at ``path`` and
    returns the ``onnx.ModelProto``. Inputs are the function's tensor arguments
    (named after the parameters); variables become initializers with their current values."""
    from fn import _core

    if _is_keras_model(concrete_function):  # a Keras model: its call on its inputs' specs
        serving = _keras_default_signature(concrete_function)
        if serving is None:
            raise ValueError(
                "fn.onnx.export: the Keras model has no known input shape; build it on "
                "keras.Input or pass model.call traced with an input_signature"
            )
        concrete_function = serving
    if isinstance(concrete_function, Function):
        concrete_function = concrete_function.get_concrete_function()
    if not isinstance(concrete_function, ConcreteFunction):
        raise TypeError(
            f"fn.onnx.export expects a concrete function (f.get_concrete_function(...)), got {concrete_function!r}"
        )
    if opset < 18:
        raise ValueError(f"fn.onnx.export writes opset 18 or newer (reductions take axes as inputs); got {opset}")
    x = _Exporter()
    g = _ir.read(_core.serialize_graph(concrete_function.graph._core))
    feeds: Dict[int, str] = {}
    inputs = []
    names = _check_names(input_names, "input_names")
    sig_names = [v.name or n for n, v in _tensor_params(concrete_function)]
    for j, idx in enumerate(g.args):
        name = x.fresh(names[j] if j < len(names) else (sig_names[j] if j < len(sig_names) else "") or f"input_{j}")
        feeds[idx] = name
        spec = g.nodes[idx].outputs[0]
        if spec.shape is None:
            # an ONNX graph input must have a rank (onnx.checker refuses a tensor type without a shape)
            raise ValueError(
                f"fn.onnx.export: input '{name}' has unknown rank; ONNX inputs need a known rank. "
                "Trace the function with a TensorSpec of known rank (dimensions may be None)."
            )
        inputs.append(x.value_info(name, spec))
    for idx, value in zip(g.captures, concrete_function._core.captures):
        if value is None:
            raise ValueError("fn.onnx.export: a variable the function captured was deleted")
        if value.dtype.name == "resource":
            info = _core.variable_info(value)
            arr = _variable_value(value)
            name = x.fresh(info[4].split(":")[0])
        else:
            arr = np.asarray(value.numpy())
            name = x.fresh(g.nodes[idx].name)
        x.initializers.append(x.numpy_helper.from_array(arr, name))
        feeds[idx] = name
    scope = _Scope(x, g, "", feeds)
    x.convert(scope)
    outs = [scope.names[r] for r in g.outputs]
    specs = [g.nodes[r[0]].outputs[r[1]] for r in g.outputs]
    out_names = _check_names(output_names, "output_names")
    out_infos, nodes = [], list(scope.nodes)
    for j, (n, spec) in enumerate(zip(outs, specs)):
        final = x.fresh(out_names[j] if j < len(out_names) else f"output_{j}")
        nodes.append(x.helper.make_node("Identity", [n], [final], name=final))
        out_infos.append(x.value_info(final, spec))
    nodes = _prune_constants(x, nodes)
    graph = x.helper.make_graph(nodes, concrete_function._function_name, inputs, out_infos, x.initializers)
    model = x.helper.make_model(graph, opset_imports=[x.helper.make_opsetid("", opset)], producer_name="fn")
    model.ir_version = min(model.ir_version, 10)
    _known_rank_outputs(x, model, specs)
    _runtime.make_runnable(model, opset)
    x.onnx.checker.check_model(model, full_check=True)
    if path is not None:
        atomic_write(os.fspath(path), model.SerializeToString())
    return model


def _check_names(names: Optional[Sequence[str]], what: str) -> List[str]:
    out = list(names or [])
    for j, name in enumerate(out):
        if not isinstance(name, str) or not name:
            raise ValueError(f"fn.onnx.export: {what}[{j}] is {name!r}; ONNX names must be non-empty strings")
    return out


def _known_rank_outputs(x: _Exporter, model: Any, specs: Sequence[_ir.Spec]) -> None:
    """An output fn knows no rank for gets the shape ONNX's shape inference finds (onnx.checker
    refuses an output type without a shape); if inference finds none either, export refuses."""
    if all(spec.shape is not None for spec in specs):
        return
    inferred = x.onnx.shape_inference.infer_shapes(model)
    known = {
        v.name: v
        for v in itertools.chain(inferred.graph.value_info, inferred.graph.output)
        if v.type.tensor_type.HasField("shape")
    }
    for out, spec in zip(model.graph.output, specs):
        if spec.shape is not None:
            continue
        node = next(n for n in model.graph.node if out.name in n.output)
        source = known.get(out.name) or known.get(node.input[0])
        if source is None:
            raise ValueError(
                f"fn.onnx.export: output '{out.name}' has unknown rank; ONNX outputs need a known rank. "
                "Give the result a static rank (e.g. tf.reshape with a shape of known length or "
                "tf.ensure_shape) before returning it."
            )
        out.type.tensor_type.shape.CopyFrom(source.type.tensor_type.shape)


def _names_used(nodes: Sequence[Any], out: set) -> set:
    for node in nodes:
        out.update(node.input)
        for attr in node.attribute:
            if attr.HasField("g"):
                _names_used(attr.g.node, out)
                out.update(o.name for o in attr.g.output)
    return out


def _prune_constants(x: _Exporter, nodes: List[Any]) -> List[Any]:
    """Drops Constant nodes nothing reads (constants used only as static axes/perms), here and
    in sub-graphs."""
    used = _names_used(nodes, set())

    def prune(ns: Sequence[Any]) -> List[Any]:
        kept = []
        for node in ns:
            if node.op_type == "Constant" and node.output[0] not in used:
                continue
            for attr in node.attribute:
                if attr.HasField("g"):
                    inner = prune(attr.g.node)
                    del attr.g.node[:]
                    attr.g.node.extend(inner)
            kept.append(node)
        return kept

    return prune(nodes)


def _variable_value(handle: Any) -> np.ndarray:
    from fn import _core

    dtype, shape = _core.variable_info(handle)[1:3]
    value = _core.execute("ReadVariableOp", [handle], {"dtype": dtype, "shape": shape}, None)[0]
    return np.asarray(value.numpy())


def _tensor_params(c: Any) -> List[Tuple[str, Any]]:

    out: List[Tuple[str, Any]] = []
    for n, v in list(zip(c._arg_names, c._pos_values)) + list(c._kw_values.items()):

        def visit(spec: Any, n: str = n) -> None:
            if isinstance(spec, TensorSpec):
                out.append((n, spec))

        _walk(v, visit)
    return out
