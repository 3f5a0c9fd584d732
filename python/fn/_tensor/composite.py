"""Composite values (RaggedTensor...) as their component tensors, for the code that only handles
tensors: ``nest``'s ``expand_composites``, ``cond`` branch outputs and ``while_loop`` variables.

A composite value defines ``_fn_parts()``, which returns a *parts* object: a custom nest node of
the component tensors (TF's ``__tf_flatten__`` protocol) with ``_fn_value()`` (the value rebuilt)
and ``_fn_loop_invariants()`` (its components' shape invariants in a ``while_loop``). A value of a
class marked ``_fn_value_composite`` (an ExtensionType) gets ``CompositeParts`` from its
``__fn_composite__()`` (its spec and component tensors). This module knows no composite type, so
the tensor-only code that uses it stays below them.
"""

from __future__ import annotations

from typing import Any


class CompositeParts:
    """An ExtensionType value as (its spec, its component tensors): a custom nest node, so
    cond/while_loop/nest.flatten(expand_composites=True) see its tensors."""

    def __init__(self, spec: Any, components: tuple) -> None:
        self.spec = spec
        self.components = tuple(components)

    def __tf_flatten__(self) -> tuple:
        return self.spec, self.components

    @classmethod
    def __tf_unflatten__(cls, metadata: Any, components: tuple) -> "CompositeParts":
        return cls(metadata, components)

    def _fn_value(self) -> Any:
        return self.spec._fn_from_components(list(self.components))

    def _fn_loop_invariants(self) -> "CompositeParts":
        return CompositeParts(self.spec, tuple(None for _ in self.components))  # its tensors keep their shapes


def _is_extension_value(x: Any) -> bool:
    return getattr(type(x), "_fn_value_composite", False)


def _is_composite(x: Any) -> bool:
    return hasattr(type(x), "_fn_parts") or _is_extension_value(x)


def _is_parts(x: Any) -> bool:
    return hasattr(type(x), "_fn_value")


def _map(f: Any, structure: Any) -> Any:
    if isinstance(structure, list):
        return [f(v) for v in structure]
    if isinstance(structure, tuple):
        items = [f(v) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if type(structure) is dict:
        return {k: f(v) for k, v in structure.items()}
    return structure


def to_parts(structure: Any) -> Any:
    """``structure`` with each composite value replaced by its parts."""
    if hasattr(type(structure), "_fn_parts"):
        return structure._fn_parts()
    if _is_extension_value(structure):
        spec, components = structure.__fn_composite__()
        return CompositeParts(spec, tuple(components))
    return _map(to_parts, structure)


def from_parts(structure: Any) -> Any:
    """The inverse of ``to_parts``."""
    if _is_parts(structure):
        return structure._fn_value()
    return _map(from_parts, structure)


def has_composite(structure: Any) -> bool:
    if _is_composite(structure):
        return True
    if isinstance(structure, (list, tuple)):
        return any(has_composite(v) for v in structure)
    if type(structure) is dict:
        return any(has_composite(v) for v in structure.values())
    return False


def signature(parts: Any) -> list:
    """What a loop over ``parts`` is traced for: each parts node's type and spec (an ExtensionType's
    or Optional's) and each component's dtype, in order. It changes when a composite's spec is
    assigned while the loop body is traced (see ``control_flow_ops.while_loop``)."""
    out: list = []

    def walk(x: Any) -> None:
        if isinstance(x, CompositeParts):
            out.append((type(x), x.spec))
            for c in x.components:
                walk(c)
        elif _is_parts(x):
            out.append(type(x))
            for c in x.__tf_flatten__()[1]:
                walk(c)
        elif isinstance(x, (list, tuple)):
            out.append(len(x))
            for v in x:
                walk(v)
        elif type(x) is dict:
            for k in sorted(x):
                walk(x[k])
        else:
            out.append(getattr(x, "dtype", type(x)))

    walk(parts)
    return out


def loop_invariants(parts: Any) -> Any:
    """Shape invariants for loop variables holding parts: each parts object says which of its
    components may change shape between iterations; other loop variables keep their shapes (None:
    no invariant)."""
    if _is_parts(parts):
        return parts._fn_loop_invariants()
    if isinstance(parts, (list, tuple)) and not hasattr(parts, "_fields"):
        return type(parts)(loop_invariants(v) for v in parts)
    if isinstance(parts, tuple):
        return type(parts)(*[loop_invariants(v) for v in parts])
    if type(parts) is dict:
        return {k: loop_invariants(v) for k, v in parts.items()}
    return None


def type_spec_mismatch(a: Any, b: Any) -> Any:
    """TF's ``assert_same_structure`` text when ``a`` and ``b`` are values with type specs
    (``_fn_type_spec()``: datasets) and no spec fits both, else None."""
    get_a, get_b = getattr(a, "_fn_type_spec", None), getattr(b, "_fn_type_spec", None)
    if get_a is None or get_b is None:
        return None
    sa, sb = get_a(), get_b()
    ta, tb = (getattr(type(v), "_type_name", type(v).__name__) for v in (a, b))  # TF's class names
    if sa == sb or sa.most_specific_common_supertype([sb]) is not None:
        return None
    return (
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: type={ta} str={a!r}\n\n"
        f"Second structure: type={tb} str={b!r}\n\n"
        "More specifically: Incompatible CompositeTensor TypeSpecs: "
        f"type={type(sa).__name__} str={sa!r} vs. type={type(sb).__name__} str={sb!r}\n"
        "Entire first structure:\n.\nEntire second structure:\n."
    )
