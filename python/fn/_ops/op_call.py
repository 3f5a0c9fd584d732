"""The one way an op wrapper calls an op: ``fn._core.execute`` dispatches it (the kernel now when
eager, a node of the graph being traced otherwise); these name the two results wrappers want."""

from __future__ import annotations

from typing import Any, List, Optional

from fn import _core


def run_op(op: str, inputs: list, attrs: Optional[dict] = None, name: Optional[str] = None) -> Any:
    """The op's first (usually only) output."""
    return _core.execute(op, inputs, attrs, name)[0]


def run_op_outputs(op: str, inputs: list, attrs: Optional[dict] = None, name: Optional[str] = None) -> List[Any]:
    """All the op's outputs."""
    return _core.execute(op, inputs, attrs, name)
