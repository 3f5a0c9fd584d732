"""``tf.data.experimental.assert_cardinality``: a dataset that declares its number of elements
and fails (TF's ``FailedPreconditionError``) when iteration finds another."""

from __future__ import annotations

from typing import Any, Iterator as PyIterator

from fn import errors
from fn._data import registry
from fn._data.dataset_ops import INFINITE, Dataset, as_int
from fn._data.transforms import _UnaryDataset


def _elements_text(n: int) -> str:
    if n == INFINITE:
        return "an infinite number of elements"
    return "1 element" if n == 1 else f"{n} elements"


@registry.register
class AssertCardinalityDataset(_UnaryDataset):
    """The input's elements; its cardinality is the asserted one (TF's
    ``AssertCardinalityDataset``)."""

    _type_name = "_AssertCardinalityDataset"

    def __init__(self, input_dataset: Dataset, expected_cardinality: Any) -> None:
        self._expected = as_int(expected_cardinality, "expected_cardinality")
        super().__init__(input_dataset, input_dataset.element_spec)

    def _fail(self, found: str) -> errors.FailedPreconditionError:
        expected = _elements_text(self._expected)
        return errors.FailedPreconditionError(
            None, None, f"Input dataset was expected to contain {expected} but contained {found}."
        )

    def _elements(self) -> PyIterator[Any]:
        n = 0
        for e in self._input._elements():
            n += 1
            if self._expected != INFINITE and n > self._expected:
                raise self._fail(f"at least {_elements_text(n)}")
            yield e
        if n < self._expected or self._expected == INFINITE:
            raise self._fail(f"only {_elements_text(n)}")

    def _cardinality(self) -> int:
        return self._expected
