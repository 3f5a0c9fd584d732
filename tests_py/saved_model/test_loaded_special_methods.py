"""A loaded SavedModel object is callable when a ``__call__`` tf.function was saved (TensorFlow's
loader gives it a class with ``__call__``; other special methods stay plain attributes)."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return x * self.v

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def __getitem__(self, i):
        return i + 1

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def scale(self, x):
        return x * 3.0


def test_loaded_object_is_callable(tmp_path):
    tf.saved_model.save(Model(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert callable(loaded)
    assert loaded(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert loaded.__call__(tf.constant([3.0])).numpy().tolist() == [6.0]
    assert int(loaded.__getitem__(tf.constant(3))) == 4
    with pytest.raises(TypeError, match="object is not subscriptable"):
        loaded[tf.constant(3)]
    assert float(loaded.scale(tf.constant(2.0))) == 6.0
    # Each loaded object has its own class: a second load without __call__ stays not callable.
    plain = tf.Module()
    plain.f = tf.function(lambda x: x + 1, input_signature=[tf.TensorSpec([], tf.int32)])
    tf.saved_model.save(plain, str(tmp_path / "plain"))
    other = tf.saved_model.load(str(tmp_path / "plain"))
    assert not callable(other)
    assert callable(loaded)


def test_loaded_call_rejects_bad_arguments(tmp_path):
    tf.saved_model.save(Model(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    with pytest.raises(TypeError, match="^Binding inputs to tf.function failed due to"):
        loaded(tf.constant([[1.0]]))
