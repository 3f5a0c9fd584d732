"""Dataset sources: ``from_tensor_slices``, ``from_tensors``, ``range``, ``from_generator``
(TF's ``TensorSliceDataset``, ``TensorDataset``, ``RangeDataset`` and the ``FlatMapDataset``
that ``from_generator`` builds)."""

from __future__ import annotations

from typing import Any, Callable, Iterator as PyIterator, List, Optional

import numpy as np

from fn import _core, errors
from fn.dtypes import as_dtype, int64
from fn._tensor.tensor_spec import TensorSpec
from fn._data import registry, structure
from fn._data.dataset_ops import INFINITE, UNKNOWN, Dataset, as_int
from fn._sparse.sparse_tensor import SparseTensor, SparseTensorSpec
from fn._data.optional import OptionalSpec
from fn._ragged import RaggedTensorSpec


def _row_maker(t: Any) -> Callable[[int], Any]:
    """A function returning row i of eager tensor ``t`` as an eager tensor."""
    if structure.is_composite(t):
        if isinstance(t, SparseTensor):
            idx, vals = np.asarray(t.indices.numpy()), t.values.numpy()
            rest = [int(d) for d in np.asarray(t.dense_shape.numpy())[1:]]

            def sparse_row(i: int) -> Any:
                keep = idx[:, 0] == i
                return SparseTensor(
                    _core.to_eager(idx[keep][:, 1:], None),
                    _core.to_eager(vals[keep], t.values.dtype),
                    _core.to_eager(np.asarray(rest, np.int64), None),
                )

            return sparse_row
        return lambda i: t[i]
    arr = np.asarray(t.numpy()) if t.dtype.name != "string" else np.asarray(t.numpy(), dtype=object)
    dtype = t.dtype
    return lambda i: _core.to_eager(arr[i], dtype)


@registry.register
class TensorSliceDataset(Dataset):
    """``Dataset.from_tensor_slices``: one element per row of the (nested) tensors."""

    _type_name = "_TensorSliceDataset"

    def __init__(self, tensors: Any) -> None:
        element = structure.normalize_element(tensors)
        flat = structure.flatten(element)
        if not flat:
            raise ValueError("Invalid `tensors`: `tensors` must not be empty.")
        n: Optional[int] = None
        for t in flat:
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            d = t.shape[0] if t.shape.rank is not None else None
            if d is not None and n is not None and d != n:
                raise ValueError(f"Dimensions {n} and {d} are not compatible")
            n = n if n is not None else d
        spec = structure.unbatched_spec(structure.spec_from_value(element))
        super().__init__((), spec, flat)
        self._on_rebuilt()

    def _on_rebuilt(self) -> None:
        t = self._tensors[0]
        if structure.is_composite(t):
            self._n = t.shape[0] if t.shape[0] is not None else int(t.nrows())
        else:
            self._n = t.shape[0] if t._is_eager else None

    def _elements(self) -> PyIterator[Any]:
        rows = [_row_maker(t) for t in self._tensors]
        for i in range(self._n):
            yield structure.pack(self._element_spec, [r(i) for r in rows])

    def _cardinality(self) -> int:
        return self._n if self._n is not None else UNKNOWN


@registry.register
class TensorDataset(Dataset):
    """``Dataset.from_tensors``: a single element."""

    _type_name = "_TensorDataset"

    def __init__(self, tensors: Any) -> None:
        element = structure.normalize_element(tensors)
        flat = structure.flatten(element)
        super().__init__((), structure.spec_from_value(element), flat)

    def _elements(self) -> PyIterator[Any]:
        yield structure.pack(self._element_spec, list(self._tensors))

    def _cardinality(self) -> int:
        return 1


@registry.register
class RangeDataset(Dataset):
    """``Dataset.range``: int64 scalars (or ``output_type``) like Python's ``range``."""

    _type_name = "_RangeDataset"

    def __init__(self, *args: Any, output_type: Any = None) -> None:
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 but was {len(args)}.")
        dtype = as_dtype(output_type) if output_type is not None else int64
        # Inside a trace (e.g. a flat_map/interleave function) the bounds may be graph tensors:
        # the range is then computed when the graph runs and rebuilds the dataset.
        symbolic = [a for a in args if _core.is_tensor(a) and not a._is_eager]
        super().__init__(
            (),
            TensorSpec([], dtype),
            [a if _core.is_tensor(a) else _core.convert_to_tensor(a, int64) for a in args] if symbolic else [],
        )
        self._args = args
        self._range = None if symbolic else self._make_range(args)

    @staticmethod
    def _make_range(args: Any) -> range:
        values = [as_int(a, "args") for a in args]
        if len(values) == 1:
            values = [0] + values
        if len(values) == 2:
            values.append(1)
        if values[2] == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        return range(*values)

    def _on_rebuilt(self) -> None:
        if self._tensors:
            self._range = self._make_range(self._tensors)

    def _elements(self) -> PyIterator[Any]:
        return self._elements_from(0)

    def _elements_from(self, n: int) -> PyIterator[Any]:
        if self._range is None:
            self._range = self._make_range(self._args)
        dtype = self._element_spec.dtype
        for i in self._range[n:]:
            yield _core.to_eager(i, dtype) if i <= 2**31 - 1 or dtype == int64 else _core.to_eager(np.int64(i), dtype)

    def _cardinality(self) -> int:
        return len(self._range) if self._range is not None else UNKNOWN


def _generator_spec(output_types: Any, output_shapes: Any, output_signature: Any) -> Any:
    if output_signature is not None:
        if output_types is not None:
            raise TypeError(
                "The `output_types` argument can not be used together with the `output_signature` argument."
            )
        if output_shapes is not None:
            raise TypeError(
                "The `output_shapes` argument can not be used together with the `output_signature` argument."
            )
        for s in structure.flatten(output_signature):
            # (ExtensionType specs flatten to TensorSpecs)
            if not isinstance(s, (TensorSpec, RaggedTensorSpec, SparseTensorSpec, OptionalSpec)):
                raise TypeError(
                    f"`output_signature` must contain objects that are subclass of "
                    f"`fn.TypeSpec` but found {type(s)} which is not."
                )
        return output_signature
    if output_types is None:
        raise TypeError(
            "To specify the output signature you need to provide either the "
            "`output_signature` argument or the `output_types` argument."
        )
    types = structure.flatten(output_types)
    if output_shapes is None:
        shapes: List[Any] = [None] * len(types)
    elif structure.is_structure(output_types):
        try:  # shapes nest up to the types: a shape `()` or `(None,)` is a leaf
            shapes = _flatten_up_to(output_types, output_shapes)
        except TypeError:
            raise ValueError(
                "The two structures don't have the same nested structure.\n\n"
                f"First structure: {output_types}\n\nSecond structure: {output_shapes}"
            ) from None
    else:
        shapes = [output_shapes]
    return structure.pack(output_types, [TensorSpec(s, as_dtype(t)) for t, s in zip(types, shapes)])


def _types_text(x: Any) -> str:
    if isinstance(x, tuple):
        inner = ", ".join(_types_text(v) for v in x)
        return f"({inner},)" if len(x) == 1 else f"({inner})"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_types_text(v)}" for k, v in x.items()) + "}"
    return repr(x)


@registry.register
class GeneratorDataset(Dataset):
    """``Dataset.from_generator``. TF builds it as a ``FlatMapDataset`` over a ``py_function``
    and prints it so; each iteration calls ``generator(*args)`` afresh."""

    _type_name = "_FlatMapDataset"

    def __init__(
        self, generator: Callable, output_types: Any, output_shapes: Any, args: Any, output_signature: Any
    ) -> None:
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        spec = _generator_spec(output_types, output_shapes, output_signature)
        super().__init__((), spec)
        self._generator = generator
        self._args = tuple(args) if args is not None else ()
        self._types = output_types if output_signature is None else None

    def _elements(self) -> PyIterator[Any]:
        args = [a.numpy() if _core.is_tensor(a) and a._is_eager else a for a in self._args]
        it = iter(_call_generator(self._generator, args))
        while True:
            try:
                value = next(it)
            except StopIteration:
                return
            except errors.OpError:
                raise
            except Exception as e:  # TF runs the generator in a py_func: UnknownError
                import traceback

                text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
                raise errors.UnknownError(None, None, f"{type(e).__name__}: {e}\n{text}") from e
            yield self._convert(value)

    def _mismatch(self, value: Any, expected: Any) -> errors.InvalidArgumentError:
        return errors.InvalidArgumentError(
            None,
            None,
            "TypeError: `generator` yielded an element that did not match the expected "
            f"structure. The expected structure was {expected}, but the yielded element was {value}.",
        )

    def _convert(self, value: Any) -> Any:
        spec = self._element_spec
        flat_specs = structure.flatten(spec)
        if structure._is_extension(spec):
            if not (getattr(type(value), "_fn_value_composite", False) and type(value) is spec.value_type):
                raise self._mismatch(value, structure.spec_text(spec))
            flat_values = structure.flatten(value)
        elif structure.is_structure(spec):
            try:
                flat_values = _flatten_up_to(spec, value)
            except (TypeError, ValueError):
                shown = _types_text(self._types) if self._types is not None else structure.spec_text(spec)
                raise self._mismatch(value, shown) from None
        else:
            flat_values = [value]
        out = []
        for v, s in zip(flat_values, flat_specs):
            if not isinstance(s, TensorSpec):
                out.append(self._composite(value, v, s))
                continue
            try:
                if _core.is_tensor(v):
                    if v.dtype != s.dtype or not v._is_eager:
                        raise TypeError("dtype")
                    t = v
                else:
                    t = _core.to_eager(v, s.dtype)
            except (TypeError, ValueError):
                raise self._mismatch(value, structure.spec_text(spec)) from None
            if not t.shape.is_compatible_with(s.shape):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"TypeError: `generator` yielded an element of shape {t.shape} where an "
                    f"element of shape {s.shape} was expected.",
                )
            out.append(t)
        return structure.pack(spec, out)

    def _composite(self, value: Any, v: Any, s: Any) -> Any:
        """A ragged, sparse or Optional component: it must be yielded as one (TF converts no lists
        to them)."""
        from fn._data.optional import Optional, OptionalSpec

        if isinstance(s, OptionalSpec):
            if not isinstance(v, Optional) or OptionalSpec(v.element_spec) != s:
                raise self._mismatch(value, structure.spec_text(self._element_spec))
            return v
        if (
            not structure.is_composite(v)
            or structure.spec_of(v).dtype != s.dtype
            or not v.shape.is_compatible_with(s.shape)
        ):
            raise self._mismatch(value, structure.spec_text(self._element_spec))
        return v

    def _cardinality(self) -> int:
        return UNKNOWN


def _call_generator(generator: Callable, args: List[Any]) -> Any:
    """``generator(*args)``; an error calling it surfaces when the first element is asked for
    (as in TF, where the call happens inside the iterator)."""
    try:
        return generator(*args)
    except Exception as e:  # re-raised from next()
        error = e  # `e` is unbound once the except block ends

        def fail() -> Any:
            raise error
            yield  # pragma: no cover

        return fail()


def _flatten_up_to(spec: Any, value: Any) -> List[Any]:
    """The leaves of ``value`` following ``spec``'s structure (tuples also accept lists)."""
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise TypeError("structure")
        out: List[Any] = []
        for s, v in zip(spec, value):
            out.extend(_flatten_up_to(s, v))
        return out
    if isinstance(spec, dict):
        if not isinstance(value, dict) or sorted(value) != sorted(spec):
            raise TypeError("structure")
        out = []
        for k in sorted(spec):
            out.extend(_flatten_up_to(spec[k], value[k]))
        return out
    return [value]


__all__ = ["TensorSliceDataset", "TensorDataset", "RangeDataset", "GeneratorDataset", "INFINITE"]
