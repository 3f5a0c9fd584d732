"""Run guide snippets like notebook cells and compare what they print.

Running
-------
A snippet is executed like a Jupyter cell: the code is written to a real file
(so tracebacks, ``inspect.getsource`` and AutoGraph see real source), compiled
with that file name and executed in a namespace shared by the cells of one
example (a fresh namespace per example). If the last statement of a cell is an
expression whose value is not ``None``, its ``repr`` is printed to stdout, as
the notebook would display it. ``sys.stdout`` and ``sys.stderr`` are both
redirected into one ``StringIO`` so that ``print`` (stdout), ``tf.print``
(``sys.stderr`` through Python's stream objects) and ``traceback.print_exc``
(stderr) lines keep their relative order. Nothing here imports ``fn``: the
snippets do.

Normalisation (``normalise``), the same for every test and every notebook cell
-----------------------------------------------------------------------------
1. Output is split into lines; trailing whitespace is stripped from each line
   (the guide's ``'Caught expected exception \\n'`` ends in a space).
2. Tracebacks are condensed. A block that starts with
   ``Traceback (most recent call last):`` loses its ``File ...`` frames, their
   source lines, carets and chained inner exceptions ("During handling of the
   above exception ..." / "The above exception was the direct cause ...").
   What remains is ONE line: ``ExceptionClass: message`` where ``message`` is
   the exception's whole message (its first line and every continuation line,
   each stripped, joined by single spaces). A message ends at the next
   ``Caught expected exception`` line, the next ``Traceback`` header, the next
   line written to stdout (when the stream of each line is known: the harness
   and the notebook outputs know it) or the end of the cell's output. The ``Caught expected exception`` line printed by the
   guide's ``assert_raises`` and the ``<class '...'>:`` line after it are kept.
3. ``tf.`` as a module prefix (not preceded by a word character or a dot)
   becomes ``fn.``: ``tf.Tensor(...)``, ``<tf.Tensor ...>``,
   ``dtype=tf.int32``.
4. A qualified class name under ``tensorflow.`` or ``fn.`` (for example
   ``tensorflow.python.framework.errors_impl.InvalidArgumentError`` or
   ``fn.errors.InvalidArgumentError``) becomes ``fn.<ClassName>``.
5. Memory addresses ``0x7f...`` become ``0x<addr>``; ``id=1397...`` becomes
   ``id=<id>``; numbered graph function names ``__inference_double_166``
   become ``__inference_double_<n>``.

Values that the SPEC says are not literal (timings, random numbers) are NOT
rewritten by ``normalise``; the tests express them with ``Like`` templates
whose placeholders (``{float}``, ``{int}``, ``{num}``, ``{any}``) are regexes,
and check the property the guide states (same numbers on every call, ...).

Expected lines
--------------
An expected line is a ``str`` (compared exactly after normalisation), a
``Like`` template, or a ``Raises`` (a condensed exception line, compared on the
class and on the guide's key message texts, whitespace-insensitively). An
example may instead be checked by a function of its lines (random output).

Notebooks
---------
``notebook_cell_streams`` turns an executed cell's outputs into normalised
stdout and stderr lines (a kernel buffers the two streams separately, so only
the order within each stream is known) and ``check_notebook_example`` checks
them against the same expected lines.
"""
from __future__ import annotations

import ast
import atexit
import contextlib
import difflib
import io
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence, Union

__all__ = [
    "Like", "Raises", "Line", "Expected", "SnippetError", "run_example",
    "run_cells", "normalise", "condense_tracebacks", "matches", "assert_lines",
    "check", "check_example", "run_guide_example", "load_xfail_ids", "OutLine",
    "chunks_to_lines", "notebook_cell_streams", "check_notebook_example",
]

# --------------------------------------------------------------------------
# Running cells
# --------------------------------------------------------------------------

_TMPDIR: str | None = None
_COUNTER = 0


def _snippet_dir() -> str:
    """A directory for snippet files that lives as long as the process.

    Files must outlive the cell: functions defined in a cell are traced (and
    their source read) later.
    """
    global _TMPDIR
    if _TMPDIR is None:
        _TMPDIR = tempfile.mkdtemp(prefix="fn_guide_")
        atexit.register(shutil.rmtree, _TMPDIR, True)
    return _TMPDIR


def _write_snippet(code: str, label: str) -> str:
    """Write ``code`` to a fresh file and return its path."""
    global _COUNTER
    _COUNTER += 1
    safe = re.sub(r"[^\w]+", "_", label).strip("_") or "cell"
    path = os.path.join(_snippet_dir(), f"{safe}_{_COUNTER}.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(code)
    return path


class SnippetError(AssertionError):
    """A snippet raised; carries what it printed before the exception."""

    def __init__(self, label: str, output: str, error: BaseException) -> None:
        super().__init__(
            f"snippet {label!r} raised {type(error).__name__}: {error}\n"
            f"--- output so far ---\n{output}")
        self.output = output
        self.error = error


def exec_cell(code: str, namespace: dict[str, Any], filename: str) -> None:
    """Execute ``code`` like a notebook cell (display the last expression).

    Output goes to the current ``sys.stdout``/``sys.stderr``; the caller
    decides where those point.
    """
    tree = ast.parse(code, filename=filename)
    last: ast.expr | None = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop().value
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        expr = ast.Expression(body=last)
        value = eval(compile(expr, filename, "eval"), namespace)
        if value is not None:
            print(repr(value))


class OutLine(str):
    """An output line that remembers the stream ("stdout"/"stderr") it came
    from (``None``: unknown). Compares and hashes as a plain ``str``."""

    stream: str | None

    def __new__(cls, text: str, stream: str | None = None) -> "OutLine":
        obj = super().__new__(cls, text)
        obj.stream = stream
        return obj


class _Recorder(io.TextIOBase):
    """A text stream that appends (stream name, text) chunks to a shared list."""

    def __init__(self, sink: list[tuple[str, str]], name: str) -> None:
        super().__init__()
        self._sink, self._name = sink, name

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        self._sink.append((self._name, text))
        return len(text)


def chunks_to_lines(chunks: Iterable[tuple[str | None, str]]) -> list[OutLine]:
    """Join (stream, text) chunks into lines; a line takes the stream of its
    first character (a final newline ends the last line)."""
    lines: list[OutLine] = []
    cur, cur_stream = "", None
    for stream, text in chunks:
        for piece in re.findall(r"[^\n]*\n|[^\n]+", text):
            if not cur:
                cur_stream = stream
            cur += piece
            if piece.endswith("\n"):
                lines.append(OutLine(cur[:-1], cur_stream))
                cur = ""
    if cur:
        lines.append(OutLine(cur, cur_stream))
    return lines


def run_cells(cells: Sequence[str], namespace: dict[str, Any] | None = None,
              label: str = "cell") -> list[list[str]]:
    """Run cells in one namespace; return each cell's raw output lines.

    stdout and stderr are recorded in one ordered list per cell (the lines are
    ``OutLine`` objects that remember their stream). Raises ``SnippetError``
    (with the output so far) if a cell raises.
    """
    ns: dict[str, Any] = {"__name__": "__main__"} if namespace is None else namespace
    outputs: list[list[str]] = []
    for i, code in enumerate(cells):
        path = _write_snippet(code, f"{label}_{i}")
        chunks: list[tuple[str, str]] = []
        out, err = _Recorder(chunks, "stdout"), _Recorder(chunks, "stderr")
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                exec_cell(code, ns, path)
        except BaseException as e:  # noqa: BLE001 - re-raised with context
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise SnippetError(f"{label}[{i}]", "".join(t for _, t in chunks), e) from e
        outputs.append(list(chunks_to_lines(chunks)))
    return outputs


def run_example(code: str) -> list[str]:
    """Run one snippet as a single cell in a fresh namespace; raw lines."""
    return run_cells([code], label="example")[0]


def split_lines(text: str) -> list[str]:
    """Split captured text into lines (a final newline ends the last line)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


# --------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------

_TB_HEADER = "Traceback (most recent call last):"
_CHAIN_MARKERS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
_CAUGHT = "Caught expected exception"
_EXC_LINE = re.compile(r"^[A-Za-z_][\w.]*(?::(?: .*)?)?$")


def condense_tracebacks(lines: Sequence[str]) -> list[str]:
    """Replace each traceback block by one ``Class: message`` line (rule 2)."""
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        if lines[i].rstrip() != _TB_HEADER:
            out.append(lines[i])
            i += 1
            continue
        exc: list[str] = []
        while i < n and lines[i].rstrip() == _TB_HEADER:
            i += 1
            # Frames: indented lines (File ..., source, carets) and blanks.
            while i < n and (not lines[i].strip() or lines[i][:1].isspace()):
                i += 1
            exc = []
            if i < n and _EXC_LINE.match(lines[i].rstrip()):
                exc.append(lines[i])
                i += 1
            # Message continuation, up to a boundary.
            while i < n:
                s = lines[i].rstrip()
                if s == _TB_HEADER or s.startswith(_CAUGHT) or \
                        getattr(lines[i], "stream", None) == "stdout":
                    break
                exc.append(lines[i])
                i += 1
            tail = [s for s in exc if s.strip()]
            if i < n and lines[i].rstrip() == _TB_HEADER and tail and \
                    tail[-1].strip() in _CHAIN_MARKERS:
                continue  # chained: the inner exception is dropped
            break
        parts = [p.strip() for p in exc if p.strip()]
        if parts:
            out.append(" ".join(parts))
    return out


_SUBS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![\w.])tf\."), "fn."),
    (re.compile(r"(?<![\w.])(?:tensorflow|fn)(?:\.[a-z_]\w*)*\.([A-Z]\w*)"), r"fn.\1"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "0x<addr>"),
    (re.compile(r"\bid=\d+"), "id=<id>"),
    (re.compile(r"(__inference_\w+?)_\d+\b"), r"\1_<n>"),
]


def normalise_line(line: str) -> str:
    """Apply rules 3-5 to one line (also used on expected key texts)."""
    for pattern, repl in _SUBS:
        line = pattern.sub(repl, line)
    return line


def normalise(lines: Iterable[str]) -> list[str]:
    """The documented normalisation (rules 1-5) of captured output lines."""
    stripped = [OutLine(ln.rstrip(), getattr(ln, "stream", None)) for ln in lines]
    return [normalise_line(ln) for ln in condense_tracebacks(stripped)]


# --------------------------------------------------------------------------
# Expected lines and comparison
# --------------------------------------------------------------------------

PLACEHOLDERS: dict[str, str] = {
    "float": r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?",
    "int": r"-?\d+",
    "num": r"-?(?:nan|inf|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)",
    "any": r".*",
}


@dataclass(frozen=True)
class Like:
    """A line template: literal text with ``{float}``, ``{int}``, ``{num}``,
    ``{any}`` placeholders (regexes); must match the whole line."""

    template: str

    def regex(self) -> re.Pattern[str]:
        parts = re.split(r"\{(float|int|num|any)\}", self.template)
        rx = "".join(PLACEHOLDERS[p] if k % 2 else re.escape(p)
                     for k, p in enumerate(parts))
        return re.compile(rx)

    def matches(self, line: str) -> bool:
        return self.regex().fullmatch(line) is not None


@dataclass(frozen=True)
class Raises:
    """A condensed exception line: class name (``None``: any class) and key
    texts that must appear in the message (whitespace-insensitive)."""

    cls: str | None
    keys: tuple[str, ...] = field(default=())

    def __init__(self, cls: str | None, *keys: str) -> None:
        object.__setattr__(self, "cls", cls)
        object.__setattr__(self, "keys", tuple(keys))

    def matches(self, line: str) -> bool:
        m = re.match(r"^([A-Za-z_][\w.]*)(?::|$)", line)
        if not m:
            return False
        if self.cls is not None and m.group(1) != normalise_line(self.cls):
            return False
        flat = " ".join(line.split())
        return all(" ".join(normalise_line(k).split()) in flat for k in self.keys)


Line = Union[str, Like, Raises]
Expected = Union[Sequence[Line], Callable[[list[str]], None]]


def matches(line: str, expected: Line) -> bool:
    """Does one normalised line match one expected line?"""
    if isinstance(expected, str):
        return line == expected
    return expected.matches(line)


def _show(e: Line) -> str:
    return e if isinstance(e, str) else repr(e)


def assert_lines(actual: Sequence[str], expected: Sequence[Line],
                 what: str = "output") -> None:
    """Assert normalised ``actual`` lines match ``expected`` one by one.

    An empty ``expected`` is allowed only for cells that print nothing; a
    whole example must expect something (see ``check``).
    """
    ok = len(actual) == len(expected) and all(
        matches(a, e) for a, e in zip(actual, expected))
    if ok:
        return
    diff = "\n".join(difflib.unified_diff(
        [_show(e) for e in expected], list(actual),
        "expected", "actual", lineterm=""))
    raise AssertionError(f"{what} differs from the guide:\n{diff}")


def check(actual: Sequence[str], expected: Expected, what: str = "output") -> None:
    """Check normalised lines against a literal list or a checker function.

    Refuses an empty expectation: no test may pass without checking output.
    """
    if callable(expected):
        if not actual:
            raise AssertionError(f"{what}: nothing was printed")
        expected(list(actual))
        return
    if not expected:
        raise AssertionError(f"{what}: empty expectation (not allowed)")
    assert_lines(actual, expected, what)


def load_xfail_ids(path: "os.PathLike[str] | str") -> set[str]:
    """Test ids from an ``xfail.txt`` (one per line, ``#`` comments)."""
    ids: set[str] = set()
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            line = raw.split("#", 1)[0].strip()
            if line:
                ids.add(line)
    return ids


def run_guide_example(ex_id: str) -> tuple[list[str], list[str]]:
    """Run a SPEC example from ``snippets``: its ``needs`` first (output not
    checked), then its own cells, then its probe cells, all in one fresh
    namespace. Returns (normalised output of the guide's cells, normalised
    output of the probe cells)."""
    import snippets  # local: keeps this module usable on its own

    setup, own = snippets.cells_with_needs(ex_id)
    probe = list(snippets.EXAMPLES[ex_id].probe)
    ns: dict[str, Any] = {"__name__": "__main__"}
    label = "ex_" + ex_id
    run_cells(setup, ns, label + "_setup")
    out = run_cells(own, ns, label)
    extra = run_cells(probe, ns, label + "_probe")
    return (normalise([ln for cell in out for ln in cell]),
            normalise([ln for cell in extra for ln in cell]))


def check_example(ex_id: str, expected: Expected,
                  probe: Expected | None = None) -> None:
    """Run a SPEC example and check its output (and its probe's, if any)."""
    import snippets

    if bool(snippets.EXAMPLES[ex_id].probe) != (probe is not None):
        raise AssertionError(f"example {ex_id}: probe cells and probe expectation must go together")
    lines, probe_lines = run_guide_example(ex_id)
    check(lines, expected, f"example {ex_id}")
    if probe is not None:
        check(probe_lines, probe, f"example {ex_id} (probe)")


# --------------------------------------------------------------------------
# Notebook outputs
# --------------------------------------------------------------------------

def notebook_cell_streams(outputs: Sequence[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(stdout lines, stderr lines) of one executed notebook cell, each
    normalised on its own. A Jupyter kernel buffers stdout and stderr
    separately, so their relative order is lost; within a stream it is kept.
    An ``execute_result`` (the displayed last expression) ends stdout."""
    out: list[tuple[str, str]] = []
    err: list[tuple[str, str]] = []
    for o in outputs:
        kind = o.get("output_type")
        if kind == "stream":
            (out if o.get("name") == "stdout" else err).append((o.get("name", ""), o["text"]))
        elif kind == "execute_result":
            text = o.get("data", {}).get("text/plain", "")
            out.append(("stdout", text if text.endswith("\n") else text + "\n"))
    return normalise(chunks_to_lines(out)), normalise(chunks_to_lines(err))


def _interleaves(out: Sequence[str], err: Sequence[str], expected: Sequence[Line]) -> bool:
    """Is ``expected`` some interleaving of ``out`` and ``err`` (each kept in
    order)? Dynamic programming over (lines of out used, lines of err used)."""
    if len(out) + len(err) != len(expected):
        return False
    reach = {(0, 0)}
    for k, e in enumerate(expected):
        nxt = set()
        for i, j in reach:
            if i < len(out) and matches(out[i], e):
                nxt.add((i + 1, j))
            if j < len(err) and matches(err[j], e):
                nxt.add((i, j + 1))
        reach = nxt
        if not reach:
            return False
    return (len(out), len(err)) in reach


def check_notebook_example(cells: Sequence[tuple[list[str], list[str]]],
                           expected: Expected, what: str) -> None:
    """Check one example's notebook cells, given per cell (stdout, stderr).

    A literal expectation must split, cell by cell, into interleavings of
    each cell's stdout and stderr lines (the exact cross-stream order is
    checked by the in-process tests). A checker function gets, per cell, the
    stderr lines then the stdout lines (right for every example checked by a
    function: their cells print to one stream, or, as in 3.1, tf.print before
    the displayed result).
    """
    if callable(expected):
        check([ln for out, err in cells for ln in err + out], expected, what)
        return
    if not expected:
        raise AssertionError(f"{what}: empty expectation (not allowed)")
    pos, ok = 0, True
    for out, err in cells:
        n = len(out) + len(err)
        ok = ok and _interleaves(out, err, expected[pos:pos + n])
        pos += n
    if ok and pos == len(expected):
        return
    shown = "\n".join(f"--- cell {k}: stdout\n" + "\n".join(out) + "\n--- stderr\n" + "\n".join(err)
                      for k, (out, err) in enumerate(cells))
    want = "\n".join(_show(e) for e in expected)
    raise AssertionError(f"{what} differs from the guide.\n=== expected\n{want}\n=== actual\n{shown}")
