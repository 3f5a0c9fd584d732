"""tf.train.Checkpoint / CheckpointManager / list_variables / load_checkpoint, run under fn and
under TensorFlow (the keys, the object-graph matching, deferred restores, the errors)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


class Net(tf.Module):
    def __init__(self, scale=1.0):
        super().__init__()
        self.v = tf.Variable(1.0 * scale)
        self._w = tf.Variable([2.0 * scale, 3.0 * scale])
        self.parts = [tf.Variable(4.0 * scale), {"a": tf.Variable(np.int64(5))}]


class Empty(tf.Module):
    pass


def test_save_names_variables_by_attribute_path(tmp_path):
    ckpt = tf.train.Checkpoint(net=Net())
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1")
    names = tf.train.list_variables(path)
    assert names == [("_CHECKPOINTABLE_OBJECT_GRAPH", []),
                     ("net/_w/.ATTRIBUTES/VARIABLE_VALUE", [2]),
                     ("net/parts/0/.ATTRIBUTES/VARIABLE_VALUE", []),
                     ("net/parts/1/a/.ATTRIBUTES/VARIABLE_VALUE", []),
                     ("net/v/.ATTRIBUTES/VARIABLE_VALUE", []),
                     ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", [])]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    assert ckpt.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-2")
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-2")


def test_restore_into_a_new_object(tmp_path):
    path = tf.train.Checkpoint(net=Net(2.0)).save(str(tmp_path / "c"))
    net = Net()
    ckpt = tf.train.Checkpoint(net=net)
    status = ckpt.restore(path)
    status.assert_consumed()
    assert net.v.numpy() == 2.0
    np.testing.assert_array_equal(net._w.numpy(), [4.0, 6.0])
    assert net.parts[0].numpy() == 8.0
    assert int(ckpt.save_counter.numpy()) == 1
    assert ckpt.save(str(tmp_path / "c")) == str(tmp_path / "c-2")


def test_write_and_read_have_no_counter(tmp_path):
    v = tf.Variable([1.0, 2.0])
    path = tf.train.Checkpoint(v=v).write(str(tmp_path / "w"))
    assert path == str(tmp_path / "w")
    assert sorted(os.listdir(tmp_path)) == ["w.data-00000-of-00001", "w.index"]
    assert [n for n, _ in tf.train.list_variables(path)] == ["_CHECKPOINTABLE_OBJECT_GRAPH",
                                                             "v/.ATTRIBUTES/VARIABLE_VALUE"]
    v2 = tf.Variable([0.0, 0.0])
    tf.train.Checkpoint(v=v2).read(path).assert_consumed()
    np.testing.assert_array_equal(v2.numpy(), [1.0, 2.0])


def test_deferred_restore_of_variables_created_later(tmp_path):
    path = tf.train.Checkpoint(net=Net(3.0)).write(str(tmp_path / "d"))
    holder = Empty()
    status = tf.train.Checkpoint(net=holder).read(path)
    holder.v = tf.Variable(0.0)
    assert holder.v.numpy() == 3.0
    holder.parts = [tf.Variable(0.0)]
    assert holder.parts[0].numpy() == 12.0
    status.expect_partial()


def test_assert_consumed_names_unmatched_objects(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "u"))
    status = tf.train.Checkpoint(v=tf.Variable(0.0), w=tf.Variable(3.0)).read(path)
    with pytest.raises(AssertionError, match="Python objects that were not bound to checkpointed values"):
        status.assert_consumed()
    with pytest.raises(AssertionError, match="were not bound"):
        status.assert_existing_objects_matched()


def test_shape_mismatch_is_a_value_error(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "s"))
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(\) when attempting to "
                                         r"restore variable with shape \(2,\)"):
        tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).read(path)


def test_reader_gives_values_shapes_and_dtypes(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable([[1.0, 2.0]]), n=tf.Variable(np.int64(7))).write(str(tmp_path / "r"))
    reader = tf.train.load_checkpoint(path)
    np.testing.assert_array_equal(reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE"), [[1.0, 2.0]])
    assert reader.get_tensor("n/.ATTRIBUTES/VARIABLE_VALUE") == 7
    assert reader.get_variable_to_shape_map()["v/.ATTRIBUTES/VARIABLE_VALUE"] == [1, 2]
    assert reader.get_variable_to_dtype_map()["n/.ATTRIBUTES/VARIABLE_VALUE"] == tf.int64
    assert reader.has_tensor("n/.ATTRIBUTES/VARIABLE_VALUE") and not reader.has_tensor("nope")
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    # a folder means its latest checkpoint
    tf.train.Checkpoint(v=tf.Variable(5.0)).save(str(tmp_path / "folder" / "x"))
    assert tf.train.load_checkpoint(str(tmp_path / "folder")).get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE") == 5.0


def test_missing_and_corrupt_files(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files for"):
        tf.train.load_checkpoint(str(tmp_path / "nothing"))
    with pytest.raises(tf.errors.NotFoundError, match="You may be missing the checkpoint suffix"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "nothing"))
    assert tf.train.latest_checkpoint(str(tmp_path / "nothing")) is None
    (tmp_path / "bad.index").write_bytes(b"garbage" * 10)
    (tmp_path / "bad.data-00000-of-00001").write_bytes(b"garbage" * 10)
    with pytest.raises(tf.errors.OpError):
        tf.train.load_checkpoint(str(tmp_path / "bad"))
    with pytest.raises(tf.errors.OpError):
        tf.train.Checkpoint(v=tf.Variable(1.0)).read(str(tmp_path / "bad"))


def test_non_trackable_argument_is_rejected():
    with pytest.raises(ValueError, match="was expecting x to be a trackable object"):
        tf.train.Checkpoint(x=1)


def test_restore_none_is_initialization_only():
    status = tf.train.Checkpoint(v=tf.Variable(1.0)).restore(None)
    status.expect_partial()


def test_manager_keeps_the_newest(tmp_path):
    v = tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None
    paths = []
    for i in range(4):
        v.assign(float(i))
        paths.append(manager.save())
    assert paths == [str(tmp_path / f"ckpt-{i}") for i in range(1, 5)]
    assert manager.checkpoints == paths[2:]
    assert manager.latest_checkpoint == paths[-1]
    assert not os.path.exists(paths[0] + ".index")
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    assert manager.save(checkpoint_number=100) == str(tmp_path / "ckpt-100")
    # a new manager on the same folder finds them
    again = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(0.0)), str(tmp_path), max_to_keep=2)
    assert again.checkpoints == [paths[-1], str(tmp_path / "ckpt-100")]
    w = tf.Variable(9.0)
    tf.train.Checkpoint(v=w).restore(again.latest_checkpoint)
    assert w.numpy() == 3.0


def test_manager_restore_or_initialize(tmp_path):
    calls = []
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path / "m"),
                                         max_to_keep=1, init_fn=lambda: calls.append(1))
    assert manager.restore_or_initialize() is None and calls == [1]
    manager.save()
    v = tf.Variable(0.0)
    m2 = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path / "m"), max_to_keep=1)
    assert m2.restore_or_initialize() == str(tmp_path / "m" / "ckpt-1")
    assert v.numpy() == 1.0


def test_optimizer_state_round_trips(tmp_path):
    def make():
        var = tf.Variable([1.0, 2.0])
        opt = tf.keras.optimizers.Adam(0.1)
        return var, opt
    var, opt = make()
    opt.apply_gradients([(tf.constant([0.5, -0.5]), var)])
    path = tf.train.Checkpoint(var=var, opt=opt).write(str(tmp_path / "o"))
    var2, opt2 = make()
    opt2.build([var2])
    tf.train.Checkpoint(var=var2, opt=opt2).read(path)
    np.testing.assert_allclose(var2.numpy(), var.numpy())
    assert int(opt2.iterations.numpy()) == 1
    opt.apply_gradients([(tf.constant([0.5, -0.5]), var)])
    opt2.apply_gradients([(tf.constant([0.5, -0.5]), var2)])
    np.testing.assert_allclose(var2.numpy(), var.numpy(), rtol=1e-6)


@pytest.mark.fn_only
def test_foreign_file_message_and_atomic_files(tmp_path):
    (tmp_path / "bad.index").write_bytes(b"garbage")
    with pytest.raises(tf.errors.DataLossError, match="not an fn checkpoint"):
        tf.train.load_checkpoint(str(tmp_path / "bad"))
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "t"))
    data = bytearray((tmp_path / "t.index").read_bytes())
    data[-6] ^= 0xFF
    (tmp_path / "t.index").write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="checksum"):
        tf.train.load_checkpoint(path)
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]


@pytest.mark.fn_only   # Keras 3 on TF leaves layers built after the restore at their initial values
def test_keras_model_restored_before_it_is_built(tmp_path):
    keras = tf.keras

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(3)
            self.out = keras.layers.Dense(1)

        def call(self, x):
            return self.out(self.hidden(x))
    x = np.ones((2, 4), np.float32)
    trained = Net()
    want = trained(x).numpy()
    path = tf.train.Checkpoint(model=trained).write(str(tmp_path / "k"))
    fresh = Net()
    tf.train.Checkpoint(model=fresh).read(path)
    np.testing.assert_allclose(fresh(x).numpy(), want, rtol=1e-6)


@pytest.mark.fn_only
def test_checkpoint_versions(tmp_path):
    import struct
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "ver"))
    raw = (tmp_path / "ver.index").read_bytes()
    for version, word in ((7, "newer"), (0, "older")):
        (tmp_path / "ver.index").write_bytes(raw[:8] + struct.pack("<I", version) + raw[12:])
        with pytest.raises(tf.errors.UnimplementedError, match=f"format version {version}, {word} than"):
            tf.train.load_checkpoint(path)


def test_unresolved_checkpoint_values_and_trivial_matches(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable(1.0), w=tf.Variable(2.0)).write(str(tmp_path / "x"))
    status = tf.train.Checkpoint(v=tf.Variable(0.0)).read(path)
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\)\.w: attributes"):
        status.assert_consumed()
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="Nothing except the root object matched a checkpointed value"):
        tf.train.Checkpoint(q=tf.Variable(0.0)).read(path).assert_nontrivial_match()
