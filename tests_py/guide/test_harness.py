"""Tests of the guide harness itself, on plain Python (no fn)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import snippets
from harness import (Like, OutLine, Raises, SnippetError, check, check_notebook_example,
                     chunks_to_lines, notebook_cell_streams,
                     condense_tracebacks, load_xfail_ids, normalise, run_cells,
                     run_example)

HELPER = snippets.EXAMPLES["0.2"].cells[0]


def test_stdout_and_stderr_keep_their_order() -> None:
    code = ("import sys\nprint('one')\nprint('two', file=sys.stderr)\n"
            "sys.stdout.write('three\\n')\nsys.stderr.write('four\\n')\nprint('five')\n")
    assert run_example(code) == ["one", "two", "three", "four", "five"]


def test_lines_remember_their_stream() -> None:
    out = run_example("import sys\nprint('a', end='')\nprint('b')\n"
                      "print('c', file=sys.stderr)\n")
    assert out == ["ab", "c"]
    assert [ln.stream for ln in out] == ["stdout", "stderr"]
    lines = chunks_to_lines([("stdout", "x\ny"), ("stderr", "z\n"), ("stderr", "w")])
    assert lines == ["x", "yz", "w"]
    assert [ln.stream for ln in lines] == ["stdout", "stdout", "stderr"]


def test_last_expression_is_displayed_like_a_notebook() -> None:
    assert run_example("x = 20\nx + 1\n") == ["21"]
    assert run_example("'a' + 'b'") == ["'ab'"]
    assert run_example("print('p')\nNone\n") == ["p"]
    assert run_example("y = 3\n") == []
    assert run_example("[1, 2]\n3\n") == ["3"]  # only the last one


def test_blank_lines_are_kept() -> None:
    assert run_example("print('a')\nprint()\nprint('b')\nprint()\n") == ["a", "", "b", ""]


def test_cells_share_one_namespace_and_split_output() -> None:
    out = run_cells(["a = 1\nprint('first')", "print(a + 1)", "a"])
    assert out == [["first"], ["2"], ["1"]]


def test_snippets_are_real_files_with_source() -> None:
    out = run_example("import inspect\ndef f():\n  return 1\nprint(inspect.getsource(f), end='')\n")
    assert out == ["def f():", "  return 1"]
    tb = run_example(HELPER + "with assert_raises(ZeroDivisionError):\n  1 / 0\n")
    assert any(re.match(r'  File ".*\.py", line \d+, in <module>', ln) for ln in tb)


def test_a_raising_snippet_reports_its_output() -> None:
    with pytest.raises(SnippetError) as info:
        run_example("print('before')\nraise KeyError('k')\n")
    assert info.value.output == "before\n"
    assert isinstance(info.value.error, KeyError)


def test_traceback_from_assert_raises_is_condensed() -> None:
    code = HELPER + (
        "def inner():\n  raise ValueError('bad value')\n"
        "def outer():\n  inner()\n"
        "with assert_raises(ValueError):\n  outer()\n"
        "print('after')\n")
    assert normalise(run_example(code)) == [
        "Caught expected exception", "  <class 'ValueError'>:",
        "ValueError: bad value", "after"]


def test_message_ends_at_a_stdout_line_but_not_at_stderr_text() -> None:
    lines = [OutLine("Traceback (most recent call last):", "stderr"),
             OutLine('  File "x.py", line 1, in <module>', "stderr"),
             OutLine("ValueError: first", "stderr"), OutLine("second", "stderr"),
             OutLine("printed", "stdout")]
    assert normalise(lines) == ["ValueError: first second", "printed"]
    assert normalise([str(ln) for ln in lines]) == ["ValueError: first second printed"]


def test_chained_traceback_keeps_the_final_exception() -> None:
    code = HELPER + (
        "def g():\n  try:\n    {}['k']\n  except KeyError:\n"
        "    raise TypeError('outer message')\n"
        "with assert_raises(TypeError):\n  g()\n")
    assert normalise(run_example(code)) == [
        "Caught expected exception", "  <class 'TypeError'>:",
        "TypeError: outer message"]


def test_multiline_message_is_joined_up_to_the_next_caught_line() -> None:
    code = HELPER + (
        "msg = 'incompatible:\\n  inputs: (\\n[[1 2]\\n [3 4]])\\n  sig: (x)).'\n"
        "with assert_raises(ValueError):\n  raise ValueError(msg)\n"
        "with assert_raises(KeyError):\n  raise KeyError('k')\n")
    assert normalise(run_example(code)) == [
        "Caught expected exception", "  <class 'ValueError'>:",
        "ValueError: incompatible: inputs: ( [[1 2] [3 4]]) sig: (x)).",
        "Caught expected exception", "  <class 'KeyError'>:", "KeyError: 'k'"]


def test_condense_on_text_with_a_qualified_class() -> None:
    lines = ["Caught expected exception ", "  <class 'tensorflow.python.framework.errors_impl.X'>:",
             "Traceback (most recent call last):", '  File "a.py", line 8, in assert_raises',
             "    yield", '  File "b.py", line 2, in <module>', "    double_strings(tf.constant(1))",
             "tensorflow.python.framework.errors_impl.X: cannot compute __inference_double_166 "
             "as input #0 [Op:__inference_double_166]"]
    assert normalise(lines) == [
        "Caught expected exception", "  <class 'fn.X'>:",
        "fn.X: cannot compute __inference_double_<n> as input #0 [Op:__inference_double_<n>]"]
    assert condense_tracebacks(["a", "b"]) == ["a", "b"]


def test_module_names_and_addresses_are_normalised() -> None:
    assert normalise([
        "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>",
        "tf.Tensor(2, shape=(), dtype=int32)",
        "TensorSpec(shape=(), dtype=tf.string, name='a')",
        "<tf.Tensor 'add:0' shape=() dtype=int32> is out of scope",
        "<object at 0x7f3a2b1c> FuncGraph(name=leaky, id=139766631324832)",
        "tf__f(x) ag__.ld(tf).print keeps tf. inside names: xtf.y",
        "fn.errors.InvalidArgumentError: m",
    ]) == [
        "<fn.Tensor: shape=(), dtype=float32, numpy=1.0>",
        "fn.Tensor(2, shape=(), dtype=int32)",
        "TensorSpec(shape=(), dtype=fn.string, name='a')",
        "<fn.Tensor 'add:0' shape=() dtype=int32> is out of scope",
        "<object at 0x<addr>> FuncGraph(name=leaky, id=<id>)",
        "tf__f(x) ag__.ld(tf).print keeps fn. inside names: xtf.y",
        "fn.InvalidArgumentError: m",
    ]


def test_like_templates() -> None:
    assert Like("Eager conv: {float}").matches("Eager conv: 0.0060608")
    assert Like("t: {float}").matches("t: 1e-05")
    assert not Like("Eager conv: {float}").matches("Eager conv: fast")
    assert Like("[{num} {num}]").matches("[0.25 -1.5e-07]")
    assert Like("a (x) {any}").matches("a (x) anything at all")
    assert not Like("a.b").matches("aXb")  # literal text is escaped


def test_raises_matches_class_and_key_texts() -> None:
    line = "ValueError: Python inputs incompatible with input_signature: inputs: ( fn.Tensor( [[1 2]"
    assert Raises("ValueError", "Python inputs incompatible with input_signature:").matches(line)
    assert Raises("ValueError", "inputs incompatible   with", "fn.Tensor(").matches(line)
    assert Raises("ValueError", "tf.Tensor(").matches(line)  # keys are normalised too
    assert not Raises("TypeError").matches(line)
    assert not Raises("ValueError", "missing text").matches(line)
    assert Raises(None, "maximum recursion depth").matches(
        "fn.StagingError: in user code: RecursionError: maximum recursion depth exceeded")
    assert Raises("fn.errors.InvalidArgumentError").matches("fn.InvalidArgumentError: x")


def test_check_compares_every_line_and_refuses_empty_expectations() -> None:
    check(["a", "b 1.5"], ["a", Like("b {float}")])
    with pytest.raises(AssertionError, match="differs"):
        check(["a", "b"], ["a"])
    with pytest.raises(AssertionError, match="differs"):
        check(["a", "c"], ["a", "b"])
    with pytest.raises(AssertionError, match="empty expectation"):
        check([], [])
    with pytest.raises(AssertionError, match="nothing was printed"):
        check([], lambda lines: None)


def test_snippets_cover_the_spec_examples_in_order() -> None:
    ids = [e.id for e in snippets.guide_examples()]
    spec = ([f"1.{i}" for i in range(1, 5)] + [f"2.{i}" for i in range(1, 17)]
            + [f"3.{i}" for i in range(1, 6)] + [f"4.{i}" for i in range(1, 12)]
            + [f"5.{i}" for i in range(1, 5)])
    assert ids == spec
    names = [e.test_id for e in snippets.guide_examples()]
    assert len(set(names)) == len(names)
    for e in snippets.guide_examples():
        setup, own = snippets.cells_with_needs(e.id)
        assert own and all("tensorflow" not in c for c in setup + own)
        assert "import fn as tf" in (setup + own)[0]


def test_every_example_has_a_test_and_xfail_names_only_real_tests() -> None:
    here = Path(__file__).resolve().parent
    defined: set[str] = set()
    for path in here.glob("test_[1-5]_*.py"):
        defined |= set(re.findall(r"^def (test_\w+)\(", path.read_text(), re.M))
    wanted = {e.test_id for e in snippets.guide_examples()}
    assert wanted == defined
    listed = load_xfail_ids(here / "xfail.txt")
    assert listed <= wanted | {"test_notebook_01_basics_and_tracing",
                               "test_notebook_02_autograph", "test_notebook_03_limitations"}


def test_notebook_streams_and_interleaving() -> None:
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "a\nCaught expected exception \n"},
        {"output_type": "stream", "name": "stderr", "text": "x\nTraceback (most recent call last):\n"
                                                             '  File "c.py", line 1, in <module>\n'
                                                             "KeyError: 'k'\n"},
        {"output_type": "stream", "name": "stdout", "text": "b\n"},
        {"output_type": "execute_result", "data": {"text/plain": "<tf.Tensor: numpy=1>"}},
    ]
    out, err = notebook_cell_streams(outputs)
    assert out == ["a", "Caught expected exception", "b", "<fn.Tensor: numpy=1>"]
    assert err == ["x", "KeyError: 'k'"]
    good = ["x", "a", "Caught expected exception", Raises("KeyError"), "b", "<fn.Tensor: numpy=1>"]
    check_notebook_example([(out, err)], good, "cell")
    with pytest.raises(AssertionError):  # stdout order is kept
        check_notebook_example([(out, err)], ["x", "b", "a", "Caught expected exception",
                                              Raises("KeyError"), "<fn.Tensor: numpy=1>"], "cell")
    with pytest.raises(AssertionError):  # lines must fall in their own cell
        check_notebook_example([(["1"], []), (["2"], [])], ["1", "2", "3"], "cells")
    check_notebook_example([(["1"], []), ([], ["2"])], ["1", "2"], "cells")
    seen: list[list[str]] = []
    check_notebook_example([(["shown"], ["printed"])], seen.append, "fn")
    assert seen == [["printed", "shown"]]  # checkers get stderr, then stdout
