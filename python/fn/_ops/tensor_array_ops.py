"""``fn.TensorArray``: a list of tensors that works eagerly and inside graph loops.

Its value is a TensorList (a scalar ``variant`` tensor, the C++ ``TensorList*`` ops), which is
immutable: ``write`` makes a new list. Inside a Function, ``ta = ta.write(i, x)`` therefore
builds a data dependency that a ``While`` loop carries like any tensor (TensorFlow's
TensorArray works the same way). Eagerly, ``write`` also updates the array in place and
returns it, as TensorFlow's eager TensorArray does, so ``ta.write(0, x)`` without reassigning
works there too.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fn import _core, errors
from fn.dtypes import as_dtype, int32
from fn._tensor.tensor_shape import TensorShape
from fn._ops.array_ops import zeros


def _index(i: Any) -> Any:
    if _core.is_tensor(i):
        return i
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool) and not -(2**31) <= i < 2**31:
        # TensorArray indices are int32 in TF: never wrap (2**40 must not write element 0).
        raise errors.InvalidArgumentError(None, None, f"TensorArray index {i} does not fit in int32")
    return _core.convert_to_tensor(i, int32)


class TensorArray:
    """``tf.TensorArray``: ``write``/``read``/``stack``/``unstack``/``gather``/``scatter``/``concat``/``size``."""

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: Optional[bool] = None,
        clear_after_read: Optional[bool] = None,
        tensor_array_name: Optional[str] = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: Optional[str] = None,
    ) -> None:
        self._dtype = as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = TensorShape(element_shape)
        self._static_size: Optional[int] = None
        # Eagerly (only), a read empties its element unless clear_after_read=False, as in TF:
        # stack() then sees zeros there and a second read raises.
        self._clear_after_read = clear_after_read is not False and _core.executing_eagerly()
        self._cleared: set = set()
        if flow is not None:
            self._flow = flow
            return
        if size is None:  # TF requires it even with dynamic_size
            if _core.executing_eagerly():
                raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
            raise ValueError("Argument `size` must be provided if argument `flow` is not provided.")
        if isinstance(size, int) or (_core.is_tensor(size) and size._is_eager):
            self._static_size = int(size)
            if self._static_size < 0:
                raise ValueError(f"The size of a TensorArray must be >= 0, got {self._static_size}")
        self._flow = _core.execute(
            "TensorListReserve",
            [_index(size)],
            {"element_dtype": self._dtype, "element_shape": self._element_shape},
            name or "TensorArrayV2",
        )[0]

    # -- properties
    @property
    def flow(self) -> Any:
        """The TensorList value (a scalar variant tensor)."""
        return self._flow

    @property
    def handle(self) -> Any:
        return self._flow

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    # -- copies with a new value
    def _with_flow(self, flow: Any, element_shape: Optional[TensorShape] = None) -> "TensorArray":
        """This array's metadata with another value (a TensorList tensor)."""
        if _core.executing_eagerly() and getattr(flow, "_is_eager", False):
            self._flow = flow
            if element_shape is not None:
                self._element_shape = element_shape
            return self
        ta = TensorArray.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._flow = flow
        if element_shape is not None:
            ta._element_shape = element_shape
        return ta

    def _merge_meta(self, other: "TensorArray") -> "TensorArray":
        """Metadata valid for both arrays (after a branch or a loop): relaxed element shape."""
        a, b = self._element_shape, other._element_shape
        shape = b if a.rank is None else a if b.rank is None else a.most_specific_compatible_shape(b)
        ta = TensorArray.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._element_shape = shape
        if self._static_size != other._static_size:
            ta._static_size = None
        return ta

    def _eager(self) -> bool:
        return _core.is_tensor(self._flow) and self._flow._is_eager and _core.executing_eagerly()

    def _merged_shape(self, shape: TensorShape) -> TensorShape:
        if self._eager() and not shape.is_compatible_with(self._element_shape):
            # TF's eager TensorArray checks every write, whatever infer_shape says.
            raise ValueError(f"Incompatible shape for value ({shape}), expected ({self._element_shape})")
        if not self._infer_shape:
            return self._element_shape
        if not shape.is_compatible_with(self._element_shape):
            raise ValueError(
                f"Inconsistent shapes: saw {shape} but expected {self._element_shape} (and infer_shape=True)"
            )
        return self._element_shape.merge_with(shape)

    def _attrs(self, **extra: Any) -> dict:
        a = {"element_dtype": self._dtype, "element_shape": self._element_shape}
        a.update(extra)
        return a

    def _value(self, value: Any) -> Any:
        if not _core.is_tensor(value):
            try:
                return _core.convert_to_tensor(value, self._dtype)
            except Exception:  # reported below with TensorArray's wording
                value = _core.convert_to_tensor(value)
        if value.dtype != self._dtype:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype {value.dtype.name}",
            )
        return value

    # -- TensorArray API
    def write(self, index: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """The array with ``value`` at ``index`` (grows it when ``dynamic_size``)."""
        value = self._value(value)
        shape = self._merged_shape(value.shape)
        if self._eager() and _index(index)._is_eager:
            i, size = int(_index(index).numpy()), int(self.size().numpy())
            if i < 0:
                raise errors.OutOfRangeError(None, None, f"Writing to negative indices (index {i}) is not allowed.")
            if i >= size and not self._dynamic_size:
                raise errors.OutOfRangeError(
                    None, None, f"Tried to write to index {i} but array is not resizeable and size is: {size} "
                )
        flow = _core.execute(
            "TensorListSetItem",
            [self._flow, _index(index), value],
            {"resize_if_index_out_of_bounds": self._dynamic_size},
            name,
        )[0]
        if self._cleared and _core.is_tensor(flow) and flow._is_eager:
            self._cleared.discard(int(_index(index).numpy()))
        return self._with_flow(flow, shape)

    def read(self, index: Any, name: Optional[str] = None) -> Any:
        """The element at ``index`` (zeros of the element shape if it was never written)."""
        value = _core.execute("TensorListGetItem", [self._flow, _index(index)], self._attrs(), name)[0]
        if self._clear_after_read and value._is_eager and self._flow._is_eager:
            i = int(_index(index).numpy())
            if i in self._cleared:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Could not read index {i} twice because it was cleared after a previous read "
                    "(perhaps try setting clear_after_read = false?)",
                )
            zeros = _core.execute("ZerosLike", [value], None, None)[0]
            self._flow = _core.execute(
                "TensorListSetItem", [self._flow, _index(i), zeros], {"resize_if_index_out_of_bounds": False}, None
            )[0]
            self._cleared.add(i)
        return value

    def stack(self, name: Optional[str] = None) -> Any:
        """All elements stacked along a new first axis."""
        n = -1 if self._dynamic_size or self._static_size is None else self._static_size
        if self._eager() and not self._element_shape.is_fully_defined() and int(self.size().numpy()) == 0:
            # TF's eager TensorArray stacks nothing into a (0,) tensor.
            return zeros([0], self._dtype)
        return _core.execute("TensorListStack", [self._flow], self._attrs(num_elements=n), name)[0]

    def gather(self, indices: Any, name: Optional[str] = None) -> Any:
        """The elements at ``indices``, stacked."""
        idx = indices if _core.is_tensor(indices) else _core.convert_to_tensor(indices, int32)
        return _core.execute("TensorListGather", [self._flow, idx], self._attrs(), name)[0]

    def concat(self, name: Optional[str] = None) -> Any:
        """All elements concatenated along their first axis."""
        return _core.execute("TensorListConcatV2", [self._flow], self._attrs(), name)[0]

    def unstack(self, value: Any, name: Optional[str] = None) -> "TensorArray":
        """The array holding the rows of ``value`` (split along its first axis)."""
        value = self._value(value)
        shape = self._merged_shape(value.shape[1:])
        flow = _core.execute("TensorListFromTensor", [value], None, name)[0]
        self._cleared = set() if self._cleared else self._cleared
        ta = self._with_flow(flow, shape)
        rows = value.shape[0] if value.shape.rank else None
        ta._static_size = rows if not self._dynamic_size else None
        return ta

    def scatter(self, indices: Any, value: Any, name: Optional[str] = None) -> "TensorArray":
        """The array with ``value[i]`` written at ``indices[i]``."""
        value = self._value(value)
        shape = self._merged_shape(value.shape[1:])
        idx = indices if _core.is_tensor(indices) else _core.convert_to_tensor(indices, int32)
        flow = _core.execute(
            "TensorListScatterIntoExistingList",
            [self._flow, value, idx],
            {"resize_if_index_out_of_bounds": self._dynamic_size},
            name,
        )[0]
        if self._cleared and idx._is_eager:
            self._cleared -= {int(i) for i in idx.numpy().reshape(-1)}
        return self._with_flow(flow, shape)

    def split(self, value: Any, lengths: Any, name: Optional[str] = None) -> "TensorArray":
        """The array holding consecutive pieces of ``value`` of the given ``lengths`` (eagerly)."""
        import numpy as np

        value = self._value(value)
        if not value._is_eager:
            raise NotImplementedError("TensorArray.split is only supported eagerly in fn")
        arr = value.numpy()
        pieces = np.split(arr, np.cumsum(np.asarray(lengths))[:-1])
        ta = TensorArray(
            self._dtype,
            size=len(pieces),
            dynamic_size=self._dynamic_size,
            infer_shape=False,
            element_shape=self._element_shape,
        )
        for i, p in enumerate(pieces):
            ta = ta.write(i, p)
        return ta

    def size(self, name: Optional[str] = None) -> Any:
        """The number of elements (an int32 scalar tensor)."""
        return _core.execute("TensorListLength", [self._flow], None, name)[0]

    def identity(self) -> "TensorArray":
        return self._with_flow(_core.execute("Identity", [self._flow], None, None)[0])

    def close(self, name: Optional[str] = None) -> None:
        return None

    def grad(self, source: Any, flow: Any = None, name: Optional[str] = None) -> Any:
        raise NotImplementedError("TensorArray gradients are not supported in fn yet")

    def __repr__(self) -> str:
        return (
            f"<fn.TensorArray dtype={self._dtype.name} element_shape={self._element_shape}"
            f"{'' if self._static_size is None else f' size={self._static_size}'}>"
        )
