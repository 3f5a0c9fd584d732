"""An exception raised in a ``tf.py_function`` fails its op as TF 2.21's py_func kernel does: the
class by the exception's type (ValueError/TypeError: InvalidArgument, StopIteration: OutOfRange,
MemoryError: ResourceExhausted, NotImplementedError: Unimplemented, anything else Unknown, op
errors included), the text "<Type>: <message>" then the Python traceback with blank lines between
its parts; eagerly under TF's ``EagerPyFunc_Tin_N_Tout_M`` wrapper. ``tf.numpy_function`` runs the
function directly when eager (its exception as raised, results converted as they are)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


class _Mine(Exception):
    pass


@pytest.mark.parametrize("exc, cls", [
    (ValueError("v"), tf.errors.InvalidArgumentError),
    (TypeError("t"), tf.errors.InvalidArgumentError),
    (StopIteration(), tf.errors.OutOfRangeError),
    (MemoryError("m"), tf.errors.ResourceExhaustedError),
    (NotImplementedError("n"), tf.errors.UnimplementedError),
    (IndexError("i"), tf.errors.UnknownError),
    (KeyError("k"), tf.errors.UnknownError),
    (_Mine("mine"), tf.errors.UnknownError),
    (tf.errors.NotFoundError(None, None, "nf"), tf.errors.UnknownError),
    (tf.errors.InvalidArgumentError(None, None, "ia"), tf.errors.UnknownError),
])
def test_exception_class_maps_as_tfs_kernel(exc, cls):
    def bad(x):
        raise exc

    with pytest.raises(tf.errors.OpError) as e:
        tf.py_function(bad, [tf.constant(1.0)], tf.float32)
    assert type(e.value) is cls
    head = f"{type(exc).__name__}: {exc}"
    assert str(e.value).split("}} ", 1)[1].startswith(head + "\nTraceback (most recent call last):\n\n")


def _boom(*args):
    raise ValueError("boom")  # raise line


@pytest.mark.parametrize("inp, tout, n_in, n_out", [
    ([1.0], tf.float32, 1, 1), ([1.0, 2], [], 2, 0), ([], [tf.float32, tf.int32], 0, 2),
])
def test_eager_text_is_tfs(inp, tout, n_in, n_out):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.py_function(_boom, [tf.constant(v) for v in inp], tout)
    text = str(e.value)
    head = ("{{function_node __wrapped__EagerPyFunc_Tin_%d_Tout_%d_device_/job:localhost/replica:0/task:0/device:CPU:0}} "
            % (n_in, n_out))
    assert text.startswith(head + "ValueError: boom\nTraceback (most recent call last):\n\n  File "), text
    assert re.search(r'    raise ValueError\("boom"\)  # raise line\n(    \^+\n)?\nValueError: boom\n\n \[Op:EagerPyFunc\] name: $',
                     text), text
    assert f'line {_boom.__code__.co_firstlineno + 1}, in _boom\n' in text


def test_in_a_function_the_node_tags_the_traceback():
    @tf.function
    def f(x):
        return tf.py_function(_boom, [x], tf.float32)

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(tf.constant(1.0))
    text = str(e.value)
    assert text.startswith("Graph execution error:\n\nDetected at node EagerPyFunc defined at")
    assert re.search(r"\nValueError: boom\nTraceback \(most recent call last\):\n\n", text), text
    assert re.search(r'# raise line\n(    \^+\n)?\nValueError: boom\n\n\n\t \[\[\{\{node EagerPyFunc\}\}\]\] '
                     r'\[Op:__inference_f_\d+\]$', text), text


def test_chained_exceptions_keep_their_cause():
    def bad(x):
        try:
            {}["k"]
        except KeyError as inner:
            raise ValueError("outer") from inner

    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.py_function(bad, [tf.constant(1.0)], tf.float32)
    assert "\nThe above exception was the direct cause of the following exception:\n" in str(e.value)


def test_eager_numpy_function_runs_the_function_directly():
    with pytest.raises(ValueError, match="^boom$"):
        tf.numpy_function(_boom, [tf.constant(1.0)], tf.float32)
    # results converted as they come (TF checks Tout only when the op runs in a graph)
    out = tf.numpy_function(lambda a: a * 2, [tf.constant(1.5)], tf.float64)
    assert out.dtype == tf.float32 and float(out) == 3.0
    pair = tf.numpy_function(lambda a: (a, np.int64(3)), [tf.constant([1, 2])], [tf.int32, tf.int64])
    assert [t.numpy().tolist() for t in pair] == [[1, 2], 3]
    seen = []

    def keep(a):
        seen.append(a)
        a += 1  # a copy: the input tensor is not changed
        return a

    x = tf.constant([1.0, 2.0])
    tf.numpy_function(keep, [x], tf.float32)
    assert x.numpy().tolist() == [1.0, 2.0] and isinstance(seen[0], np.ndarray)
    # Python values become arrays as NumPy makes them (int64, float64), not as tensors would
    dtypes = []
    out = tf.numpy_function(lambda a, b: dtypes.extend([a.dtype, b.dtype]) or a, [3, [1.5]], tf.int64)
    assert dtypes == [np.int64, np.float64] and out.dtype == tf.int64


def test_numpy_function_in_a_function_checks_tout_and_maps_errors():
    @tf.function
    def f(x):
        return tf.numpy_function(_boom, [x], tf.float32)

    with pytest.raises(tf.errors.InvalidArgumentError, match="ValueError: boom"):
        f(tf.constant(1.0))
