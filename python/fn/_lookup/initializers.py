"""``tf.lookup`` table initializers: ``KeyValueTensorInitializer`` (keys and values given as
tensors) and ``TextFileInitializer`` (keys and values read from the lines of a text file)."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from fn._ops.array_ops import convert_to_tensor
from fn.dtypes import as_dtype, int64, string
from fn.errors import InvalidArgumentError, NotFoundError


class TextFileIndex:
    """``tf.lookup.TextFileIndex``: which part of a line is the key or value."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class KeyValueTypes:
    """The key and value dtypes that tables and their initializers both report."""

    def __init__(self, key_dtype: Any, value_dtype: Any) -> None:
        self._key_dtype = as_dtype(key_dtype)
        self._value_dtype = as_dtype(value_dtype)

    @property
    def key_dtype(self) -> Any:
        return self._key_dtype

    @property
    def value_dtype(self) -> Any:
        return self._value_dtype


class TableInitializerBase(KeyValueTypes):
    """``tf.lookup.experimental.TableInitializerBase`` (TF's base of the initializers)."""

    def initialize(self, table: Any) -> None:
        """Fills ``table`` (TF's initializers return the table's import op)."""
        keys, values = self._pairs()
        table._import(keys, values)

    def _pairs(self) -> Tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError(f"{type(self).__name__} must define initialize(table)")


class KeyValueTensorInitializer(TableInitializerBase):
    """``tf.lookup.KeyValueTensorInitializer``: a table's contents from a keys and a values tensor."""

    def __init__(
        self, keys: Any, values: Any, key_dtype: Any = None, value_dtype: Any = None, name: Any = None
    ) -> None:
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name
        super().__init__(self._keys.dtype, self._values.dtype)

    def _pairs(self) -> Tuple[np.ndarray, np.ndarray]:
        keys, values = self._keys.numpy(), self._values.numpy()
        if keys.shape != values.shape:  # TF's LookupTableImportV2 check
            raise InvalidArgumentError(
                None, None, f"Expected shape {list(keys.shape)} for value, got {list(values.shape)}"
            )
        return keys.reshape(-1), values.reshape(-1)


class TextFileInitializer(TableInitializerBase):
    """``tf.lookup.TextFileInitializer``: keys and values from the lines of ``filename``: a column
    (split by ``delimiter``), the whole line (``TextFileIndex.WHOLE_LINE``) or the line number
    (``TextFileIndex.LINE_NUMBER``, plus ``value_index_offset``)."""

    def __init__(
        self,
        filename: Any,
        key_dtype: Any,
        key_index: int,
        value_dtype: Any,
        value_index: int,
        vocab_size: Optional[int] = None,
        delimiter: str = "\t",
        name: Any = None,
        value_index_offset: int = 0,
    ) -> None:
        key_dtype, value_dtype = as_dtype(key_dtype), as_dtype(value_dtype)
        for what, index, dtype in (("key", key_index, key_dtype), ("value", value_index, value_dtype)):
            if index < TextFileIndex.WHOLE_LINE:
                raise ValueError(f"`{what}_index` should be >= -2, received: {index}.")
            if index == TextFileIndex.LINE_NUMBER and dtype != int64:
                raise ValueError(
                    f"`{what}_dtype` must be int64 if `{what}_index` is -1 (line number), received: {dtype}."
                )
            if index == TextFileIndex.WHOLE_LINE and not (dtype == string or dtype.is_integer):
                raise ValueError(
                    f"`{what}_dtype` should be either integer or string for `{what}_index` -2, received: {dtype}."
                )
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}.")
        self._filename = filename.numpy().decode() if hasattr(filename, "numpy") else str(filename)
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter, self._offset = vocab_size, delimiter, value_index_offset
        self._name = name
        super().__init__(key_dtype, value_dtype)

    def _column(self, line: str, number: int, index: int, dtype: Any) -> Any:
        if index == TextFileIndex.LINE_NUMBER:
            return number + self._offset
        text = line if index == TextFileIndex.WHOLE_LINE else self._split(line, number, index)
        if dtype == string:
            return text.encode()
        try:
            return int(text) if dtype.is_integer else float(text)
        except ValueError:
            raise InvalidArgumentError(
                None, None, f"Field {index} in line {number} is not a valid {dtype.name}: {text}"
            ) from None

    def _split(self, line: str, number: int, index: int) -> str:
        fields = line.split(self._delimiter)
        if index >= len(fields):
            raise InvalidArgumentError(
                None,
                None,
                f"Invalid number of columns in {self._filename} line {number} ({line}) : expected {index + 1} got {len(fields)}",
            )
        return fields[index]

    def _pairs(self) -> Tuple[np.ndarray, np.ndarray]:
        try:
            with open(self._filename, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            raise NotFoundError(None, None, f"{self._filename}; No such file or directory") from None
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Invalid vocab_size in {self._filename}: expected: {self._vocab_size} but got: {len(lines)}",
                )
            lines = lines[: self._vocab_size]
        keys = [self._column(ln, i, self._key_index, self._key_dtype) for i, ln in enumerate(lines)]
        values = [self._column(ln, i, self._value_index, self._value_dtype) for i, ln in enumerate(lines)]
        return np.array(keys, dtype=object), np.array(values, dtype=object)
