"""``tf.experimental.Optional``: a value that may be absent, usable inside and outside Functions
(Keras' ``fit`` returns each step's logs from its Function as one). A Function passes or returns
it as its components: a scalar bool "has value" and the value's tensors; ``cond`` and
``while_loop`` carry it the same way (its parts, ``fn._tensor.composite``).

TF's Optional is one variant tensor whose ``element_spec`` only says how ``get_value`` reads it, so
Keras' multi-step ``fit`` starts a ``while_loop`` from ``Optional.empty(None)`` and assigns the
spec (``_element_spec``) while the body is traced. fn's components follow the spec: an Optional
whose spec was assigned after its value was made holds zeros of the new spec (whatever it held
could not be read with that spec), and ``while_loop`` traces again when a loop variable's
components changed that way."""

from __future__ import annotations

from typing import Any, List, Optional as PyOptional

from fn import _core, errors
from fn._data import structure
from fn._tensor.composite import CompositeParts
from fn._tensor.tensor_shape import TensorShape
from fn._ops.array_ops import constant, zeros
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import bool_
from fn.types.experimental import TraceType


class OptionalSpec(TraceType):
    """``tf.OptionalSpec``: the trace type of an Optional (its element spec)."""

    def __init__(self, element_spec: Any) -> None:
        self._element_spec = element_spec

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def _leaves(self) -> List[Any]:
        # tf.data's nesting (TF builds Optionals with it): a None component has no tensor.
        return structure.flatten(self._element_spec)

    def _component_specs(self) -> List[Any]:

        return [TensorSpec([], bool_)] + self._leaves()

    def __fn_composite__(self) -> tuple:
        return self, self._component_specs()

    def _fn_from_components(self, components: List[Any]) -> "Optional":

        value = structure.pack(self._element_spec, components[1:])
        return Optional(components[0], value, self._element_spec)

    def is_subtype_of(self, other: Any) -> bool:
        return self == other

    def most_specific_common_supertype(self, others: Any) -> PyOptional["OptionalSpec"]:
        return self if all(self == o for o in others) else None

    def _key(self) -> str:
        return repr(self._element_spec)

    def __eq__(self, other: Any) -> bool:
        return type(other) is OptionalSpec and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(("OptionalSpec", self._key()))

    def __repr__(self) -> str:
        return f"OptionalSpec({self._element_spec!r})"


class _OptionalParts(CompositeParts):
    """An Optional as a ``cond`` output or ``while_loop`` variable: its has-value flag and its
    value's tensors, which keep the shapes of the element spec between iterations."""

    def _fn_loop_invariants(self) -> CompositeParts:
        shapes = [getattr(s, "shape", None) for s in self.spec._leaves()]
        return CompositeParts(self.spec, tuple([TensorShape([])] + shapes))


def _zeros_of(element_spec: Any) -> Any:
    """A value of ``element_spec`` made of zeros (unknown dimensions 0): an empty Optional's."""
    return structure.pack(
        element_spec, [zeros([d or 0 for d in s.shape.as_list()], s.dtype) for s in structure.flatten(element_spec)]
    )


class Optional:
    """``tf.experimental.Optional``: ``from_value(v)`` holds ``v``; ``empty(spec)`` holds nothing."""

    _fn_is_optional = True  # a composite leaf of tf.data elements (structure.is_composite)

    def __init__(self, has_value: Any, value: Any, element_spec: Any) -> None:
        self._has_value = has_value
        self._value = value
        self._spec = element_spec
        self._value_spec = element_spec  # the spec ``_value`` was made with

    @property
    def _element_spec(self) -> Any:
        return self._spec

    @_element_spec.setter
    def _element_spec(self, spec: Any) -> None:
        # Assigned by Keras' multi-step fit (see the module docstring).
        self._spec = spec

    def _current_value(self) -> Any:
        """The value, as the current element spec reads it."""
        if self._spec is not self._value_spec and OptionalSpec(self._spec) != OptionalSpec(self._value_spec):
            return _zeros_of(self._spec)
        return self._value

    @staticmethod
    def from_value(value: Any) -> "Optional":
        """An Optional holding ``value`` (a nested structure of tensors)."""

        value = structure.normalize_element(value)  # TF's normalize_element: lists are tensors
        return Optional(constant(True), value, structure.spec_from_value(value))

    @staticmethod
    def empty(element_spec: Any) -> "Optional":
        """An Optional holding no value of structure ``element_spec``."""

        return Optional(constant(False), _zeros_of(element_spec), element_spec)

    @property
    def element_spec(self) -> Any:
        return self._spec

    def has_value(self, name: Any = None) -> Any:
        """A scalar bool tensor: whether a value is held."""
        return self._has_value

    def get_value(self, name: Any = None) -> Any:
        """The value; eagerly, ``InvalidArgumentError`` when there is none (as TF)."""
        if _core.is_tensor(self._has_value) and self._has_value._is_eager and not bool(self._has_value.numpy()):
            raise errors.InvalidArgumentError(None, None, "The optional does not have a value")
        return self._current_value()

    def __fn_composite__(self) -> tuple:

        leaves = structure.flatten(self._current_value())
        return OptionalSpec(self._spec), [self._has_value] + leaves

    def _fn_parts(self) -> _OptionalParts:
        spec, components = self.__fn_composite__()
        return _OptionalParts(spec, tuple(components))

    def __repr__(self) -> str:
        return f"<fn.experimental.Optional element_spec={self._spec!r}>"
