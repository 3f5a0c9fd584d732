"""Collective ops as graph ops (TF's ``CollectiveReduceV2``/``CollectiveGatherV2``/``Bcast``),
the way a multi-worker strategy calls them.

Inside a Function each collective is a stateful node, so the C++ executor runs them in the order
they were traced, the same order on every worker: no per-step negotiation. Each node carries its
plan (the traced graph's collectives, in order: kind, dtype, shape); the first collective of a
plan to run compares the plan across workers once. Eager collectives compare their own
signature on every call.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from fn import _core
from fn._ops.array_ops import concat, reshape, split


def _signature(kind: str, t: Any, extra: str = "") -> str:
    dims = ["?" if d is None else str(d) for d in t.shape] if t.shape.rank is not None else None
    if dims and kind == "all_gather":
        dims[0] = "*"  # workers may gather different numbers of rows
    shape = "?" if dims is None else "[" + ",".join(dims) + "]"
    return f"{kind} {t.dtype.name}{shape}{(' ' + extra) if extra else ''}"


def _attrs(kind: str, t: Any, timeout: float, extra: str = "") -> dict:
    sig = _signature(kind, t, extra)
    graph_id = _core.current_graph_id()
    attrs: Dict[str, Any] = {"timeout_seconds": float(timeout), "plan_id": int(graph_id)}
    if graph_id:
        index = _core._collective_plan_add(int(graph_id), sig)
        sig = f"{index}: {sig}"
    attrs["signature"] = sig
    return attrs


def all_reduce(t: Any, mean: bool, timeout: float, name: str = "CollectiveAllReduce") -> Any:
    """The sum (or mean) over workers of ``t``, on every worker."""
    reduction = "Mean" if mean else "Add"
    attrs = _attrs("all_reduce", t, timeout, reduction)
    attrs["reduction"] = reduction
    return _core.execute("CollectiveAllReduce", [t], attrs, name)[0]


def all_gather(t: Any, timeout: float, name: str = "CollectiveAllGather") -> Any:
    """Every worker's ``t`` concatenated along axis 0, in rank order."""
    return _core.execute("CollectiveAllGather", [t], _attrs("all_gather", t, timeout), name)[0]


def broadcast(t: Any, root: int, timeout: float, name: str = "CollectiveBroadcast") -> Any:
    """Rank ``root``'s ``t`` on every worker."""
    attrs = _attrs("broadcast", t, timeout, f"root={root}")
    attrs["root"] = int(root)
    return _core.execute("CollectiveBroadcast", [t], attrs, name)[0]


def packed_all_reduce(tensors: Sequence[Any], mean: bool, timeout: float, bytes_per_pack: int) -> List[Any]:
    """All-reduces ``tensors`` in few collectives: tensors of one dtype are flattened and
    concatenated into packs of at most ``bytes_per_pack`` bytes (0: one pack per dtype), each
    pack is one all-reduce, and the results are split back (TF's gradient packing)."""
    out: List[Any] = [None] * len(tensors)
    by_dtype: dict = {}
    for i, t in enumerate(tensors):
        by_dtype.setdefault(t.dtype, []).append(i)
    for indices in by_dtype.values():
        packs: List[List[int]] = [[]]
        size = 0
        for i in indices:
            n = _num_bytes(tensors[i])
            if packs[-1] and bytes_per_pack and (n is None or size + n > bytes_per_pack):
                packs.append([])
                size = 0
            packs[-1].append(i)
            size += n or 0
        for pack in packs:
            if len(pack) == 1 or any(tensors[i].shape.num_elements() is None for i in pack):
                for i in pack:
                    out[i] = all_reduce(tensors[i], mean, timeout)
                continue
            flat = concat([reshape(tensors[i], [-1]) for i in pack], 0)
            reduced = all_reduce(flat, mean, timeout)
            pieces = split(reduced, [tensors[i].shape.num_elements() for i in pack], 0)
            for i, piece in zip(pack, pieces):
                out[i] = reshape(piece, tensors[i].shape)
    return out


def _num_bytes(t: Any) -> Any:
    n = t.shape.num_elements()
    return None if n is None else n * t.dtype.size
