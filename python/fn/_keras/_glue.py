"""Where Keras recognises TensorFlow's classes by their module path (``"tensorflow.python." in
cls.__module__``: datasets, tensors, ragged and sparse tensors in its data adapters), it is told
fn's classes as well. Each patched predicate keeps Keras' own test and adds fn's classes."""

from __future__ import annotations

from typing import Any, Callable

from fn import _core
from fn._data import dataset_ops as _dataset_ops
from fn._distribute import values as _values
from fn._ragged import _ragged_tensor
from fn._sparse import sparse_tensor as _sparse_tensor

_installed = False


def _or(original: Callable[[Any], bool], extra: Callable[[Any], bool]) -> Callable[[Any], bool]:
    def predicate(x: Any) -> bool:
        return extra(x) or original(x)

    predicate.__name__ = original.__name__
    predicate.__doc__ = original.__doc__
    predicate.__wrapped__ = original  # type: ignore[attr-defined]
    return predicate


def _is_fn_dataset(x: Any) -> bool:
    return isinstance(x, (_dataset_ops.Dataset, _values.DistributedDataset))


def _is_fn_tensor(x: Any) -> bool:
    return _core.is_tensor(x) or isinstance(x, (_ragged_tensor.RaggedTensor, _sparse_tensor.SparseTensor))


def _is_fn_ragged(x: Any) -> bool:
    return isinstance(x, _ragged_tensor.RaggedTensor)


def _is_fn_sparse(x: Any) -> bool:
    return isinstance(x, _sparse_tensor.SparseTensor)


def install() -> None:
    """Patches Keras' class-path predicates (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    from keras.src.trainers import data_adapters
    from keras.src.trainers.data_adapters import data_adapter_utils as dau
    from keras.src.utils import dataset_utils

    data_adapters.is_tf_dataset = _or(data_adapters.is_tf_dataset, _is_fn_dataset)
    dataset_utils.is_tf_dataset = _or(dataset_utils.is_tf_dataset, _is_fn_dataset)
    dau.is_tensorflow_tensor = _or(dau.is_tensorflow_tensor, _is_fn_tensor)
    dau.is_tensorflow_ragged = _or(dau.is_tensorflow_ragged, _is_fn_ragged)
    dau.is_tensorflow_sparse = _or(dau.is_tensorflow_sparse, _is_fn_sparse)
    from fn._keras import _multi_worker

    _multi_worker.install()
