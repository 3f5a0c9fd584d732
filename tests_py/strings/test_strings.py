"""tf.strings: join, length, lower/upper, to_number, as_string, split (scalars), regex_replace,
format; values checked under TensorFlow 2.21."""
import numpy as np
import pytest

from _grad import traced_shapes
from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def b(t):
    return t.numpy().tolist()


def test_join():
    r = tf.strings.join(["a", "b"], separator="-")
    assert r.dtype == tf.string and r.numpy() == b"a-b"
    assert b(tf.strings.join([["a", "c"], "b"])) == [b"ab", b"cb"]
    assert tf.strings.join([]).numpy() == b""
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input shapes do not match: \[2\] vs. \[3\]"):
        tf.strings.join([["a", "c"], ["b", "d", "e"]])


def test_length_lower_upper():
    r = tf.strings.length(["h\u00e9llo", ""])
    assert r.dtype == tf.int32 and b(r) == [6, 0]
    assert b(tf.strings.length(["h\u00e9llo"], unit="UTF8_CHAR")) == [5]
    assert b(tf.strings.lower(["H\u00e9LLO"])) == ["h\u00e9llo".encode()]
    assert b(tf.strings.upper(["h\u00e9llo"], encoding="utf-8")) == ["H\u00c9LLO".encode()]
    assert b(tf.strings.upper(["ab1"])) == [b"AB1"]
    with pytest.raises(TypeError, match="Cannot convert 3 to EagerTensor of dtype string"):
        tf.strings.length(3)


def test_to_number():
    r = tf.strings.to_number(["3.5", " 4", "1e3", "-2"])
    assert r.dtype == tf.float32 and b(r) == [3.5, 4.0, 1000.0, -2.0]
    i = tf.strings.to_number(["3"], out_type=tf.int32)
    assert i.dtype == tf.int32 and b(i) == [3]
    special = tf.strings.to_number(["inf", "nan", "0x10"]).numpy()
    assert np.isinf(special[0]) and np.isnan(special[1]) and special[2] == 16.0
    for bad, out_type in [("3.5", tf.int32), ("abc", tf.float32), ("99999999999", tf.int32)]:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=f"StringToNumberOp could not correctly convert string: {bad}"):
            tf.strings.to_number([bad], out_type=out_type)


def test_as_string():
    assert b(tf.strings.as_string([3.5, 1e10, -0.25])) == [b"3.500000", b"10000000000.000000", b"-0.250000"]
    assert b(tf.strings.as_string([3.5], precision=2)) == [b"3.50"]
    assert b(tf.strings.as_string([3.5], scientific=True)) == [b"3.500000e+00"]
    assert b(tf.strings.as_string([3.5, 1e-7], shortest=True)) == [b"3.5", b"1e-07"]
    assert b(tf.strings.as_string([7, -2], width=4, fill="0")) == [b"0007", b"-002"]
    assert b(tf.strings.as_string([True, False])) == [b"true", b"false"]
    assert b(tf.strings.as_string(tf.constant([2 ** 62], tf.int64))) == [str(2 ** 62).encode()]
    with pytest.raises(tf.errors.InvalidArgumentError, match="precision not supported for datatype int32"):
        tf.strings.as_string([3], precision=2)


def test_split_scalar():
    assert b(tf.strings.split("a b  c")) == [b"a", b"b", b"c"]
    assert b(tf.strings.split("a,b,,c", ",")) == [b"a", b"b", b"", b"c"]
    assert b(tf.strings.split("a,b,,c", ",", maxsplit=1)) == [b"a", b"b,,c"]


def test_regex_replace():
    assert tf.strings.regex_replace("aaa bbb", "a+", "x").numpy() == b"x bbb"
    assert b(tf.strings.regex_replace(["ab12", "c3"], r"(\d)", r"<\1>")) == [b"ab<1><2>", b"c<3>"]
    assert tf.strings.regex_replace("ab12", r"\d", "x", replace_global=False).numpy() == b"abx2"
    assert tf.strings.regex_replace("a.b", r"\.", r"\\").numpy() == b"a\\b"
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern: \\("):
        tf.strings.regex_replace("ab", "(", "x")


def test_format():
    assert tf.strings.format("x={} y={}", [tf.constant([1, 2, 3]), 2.5]).numpy() == b"x=[1 2 3] y=2.5"
    assert tf.strings.format("x={}", tf.range(10), summarize=2).numpy() == b"x=[0 1 ... 8 9]"
    assert tf.strings.format("v {}", tf.constant("s")).numpy() == b'v "s"'
    with pytest.raises(ValueError, match="The template expects 2 tensors, but the inputs only has 1"):
        tf.strings.format("x={} {}", [1])


def test_strings_in_function():
    @tf.function
    def f(s, x):
        return (tf.strings.regex_replace(tf.strings.lower(s), "b+", "_"),
                tf.strings.format("n={}", x), tf.strings.split(tf.strings.join([s, s], " ")))

    r, fmt, parts = f(tf.constant("aBBc"), tf.constant(3))
    assert r.numpy() == b"a_c" and fmt.numpy() == b"n=3"
    assert b(parts) == [b"aBBc", b"aBBc"]
    spec = tf.TensorSpec([None], tf.string)
    assert traced_shapes(lambda s: tf.strings.length(s), spec) == [[None]]
    assert traced_shapes(lambda s: tf.strings.to_number(s), spec) == [[None]]


def test_bytes_and_unicode_split_decode_scalars():
    assert b(tf.strings.bytes_split(tf.constant("Duck"))) == [b"D", b"u", b"c", b"k"]
    duck = tf.constant("アヒル 🦆")
    chars = tf.strings.unicode_split(duck, "UTF-8")
    assert b(chars) == [c.encode() for c in "アヒル 🦆"] and chars.dtype == tf.string
    codes = tf.strings.unicode_decode(duck, "UTF-8")
    assert codes.dtype == tf.int32 and b(codes) == [12450, 12498, 12523, 32, 129414]
    # Invalid UTF-8 becomes U+FFFD by default (errors="replace").
    assert b(tf.strings.unicode_decode(tf.constant(b"a\xffb"), "UTF-8")) == [97, 65533, 98]

    @tf.function
    def f(s):
        return tf.strings.bytes_split(s), tf.strings.unicode_decode(s, "UTF-8")

    parts, ints = f(tf.constant("hé"))
    assert b(parts) == [b"h", b"\xc3", b"\xa9"] and b(ints) == [104, 233]


def test_substr_utf8_char_counts_bytes_as_tfs_kernel():
    # a character starts at each byte that is not a continuation byte: invalid UTF-8 is no error
    s = tf.constant([b"\xff\xfe"])
    assert b(tf.strings.substr(s, 0, 1, unit="UTF8_CHAR")) == [b"\xff"]
    assert b(tf.strings.substr(s, -1, 5, unit="UTF8_CHAR")) == [b"\xfe"]
    assert b(tf.strings.substr(tf.constant(["\u00e9t\u00e9"]), 1, 1, unit="UTF8_CHAR")) == [b"t"]
    assert b(tf.strings.substr(tf.constant(["\u00e9t\u00e9"]), -1, 1, unit="UTF8_CHAR")) == ["\u00e9".encode()]
    assert tf.strings.substr(b"\x80ab", 0, 1, unit="UTF8_CHAR").numpy() == b"\x80"
    assert tf.strings.substr(b"ab", 1, -1, unit="UTF8_CHAR").numpy() == b""
    assert tf.strings.substr("hello", 1, -1).numpy() == b"ello"   # BYTE: a negative length runs to the end
    for pos in (3, -3):
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
            tf.strings.substr(b"ab", pos, 1, unit="UTF8_CHAR")


def test_unicode_decode_errors_are_the_kernels():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting on input string"):
        tf.strings.unicode_decode(b"\xff\xfe", "UTF-8", errors="strict")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not create converter for input encoding: nope"):
        tf.strings.unicode_decode(b"ab", "nope")
    assert tf.strings.unicode_decode(tf.constant([b"\xff\xfe"]), "UTF-8").to_list() == [[65533, 65533]]
    assert tf.strings.unicode_decode(tf.constant([b"\xff\xfe"]), "latin-1").to_list() == [[255, 254]]
