"""SPEC section 2: tracing. One test per example; code in ``snippets.py``.

Expected lines are the guide's output (checked against TensorFlow 2.21 with
``ref_tf.py``), with ``fn`` for ``tf``; see ``harness.py`` for normalisation.
Where TF 2.21 differs from the guide/SPEC, the SPEC wins and a comment says so.
"""
from __future__ import annotations

from harness import Raises, check_example

EXPECTED = {
    "2.1": [
        'Tracing with Tensor("a:0", shape=(), dtype=int32)',
        "fn.Tensor(2, shape=(), dtype=int32)",
        "",
        'Tracing with Tensor("a:0", shape=(), dtype=float32)',
        "fn.Tensor(2.2, shape=(), dtype=float32)",
        "",
        'Tracing with Tensor("a:0", shape=(), dtype=string)',
        "fn.Tensor(b'aa', shape=(), dtype=string)",
        "",
    ],
    "2.2": [
        "fn.Tensor(b'bb', shape=(), dtype=string)",
    ],
    # TF 2.21 prints a newer format ("Input Parameters:", "Output Type:",
    # "Captures:"); the SPEC and the guide use this one.
    "2.3": [
        "double(a)",
        "  Args:",
        "    a: int32 Tensor, shape=()",
        "  Returns:",
        "    int32 Tensor, shape=()",
        "",
        "double(a)",
        "  Args:",
        "    a: float32 Tensor, shape=()",
        "  Returns:",
        "    float32 Tensor, shape=()",
        "",
        "double(a)",
        "  Args:",
        "    a: string Tensor, shape=()",
        "  Returns:",
        "    string Tensor, shape=()",
    ],
    # Our own cells (the guide states these rules without code).
    # TF 2.21 does not retrace for a second Variable of the same dtype and
    # shape (its handle is a graph input); SPEC 2.4 (and the guide) state the
    # older rule (plus its resource id). This is our own cell: TF 2.21 wins.
    "2.4": [
        "Tensors: by dtype and shape",
        'Tracing with Tensor("x:0", shape=(2,), dtype=int32)',
        'Tracing with Tensor("x:0", shape=(3,), dtype=int32)',
        'Tracing with Tensor("x:0", shape=(2,), dtype=float32)',
        "Python primitives: by value",
        "Tracing with 3",
        "Tracing with 4",
        "Lists and tuples: by element types, in order",
        "Tracing with [1, 2]",
        "Tracing with [2, 1]",
        "Tracing with (1, 2)",
        "Dicts: by key to value type, order ignored",
        "Tracing with {1: 2, 3: 4}",
        "Variables: by dtype and shape (the handle is an input)",
        "Tracing with a variable of dtype float32",
        "fn.Tensor(2.0, shape=(), dtype=float32)",
        "fn.Tensor(2.0, shape=(), dtype=float32)",
        "fn.Tensor(3.0, shape=(), dtype=float32)",
        "Other objects: by equality and hash, while the object lives",
        "Tracing with Key(1)",
        "Tracing with Key(2)",
        "Subtypes: the most specific matching trace is used",
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)',
        'Tracing with Tensor("x:0", dtype=int32)',
        "fn.Tensor(b'(None,)', shape=(), dtype=string)",
        "fn.Tensor(b'<unknown>', shape=(), dtype=string)",
        "fn.Tensor(b'<unknown>', shape=(), dtype=string)",
    ],
    # TF 2.21 raises TypeError ("Binding inputs to tf.function failed ...");
    # the SPEC and the guide: ValueError with the inputs and the signature.
    "2.5": [
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)',
        "fn.Tensor([4 1], shape=(2,), dtype=int32)",
        "Caught expected exception",
        "  <class 'ValueError'>:",
        Raises("ValueError", "Python inputs incompatible with input_signature:",
               "fn.Tensor( [[1 2] [3 4]], shape=(2, 2), dtype=int32)",
               "input_signature:", "TensorSpec(shape=(None,), dtype=fn.int32, name=None)"),
        "Caught expected exception",
        "  <class 'ValueError'>:",
        Raises("ValueError", "Python inputs incompatible with input_signature:",
               "fn.Tensor([1. 2.], shape=(2,), dtype=float32)",
               "input_signature:", "TensorSpec(shape=(None,), dtype=fn.int32, name=None)"),
    ],
    "2.6": [
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)',
        "fn.Tensor([1 2 3], shape=(3,), dtype=int32)",
        "fn.Tensor([1 2 3 4 5], shape=(5,), dtype=int32)",
    ],
    "2.7": [
        "Retracing occurs for different Python arguments.",
        "Tracing with num_steps =  10",
        "Executing with num_steps =  10",
        "Tracing with num_steps =  20",
        "Executing with num_steps =  20",
        "",
        "Traces are reused for Tensor arguments.",
        'Tracing with num_steps =  Tensor("num_steps:0", shape=(), dtype=int32)',
        "Executing with num_steps =  10",
        "Executing with num_steps =  20",
    ],
    "2.8": [
        "Tracing!",
        "Executing",
        "Tracing!",
        "Executing",
    ],
    # TF 2.21 refuses the guide's FruitTraceType (TypeError: abstract method
    # placeholder_value); the SPEC requires the guide's code to run.
    "2.9": [
        "<fn.Tensor: shape=(2,), dtype=int32, numpy=array([4, 6], dtype=int32)>",
    ],
    "2.10": [
        "Obtaining concrete trace",
        "Executing traced function",
        "fn.Tensor(b'aa', shape=(), dtype=string)",
        "fn.Tensor(b'bb', shape=(), dtype=string)",
        "fn.Tensor(b'cc', shape=(), dtype=string)",
    ],
    # TF 2.21 prints "ConcreteFunction Input Parameters: ..."; SPEC: this.
    "2.11": [
        "ConcreteFunction double(a)",
        "  Args:",
        "    a: string Tensor, shape=()",
        "  Returns:",
        "    string Tensor, shape=()",
    ],
    "2.12": [
        "((TensorSpec(shape=(), dtype=fn.string, name='a'),), {})",
        'Tensor("Identity:0", shape=(), dtype=string)',
    ],
    "2.13": [
        "Caught expected exception",
        "  <class 'fn.InvalidArgumentError'>:",
        Raises("fn.InvalidArgumentError",
               "input #0(zero-based) was expected to be a string tensor but is a int32 tensor"),
    ],
    # TF 2.21 prints the new signature format and a "Binding inputs ... Can
    # not cast 3 to Literal[2]" message; SPEC: the guide's.
    "2.14": [
        "ConcreteFunction pow(a, b=2)",
        "  Args:",
        "    a: float32 Tensor, shape=<unknown>",
        "  Returns:",
        "    float32 Tensor, shape=<unknown>",
        "Caught expected exception",
        "  <class 'TypeError'>:",
        Raises("TypeError", "was constructed with int value 2 in b, "
                            "but was called with int value 3."),
    ],
    "2.15": [
        "[] -> a",
        "['a', 'a'] -> add",
        "['add'] -> Identity",
    ],
    # Our own cells: run_functions_eagerly runs the body on every call;
    # check numerics names the op (TF 2.21: 'Detected Infinity or NaN in
    # output 0 of graph op "Log"').
    "2.16": [
        "Python body runs with fn.Tensor(3, shape=(), dtype=int32)",
        "fn.Tensor(9, shape=(), dtype=int32)",
        "Python body runs with fn.Tensor(3, shape=(), dtype=int32)",
        "fn.Tensor(9, shape=(), dtype=int32)",
        'Python body runs with Tensor("x:0", shape=(), dtype=int32)',
        "fn.Tensor(9, shape=(), dtype=int32)",
        "fn.Tensor(9, shape=(), dtype=int32)",
        "Caught expected exception",
        "  <class 'fn.InvalidArgumentError'>:",
        Raises("fn.InvalidArgumentError", "Infinity or NaN", "Log"),
        "fn.Tensor(nan, shape=(), dtype=float32)",
    ],
}


def test_2_1_double_traces() -> None:
    check_example("2.1", EXPECTED["2.1"])


def test_2_2_reuse_trace() -> None:
    check_example("2.2", EXPECTED["2.2"])


def test_2_3_concrete_signatures() -> None:
    check_example("2.3", EXPECTED["2.3"])


def test_2_4_trace_types() -> None:
    check_example("2.4", EXPECTED["2.4"])


def test_2_5_input_signature() -> None:
    check_example("2.5", EXPECTED["2.5"])


def test_2_6_unknown_dimensions() -> None:
    check_example("2.6", EXPECTED["2.6"])


def test_2_7_tensor_arguments() -> None:
    check_example("2.7", EXPECTED["2.7"])


def test_2_8_separate_functions() -> None:
    check_example("2.8", EXPECTED["2.8"])


def test_2_9_tracing_protocol() -> None:
    # Probe: Apple/Mango trace twice (generic types die with the objects),
    # the *WithTraceType pair traces once and is reused: 3 traces in all.
    check_example("2.9", EXPECTED["2.9"], probe=["3"])


def test_2_10_get_concrete_function() -> None:
    check_example("2.10", EXPECTED["2.10"])


def test_2_11_print_concrete_function() -> None:
    check_example("2.11", EXPECTED["2.11"])


def test_2_12_structured_signature() -> None:
    check_example("2.12", EXPECTED["2.12"])


def test_2_13_incompatible_concrete() -> None:
    check_example("2.13", EXPECTED["2.13"])


def test_2_14_python_args_in_signature() -> None:
    check_example("2.14", EXPECTED["2.14"])


def test_2_15_graph_nodes() -> None:
    check_example("2.15", EXPECTED["2.15"])


def test_2_16_debugging() -> None:
    check_example("2.16", EXPECTED["2.16"])
