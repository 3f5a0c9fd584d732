"""tf.train.Checkpoint's list attributes (the checkpoint guide): a list becomes a ListWrapper, is
saved by index, and variables appended (or set, extended) after a restore get the checkpointed
values of their index (deferred restoration)."""
import os

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def saved(tmp_path):
    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.0)]
    save.listed.append(tf.Variable(2.0))
    save.listed.extend([tf.Variable(3.0)])
    save.mapped = {"one": tf.Variable(5.0)}
    return save.save(os.path.join(str(tmp_path), "list_example"))


def test_list_attribute_is_a_list_wrapper(tmp_path):
    ck = tf.train.Checkpoint()
    ck.listed = []
    assert repr(ck.listed) == "ListWrapper([])" and str(ck.listed) == "ListWrapper([])"
    assert isinstance(ck.listed, list)
    ck.listed.append(1)
    assert ck.listed == [1]


def test_items_added_after_restore_are_restored(tmp_path):
    path = saved(tmp_path)
    restore = tf.train.Checkpoint()
    v_map = tf.Variable(0.0)
    restore.mapped = {"one": v_map}
    restore.restore(path)
    assert v_map.numpy() == 5.0
    restore.listed = []
    a, b, c = tf.Variable(0.0), tf.Variable(0.0), tf.Variable(0.0)
    restore.listed.append(a)
    assert a.numpy() == 1.0
    restore.listed.extend([b, c])
    assert b.numpy() == 2.0 and c.numpy() == 3.0


def test_list_assigned_after_restore_with_items(tmp_path):
    path = saved(tmp_path)
    restore = tf.train.Checkpoint()
    restore.restore(path)
    a, b = tf.Variable(0.0), tf.Variable(0.0)
    restore.listed = [a, b]
    assert a.numpy() == 1.0 and b.numpy() == 2.0
