"""Exception classes, mirroring ``tf.errors``: ``OpError`` and one subclass per status code."""

from __future__ import annotations

from typing import Any, Optional

CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS = range(1, 7)
PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE = range(7, 12)
UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = 12, 13, 14, 15, 16


class OpError(Exception):
    """An op failed (``tf.errors.OpError``): carries the message, the node and the error code."""

    error_code = UNKNOWN

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self) -> Any:
        return self._op

    @property
    def node_def(self) -> Any:
        return self._node_def

    def __str__(self) -> str:
        return self._message

    def __reduce__(self):
        return type(self), (self._node_def, self._op, self._message)


def _make(name: str, code: int, doc: str) -> type:
    def __init__(self, node_def: Any = None, op: Any = None, message: Optional[str] = None, *args: Any) -> None:
        OpError.__init__(self, node_def, op, message if message is not None else "")

    return type(name, (OpError,), {"__init__": __init__, "error_code": code, "__doc__": doc, "__module__": "fn.errors"})


CancelledError = _make("CancelledError", CANCELLED, "tf.errors.CancelledError")
UnknownError = _make("UnknownError", UNKNOWN, "tf.errors.UnknownError")
InvalidArgumentError = _make(
    "InvalidArgumentError", INVALID_ARGUMENT, "tf.errors.InvalidArgumentError: bad argument values or dtypes."
)
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "tf.errors.DeadlineExceededError")
NotFoundError = _make("NotFoundError", NOT_FOUND, "tf.errors.NotFoundError")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "tf.errors.AlreadyExistsError")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "tf.errors.PermissionDeniedError")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "tf.errors.ResourceExhaustedError")
FailedPreconditionError = _make(
    "FailedPreconditionError",
    FAILED_PRECONDITION,
    "tf.errors.FailedPreconditionError: state not ready (e.g. a deleted variable).",
)
AbortedError = _make("AbortedError", ABORTED, "tf.errors.AbortedError")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "tf.errors.OutOfRangeError: iterator exhausted.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "tf.errors.UnimplementedError")
InternalError = _make("InternalError", INTERNAL, "tf.errors.InternalError")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "tf.errors.UnavailableError")
DataLossError = _make("DataLossError", DATA_LOSS, "tf.errors.DataLossError")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "tf.errors.UnauthenticatedError")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a graph tensor that needs its value (``tf.errors.OperatorNotAllowedInGraphError``)."""


# C++ error codes (cpp/core/error.h, 0-based) -> classes, registered with the core at import.
_BY_CPP_CODE = [
    CancelledError,
    UnknownError,
    InvalidArgumentError,
    DeadlineExceededError,
    NotFoundError,
    AlreadyExistsError,
    PermissionDeniedError,
    ResourceExhaustedError,
    FailedPreconditionError,
    AbortedError,
    OutOfRangeError,
    UnimplementedError,
    InternalError,
    UnavailableError,
    DataLossError,
    UnauthenticatedError,
]

from fn._public import export as _export

_export(globals())
