"""SPEC section 3: AutoGraph. One test per example; code in ``snippets.py``.

Expected lines are the guide's output (checked against TensorFlow 2.21 with
``ref_tf.py``), with ``fn`` for ``tf``; see ``harness.py`` for normalisation.
"""
from __future__ import annotations

import ast
import re

from harness import Like, check_example

_VEC5 = Like("[{num} {num} {num} {num} {num}]")
_NUM = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _sig_digits(text: str) -> int:
    mantissa = text.lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    return len(mantissa)


def _display_numbers(lines: list[str], head: str) -> list[float]:
    """Numbers of a displayed eager tensor ``<fn.Tensor: ..., numpy=array(...)>``."""
    assert lines[0] == head, lines[0]
    assert lines[1].startswith("array(["), lines[1]
    assert lines[-1].endswith("dtype=float32)>"), lines[-1]
    body = " ".join(lines[1:]).replace("dtype=float32", "")
    return [float(x) for x in _NUM.findall(body.replace("array(", ""))]


def _while_loop(lines: list[str]) -> None:
    """3.1: one tf.print per iteration (random start), then the result.

    Every printed vector has 9 significant digits at most, a sum > 1, and is
    the tanh of the previous one; the returned vector sums to <= 1.
    """
    start = next(i for i, ln in enumerate(lines) if ln.startswith("<fn.Tensor"))
    printed, shown = lines[:start], lines[start:]
    vectors = []
    for ln in printed:
        assert _VEC5.matches(ln), ln
        nums = ln[1:-1].split()
        assert all(_sig_digits(x) <= 9 for x in nums), ln
        vectors.append([float(x) for x in nums])
    for v in vectors:
        assert sum(v) > 1, v
    for prev, cur in zip(vectors, vectors[1:]):
        # tanh(x) < x for x > 0, but float32 rounds tanh(x) to x itself for x below ~1e-4.
        assert all(c < p or (c == p and p < 1e-3) for p, c in zip(prev, cur)), (prev, cur)
    final = _display_numbers(shown, "<fn.Tensor: shape=(5,), dtype=float32, numpy=")
    assert len(final) == 5 and sum(final) <= 1 + 1e-6, final


def _to_code(lines: list[str]) -> None:
    """3.2: the converted source of ``f``: valid Python defining one function
    of ``x`` (the guide: ``def tf__f(x):``) that still calls tf.print,
    tf.tanh and tf.reduce_sum (through AutoGraph's ``ag__`` helpers)."""
    source = "\n".join(lines)
    assert re.fullmatch(r"def \w*f\(x\):", lines[0]), lines[0]
    tree = ast.parse(source)
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef)
    for name in ("print", "tanh", "reduce_sum"):
        assert name in source, name
    assert "while" in source  # the loop, converted (guide: ag__.while_stmt)


_DATASET_LINE = Like(
    "train(<{any}Dataset element_spec=(TensorSpec(shape=<unknown>, dtype=fn.int32, name=None), "
    "TensorSpec(shape=<unknown>, dtype=fn.int32, name=None))>) contains {int} nodes in its graph")


def _python_data_loops(lines: list[str]) -> None:
    """3.4: Python lists unroll (11 and 32 nodes); datasets do not: the same
    small count for both sizes (the guide: 6; TF 2.21 prints ``_FlatMapDataset``
    where the guide prints ``FlatMapDataset``)."""
    assert len(lines) == 4, lines
    assert lines[0] == "train([(1, 1), (1, 1), (1, 1)]) contains 11 nodes in its graph"
    assert lines[1] == ("train([(1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), "
                        "(1, 1), (1, 1), (1, 1)]) contains 32 nodes in its graph")
    assert _DATASET_LINE.matches(lines[2]), lines[2]
    assert _DATASET_LINE.matches(lines[3]), lines[3]
    small, big = (int(re.findall(r"contains (\d+) nodes", ln)[0]) for ln in lines[2:])
    assert small == big and small < 11, (small, big)


def _tensor_array(lines: list[str]) -> None:
    """3.5: shape (2, 3, 4); running sums of uniform inputs never decrease
    along time."""
    nums = _display_numbers(lines, "<fn.Tensor: shape=(2, 3, 4), dtype=float32, numpy=")
    assert len(nums) == 24, nums
    for b in range(2):
        for t in range(1, 3):
            for k in range(4):
                assert nums[b * 12 + t * 4 + k] >= nums[b * 12 + (t - 1) * 4 + k]


EXPECTED = {
    "3.1": _while_loop,
    "3.2": _to_code,
    "3.3": [
        "Tracing for loop",
        "Tracing fizzbuzz branch",
        "Tracing fizz branch",
        "Tracing buzz branch",
        "Tracing default branch",
        "1", "2", "fizz", "4", "buzz",
        "1", "2", "fizz", "4", "buzz", "fizz", "7", "8", "fizz", "buzz",
        "11", "fizz", "13", "14", "fizzbuzz", "16", "17", "fizz", "19", "buzz",
    ],
    "3.4": _python_data_loops,
    "3.5": _tensor_array,
}


def test_3_1_while_loop() -> None:
    check_example("3.1", EXPECTED["3.1"])


def test_3_2_to_code() -> None:
    check_example("3.2", EXPECTED["3.2"])


def test_3_3_fizzbuzz() -> None:
    check_example("3.3", EXPECTED["3.3"])


def test_3_4_python_data_loops() -> None:
    check_example("3.4", EXPECTED["3.4"])


def test_3_5_tensor_array() -> None:
    # Probe: the same trace on a known input gives the running sums exactly.
    check_example("3.5", EXPECTED["3.5"], probe=[
        "fn.Tensor(",
        "[[[ 1.  2.  3.  4.]",
        "  [ 5.  7.  9. 11.]",
        "  [13. 16. 19. 22.]]",
        "",
        " [[13. 14. 15. 16.]",
        "  [29. 31. 33. 35.]",
        "  [49. 52. 55. 58.]]], shape=(2, 3, 4), dtype=float32)",
    ])
