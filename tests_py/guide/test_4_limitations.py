"""SPEC section 4: limitations. One test per example; code in ``snippets.py``.

Expected lines are the guide's output (checked against TensorFlow 2.21 with
``ref_tf.py``), with ``fn`` for ``tf``; see ``harness.py`` for normalisation.
Where TF 2.21 differs from the guide/SPEC, the SPEC wins and a comment says so.
"""
from __future__ import annotations

from harness import Raises, check_example

_SINGLETON = ("tf.function only supports singleton tf.Variables created on the first call. "
              "Make sure the tf.Variable is only created once or created outside tf.function.")

EXPECTED = {
    # Cells 2-3: the guide's tf.py_function example (seeds/000_*.txt). The
    # displayed `.numpy()` is NumPy's repr of a float32 scalar: NumPy >= 2
    # prints `np.float32(3.0)` (the guide, with NumPy 1, shows `3.0`).
    "4.1": [
        "Traced with 1",
        "Executed with 1",
        "Executed with 1",
        "Traced with 2",
        "Executed with 2",
        "Tracing.",
        "Executing eagerly.",
        "np.float32(3.0)",
        "Executing eagerly.",
        "np.float32(3.0)",
    ],
    "4.2": [
        "Python side effect",
    ],
    "4.3": [
        "1", "2", "3",
        "1", "1", "1",
    ],
    "4.4": [
        "Value: 1", "Value: 1", "Value: 1",
        "Value: 1", "Value: 2", "Value: 3",
    ],
    # TF 2.21 says 'SymbolicTensor' object has no attribute 'numpy'; the SPEC
    # and the guide say 'Tensor'.
    "4.5": [
        "3",
        "'Tensor' object has no attribute 'numpy'",
        "2",
        "'Tensor' object has no attribute 'numpy'",
        "Caught expected exception",
        "  <class 'TypeError'>:",
        Raises("TypeError",
               "<tf.Tensor 'add:0' shape=() dtype=int32> is out of scope and cannot be used here.",
               "was defined here"),
    ],
    # The guide's exception is a StagingError wrapping RecursionError
    # ("maximum recursion depth exceeded"); assert_raises(Exception) takes any
    # class, so only the message is checked.
    "4.6": [
        "Caught expected exception",
        "  <class 'Exception'>:",
        Raises(None, "maximum recursion depth exceeded"),
        "tracing", "tracing", "tracing", "tracing", "tracing",
        "<fn.Tensor: shape=(), dtype=int32, numpy=1>",
    ],
    "4.7": [
        "Buggy: fn.Tensor(2, shape=(), dtype=int32)",
        "Correct: fn.Tensor(2, shape=(), dtype=int32)",
        "Updating the value of `foo` to 100!",
        "Buggy: fn.Tensor(2, shape=(), dtype=int32)",
        "Correct: fn.Tensor(101, shape=(), dtype=int32)",
        "Variable: fn.Tensor(2, shape=(), dtype=int32)",
        "Updating the value of `foo` to 100!",
        "Variable: fn.Tensor(101, shape=(), dtype=int32)",
    ],
    "4.8": [
        "fn.Tensor(20.0, shape=(), dtype=float32)",
        "Adding bias!",
        "fn.Tensor(20.0, shape=(), dtype=float32)",
        "fn.Tensor(20.0, shape=(), dtype=float32)",
        "Adding bias!",
        "fn.Tensor(25.0, shape=(), dtype=float32)",
        "fn.Tensor(20.0, shape=(), dtype=float32)",
        "Adding bias!",
        "fn.Tensor(25.0, shape=(), dtype=float32)",
    ],
    "4.9": [
        "Caught expected exception",
        "  <class 'ValueError'>:",
        Raises("ValueError", _SINGLETON),
        "fn.Tensor(1, shape=(), dtype=int32)",
        "fn.Tensor(2, shape=(), dtype=int32)",
    ],
    # TF 2.21 (Keras 3) raises TypeError in the second cell: its concrete
    # function still wants the `optimizer` argument. The SPEC: it works.
    "4.10": [
        "Calling `train_step` with different optimizer...",
        "Caught expected exception",
        "  <class 'ValueError'>:",
        Raises("ValueError", _SINGLETON),
    ],
    # From seeds/002_*.txt. TF 2.21 keeps the variable alive and raises
    # nothing; the SPEC: FailedPreconditionError. Only the class is checked
    # (the guide's text is TensorFlow's resource-manager wording).
    "4.11": [
        "Calling concrete function...",
        "fn.Tensor(12, shape=(), dtype=int32)",
        "",
        "Calling concrete function after garbage collecting its closed Variable...",
        "Caught expected exception",
        "  <class 'fn.FailedPreconditionError'>:",
        Raises("fn.errors.FailedPreconditionError"),
    ],
}


def test_4_1_side_effects() -> None:
    check_example("4.1", EXPECTED["4.1"])


def test_4_2_external_list() -> None:
    check_example("4.2", EXPECTED["4.2"])


def test_4_3_init_scope() -> None:
    check_example("4.3", EXPECTED["4.3"])


def test_4_4_iterators() -> None:
    check_example("4.4", EXPECTED["4.4"])


def test_4_5_leaks() -> None:
    # Probe: the guide's last cell (appending to an outer list / object) is
    # only defined there; calling it as a Function leaks a graph tensor too.
    # TF 2.21 says 'SymbolicTensor'; SPEC: 'Tensor'.
    check_example("4.5", EXPECTED["4.5"], probe=[
        "'Tensor' object has no attribute 'numpy'",
        "True",
    ])


def test_4_6_recursion() -> None:
    check_example("4.6", EXPECTED["4.6"])


def test_4_7_globals() -> None:
    check_example("4.7", EXPECTED["4.7"])


def test_4_8_python_objects() -> None:
    check_example("4.8", EXPECTED["4.8"])


def test_4_9_variables() -> None:
    check_example("4.9", EXPECTED["4.9"])


def test_4_10_keras_optimizers() -> None:
    # Probe: the ten steps of the second cell did train `w` (from 2.0 down).
    check_example("4.10", EXPECTED["4.10"], probe=["True"])


def test_4_11_deleted_variable() -> None:
    check_example("4.11", EXPECTED["4.11"])
