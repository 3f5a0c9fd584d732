"""An error raised by converted code while a Function traces is raised again as TensorFlow does:
same class, message ``in user code:`` with the user's frames (``*`` marks converted code) and
source lines, then the original ``Class: message``. Classes that take more than a message
become a ``StagingError``."""
from __future__ import annotations

import inspect
import re

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

_PREFIX = tf.__name__.split(".")[0].replace("tensorflow", "tf")


def _line(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, ln in enumerate(lines) if text in ln)


def makes_variable(x):
    v = tf.Variable(1.0)
    return v


def helper(x):
    raise ValueError("bad value\nsecond line")


def calls_helper(x):
    y = x + 1
    return helper(y)


class TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a}/{b}")


def raises_two_arg(x):
    raise TwoArgError("a", "b")


def test_variable_creation_error_in_user_code():
    f = tf.function(makes_variable)
    with pytest.raises(ValueError) as info:
        f(1.0)
    assert str(info.value) == (
        "in user code:\n\n"
        f'    File "{__file__}", line {_line(makes_variable, "tf.Variable(1.0)")}, in makes_variable  *\n'
        "        v = tf.Variable(1.0)\n\n"
        f"    ValueError: {_PREFIX}.function only supports singleton {_PREFIX}.Variables created on the first call. "
        f"Make sure the {_PREFIX}.Variable is only created once or created outside {_PREFIX}.function. See "
        "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.\n")


def test_frames_of_nested_user_functions_and_multiline_messages():
    with pytest.raises(ValueError) as info:
        tf.function(calls_helper)(tf.constant(1))
    assert str(info.value) == (
        "in user code:\n\n"
        f'    File "{__file__}", line {_line(calls_helper, "return helper(y)")}, in calls_helper  *\n'
        "        return helper(y)\n"
        f'    File "{__file__}", line {_line(helper, "raise ValueError")}, in helper  *\n'
        '        raise ValueError("bad value\\nsecond line")\n\n'
        "    ValueError: bad value\n    second line\n")


def test_classes_not_built_from_a_message_become_staging_errors():
    with pytest.raises(Exception) as info:
        tf.function(raises_two_arg)(tf.constant(1))
    assert type(info.value).__name__ == "StagingError"
    assert str(info.value) == (
        "in user code:\n\n"
        f'    File "{__file__}", line {_line(raises_two_arg, "raise TwoArgError")}, in raises_two_arg  *\n'
        '        raise TwoArgError("a", "b")\n\n'
        "    TwoArgError: a/b\n")


def missing_key(x):
    d = {"a": x}
    return d["b"]


def test_key_errors_print_the_message():
    with pytest.raises(KeyError) as info:
        tf.function(missing_key)(tf.constant(1))
    assert type(info.value).__name__ == "KeyError"
    assert str(info.value) == (
        "in user code:\n\n"
        f'    File "{__file__}", line {_line(missing_key, "return d")}, in missing_key  *\n'
        '        return d["b"]\n\n'
        "    KeyError: 'b'\n")
