"""TensorFlow's AutoGraph error messages: an exception raised by converted code while a Function
traces is raised again, of the same class, with TF's ``in user code:`` message listing the
user's frames (``File "f.py", line 3, in f  *`` and the source line) above the original
``ValueError: ...`` line."""

import linecache
import os
import re

from fn._autograph import converter as _converter
from fn._autograph import transformer as _transformer
from fn.errors import OperatorNotAllowedInGraphError, OpError


class StagingError(RecursionError):
    """TF's AutoGraph ``StagingError``: an error TF cannot rebuild with the user's frames, or a
    Function that recurses while tracing (a RecursionError as well, so ``except RecursionError``
    still catches it)."""


StagingError.__module__ = "fn"

# The classes TF rebuilds from a message (its KNOWN_STRING_CONSTRUCTOR_ERRORS).
_STRING_CONSTRUCTED = (
    AssertionError,
    AttributeError,
    NameError,
    NotImplementedError,
    RuntimeError,
    StopIteration,
    TypeError,
    UnboundLocalError,
    ValueError,
)
_FN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _MultilineKeyError(KeyError):
    """TF's ``MultilineMessageKeyError``: a KeyError (by name too) that prints the message."""

    def __init__(self, message, key):
        super().__init__(key)
        self._message = message

    def __str__(self):
        return self._message


_MultilineKeyError.__name__ = _MultilineKeyError.__qualname__ = "KeyError"


# The functions the converter writes for a statement's parts (a loop's body and test, a branch).
_GENERATED = re.compile(r"(%s)(_\d+)?$" % "|".join(_transformer.GENERATED_PARTS))


def _frames(tb):
    """(file, line, function, converted) from the first converted frame on, fn's own left out.
    A statement's generated body stands in for the statement's frame, under the enclosing
    function's name (TF's frames: the body's line, in the user's function)."""
    out, started = [], False
    while tb is not None:
        code = tb.tb_frame.f_code
        converted = _converter.is_converted_code(code)
        started = started or converted
        if started and (converted or not os.path.abspath(code.co_filename).startswith(_FN_DIR)):
            frame = (code.co_filename, tb.tb_lineno, code.co_name, converted)
            if converted and out and out[-1][3] and _GENERATED.match(code.co_name):
                out[-1] = frame[:2] + (out[-1][2], True)
            else:
                out.append(frame)
        tb = tb.tb_next
    return out


def in_user_code(error):
    """The exception to raise instead of ``error`` (None: raise ``error`` itself)."""
    if getattr(error, "ag_error_metadata", None) is not None or hasattr(error, "ag_pass_through"):
        return None
    cls = type(error)
    text = str(error)
    if text.startswith("in user code:"):
        return None
    frames = _frames(error.__traceback__)
    if not any(f[3] for f in frames):
        return None
    lines = ["in user code:", ""]
    allowlisted = False
    for filename, lineno, name, converted in frames:
        mark = "  *" if converted else ("" if allowlisted else "  **")
        allowlisted = allowlisted or not converted
        lines.append(f'    File "{filename}", line {lineno}, in {name}{mark}')
        source = linecache.getline(filename, lineno).strip()
        lines.append("        " + (source or "<source unavailable>"))
    lines.append("")
    lines.extend("    " + ln for ln in f"{cls.__name__}: {text}".split("\n"))
    lines.append("")
    message = "\n".join(lines)
    if isinstance(error, OpError):
        new = cls(None, None, message, error.error_code)
    elif (
        cls in _STRING_CONSTRUCTED
        or cls.__init__ is Exception.__init__
        or cls is OperatorNotAllowedInGraphError
        or cls.__name__ == "InaccessibleTensorError"
    ):
        new = cls(message)
    elif cls is KeyError:
        new = _MultilineKeyError(message, error.args[0] if error.args else None)
    else:  # TF: classes it cannot rebuild from a message become a StagingError
        new = StagingError(message)
    new.ag_error_metadata = True
    return new
