"""The trace types of multi-worker distributed input (TF's ``DistributedDatasetAndIteratorSpec``):
a common supertype exists only between specs of the same kind under the same strategy."""
import pytest

from tfbackend import IS_TF

pytestmark = [pytest.mark.fn_only, pytest.mark.skipif(IS_TF, reason="fn's spec classes")]


@pytest.fixture
def specs():
    import fn as tf
    from fn._data.structure import DatasetSpec, IteratorSpec
    from fn._distribute.values import DistributedDatasetSpec, DistributedIteratorSpec

    return tf, DatasetSpec, IteratorSpec, DistributedDatasetSpec, DistributedIteratorSpec


@pytest.mark.parametrize("kind", ["iterator", "dataset"])
def test_common_supertype_needs_the_same_kind_and_strategy(specs, kind):
    tf, DatasetSpec, IteratorSpec, DistributedDatasetSpec, DistributedIteratorSpec = specs
    spec, plain = (DistributedIteratorSpec, IteratorSpec) if kind == "iterator" else (DistributedDatasetSpec, DatasetSpec)
    one, other = object(), object()   # stand-ins: only the strategy's identity is compared
    a = spec(tf.TensorSpec([4], tf.float32), one, 3)
    b = spec(tf.TensorSpec([2], tf.float32), one, 3)
    sup = a.most_specific_common_supertype([b])
    assert type(sup) is spec and sup._strategy is one and sup._cardinality == 3
    assert sup.element_spec == tf.TensorSpec([None], tf.float32)
    assert a.is_subtype_of(sup) and b.is_subtype_of(sup)
    c = spec(tf.TensorSpec([2], tf.float32), one, 5)    # another cardinality: UNKNOWN
    assert a.most_specific_common_supertype([c])._cardinality == -2
    # Another strategy, or a spec of plain (not distributed) input: no common supertype.
    assert a.most_specific_common_supertype([spec(tf.TensorSpec([4], tf.float32), other, 3)]) is None
    assert a.most_specific_common_supertype([plain(tf.TensorSpec([4], tf.float32))]) is None
    assert a.most_specific_common_supertype([spec(tf.TensorSpec([4], tf.int32), one, 3)]) is None
