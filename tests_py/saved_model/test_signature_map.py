"""A loaded SavedModel's ``signatures``: TF 2.21's ``_SignatureMap`` (a read-only mapping, its
repr), empty when nothing was signed. Under fn and TF."""

import collections.abc

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_signatures_are_a_signature_map(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(1.0)
    tf.saved_model.save(m, str(tmp_path / "empty"))
    loaded = tf.saved_model.load(str(tmp_path / "empty"))
    assert repr(loaded.signatures) == "_SignatureMap({})"
    assert isinstance(loaded.signatures, collections.abc.Mapping) and len(loaded.signatures) == 0

    m.f = tf.function(lambda x: x * m.v, input_signature=[tf.TensorSpec([], tf.float32)])
    tf.saved_model.save(m, str(tmp_path / "signed"), signatures=m.f)
    sigs = tf.saved_model.load(str(tmp_path / "signed")).signatures
    assert list(sigs) == ["serving_default"] and len(sigs) == 1
    assert repr(sigs).startswith("_SignatureMap({'serving_default': ")
    assert float(list(sigs["serving_default"](tf.constant(3.0)).values())[0]) == 3.0
    with pytest.raises(TypeError):
        sigs["other"] = None  # read-only
