"""No import circles inside ``fn``: the modules of ``python/fn`` form a directed acyclic graph.

Every import statement counts, at module level and inside functions (a function-local import
that closes a circle is still a circle, only deferred), and so do ``sys.modules[...]`` and
``importlib.import_module(...)`` lookups of fn modules. An import names the module it loads:
``from fn.a import b`` is an edge to ``fn.a.b`` when that is a module and to ``fn.a`` otherwise, so
``from fn import zeros`` in an internal module is an edge to the top-level package (which imports
everything). Parent packages are not edges of their children: importing ``fn._ops.math_ops``
runs ``fn._ops/__init__`` too, but private packages' ``__init__`` files import nothing.

Run ``python tests_py/api/test_import_cycles.py`` to print every circle.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

PKG_DIR = Path(__file__).resolve().parents[2] / "python" / "fn"

pytestmark = pytest.mark.fn_only

# Imports that still close a circle (issue 20 removes them; the list only shrinks). Without them
# the graph is acyclic; each must still exist, so a fixed one is taken off the list.
KNOWN_BACK_EDGES: Set[Tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> Dict[str, Path]:
    """Every module of the package by dotted name (packages by their ``__init__``)."""
    return {_module_name(p): p for p in sorted(PKG_DIR.rglob("*.py"))}


# The C++ extensions import no Python module of fn: leaves (present or not, built or linked).
LEAVES = ("fn._core", "fn._mpi")  # fn._mpi: the optional MPI transport (cpp/mpi)


def _resolve(name: str, known: Set[str]) -> str:
    """The longest prefix of ``name`` that is a module of fn ("" when there is none)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return ""


def _string_arg(node: ast.AST) -> str:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def imports_of(module: str, path: Path, known: Set[str]) -> Set[str]:
    """The fn modules that ``module`` imports (anywhere in its body)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: List[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                names.append(full if full in known else base)
        elif isinstance(node, ast.Subscript):
            # sys.modules["fn.x"]
            if isinstance(node.value, ast.Attribute) and node.value.attr == "modules":
                names.append(_string_arg(node.slice))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            # sys.modules.get("fn.x"), importlib.import_module("fn.x")
            owner = node.func.value
            if (node.func.attr == "get" and isinstance(owner, ast.Attribute) and owner.attr == "modules") \
                    or node.func.attr == "import_module":
                names.append(_string_arg(node.args[0]))
    deps = {_resolve(n, known) for n in names if n == "fn" or n.startswith("fn.")}
    deps.discard("")
    deps.discard(module)
    return deps


def import_graph() -> Dict[str, Set[str]]:
    known = modules()
    graph = {leaf: set() for leaf in LEAVES}
    names = set(known) | set(LEAVES)
    graph.update({m: imports_of(m, p, names) for m, p in known.items()})
    return graph


def strongly_connected(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Tarjan's strongly connected components with more than one module (iterative)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    out: List[List[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def a_cycle(graph: Dict[str, Set[str]], component: List[str]) -> List[str]:
    """One circle through the component's first module (breadth-first, so a shortest one)."""
    members = set(component)
    start = component[0]
    parents: Dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return list(reversed(path)) + [start]
                if child not in parents:
                    parents[child] = node
                    nxt.append(child)
        frontier = nxt
    return component


def cycles(known: Set[Tuple[str, str]] = frozenset()) -> Iterator[str]:
    graph = import_graph()
    for src, dst in known:
        graph[src].discard(dst)
    for component in strongly_connected(graph):
        yield f"{len(component)} modules, e.g. " + " -> ".join(a_cycle(graph, component))


def test_the_graph_sees_imports():
    # The walk itself: a module-level import, a function-level import and a sys.modules lookup.
    graph = import_graph()
    assert graph["fn._core"] == set()  # the extension: a leaf
    assert "fn._ops.math_ops" in graph["fn"]
    assert "fn._core" in graph["fn._ops.math_ops"] and "fn" not in graph["fn._ops.math_ops"]
    assert any(deps for deps in graph.values())


def test_no_import_cycles():
    found = list(cycles(KNOWN_BACK_EDGES))
    assert not found, "import circles inside fn:\n" + "\n".join(found)


def test_known_back_edges_still_exist():
    graph = import_graph()
    fixed = sorted(e for e in KNOWN_BACK_EDGES if e[1] not in graph.get(e[0], ()))
    assert not fixed, f"no longer imported (take them off KNOWN_BACK_EDGES): {fixed}"


if __name__ == "__main__":
    for line in cycles(KNOWN_BACK_EDGES if "--known" in sys.argv else frozenset()):
        print(line)
    g = import_graph()
    print(len(g), "modules,", sum(len(v) for v in g.values()), "imports", file=sys.stderr)
