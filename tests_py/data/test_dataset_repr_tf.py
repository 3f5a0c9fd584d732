"""Datasets print as TensorFlow 2.21's classes (``<_RangeDataset element_spec=...>``; only
``CacheDataset`` has no underscore)."""
from __future__ import annotations

import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_dataset_reprs_name_tf_2_21_classes():
    d = tf.data.Dataset.range(3)
    made = [d, d.map(lambda x: x), d.batch(2), d.shuffle(2), d.filter(lambda x: x > 0), d.take(1), d.skip(1),
            d.repeat(2), d.cache(), d.prefetch(1), tf.data.Dataset.from_tensor_slices([1, 2]),
            tf.data.Dataset.from_tensors(1), tf.data.Dataset.zip((d, d)), d.concatenate(d), d.batch(2).unbatch(),
            tf.data.Dataset.from_generator(lambda: [1], tf.int32)]
    assert [repr(x).split(" ")[0] for x in made] == [
        "<_RangeDataset", "<_MapDataset", "<_BatchDataset", "<_ShuffleDataset", "<_FilterDataset", "<_TakeDataset",
        "<_SkipDataset", "<_RepeatDataset", "<CacheDataset", "<_PrefetchDataset", "<_TensorSliceDataset",
        "<_TensorDataset", "<_ZipDataset", "<_ConcatenateDataset", "<_UnbatchDataset", "<_FlatMapDataset"]
