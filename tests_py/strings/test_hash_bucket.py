"""tf.strings.to_hash_bucket_fast: FarmHash's Fingerprint64 of each string modulo num_buckets,
TF's bucket ids (strings of every length class of the hash: 0, 1-3, 4-7, 8-16, 17-32, 33-64 and
over 64 bytes); ragged inputs; in tf.function; bad inputs. The literals were printed by TF 2.21."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle

WORDS = ["", "a", "ab", "abc", "abcd", "hello", "Who", "is", "Dan", "Smith", "abcdefgh", "abcdefghijklmnop",
         "abcdefghijklmnopq", "x" * 32, "y" * 33, "The quick brown fox jumps over the lazy dog", "z" * 64,
         "w" * 65, "long " * 40, "\u00e9t\u00e9", "#+Who", "Pause+#"]
# TF 2.21: tf.strings.to_hash_bucket_fast(WORDS, 2**62) (the fingerprints' low 62 bits)
LOW62 = [1936946117179621455, 3694432073954588131, 3066228220894225694, 2640714258260161385,
         1897425971756105985, 3786372426573024488, 426034595791921785, 3043494581802008320,
         359893577734699245, 4427996311582422325, 4533385575889643785, 1469030743107030717,
         2171023947900359592, 3678204687145032709, 3999049019338133246, 3152101869897863476,
         294799756062990872, 3272011567211491968, 2943411035554963419, 4309181583525144726,
         3108126018092539819, 2941596393765696211]
BUCKETS_1024 = [79, 483, 286, 873, 257, 232, 633, 768, 237, 309, 265, 701, 936, 5, 766, 308, 536, 640, 987,
                150, 939, 723]


def test_bucket_ids_are_tfs():
    got = tf.strings.to_hash_bucket_fast(WORDS, 2**62)
    assert got.dtype == tf.int64 and got.shape == [len(WORDS)]
    assert got.numpy().tolist() == LOW62
    assert tf.strings.to_hash_bucket_fast(WORDS, 1024).numpy().tolist() == BUCKETS_1024


def test_shapes_ragged_and_function():
    grid = tf.constant([WORDS[:3], WORDS[3:6]])
    assert tf.strings.to_hash_bucket_fast(grid, 1024).numpy().tolist() == [BUCKETS_1024[:3], BUCKETS_1024[3:6]]
    assert tf.strings.to_hash_bucket_fast("hello", 1024).numpy() == BUCKETS_1024[5]
    rt = tf.ragged.constant([WORDS[6:10], WORDS[1:2]])
    out = tf.strings.to_hash_bucket_fast(rt, 1024)
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [BUCKETS_1024[6:10], BUCKETS_1024[1:2]]

    @tf.function
    def f(s):
        return tf.strings.to_hash_bucket_fast(s, 1024)

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.string))
    assert cf.structured_outputs.shape.as_list() == [None] and cf.structured_outputs.dtype == tf.int64
    assert cf(tf.constant(WORDS)).numpy().tolist() == BUCKETS_1024


def test_bad_inputs():
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets"):
        tf.strings.to_hash_bucket_fast(["a"], 0)
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError)):
        tf.strings.to_hash_bucket_fast(tf.constant([1, 2]), 10)
