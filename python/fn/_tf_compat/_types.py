"""``tf.__internal__.types.Tensor`` and ``tf.__internal__.CompositeTensor``: the base classes
TensorFlow programs (Keras' ``Variable``) inherit to be tensors. Kept import-light: ``fn.is_tensor``
checks them on every call."""

from __future__ import annotations

import abc
from typing import Any
from fn._data.optional import OptionalSpec
from fn._ragged import _spec
from fn._sparse import sparse_tensor as _sparse_tensor
from fn._tensor import tensor_spec as _tensor_spec
from fn.data import DatasetSpec, IteratorSpec
from fn._extension_type import ExtensionTypeSpec


class Tensor:
    """TF's ``types.core.Tensor``: an instance of a subclass is a tensor for ``tf.is_tensor``, and
    converts to one through its ``__tf_tensor__(dtype, name)`` method (TF's conversion protocol),
    wherever fn converts an operand (``__fn_tensor__`` is fn's name for that hook)."""

    def __fn_tensor__(self, dtype: Any = None) -> Any:
        hook = getattr(self, "__tf_tensor__", None)
        if hook is None:
            raise TypeError(
                f"{type(self).__name__} subclasses tf.__internal__.types.Tensor but defines "
                "no __tf_tensor__(dtype=None, name=None) to convert to a tensor"
            )
        return hook(dtype)

    @property
    def _fn_handle(self) -> Any:
        # TF treats an object with `_should_act_as_resource_variable` as a resource variable (its
        # `handle` is what tapes watch and differentiate); fn's tapes read `_fn_handle`.
        if getattr(self, "_should_act_as_resource_variable", False):
            return self.handle  # type: ignore[attr-defined]  # the subclass's (a Keras variable's)
        return None


class CompositeTensor(abc.ABC):  # noqa: B024  (a registry of virtual subclasses, as TF's)
    """TF's ``CompositeTensor``: RaggedTensor, SparseTensor (registered by ``_internal``), and
    classes deriving from it."""


class TypeSpec(abc.ABC):  # noqa: B024  (fn's spec classes are registered as virtual subclasses)
    """``tf.TypeSpec``: the base of value specs; fn's spec classes are registered as subclasses."""


def _register_specs() -> None:

    for cls in (
        _tensor_spec.TensorSpec,
        _spec.RaggedTensorSpec,
        _sparse_tensor.SparseTensorSpec,
        OptionalSpec,
        DatasetSpec,
        IteratorSpec,
        ExtensionTypeSpec,
    ):
        TypeSpec.register(cls)
