"""The guide's code, example by example, shared by the tests and the notebooks.

Each ``Example`` holds the guide's cells for one SPEC example (``import fn as
tf`` in place of ``import tensorflow as tf``), the ids of the earlier examples
it depends on (``needs``: run first, their output is not checked), and
optional ``probe`` cells: test-only code run after the guide's cells, to check
a property the guide states but does not print (not put in the notebooks).

Sources: ``seeds/001_*.txt`` (the guide), ``000_*.txt`` (the ``tf.py_function``
cells of 4.1), ``002_*.txt`` (4.11), ``004_*.txt`` (section 5, the blog post).
2.4 and 2.16 have no code in the guide: their cells are ours, written to
exercise the rules the guide states.
"""
from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent


@dataclass(frozen=True)
class Example:
    """One SPEC example: cells as in the guide, plus what it needs."""

    id: str
    name: str
    title: str
    cells: tuple[str, ...]
    needs: tuple[str, ...] = ()
    probe: tuple[str, ...] = ()
    about: str = ""

    @property
    def test_id(self) -> str:
        """The pytest function name, e.g. ``test_2_5_input_signature``."""
        return "test_" + self.id.replace(".", "_") + "_" + self.name


def _c(code: str) -> str:
    return dedent(code).strip("\n") + "\n"


EXAMPLES: dict[str, Example] = {}


H = ("0.1", "0.2")  # needs of examples that use `assert_raises`


def _add(id: str, name: str, title: str, cells: list[str], needs: tuple[str, ...] = ("0.1",),
         probe: list[str] | None = None) -> None:
    EXAMPLES[id] = Example(id, name, title, tuple(_c(c) for c in cells), needs,
                           tuple(_c(c) for c in probe or ()))


# The cells themselves, registered in SPEC order (they import ``_add`` and
# ``H`` from this module, so they are imported last).
import snippets_1_2  # noqa: E402,F401
import snippets_3_5  # noqa: E402,F401


def cells_with_needs(ex_id: str) -> tuple[list[str], list[str]]:
    """(setup cells from ``needs``, recursively and once each; own cells)."""
    order: list[str] = []

    def visit(i: str) -> None:
        for dep in EXAMPLES[i].needs:
            visit(dep)
            if dep not in order:
                order.append(dep)

    visit(ex_id)
    setup = [c for dep in order for c in EXAMPLES[dep].cells]
    return setup, list(EXAMPLES[ex_id].cells)


def guide_examples() -> list[Example]:
    """The SPEC examples 1.1 ... 5.4 in order (without the 0.x set-up cells)."""
    return [e for e in EXAMPLES.values() if not e.id.startswith("0.")]
