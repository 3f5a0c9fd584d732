"""File datasets: ``TFRecordDataset``, ``TextLineDataset``, ``FixedLengthRecordDataset``,
``Dataset.list_files`` and the CSV readers (``tf.data.experimental.CsvDataset``,
``make_csv_dataset``). Files are opened when iteration reaches them, as TF's readers do."""

from __future__ import annotations

import collections
import csv
import glob
import gzip
import io
import os
import zlib
from typing import Any, Iterator as PyIterator, List, Optional, Sequence

import numpy as np

from fn import _core, errors
from fn.dtypes import as_dtype, float32, float64, int32, int64, string
from fn._tensor.tensor_spec import TensorSpec
from fn._data import registry
from fn._data.dataset_ops import Dataset, UNKNOWN
from fn._io.tfrecord import TFRecordOptions, open_input, read_records
from fn._data.sources import TensorSliceDataset
from fn._data.interleave import cycle
from fn._data.structure import flatten

_STRING = TensorSpec([], string)


def _compression(value: Any) -> str:
    if value is None:
        return ""
    if _core.is_tensor(value):
        value = value.numpy().decode()
    return TFRecordOptions.get_compression_type_string(value)


def _filenames_tensor(filenames: Any) -> Any:
    t = (
        filenames
        if _core.is_tensor(filenames)
        else _core.convert_to_tensor(
            [os.fspath(f) if isinstance(f, os.PathLike) else f for f in filenames]
            if isinstance(filenames, (list, tuple))
            else (os.fspath(filenames) if isinstance(filenames, os.PathLike) else filenames),
            string,
        )
    )
    if t.dtype != string:
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got `{t.dtype!r}` elements.")
    if t.shape.rank is not None and t.shape.rank > 1:
        raise TypeError(
            f"The `filenames` argument must contain `tf.string` elements. Got a tensor of rank {t.shape.rank}."
        )
    return t


def _names(t: Any) -> List[str]:
    return [b.decode() if isinstance(b, bytes) else str(b) for b in np.asarray(t.numpy(), dtype=object).reshape(-1)]


class _FileDataset(Dataset):
    """A reader over ``filenames`` (a string, a list, a string tensor, or a dataset of names)."""

    def __init__(self, filenames: Any, element_spec: Any, num_parallel_reads: Any = None) -> None:
        if isinstance(filenames, Dataset):
            spec = flatten(filenames.element_spec)
            if len(spec) != 1 or spec[0].dtype != string or spec[0].shape.rank != 0:
                raise TypeError(
                    "The `filenames` argument must contain `tf.string` elements. Got a dataset "
                    f"of `{filenames.element_spec!r}` elements."
                )
            super().__init__((filenames,), element_spec)
            self._files_ds: Optional[Dataset] = filenames
        else:
            super().__init__((), element_spec, [_filenames_tensor(filenames)])
            self._files_ds = None
        self._parallel = None if num_parallel_reads is None else int(num_parallel_reads)

    def _files(self) -> PyIterator[str]:
        if self._files_ds is not None:
            for t in self._files_ds._elements():
                yield t.numpy().decode()
        else:
            yield from _names(self._tensors[0])

    def _read(self, path: str) -> PyIterator[Any]:
        raise NotImplementedError

    def _elements(self) -> PyIterator[Any]:
        if self._parallel is None or self._parallel <= 1:
            for path in self._files():
                yield from self._read(path)
            return
        # num_parallel_reads: TF interleaves the files, one record from each in turn.
        yield from cycle((self._read(p) for p in self._files()), self._parallel, 1)


class TFRecordDataset(_FileDataset):
    """``tf.data.TFRecordDataset``: the records of TFRecord files, as scalar strings."""

    _type_name = "TFRecordDatasetV2"

    def __init__(
        self,
        filenames: Any,
        compression_type: Any = None,
        buffer_size: Any = None,
        num_parallel_reads: Any = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(filenames, _STRING, num_parallel_reads)
        self._compression = _compression(compression_type)

    def _read(self, path: str) -> PyIterator[Any]:
        for record in read_records(path, self._compression):
            yield _core.to_eager(record, string)


def _open_text(path: str, compression: str) -> Any:
    f = open_input(path)
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=f)
    if compression == "ZLIB":
        with f:
            return io.BytesIO(zlib.decompress(f.read()))
    return f


class TextLineDataset(_FileDataset):
    """``tf.data.TextLineDataset``: the lines of text files, without their ``\\n`` (or ``\\r\\n``)."""

    _type_name = "TextLineDatasetV2"

    def __init__(
        self,
        filenames: Any,
        compression_type: Any = None,
        buffer_size: Any = None,
        num_parallel_reads: Any = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(filenames, _STRING, num_parallel_reads)
        self._compression = _compression(compression_type)

    def _read(self, path: str) -> PyIterator[Any]:
        with _open_text(path, self._compression) as f:
            for line in f:
                if line.endswith(b"\n"):
                    line = line[:-1]
                    if line.endswith(b"\r"):
                        line = line[:-1]
                yield _core.to_eager(line, string)


class FixedLengthRecordDataset(_FileDataset):
    """``tf.data.FixedLengthRecordDataset``: records of ``record_bytes`` bytes after a header."""

    _type_name = "FixedLengthRecordDatasetV2"

    def __init__(
        self,
        filenames: Any,
        record_bytes: int,
        header_bytes: Optional[int] = None,
        footer_bytes: Optional[int] = None,
        buffer_size: Any = None,
        compression_type: Any = None,
        num_parallel_reads: Any = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(filenames, _STRING, num_parallel_reads)
        self._sizes = (int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0))
        self._compression = _compression(compression_type)

    def _read(self, path: str) -> PyIterator[Any]:
        record, header, footer = self._sizes
        with _open_text(path, self._compression) as f:
            data = f.read()
        body = data[header : len(data) - footer]
        for i in range(len(body) // record):
            yield _core.to_eager(body[i * record : (i + 1) * record], string)


@registry.register
def list_files(
    file_pattern: Any, shuffle: Optional[bool] = None, seed: Optional[int] = None, name: Optional[str] = None
) -> Dataset:
    """``Dataset.list_files``: the files matching the glob pattern(s), shuffled unless
    ``shuffle=False``; ``InvalidArgumentError`` when nothing matches."""
    t = _filenames_tensor(file_pattern)
    patterns = _names(t)
    matches = sorted({m for p in patterns for m in glob.glob(p)})
    if not matches:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be "
            f"true. Summarized data: b'No files matched pattern: "
            f"{', '.join(patterns)}'",
        )
    ds: Dataset = TensorSliceDataset(_core.convert_to_tensor(matches, string))
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(matches), seed=seed)
    return ds


# ---------------------------------------------------------------- CSV

_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")


def _record_default(value: Any, i: int) -> Any:
    """A ``record_defaults`` entry: a dtype (required column) or a default value (a scalar or
    a one-element tensor), as an eager rank-1 tensor with 0 or 1 elements (eager even while a
    function is traced: the defaults are constants of the dataset)."""
    if _core.is_tensor(value):
        if not value._is_eager:
            raise TypeError("fn's CsvDataset needs constant `record_defaults`, got a graph tensor.")
        dt, arr = value.dtype, np.asarray(value.numpy(), dtype=object if value.dtype == string else None)
    else:
        try:
            dt = as_dtype(value) if not isinstance(value, (int, float, str, bytes, list, np.ndarray)) else None
        except TypeError:
            dt = None
        if dt is not None:
            arr = np.zeros([0], dtype=object if dt == string else dt.as_numpy_dtype)
        else:
            probe = _core.to_eager(value, None)
            dt = probe.dtype
            arr = np.asarray(probe.numpy(), dtype=object if dt == string else None)
    if dt.name not in _CSV_TYPES:
        raise TypeError(
            f"Value for attr 'OUTPUT_TYPES' of {dt.name} is not in the list of allowed values: "
            "float, double, int32, int64, string"
        )
    return _core.to_eager(arr.reshape(-1), dt)


class CsvDataset(_FileDataset):
    """``tf.data.experimental.CsvDataset``: one tuple of scalars per CSV record; an empty field
    takes the column's default, or is an error for a column given only by its dtype."""

    _type_name = "CsvDatasetV2"

    def __init__(
        self,
        filenames: Any,
        record_defaults: Sequence[Any],
        compression_type: Any = None,
        buffer_size: Any = None,
        header: bool = False,
        field_delim: str = ",",
        use_quote_delim: bool = True,
        na_value: str = "",
        select_cols: Optional[Sequence[int]] = None,
        exclude_cols: Optional[Sequence[int]] = None,
        name: Optional[str] = None,
    ) -> None:
        defaults = [_record_default(v, i) for i, v in enumerate(record_defaults)]
        if select_cols is not None and exclude_cols is not None:
            raise errors.InvalidArgumentError(None, None, "Either select_cols or exclude_cols should be empty")
        if select_cols is not None:
            if len(select_cols) != len(defaults):
                raise errors.InvalidArgumentError(None, None, "select_cols should match output size")
            if list(select_cols) != sorted(set(select_cols)) or any(c < 0 for c in select_cols):
                raise errors.InvalidArgumentError(
                    None, None, "select_cols should be non-negative and sorted in strictly increasing order"
                )
        spec = tuple(TensorSpec([], d.dtype) for d in defaults)
        super().__init__(filenames, spec)
        self._defaults = [d.numpy() for d in defaults]
        self._dtypes = [d.dtype for d in defaults]
        self._opts = (bool(header), field_delim, bool(use_quote_delim), na_value)
        self._select = list(select_cols) if select_cols is not None else None
        self._exclude = set(exclude_cols or ())
        self._compression = _compression(compression_type)

    def _convert(self, field: str, col: int, record: int) -> Any:
        dt = self._dtypes[col]
        if field == "" or field == self._opts[3]:
            if len(self._defaults[col]) == 0:
                raise errors.InvalidArgumentError(None, None, f"Field {col} is required but missing in record!")
            return _core.to_eager(self._defaults[col][0], dt)
        try:
            if dt == string:
                return _core.to_eager(field.encode(), dt)
            if dt in (int32, int64):
                v = int(field)
                if dt == int32 and not -(2**31) <= v < 2**31:
                    raise ValueError
                return _core.to_eager(v, dt)
            return _core.to_eager(float(field), dt)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Field {col} in record {record} is not a valid {dt.name}: {field}"
            ) from None

    def _read(self, path: str) -> PyIterator[Any]:
        header, delim, quote, _ = self._opts
        with _open_text(path, self._compression) as f:
            text = io.TextIOWrapper(f, encoding="utf-8", newline="")
            rows = csv.reader(text, delimiter=delim, quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)
            if header:
                next(rows, None)
            for record, row in enumerate(rows):
                if not row:
                    continue
                if self._select is not None:
                    if self._select[-1] >= len(row):
                        raise errors.InvalidArgumentError(
                            None, None, f"Expect {len(self._select)} fields but have {len(row)} in record {record}"
                        )
                    row = [row[c] for c in self._select]
                elif self._exclude:
                    row = [v for c, v in enumerate(row) if c not in self._exclude]
                try:
                    if len(row) != len(self._dtypes):
                        raise errors.InvalidArgumentError(
                            None, None, f"Expect {len(self._dtypes)} fields but have {len(row)} in record {record}"
                        )
                    values = tuple(self._convert(v, c, record) for c, v in enumerate(row))
                except errors.InvalidArgumentError:
                    if self._skip_errors:  # under ignore_errors: drop the record
                        continue
                    raise
                yield values


def _infer_type(value: str, na_value: str, prev: Any) -> Any:
    """TF's ``_infer_type``: the least permissive of int32, int64, float32, float64, string
    that holds ``value`` and the column's earlier values."""
    if value in ("", na_value):
        return prev
    order = [int32, int64, float32, float64, string]

    def ok(i: int) -> bool:
        try:
            if i == 0:
                return np.int32(value) == np.int64(value)
            if i == 1:
                np.int64(value)
                return True
            if i in (2, 3):
                return bool((np.float32 if i == 2 else np.float64)(value) < np.inf)
            return True
        except (ValueError, OverflowError):
            return False

    for i, t in enumerate(order):
        if ok(i) and (prev is None or prev in order[: i + 1]):
            return t
    return string


def _csv_rows(files: List[str], delim: str, quote: bool) -> PyIterator[List[str]]:
    for name in files:
        with open(name, newline="", encoding="utf-8") as f:
            yield from csv.reader(f, delimiter=delim, quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)


def _sorted_col_indices(select_columns: Sequence[Any], names: List[str]) -> List[int]:
    index = {n: i for i, n in enumerate(names)}
    out = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= len(names):
                raise ValueError(
                    f"Column index {v} specified in `select_columns` should be > 0  and <= "
                    f"{len(names)}, which is the number of columns."
                )
            out.append(v)
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the columns: {index.keys()}.")
        else:
            out.append(index[v])
    out = sorted(set(out))
    if len(out) != len(select_columns):
        raise ValueError("The `select_columns` argument contains duplicate columns.")
    return out


def make_csv_dataset(
    file_pattern: Any,
    batch_size: int,
    column_names: Optional[List[str]] = None,
    column_defaults: Optional[List[Any]] = None,
    label_name: Optional[str] = None,
    select_columns: Optional[List[Any]] = None,
    field_delim: str = ",",
    use_quote_delim: bool = True,
    na_value: str = "",
    header: bool = True,
    num_epochs: Optional[int] = None,
    shuffle: bool = True,
    shuffle_buffer_size: int = 10000,
    shuffle_seed: Optional[int] = None,
    prefetch_buffer_size: Any = None,
    num_parallel_reads: Any = None,
    sloppy: bool = False,
    num_rows_for_inference: int = 100,
    compression_type: Any = None,
    ignore_errors: bool = False,
    encoding: str = "utf-8",
) -> Dataset:
    """``tf.data.experimental.make_csv_dataset``: batches of ``(features, label)`` (an
    OrderedDict of columns, and the label column) read from CSV files, as TF builds it: files
    listed and shuffled, records read, shuffled, repeated and batched."""
    t = _filenames_tensor(file_pattern)
    files = sorted({m for p in _names(t) for m in glob.glob(p)})
    if not files:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = next(_csv_rows(files[:1], field_delim, use_quote_delim), None)
        if column_names is None:
            raise ValueError(f"Failed when reading the header line of {files[0]}. Is it an empty file?")
    if len(column_names) != len(set(column_names)):
        raise ValueError("Either `column_names` argument or CSV header row contains duplicate column names.")
    select = _sorted_col_indices(select_columns, column_names) if select_columns is not None else None
    if column_defaults is not None:
        defaults = list(column_defaults)
    else:
        cols = select if select is not None else list(range(len(column_names)))
        types: List[Any] = [None] * len(cols)
        rows = _csv_rows(files, field_delim, use_quote_delim)
        for i, row in enumerate(rows):
            if header and i == 0:
                continue
            if num_rows_for_inference is not None and i > num_rows_for_inference - (0 if header else 1):
                break
            for j, c in enumerate(cols):
                types[j] = _infer_type(row[c], na_value, types[j])
        defaults = [
            _core.to_eager(
                np.asarray([0 if (t or string) != string else b""], dtype=object if (t or string) == string else None),
                t or string,
            )
            for t in types
        ]
    if select is not None and len(defaults) != len(select):
        raise ValueError(
            "If specified, `column_defaults` and `select_columns` must have the same length: "
            f"`column_defaults` has length {len(defaults)}, `select_columns` has length "
            f"{len(select)}."
        )
    if select is not None and len(column_names) > len(select):
        column_names = [column_names[i] for i in select]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. Received: {label_name}.")

    def map_fn(*columns: Any) -> Any:
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            label = features.pop(label_name)
            return features, label
        return features

    ds: Dataset = TensorSliceDataset(_core.convert_to_tensor(files, string))
    if shuffle:
        ds = ds.shuffle(len(files), shuffle_seed)
    ds = ds.interleave(
        lambda f: _maybe_ignore(
            CsvDataset(
                f,
                defaults,
                header=header,
                field_delim=field_delim,
                use_quote_delim=use_quote_delim,
                na_value=na_value,
                select_cols=select,
                compression_type=compression_type,
            ),
            ignore_errors,
        ),
        cycle_length=int(num_parallel_reads or 1),
        block_length=1,
    )
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)
    return ds.map(map_fn).prefetch(prefetch_buffer_size if prefetch_buffer_size is not None else -1)


def _maybe_ignore(ds: Dataset, ignore: bool) -> Dataset:
    return ds.ignore_errors() if ignore else ds


__all__ = [
    "TFRecordDataset",
    "TextLineDataset",
    "FixedLengthRecordDataset",
    "CsvDataset",
    "list_files",
    "make_csv_dataset",
    "UNKNOWN",
]
