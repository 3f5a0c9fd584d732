"""tf.io.decode_raw / encode_base64 / decode_base64: values and TF's kernel errors."""
import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

PREFIX = "{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


def test_decode_raw_values():
    assert tf.io.decode_raw(tf.constant("Duck"), tf.uint8).numpy().tolist() == [68, 117, 99, 107]
    be = tf.io.decode_raw(tf.constant(["abcd", "efgh"]), tf.int16, little_endian=False)
    assert be.numpy().tolist() == [[24930, 25444], [25958, 26472]] and be.dtype == tf.int16
    padded = tf.io.decode_raw(tf.constant(["abcde", "ab"]), tf.int16, fixed_length=4)
    assert padded.numpy().tolist() == [[25185, 25699], [25185, 0]]
    assert tf.io.decode_raw(tf.constant([""]), tf.int16).shape == (1, 0)
    np.testing.assert_array_equal(tf.io.decode_raw(tf.constant("abcd"), tf.float32).numpy(),
                                  np.frombuffer(b"abcd", "<f4"))
    f = tf.function(lambda s: tf.io.decode_raw(s, tf.uint8))
    assert f(tf.constant(["ab", "cd"])).numpy().tolist() == [[97, 98], [99, 100]]


@pytest.mark.parametrize("args,kw,op,msg", [
    ((["abcd", "efg"], "uint8"), {}, "DecodeRaw",
     "DecodeRaw requires input strings to all be the same size, but element 1 has size 4 != 3"),
    ((["abcde"], "int32"), {}, "DecodeRaw", "Input to DecodeRaw has length 5 that is not a multiple of 4, the size "
                                            "of int32"),
    ((["abcde"], "int16"), {"fixed_length": 3}, "DecodePaddedRaw",
     "fixed_length (3) must be a multiple of the size of out_type (2)"),
])
def test_decode_raw_errors(args, kw, op, msg):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.io.decode_raw(tf.constant(args[0]), tf.as_dtype(args[1]), **kw)
    assert str(e.value) == PREFIX % op + msg + f" [Op:{op}] name: "


def test_decode_raw_wrong_input_dtype():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.io.decode_raw(tf.constant(1), tf.int16)
    assert str(e.value) == ("cannot compute DecodeRaw as input #0(zero-based) was expected to be a string tensor "
                            "but is a int32 tensor [Op:DecodeRaw] name: ")


def test_base64():
    enc = tf.io.encode_base64(tf.constant(["hello?>", "a"]))
    assert enc.numpy().tolist() == [b"aGVsbG8_Pg", b"YQ"]
    assert tf.io.encode_base64(tf.constant("hello?>"), pad=True).numpy() == b"aGVsbG8_Pg=="
    assert tf.io.decode_base64(tf.constant("aGVsbG8_Pg")).numpy() == b"hello?>"
    assert tf.io.decode_base64(tf.constant("aGVsbG8_Pg==")).numpy() == b"hello?>"
    for bad, msg in [("a!", "Invalid character found in base64."), ("a", "Base64 string length cannot be 1 modulo 4.")]:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.io.decode_base64(tf.constant(bad))
        assert str(e.value) == PREFIX % "DecodeBase64" + msg + " [Op:DecodeBase64] name: "
