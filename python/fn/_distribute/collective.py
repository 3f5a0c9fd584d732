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


def all_reduce_start(t: Any, mean: bool, timeout: float) -> Any:
    """Posts the sum (or mean) over workers of ``t``; returns the token its done op waits on. The
    transport reduces it on its own thread while the graph's other steps run."""
    reduction = "Mean" if mean else "Add"
    attrs = _attrs("all_reduce", t, timeout, reduction)
    attrs["reduction"] = reduction
    return _core.execute("CollectiveAllReduceStart", [t], attrs, "CollectiveAllReduceStart")[0]


def all_reduce_done(token: Any, like: Any) -> Any:
    """The result of the all-reduce ``token`` started (the dtype and shape of ``like``)."""
    attrs = {"T": like.dtype, "shape": like.shape}
    return _core.execute("CollectiveAllReduceDone", [token], attrs, "CollectiveAllReduceDone")[0]


# Inside a Function, gradients are reduced in buckets of about this many bytes when the strategy's
# CommunicationOptions set no bytes_per_pack (TF: one pack): each bucket's all-reduce starts as
# soon as backprop has produced it and overlaps the rest of backprop (exec/plan.cpp's schedule).
OVERLAP_BUCKET_BYTES = 4 << 20


def packed_all_reduce(tensors: Sequence[Any], mean: bool, timeout: float, bytes_per_pack: int) -> List[Any]:
    """All-reduces ``tensors`` in few collectives: tensors of one dtype are flattened and
    concatenated into packs of at most ``bytes_per_pack`` bytes (0: one pack per dtype), each
    pack is one all-reduce, and the results are split back (TF's gradient packing).

    Inside a Function the packs are split all-reduces (start, then done) formed from the last
    tensor backwards (backprop produces the last layers' gradients first), at most
    ``OVERLAP_BUCKET_BYTES`` each unless ``bytes_per_pack`` says otherwise: the executor starts each
    as soon as its gradients exist and waits for it only where its result is read. The last one
    (the first layers' gradients, produced last) is a plain all-reduce: nothing is left to overlap
    it with."""
    split_ops = bool(_core.current_graph_id()) and _core._collective_backend_installed()
    if split_ops and not bytes_per_pack:
        bytes_per_pack = OVERLAP_BUCKET_BYTES
    out: List[Any] = [None] * len(tensors)
    by_dtype: dict = {}
    order = range(len(tensors) - 1, -1, -1) if split_ops else range(len(tensors))
    for i in order:
        by_dtype.setdefault(tensors[i].dtype, []).append(i)
    # One all-reduce per (pack, value): a pack of several tensors is reduced as one flat tensor.
    units: List[Any] = []
    for indices in by_dtype.values():
        for pack in _packs(tensors, indices, bytes_per_pack):
            if len(pack) == 1 or any(tensors[i].shape.num_elements() is None for i in pack):
                units.extend(([i], tensors[i]) for i in pack)
            else:
                units.append((pack, concat([reshape(tensors[i], [-1]) for i in pack], 0)))
    started = []
    for k, (pack, value) in enumerate(units):
        # The last all-reduce posted has no backprop left to overlap: a blocking op (no hand-off).
        if split_ops and k < len(units) - 1:
            started.append((pack, value, all_reduce_start(value, mean, timeout)))
        elif len(pack) == 1 and value is tensors[pack[0]]:
            out[pack[0]] = all_reduce(value, mean, timeout)
        else:
            _unpack(out, tensors, pack, all_reduce(value, mean, timeout))
    for pack, like, token in started:
        reduced = all_reduce_done(token, like)
        if len(pack) == 1 and like is tensors[pack[0]]:
            out[pack[0]] = reduced
        else:
            _unpack(out, tensors, pack, reduced)
    return out


def _packs(tensors: Sequence[Any], indices: List[int], bytes_per_pack: int) -> List[List[int]]:
    packs: List[List[int]] = [[]]
    size = 0
    for i in indices:
        n = _num_bytes(tensors[i])
        if packs[-1] and bytes_per_pack and (n is None or size + n > bytes_per_pack):
            packs.append([])
            size = 0
        packs[-1].append(i)
        size += n or 0
    return packs


def _unpack(out: List[Any], tensors: Sequence[Any], pack: List[int], reduced: Any) -> None:
    pieces = split(reduced, [tensors[i].shape.num_elements() for i in pack], 0)
    for i, piece in zip(pack, pieces):
        out[i] = reshape(piece, tensors[i].shape)


def _num_bytes(t: Any) -> Any:
    n = t.shape.num_elements()
    return None if n is None else n * t.dtype.size
