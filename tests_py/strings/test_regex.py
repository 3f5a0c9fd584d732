"""tf.strings.regex_replace / regex_full_match use RE2's syntax, as TF's kernels do: POSIX
classes and Unicode classes work, look-around is an invalid pattern (InvalidArgumentError)."""
from __future__ import annotations

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

WORDS = ["ab1c", "x1x\u00e9"]


@pytest.mark.parametrize("pattern,rewrite,expected", [
    ("[[:alpha:]]", "x", [b"xx1x", "x1x\u00e9".encode()]),
    (r"(\d)(\w)", r"\2\1", [b"abc1", "xx1\u00e9".encode()]),
    (r"\pL+", "L", [b"L1L", b"L1L"]),
    (r"\bx", "y", [b"ab1c", "y1x\u00e9".encode()]),
])
def test_regex_replace_re2_syntax(pattern, rewrite, expected):
    assert tf.strings.regex_replace(WORDS, pattern, rewrite).numpy().tolist() == expected


def test_regex_replace_first_only_and_in_function():
    assert tf.strings.regex_replace("aaa", "a", "b", replace_global=False).numpy() == b"baa"

    @tf.function
    def f(s):
        return tf.strings.regex_replace(s, "[[:digit:]]+", "#")
    assert f(tf.constant(["a12b3", "x"])).numpy().tolist() == [b"a#b#", b"x"]


@pytest.mark.parametrize("pattern,why", [("(", "missing ): ("), ("a(?=b)", "invalid perl operator: (?=")])
def test_invalid_pattern(pattern, why):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.strings.regex_replace(WORDS, pattern, "x")
    assert f"Invalid pattern: {pattern}, error: {why}" in str(info.value)


def test_regex_full_match():
    r = tf.strings.regex_full_match(["ab1c", "abc", ""], "[[:alpha:]]+")
    assert r.dtype == tf.bool
    assert r.numpy().tolist() == [False, True, False]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern"):
        tf.strings.regex_full_match(["a"], "(")
