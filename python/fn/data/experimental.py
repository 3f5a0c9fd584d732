"""``fn.data.experimental`` (``tf.data.experimental``): constants, the CSV readers, ``Counter``,
the options groups and the functional forms of ``Dataset`` methods."""

from __future__ import annotations

from typing import Any, Callable
from typing import Optional as _Opt

from fn._data.options import (
    AutoShardPolicy,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)
from fn._data.optional import Optional
from fn._data.readers import CsvDataset, make_csv_dataset

__all__ = [
    "AUTOTUNE",
    "AutoShardPolicy",
    "AutotuneOptions",
    "Counter",
    "CsvDataset",
    "DistributeOptions",
    "ExternalStatePolicy",
    "INFINITE_CARDINALITY",
    "OptimizationOptions",
    "Optional",
    "ThreadingOptions",
    "UNKNOWN_CARDINALITY",
    "assert_cardinality",
    "bucket_by_sequence_length",
    "cardinality",
    "choose_from_datasets",
    "dense_to_ragged_batch",
    "get_single_element",
    "group_by_window",
    "ignore_errors",
    "make_csv_dataset",
    "rejection_resample",
    "sample_from_datasets",
    "scan",
    "take_while",
    "unique",
]

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def cardinality(dataset: Any) -> Any:
    """``tf.data.experimental.cardinality``."""
    return dataset.cardinality()


def Counter(start: Any = 0, step: Any = 1, dtype: Any = None) -> Any:  # TF's name
    """``tf.data.experimental.Counter``: ``start``, ``start + step``, ... forever."""
    from fn._data.dataset_ops import Dataset

    return Dataset.counter(start, step, dtype)


def sample_from_datasets(
    datasets: Any, weights: Any = None, seed: _Opt[int] = None, stop_on_empty_dataset: bool = False
) -> Any:
    """``tf.data.experimental.sample_from_datasets``."""
    from fn._data.interleave import sample_from_datasets as impl

    return impl(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool = True) -> Any:
    """``tf.data.experimental.choose_from_datasets``."""
    from fn._data.interleave import choose_from_datasets as impl

    return impl(datasets, choice_dataset, stop_on_empty_dataset)


def _transform(method: str, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    return lambda ds: getattr(ds, method)(*args, **kwargs)


def dense_to_ragged_batch(
    batch_size: Any, drop_remainder: bool = False, row_splits_dtype: Any = None
) -> Callable[[Any], Any]:
    """``tf.data.experimental.dense_to_ragged_batch``: ``Dataset.ragged_batch`` for ``Dataset.apply``."""
    from fn.dtypes import int64

    return _transform("ragged_batch", batch_size, drop_remainder, row_splits_dtype or int64)


def ignore_errors(log_warning: bool = False) -> Callable[[Any], Any]:
    """``tf.data.experimental.ignore_errors``: for ``Dataset.apply``."""
    return _transform("ignore_errors", log_warning)


def unique() -> Callable[[Any], Any]:
    """``tf.data.experimental.unique``: for ``Dataset.apply``."""
    return _transform("unique")


def scan(initial_state: Any, scan_func: Callable) -> Callable[[Any], Any]:
    """``tf.data.experimental.scan``: for ``Dataset.apply``."""
    return _transform("scan", initial_state, scan_func)


def take_while(predicate: Callable) -> Callable[[Any], Any]:
    """``tf.data.experimental.take_while``: for ``Dataset.apply``."""
    return _transform("take_while", predicate)


def group_by_window(
    key_func: Callable, reduce_func: Callable, window_size: Any = None, window_size_func: Any = None
) -> Callable[[Any], Any]:
    """``tf.data.experimental.group_by_window``: for ``Dataset.apply``."""
    return _transform("group_by_window", key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(
    element_length_func: Callable,
    bucket_boundaries: Any,
    bucket_batch_sizes: Any,
    padded_shapes: Any = None,
    padding_values: Any = None,
    pad_to_bucket_boundary: bool = False,
    no_padding: bool = False,
    drop_remainder: bool = False,
) -> Callable[[Any], Any]:
    """``tf.data.experimental.bucket_by_sequence_length``: for ``Dataset.apply``."""
    return _transform(
        "bucket_by_sequence_length",
        element_length_func,
        bucket_boundaries,
        bucket_batch_sizes,
        padded_shapes,
        padding_values,
        pad_to_bucket_boundary,
        no_padding,
        drop_remainder,
    )


def rejection_resample(
    class_func: Callable, target_dist: Any, initial_dist: Any = None, seed: _Opt[int] = None
) -> Callable[[Any], Any]:
    """``tf.data.experimental.rejection_resample``: for ``Dataset.apply``."""
    return _transform("rejection_resample", class_func, target_dist, initial_dist, seed)


def get_single_element(dataset: Any) -> Any:
    """``tf.data.experimental.get_single_element`` (deprecated in TF for
    ``Dataset.get_single_element``)."""
    return dataset.get_single_element()


from fn._public import export as _export

_export(globals())


def assert_cardinality(expected_cardinality: Any) -> Callable[[Any], Any]:
    """``tf.data.experimental.assert_cardinality``: for ``Dataset.apply``; the dataset reports
    ``expected_cardinality`` and its iteration fails if the count differs."""
    from fn._data.assert_cardinality import AssertCardinalityDataset

    return lambda ds: AssertCardinalityDataset(ds, expected_cardinality)
