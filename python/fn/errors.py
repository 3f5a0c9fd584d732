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


class _StatusError(OpError):
    """The subclasses for the status codes: every argument optional (fn raises them with a message
    only)."""

    def __init__(self, node_def: Any = None, op: Any = None, message: Optional[str] = None, *args: Any) -> None:
        OpError.__init__(self, node_def, op, message if message is not None else "")


class CancelledError(_StatusError):
    """tf.errors.CancelledError"""

    error_code = CANCELLED


class UnknownError(_StatusError):
    """tf.errors.UnknownError"""

    error_code = UNKNOWN


class InvalidArgumentError(_StatusError):
    """tf.errors.InvalidArgumentError: bad argument values or dtypes."""

    error_code = INVALID_ARGUMENT


class DeadlineExceededError(_StatusError):
    """tf.errors.DeadlineExceededError"""

    error_code = DEADLINE_EXCEEDED


class NotFoundError(_StatusError):
    """tf.errors.NotFoundError"""

    error_code = NOT_FOUND


class AlreadyExistsError(_StatusError):
    """tf.errors.AlreadyExistsError"""

    error_code = ALREADY_EXISTS


class PermissionDeniedError(_StatusError):
    """tf.errors.PermissionDeniedError"""

    error_code = PERMISSION_DENIED


class ResourceExhaustedError(_StatusError):
    """tf.errors.ResourceExhaustedError"""

    error_code = RESOURCE_EXHAUSTED


class FailedPreconditionError(_StatusError):
    """tf.errors.FailedPreconditionError: state not ready (e.g. a deleted variable)."""

    error_code = FAILED_PRECONDITION


class AbortedError(_StatusError):
    """tf.errors.AbortedError"""

    error_code = ABORTED


class OutOfRangeError(_StatusError):
    """tf.errors.OutOfRangeError: iterator exhausted."""

    error_code = OUT_OF_RANGE


class UnimplementedError(_StatusError):
    """tf.errors.UnimplementedError"""

    error_code = UNIMPLEMENTED


class InternalError(_StatusError):
    """tf.errors.InternalError"""

    error_code = INTERNAL


class UnavailableError(_StatusError):
    """tf.errors.UnavailableError"""

    error_code = UNAVAILABLE


class DataLossError(_StatusError):
    """tf.errors.DataLossError"""

    error_code = DATA_LOSS


class UnauthenticatedError(_StatusError):
    """tf.errors.UnauthenticatedError"""

    error_code = UNAUTHENTICATED


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
