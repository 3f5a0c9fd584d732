"""``tf.einsum``, composed of existing ops: per operand, repeated letters become a diagonal
(masked sum) and letters used nowhere else are summed away; two operands contract with one
batched matmul (batch, free and contracted letters grouped by transpose + reshape); the result
is transposed into the output's letter order. Gradients come from the ops used."""

from __future__ import annotations

import re
from typing import Any, List

import numpy as np

from fn import _core
from fn._ops.array_ops import concat, convert_to_tensor, reshape, shape, transpose
from fn._ops.math_ops import reduce_sum

_LETTERS = re.compile(r"^[a-zA-Z.]*$")


def _parse(equation: str, ranks: List[int]) -> tuple:
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->")
        if "->" in out:
            raise ValueError(f"Invalid einsum equation: {equation}")
    else:
        lhs, out = eq, None
    ins = lhs.split(",")
    if len(ins) != len(ranks):
        raise ValueError(f"Expected {len(ins)} operands but got {len(ranks)}")
    # Ellipsis: replaced by upper-case-free placeholder letters (digits are never user letters).
    n_ell = 0
    for s, r in zip(ins, ranks):
        if "..." in s:
            n_ell = max(n_ell, r - (len(s) - 3))
    ell = "".join(chr(0x100 + i) for i in range(n_ell))
    subs: List[str] = []
    for s, r in zip(ins, ranks):
        if not _LETTERS.match(s):
            raise ValueError(f"Invalid einsum equation: {equation}")
        if "..." in s:
            k = r - (len(s) - 3)
            s = s.replace("...", ell[n_ell - k :] if k else "")
        if r >= 0 and len(s) != r:
            raise ValueError(f"Input {len(subs)} has rank {r} but the equation gives {len(s)} labels: {equation}")
        subs.append(s)
    if out is None:
        counts: dict = {}
        for s in subs:
            for ch in s:
                counts[ch] = counts.get(ch, 0) + 1
        out = ell + "".join(sorted(ch for ch, c in counts.items() if c == 1 and ch not in ell))
    else:
        out = out.replace("...", ell)
    for ch in out:
        if not any(ch in s for s in subs):
            raise ValueError(f"Output subscript {ch} does not appear in any input: {equation}")
    return subs, out


def _diagonal(x: Any, s: str) -> tuple:
    """Collapses repeated letters of one operand (x_ii -> x_i) with an identity mask."""
    while True:
        dup = next((ch for ch in s if s.count(ch) > 1), None)
        if dup is None:
            return x, s
        i = s.index(dup)
        j = s.index(dup, i + 1)
        n = x._shape_tuple[i]
        if n is None:
            raise ValueError("fn.einsum: a repeated label needs a static dimension")
        eye_shape = [1] * len(s)
        eye_shape[i] = eye_shape[j] = n
        mask = convert_to_tensor(np.eye(n, dtype=x.dtype.as_numpy_dtype).reshape(eye_shape))
        x = reduce_sum(x * mask, j)
        s = s[:j] + s[j + 1 :]


def _sum_unused(x: Any, s: str, keep: str) -> tuple:
    axes = [i for i, ch in enumerate(s) if ch not in keep]
    if axes:
        x = reduce_sum(x, axes)
        s = "".join(ch for ch in s if ch in keep)
    return x, s


def _permute(x: Any, s: str, order: str) -> Any:
    perm = [s.index(ch) for ch in order]
    return x if perm == list(range(len(s))) else transpose(x, perm)


def _dims(x: Any, s: str, letters: str) -> Any:
    """Product of x's dims for `letters` as a 1-element int32 tensor (static when known)."""
    shp = x._shape_tuple
    sizes = [shp[s.index(ch)] for ch in letters]
    if all(d is not None for d in sizes):
        return [int(np.prod(sizes, dtype=np.int64))]
    if not letters:
        return [1]
    full = shape(x)
    parts = [full[s.index(ch) : s.index(ch) + 1] for ch in letters]
    prod = parts[0]
    for p in parts[1:]:
        prod = prod * p
    return prod


def _contract(a: Any, sa: str, b: Any, sb: str, keep: str) -> tuple:
    batch = "".join(ch for ch in sa if ch in sb and ch in keep)
    contract = "".join(ch for ch in sa if ch in sb and ch not in keep)
    fa = "".join(ch for ch in sa if ch not in sb)
    fb = "".join(ch for ch in sb if ch not in sa)
    a = _permute(a, sa, batch + fa + contract)
    b = _permute(b, sb, batch + contract + fb)
    bshape = shape(a)[: len(batch)] if batch else None
    a3 = reshape(
        a,
        concat(
            [[-1] if batch else [1], _dims(a, batch + fa + contract, fa), _dims(a, batch + fa + contract, contract)], 0
        ),
    )
    b3 = reshape(
        b,
        concat(
            [[-1] if batch else [1], _dims(b, batch + contract + fb, contract), _dims(b, batch + contract + fb, fb)], 0
        ),
    )
    c = _core.execute("BatchMatMulV2", [a3, b3], {"adj_x": False, "adj_y": False})[0]
    free_a = shape(a)[len(batch) : len(batch) + len(fa)]
    free_b = shape(b)[len(batch) + len(contract) :]
    parts = ([bshape] if batch else []) + [free_a, free_b]
    return reshape(c, concat(parts, 0)), batch + fa + fb


def _check_same_dtype(xs: list) -> None:
    """The Einsum op's one type attr, checked before the equation: op_def_library's TypeError
    while tracing, the kernel's InvalidArgumentError eagerly."""
    for i, x in enumerate(xs):
        if x.dtype == xs[0].dtype:
            continue
        if not _core.executing_eagerly():
            raise TypeError(
                f"Tensors in list passed to 'inputs' of 'Einsum' Op have types "
                f"[{', '.join(t.dtype.name for t in xs)}] that don't all match."
            )
        from fn.errors import InvalidArgumentError
        from fn._ops.op_errors import type_text

        raise InvalidArgumentError(
            None,
            None,
            f"cannot compute Einsum as input #{i}(zero-based) was expected to be "
            f"a {type_text(xs[0].dtype)} tensor but is a {type_text(x.dtype)} tensor "
            "[Op:Einsum] name: ",
        )


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Any:
    """``tf.einsum``: sums of products over the index letters of ``equation`` (``'ij,jk->ik'``,
    ``'...ij,...jk'``, ``'ii->i'``, ``'bij->bji'``)."""
    kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: {', '.join(sorted(kwargs))}")
    xs = [convert_to_tensor(x) for x in inputs]
    if isinstance(equation, str) and len(equation.split("->")[0].split(",")) == len(xs):
        _check_same_dtype(xs)  # TF: the operand count (Python), then the op's dtype, then ranks
    if any(x._rank < 0 for x in xs):
        raise ValueError("fn.einsum needs inputs of known rank")
    subs, out = _parse(equation, [x._rank for x in xs])
    ops = []
    for x, s in zip(xs, subs):
        x, s = _diagonal(x, s)
        ops.append((x, s))
    while len(ops) > 1:
        (a, sa), (b, sb) = ops[0], ops[1]
        rest = "".join(s for _, s in ops[2:])
        a, sa = _sum_unused(a, sa, sb + out + rest)
        b, sb = _sum_unused(b, sb, sa + out + rest)
        ops = [_contract(a, sa, b, sb, out + rest)] + ops[2:]
    x, s = ops[0]
    x, s = _sum_unused(x, s, out)
    if len(set(out)) != len(out):
        raise ValueError(f"fn.einsum: repeated output labels are not supported: {equation}")
    return _permute(x, s, out)
