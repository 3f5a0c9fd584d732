"""Functional control flow: ``fn.cond``, ``fn.while_loop``, ``fn.case``, ``fn.switch_case``.

Eagerly these are plain Python (``if``/``while`` on the tensors' values), as in TensorFlow.
While a Function is being traced, each branch (or the loop's condition and body) is traced once
into its own sub-graph, with its own GraphBuilder: tensors of the enclosing graphs it uses
become captures, which the ``If``/``While`` node takes as extra inputs (``_core.build_if``,
``_core.build_while``). The C++ executor runs the sub-graphs' compiled plans, so a loop runs no
Python per iteration (except ops that call back into Python, such as ``fn.print``).

Loop variables and branch outputs may be nested structures (``fn.nest``) of tensors, Python
numbers (converted to tensors), ``fn.TensorArray`` (carried as its TensorList value) and None.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

from fn import _core, nest
from fn._ops.tensor_array_ops import TensorArray
from fn._tensor import composite
from fn._tensor.tensor_shape import TensorShape

__all__ = ["cond", "while_loop", "case", "switch_case"]


# ---------------------------------------------------------------- structures


def _leaves(structure: Any) -> List[Any]:
    return nest.flatten(structure)


def _to_tensor(value: Any, what: str) -> Any:
    if _core.is_tensor(value):
        return value
    try:
        return _core.convert_to_tensor(value)
    except Exception as e:  # re-raised with context
        raise TypeError(
            f"{what} must be a tensor or convertible to one (a Python number, bool, string, "
            f"NumPy array or TensorArray), got {value!r}: {e}"
        ) from None


class _Flat:
    """A structure's leaves as tensors (TensorArrays as their value, Python numbers converted)
    and how to rebuild the structure from tensors of the same kind."""

    def __init__(
        self, structure: Any, what: str, keep_none: bool = False, post: Optional[Callable[[Any], Any]] = None
    ) -> None:
        self.structure = structure
        self.metas: List[Optional[TensorArray]] = []  # the TensorArray a leaf stands for
        self.nones: List[bool] = []  # leaf is None (no tensor)
        self.tensors: List[Any] = []
        for leaf in _leaves(structure):
            if isinstance(leaf, TensorArray):
                self.metas.append(leaf)
                self.nones.append(False)
                self.tensors.append(post(leaf.flow) if post else leaf.flow)
            elif leaf is None and keep_none:
                self.metas.append(None)
                self.nones.append(True)
            else:
                self.metas.append(None)
                self.nones.append(False)
                t = _to_tensor(leaf, what)
                self.tensors.append(post(t) if post else t)

    def rebuild(self, tensors: Sequence[Any], metas: Optional[List[Optional[TensorArray]]] = None) -> Any:
        metas = self.metas if metas is None else metas
        it = iter(tensors)
        leaves: List[Any] = []
        for meta, none in zip(metas, self.nones):
            if none:
                leaves.append(None)
            elif meta is not None:
                leaves.append(meta._with_flow(next(it)))
            else:
                leaves.append(next(it))
        return nest.pack_sequence_as(self.structure, leaves)


def _merged_metas(a: "_Flat", b: "_Flat") -> List[Optional[TensorArray]]:
    """TensorArray metadata after a branch or loop: element shapes relaxed to agree with both."""
    out = []
    for ma, mb in zip(a.metas, b.metas):
        out.append(ma._merge_meta(mb) if ma is not None and mb is not None else ma)
    return out


def _local(t: Any) -> Any:
    """``t`` as a value of the graph being built (an Identity if it comes from elsewhere)."""
    g = _core.current_graph()
    if t._is_eager or t._graph_id != g.id:
        return _core.execute("Identity", [t], None, None)[0]
    return t


def _identity(t: Any) -> Any:
    return _core.execute("Identity", [t], None, None)[0]


def _structure_text(s: Any) -> str:
    return repr(s)


# ---------------------------------------------------------------- cond


def _trace_branch(fn: Callable[[], Any], graph_name: str) -> Tuple[Any, "_Flat"]:
    builder = _core.GraphBuilder(_core.Graph(graph_name))
    with _core.ContextScope(builder):
        out = fn()
        # TF's func_graph: each output in turn is converted (a Const for a Python value) and
        # returned through an Identity of its own (cond/Identity, cond/Identity_1, ...).
        flat = _Flat(out, "A cond branch output", keep_none=True, post=_identity)
        builder.set_outputs(flat.tensors)
    return builder, flat


def cond(
    pred: Any,
    true_fn: Optional[Callable[[], Any]] = None,
    false_fn: Optional[Callable[[], Any]] = None,
    name: Optional[str] = None,
    *,
    _names: Optional[Sequence[str]] = None,
) -> Any:
    """``tf.cond``: ``true_fn()`` if ``pred`` else ``false_fn()``.

    Eagerly, calls the one branch ``pred`` selects. While tracing, traces both branches once
    (each into its own graph) and adds an ``If`` node (``StatelessIf`` when the branches have no
    side effects); the branches must return the same structure with the same dtypes, and the
    result's shapes are the most specific shapes both branches satisfy.
    """
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if _core.executing_eagerly():
        if _core.is_tensor(pred):  # TF tests the value's NumPy truth (ValueError when not one element)
            return true_fn() if pred.numpy() else false_fn()
        return true_fn() if pred else false_fn()
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool", pred)
    pred = _to_tensor(pred, "pred")
    raw: List[Any] = []  # the branches' outputs, for TF's error text
    then_b, then_flat = _trace_branch(lambda: composite.to_parts(_kept(raw, true_fn())), "cond_true")
    else_b, else_flat = _trace_branch(lambda: composite.to_parts(_kept(raw, false_fn())), "cond_false")
    try:
        nest.assert_same_structure(then_flat.structure, else_flat.structure)
        for x, y in zip(nest.flatten(raw[0]), nest.flatten(raw[1])):
            mismatch = composite.type_spec_mismatch(x, y)  # datasets of incompatible element specs
            if mismatch is not None:
                raise TypeError(mismatch)
        if then_flat.nones != else_flat.nones:
            raise ValueError("one branch returns None where the other returns a value")
        if [m is None for m in then_flat.metas] != [m is None for m in else_flat.metas]:
            raise ValueError("one branch returns a TensorArray where the other returns a tensor")
        merged = _merged_handle_specs(then_flat.structure, else_flat.structure)
    except (ValueError, TypeError) as e:
        if _names:
            raise TypeError(
                f"{', '.join(repr(n) for n in _names)} must have the same nested structure "
                f"in the main and else branches:\n\n{e}"
            ) from None
        raise TypeError(
            "true_fn and false_fn arguments to fn.cond must have the same number, type, and overall "
            "structure of return values.\n\n"
            f"true_fn output: {_structure_text(raw[0])}\n"
            f"false_fn output: {_structure_text(raw[1])}\n\n"
            f"Error details:\n{e}"
        ) from None
    names = _flat_names(_names, then_flat.structure) if _names else []
    outs = _core.build_if(pred, then_b, else_b, name or "cond", names)
    then_flat.structure = merged
    return composite.from_parts(then_flat.rebuild(outs, _merged_metas(then_flat, else_flat)))


def _kept(store: List[Any], value: Any) -> Any:
    store.append(value)
    return value


def _merged_handle_specs(a: Any, b: Any) -> Any:
    """``a`` with each dataset's spec (a ``CompositeParts`` whose spec has an element spec) relaxed
    to the most specific spec both branches' datasets satisfy; TF's error when there is none."""
    if isinstance(a, composite.CompositeParts) and isinstance(b, composite.CompositeParts):
        if a.spec == b.spec or not hasattr(a.spec, "_element_spec"):
            return a
        spec = a.spec.most_specific_common_supertype([b.spec])
        if spec is None:
            raise ValueError(
                "Incompatible CompositeTensor TypeSpecs: "
                f"type={type(a.spec).__name__} str={a.spec!r} and type={type(b.spec).__name__} str={b.spec!r}"
            )
        return composite.CompositeParts(spec, a.components)
    if isinstance(a, (list, tuple)) and not hasattr(a, "_fields"):
        return type(a)(_merged_handle_specs(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple):
        return type(a)(*(_merged_handle_specs(x, y) for x, y in zip(a, b)))
    if type(a) is dict:
        return {k: _merged_handle_specs(v, b[k]) for k, v in a.items()}
    return a


def _flat_names(names: Sequence[str], structure: Any) -> List[str]:
    """One name per tensor leaf: the variable's name, indexed when it holds several tensors."""
    parts = structure if isinstance(structure, (tuple, list)) and len(structure) == len(names) else [structure]
    if len(parts) != len(names):
        return []
    out: List[str] = []
    for n, part in zip(names, parts):
        leaves = [x for x in _leaves(part) if x is not None]
        out.extend([n] if len(leaves) == 1 else [f"{n}[{i}]" for i in range(len(leaves))])
    return out


def case(
    pred_fn_pairs: Any,
    default: Optional[Callable[[], Any]] = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """``tf.case``: the first pair whose predicate holds, else ``default`` (nested conds)."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    for p in pairs:
        if not (isinstance(p, tuple) and len(p) == 2 and callable(p[1])):
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple (pred, callable), got {p!r}")
    if default is None:
        if not pairs:
            raise ValueError("fn.case needs at least one (pred, fn) pair or a default")
        pairs, default = pairs[:-1], pairs[-1][1]

    def chain(i: int) -> Any:
        if i == len(pairs):
            return default()
        p, f = pairs[i]
        return cond(p, f, lambda: chain(i + 1), name=name)

    return chain(0)


def switch_case(
    branch_index: Any, branch_fns: Any, default: Optional[Callable[[], Any]] = None, name: str = "switch_case"
) -> Any:
    """``tf.switch_case``: ``branch_fns[branch_index]()``, or ``default`` (the last branch when
    None) for an index out of range."""
    fns = [f for _, f in sorted(branch_fns.items())] if isinstance(branch_fns, dict) else list(branch_fns)
    if not fns:
        raise ValueError("branch_fns must not be empty")
    if default is None:
        default = fns[-1]
    if _core.executing_eagerly():
        i = int(branch_index)
        return fns[i]() if 0 <= i < len(fns) else default()
    index = _to_tensor(branch_index, "branch_index")
    pairs = [
        (_core.execute("Equal", [index, _core.convert_to_tensor(i, index.dtype)], None, None)[0], f)
        for i, f in enumerate(fns)
    ]
    return case(pairs, default=default, name=name)


# ---------------------------------------------------------------- while_loop


def _as_vars(result: Any, loop_vars: Sequence[Any]) -> Any:
    """The body's result as a sequence of loop vars (a lone value for a single var is wrapped)."""
    if len(loop_vars) == 1:
        seq = list(result) if isinstance(result, (list, tuple)) else result
        if not _same_structure(seq, list(loop_vars)):
            return [result]
    return result


def _same_structure(a: Any, b: Any) -> bool:
    try:
        nest.assert_same_structure(a, b)
        return True
    except (ValueError, TypeError):
        return False


def _eager_while(cond_fn: Callable, body: Callable, loop_vars: Any, max_iter: Optional[int]) -> Any:
    values = list(loop_vars)
    count = 0
    while max_iter is None or count < max_iter:
        if not cond_fn(*values):
            break
        result = _as_vars(body(*values), values)
        nest.assert_same_structure(list(values), list(result))
        values = list(result)
        count += 1
    return values


def _static_int(x: Any) -> Optional[int]:
    if x is None:
        return None
    if _core.is_tensor(x):
        return int(x.numpy()) if x._is_eager else None
    return int(x)


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    maximum_iterations: Any = None,
    name: Optional[str] = None,
    *,
    _names: Optional[Sequence[str]] = None,
) -> Any:
    """``tf.while_loop``: ``while cond(*loop_vars): loop_vars = body(*loop_vars)``.

    ``loop_vars`` is a list or tuple (possibly nested) of tensors, Python numbers and
    TensorArrays; the result has its structure. Eagerly this is a Python loop. While tracing,
    ``cond`` and ``body`` are traced once each and a ``While`` node runs them; every iteration
    must keep each loop var's dtype and a shape within its shape invariant (by default the
    initial shape; pass ``shape_invariants``, e.g. ``fn.TensorShape([None])``, to relax it).
    ``maximum_iterations`` bounds the number of iterations.
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    single = not isinstance(loop_vars, (list, tuple))
    if loop_vars is None or (not single and len(loop_vars) == 0):
        raise ValueError("'loop_vars' must be provided.")
    vars_seq = [loop_vars] if single else loop_vars
    has_composite = composite.has_composite(vars_seq)
    if _core.executing_eagerly():
        if has_composite:  # eagerly a composite is a leaf (TF compares its loop vars' type specs)
            values = _eager_while(cond, body, list(vars_seq), _static_int(maximum_iterations))
        else:
            init = _Flat(vars_seq, "A loop variable")
            values = _eager_while(cond, body, init.rebuild(init.tensors), _static_int(maximum_iterations))
        out = nest.pack_sequence_as(vars_seq, nest.flatten(values))
        return out[0] if single else out
    if has_composite:  # RaggedTensor loop vars run as their component tensors
        return _composite_while(cond, body, loop_vars, shape_invariants, maximum_iterations, name, _names)
    return _graph_while(cond, body, vars_seq, single, shape_invariants, maximum_iterations, name, _names)


def _composite_while(
    cond: Callable,
    body: Callable,
    loop_vars: Any,
    shape_invariants: Any,
    maximum_iterations: Any,
    name: Optional[str],
    names: Optional[Sequence[str]],
) -> Any:
    """``while_loop`` over composite loop vars (RaggedTensor, ExtensionType, Optional): a loop
    over their parts. A composite whose spec is assigned while the body is traced (Keras'
    multi-step fit starts from ``Optional.empty(None)`` and sets its element spec in the body; in
    TF an Optional is one variant tensor whatever its spec) has other components afterwards: the
    loop is traced again from the loop vars as they are now (a body whose structure still differs
    fails as any other)."""
    for _ in range(3):
        parts = composite.to_parts(loop_vars)
        sig = composite.signature(parts)
        try:
            result = while_loop(
                lambda *a: cond(*composite.from_parts(list(a))),
                lambda *a: composite.to_parts(body(*composite.from_parts(list(a)))),
                parts,
                composite.loop_invariants(parts) if shape_invariants is None else shape_invariants,
                maximum_iterations=maximum_iterations,
                name=name,
                _names=names,
            )
        except (ValueError, TypeError):
            if composite.signature(composite.to_parts(loop_vars)) == sig:
                raise
            continue
        if composite.signature(composite.to_parts(loop_vars)) == sig:
            return composite.from_parts(result)
    raise ValueError("The body of fn.while_loop keeps changing the specs of its composite loop variables.")


def _invariants(init: "_Flat", vars_seq: Any, shape_invariants: Any) -> List[Any]:
    """The shape each loop var's placeholder gets: its shape invariant, else its initial shape."""
    shapes = [t.shape for t in init.tensors]
    if shape_invariants is None:
        return shapes
    if len(vars_seq) == 1 and not isinstance(shape_invariants, (list, tuple)):
        shape_invariants = [shape_invariants]
    inv_leaves = _inv_leaves(list(vars_seq), shape_invariants)
    out = []
    for k, (meta, inv) in enumerate(zip(init.metas, inv_leaves)):
        if meta is None and inv is not None:
            out.append(inv if isinstance(inv, TensorShape) else TensorShape(inv))
        else:
            out.append(shapes[k])  # no invariant; a TensorArray's value is a scalar list handle
    return out


def _inv_leaves(v: Any, inv: Any) -> List[Any]:
    """The shape invariants matched to the loop vars' leaves (``inv`` mirrors ``v``)."""
    if hasattr(type(v), "__tf_flatten__") and hasattr(type(inv), "__tf_flatten__"):  # ragged loop vars
        return [x for a, b in zip(v.__tf_flatten__()[1], inv.__tf_flatten__()[1]) for x in _inv_leaves(a, b)]
    if isinstance(v, (list, tuple)):
        if not isinstance(inv, (list, tuple)) or len(inv) != len(v):
            raise ValueError(f"shape_invariants must have the same structure as loop_vars; got {inv!r} for {v!r}")
        return [x for a, b in zip(v, inv) for x in _inv_leaves(a, b)]
    if isinstance(v, dict):
        if not isinstance(inv, dict) or set(inv) != set(v):
            raise ValueError(f"shape_invariants must have the same structure as loop_vars; got {inv!r} for {v!r}")
        return [x for k in sorted(v) for x in _inv_leaves(v[k], inv[k])]
    return [inv]


def _graph_while(
    cond_fn: Callable,
    body: Callable,
    vars_seq: Any,
    single: bool,
    shape_invariants: Any,
    maximum_iterations: Any,
    name: Optional[str],
    names: Optional[Sequence[str]],
) -> Any:
    init = _Flat(vars_seq, "A loop variable")
    invariants = _invariants(init, vars_seq, shape_invariants)
    max_iter = -1
    counter: Any = None
    if maximum_iterations is not None:
        static = _static_int(maximum_iterations)
        if static is not None:
            if static < 0:
                raise ValueError(f"maximum_iterations must be non-negative, got {static}")
            max_iter = static
        else:
            counter = _to_tensor(maximum_iterations, "maximum_iterations")
    flat_names = _flat_names(names, vars_seq) if names else []
    with_counter = counter is not None

    def trace(graph_name: str, fn: Callable[[List[Any], Any], List[Any]]) -> Any:
        """A sub-graph taking the loop vars (and the iteration counter) as placeholders; ``fn``
        returns its outputs, which are set while the sub-graph is still being built."""
        builder = _core.GraphBuilder(_core.Graph(graph_name))
        phs = []
        for i, (t, shape) in enumerate(zip(init.tensors, invariants)):
            label = flat_names[i] if i < len(flat_names) else "loop_var"
            phs.append(builder.add_placeholder(_placeholder_name(label), t.dtype, shape))
        if with_counter:
            phs.append(builder.add_placeholder("iteration", counter.dtype, TensorShape([])))
        with _core.ContextScope(builder):
            builder.set_outputs([_local(t) for t in fn(phs, init.rebuild(phs[: len(init.tensors)]))])
        return builder

    def cond_graph(phs: List[Any], args: Any) -> List[Any]:
        c = _to_tensor(cond_fn(*args), "The condition of a while loop")
        if with_counter:
            below = _core.execute("Less", [phs[-1], counter], None, None)[0]
            c = _core.execute("LogicalAnd", [below, c], None, None)[0]
        return [c]

    body_out: List[Any] = []

    def body_graph(phs: List[Any], args: Any) -> List[Any]:
        result = _as_vars(body(*args), vars_seq)
        try:
            nest.assert_same_structure(list(vars_seq), list(result) if isinstance(result, (list, tuple)) else result)
        except (ValueError, TypeError) as e:
            if names:
                raise ValueError(
                    f"the loop variables {', '.join(repr(n) for n in names)} must keep their "
                    f"nested structure from one iteration to the next:\n\n{e}"
                ) from None
            raise ValueError(f"The body of fn.while_loop must return the same structure as loop_vars.\n\n{e}") from None
        out = _Flat(result, "A loop variable")
        if [m is None for m in out.metas] != [m is None for m in init.metas]:
            raise TypeError("A TensorArray loop variable must stay a TensorArray from one iteration to the next")
        body_out.append(out)
        outs = list(out.tensors)
        if with_counter:
            outs.append(_core.execute("AddV2", [phs[-1], _core.convert_to_tensor(1, counter.dtype)], None, None)[0])
        return outs

    cond_b = trace("while_cond", cond_graph)
    body_b = trace("while_body", body_graph)
    loop_inputs = list(init.tensors)
    if with_counter:
        loop_inputs.append(_core.convert_to_tensor(0, counter.dtype))
    names_arg = list(flat_names) + ([""] if with_counter and flat_names else [])
    finals = _core.build_while(loop_inputs, cond_b, body_b, max_iter, name or "while", names_arg)
    finals = finals[: len(init.tensors)]
    packed = init.rebuild(finals, _merged_metas(init, body_out[0]))
    return packed[0] if single else packed


def _placeholder_name(label: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in label).strip("_")
    return cleaned or "loop_var"
