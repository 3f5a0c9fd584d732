"""``tf.lookup`` hash tables: ``StaticHashTable`` (filled once by an initializer) and
``tf.lookup.experimental.MutableHashTable`` (insert / remove). The table lives in Python; inside
a Function each access is a host op (``PyCall``) that runs at every execution, in program order
with the Function's other stateful ops, as TF's ``LookupTableFindV2`` / ``InsertV2`` run on the
table resource. Lookups keep the keys' static shape; SparseTensor and RaggedTensor keys map their
values."""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Tuple

import numpy as np

from fn import _core
from fn._lookup.initializers import KeyValueTypes, TableInitializerBase
from fn._ops.array_ops import constant, convert_to_tensor
from fn._ops.script_ops import host_py_function as py_function
from fn.dtypes import int64, string


def _key(value: Any) -> Any:
    return value if isinstance(value, bytes) else value.item() if hasattr(value, "item") else value


def _np_dtype(dtype: Any) -> Any:
    return object if dtype == string else dtype.as_numpy_dtype


def _host_array(t: Any) -> np.ndarray:
    arr = np.asarray(t.numpy())
    return arr.astype(object) if arr.dtype.kind in "SU" else arr


class _HashTable(KeyValueTypes):
    """What both tables share: a dict under a lock, lookups eagerly or as host ops."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, name: Optional[str]) -> None:
        super().__init__(key_dtype, value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._name = name
        self._table: Dict[Any, Any] = {}
        self._lock = threading.Lock()

    @property
    def default_value(self) -> Any:
        return self._default_value

    @property
    def name(self) -> Optional[str]:
        return self._name

    def _check_keys(self, keys: Any) -> None:
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")

    def _map(self, keys: Any, fn: Any) -> Any:
        """``fn`` over a dense tensor, or over a SparseTensor's / RaggedTensor's values."""
        if hasattr(keys, "flat_values") and hasattr(keys, "with_flat_values"):
            return keys.with_flat_values(self._map(keys.flat_values, fn))
        if hasattr(keys, "indices") and hasattr(keys, "with_values"):
            return keys.with_values(self._map(keys.values, fn))
        return fn(keys)

    def _host(self, name: str, compute: Any, inputs: list, tout: Any, like: Any = None) -> Any:
        """``compute(*numpy arrays)`` now (eagerly) or at every run of the graph (host op)."""
        if _core.executing_eagerly():
            out = compute(*[_host_array(t) for t in inputs])
            return None if tout is None else constant(out, dtype=tout)

        def call(*tensors: Any) -> Any:
            out = compute(*[_host_array(t) for t in tensors])
            return None if tout is None else constant(out, dtype=tout)

        out = py_function(call, inputs, tout, name=name)
        if like is not None:
            out.set_shape(like.shape)
        return out

    def _find(self, keys: Any, default: Any) -> Any:
        def compute(k: np.ndarray, d: np.ndarray) -> np.ndarray:
            with self._lock:
                flat = [self._table.get(_key(x), None) for x in k.reshape(-1)]
            fill = d.reshape(-1)
            per_key = fill.size == k.size and fill.size > 1  # dynamic_default_values
            vals = [fill[i if per_key else 0] if v is None else v for i, v in enumerate(flat)]
            return np.array(vals, dtype=_np_dtype(self._value_dtype)).reshape(k.shape)

        return self._host("LookupTableFindV2", compute, [keys, default], self._value_dtype, like=keys)

    def _import(self, keys: np.ndarray, values: np.ndarray) -> None:
        with self._lock:
            self._table.update((_key(k), _key(v)) for k, v in zip(keys, values))

    def lookup(self, keys: Any, name: Optional[str] = None) -> Any:
        """The values of ``keys`` (the table's default where a key is absent)."""
        self._check_keys(keys)
        return self._map(keys, lambda k: self._find(k, self._default_value))

    def __getitem__(self, keys: Any) -> Any:
        return self.lookup(keys)

    def size(self, name: Optional[str] = None) -> Any:
        """The number of entries (int64)."""

        def compute() -> np.ndarray:
            with self._lock:
                return np.array(len(self._table), np.int64)

        return self._host("LookupTableSizeV2", compute, [], int64)

    def export(self, name: Optional[str] = None) -> Tuple[Any, Any]:
        """``(keys, values)``: every entry, as two 1-D tensors."""
        with self._lock:
            items = list(self._table.items())
        keys = np.array([k for k, _ in items], dtype=_np_dtype(self._key_dtype)).reshape(-1)
        values = np.array([v for _, v in items], dtype=_np_dtype(self._value_dtype)).reshape(-1)
        return constant(keys, dtype=self._key_dtype), constant(values, dtype=self._value_dtype)


class StaticHashTable(_HashTable):
    """``tf.lookup.StaticHashTable``: an immutable table filled by ``initializer``."""

    def __init__(
        self,
        initializer: TableInitializerBase,
        default_value: Any,
        name: Optional[str] = None,
        experimental_is_anonymous: bool = False,
    ) -> None:
        super().__init__(initializer.key_dtype, initializer.value_dtype, default_value, name)
        self._initializer = initializer
        initializer.initialize(self)

    @property
    def initializer(self) -> TableInitializerBase:
        return self._initializer


class MutableHashTable(_HashTable):
    """``tf.lookup.experimental.MutableHashTable``: a table changed by ``insert`` and ``remove``."""

    def __init__(
        self,
        key_dtype: Any,
        value_dtype: Any,
        default_value: Any,
        name: str = "MutableHashTable",
        checkpoint: bool = True,
        experimental_is_anonymous: bool = False,
    ) -> None:
        super().__init__(key_dtype, value_dtype, default_value, None)

    def insert(self, keys: Any, values: Any, name: Optional[str] = None) -> Any:
        """Sets ``table[k] = v`` for each pair (same shapes)."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        values = convert_to_tensor(values, dtype=self._value_dtype, name="values")

        def compute(k: np.ndarray, v: np.ndarray) -> None:
            if k.shape != v.shape:
                from fn.errors import InvalidArgumentError

                raise InvalidArgumentError(None, None, f"Expected shape {list(k.shape)} for value, got {list(v.shape)}")
            self._import(k.reshape(-1), v.reshape(-1))

        return self._host("LookupTableInsertV2", compute, [keys, values], None)

    def remove(self, keys: Any, name: Optional[str] = None) -> Any:
        """Removes ``keys`` (absent keys are ignored)."""
        self._check_keys(keys)

        def compute(k: np.ndarray) -> None:
            with self._lock:
                for x in k.reshape(-1):
                    self._table.pop(_key(x), None)

        return self._host("LookupTableRemoveV2", compute, [keys], None)

    def lookup(  # type: ignore[override]  # TF's signature: a second positional argument
        self, keys: Any, dynamic_default_values: Any = None, name: Optional[str] = None
    ) -> Any:
        """The values of ``keys``; absent keys get ``dynamic_default_values`` (same shape as
        ``keys``) where given, else the table's default."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        default = self._default_value
        if dynamic_default_values is not None:
            default = convert_to_tensor(dynamic_default_values, dtype=self._value_dtype)
        return self._map(keys, lambda k: self._find(k, default))
