"""The one way an op wrapper calls an op: ``fn._core.execute`` dispatches it (the kernel now when
eager, a node of the graph being traced otherwise); these name the two results wrappers want."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, TypeVar

from fn import _core


def run_op(op: str, inputs: list, attrs: Optional[dict] = None, name: Optional[str] = None) -> Any:
    """The op's first (usually only) output."""
    return _core.execute(op, inputs, attrs, name)[0]


def run_op_outputs(op: str, inputs: list, attrs: Optional[dict] = None, name: Optional[str] = None) -> List[Any]:
    """All the op's outputs."""
    return _core.execute(op, inputs, attrs, name)


_F = TypeVar("_F", bound=Callable[..., Any])


def wraps_op(op: str) -> Callable[[_F], _F]:
    """Marks a public function as the wrapper of one op (``f._fn_op``): code that treats ops by
    their definition's facts (ragged dispatch wraps every unary/binary elementwise op) finds the
    op's facts through it, so a new op's wrapper needs no entry in such a list."""

    def mark(f: _F) -> _F:
        f._fn_op = op  # type: ignore[attr-defined]
        return f

    return mark
