"""SPEC section 1: basics. One test per example; code in ``snippets.py``.

Expected lines are the guide's output (checked against TensorFlow 2.21 with
``ref_tf.py``), with ``fn`` for ``tf``; see ``harness.py`` for normalisation.
"""
from __future__ import annotations

import re

from harness import Like, check_example


def _speed(lines: list[str]) -> None:
    """1.4: two timings (not literal) of about the same size, then the note."""
    assert len(lines) == 3, lines
    assert Like("Eager conv: {float}").matches(lines[0]), lines[0]
    assert Like("Function conv: {float}").matches(lines[1]), lines[1]
    assert lines[2] == "Note how there's not much difference in performance for convolutions"
    eager, func = (float(re.findall(r"[-\d.eE+]+$", ln)[0]) for ln in lines[:2])
    assert eager > 0 and func > 0
    # The guide's point: one convolution dominates, so the times are close.
    assert 0.2 < func / eager < 5.0, (eager, func)


EXPECTED = {
    "1.1": [
        "<fn.Tensor: shape=(2, 2), dtype=float32, numpy=",
        "array([[2., 2.],",
        "       [2., 2.]], dtype=float32)>",
    ],
    "1.2": [
        "<fn.Tensor: shape=(), dtype=float32, numpy=1.0>",
    ],
    "1.3": [
        "<fn.Tensor: shape=(3, 2), dtype=float32, numpy=",
        "array([[3., 3.],",
        "       [3., 3.],",
        "       [3., 3.]], dtype=float32)>",
    ],
    "1.4": _speed,
}


def test_1_1_add() -> None:
    check_example("1.1", EXPECTED["1.1"])


def test_1_2_gradient() -> None:
    check_example("1.2", EXPECTED["1.2"])


def test_1_3_nested_functions() -> None:
    check_example("1.3", EXPECTED["1.3"])


def test_1_4_speed() -> None:
    check_example("1.4", EXPECTED["1.4"])
