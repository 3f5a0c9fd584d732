"""Graphs as pictures: DOT text, and SVG through Graphviz's ``dot`` (Debian's graphviz) with a
small pure-Python layout when ``dot`` is not installed. Sub-graphs of ``If``/``While`` nodes
are drawn as nested clusters. Beyond TF: notebooks show a ConcreteFunction's graph inline."""

from __future__ import annotations

import html
import shutil
import subprocess
from typing import Any, List


def _label(g: Any, i: int) -> str:
    outs = g.node_outputs(i)
    spec = ", ".join(f"{d.name}{s}" for d, s in outs)
    return f"{g.node_name(i)}\\n{g.node_op(i)}" + (f"\\n{spec}" if spec else "")


def to_dot(graph: Any, name: str = "G") -> str:
    """The graph (a ``fn._core.Graph`` or FuncGraph) in Graphviz DOT."""
    g = getattr(graph, "_core", graph)
    lines = [
        f'digraph "{name}" {{',
        '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", fontname="Helvetica", fontsize=10];',
    ]
    counter = [0]

    def emit(g: Any, prefix: str, indent: str) -> None:
        for i in range(g.num_nodes()):
            nid = f"{prefix}n{i}"
            color = ', fillcolor="#fde9c8"' if g.node_op(i) == "Placeholder" else ""
            lines.append(f'{indent}{nid} [label="{_label(g, i)}"{color}];')
            for sub_name, sub in g.node_subgraphs(i):
                counter[0] += 1
                sp = f"{prefix}s{counter[0]}_"
                lines.append(f'{indent}subgraph cluster_{sp} {{ label="{g.node_name(i)}.{sub_name}"; style=dashed;')
                emit(sub, sp, indent + "  ")
                lines.append(f"{indent}}}")
                if sub.num_nodes():
                    lines.append(f'{indent}{sp}n{sub.num_nodes() - 1} -> {nid} [style=dotted];')
        names = {g.node_name(i): i for i in range(g.num_nodes())}
        for i in range(g.num_nodes()):
            for inp in g.node_inputs(i):
                ctrl = inp.startswith("^")
                src = names.get(inp.lstrip("^").split(":")[0])
                if src is not None:
                    lines.append(f'{indent}{prefix}n{src} -> {prefix}n{i}{" [style=dashed]" if ctrl else ""};')

    emit(g, "", "  ")
    lines.append("}")
    return "\n".join(lines)


def to_svg(graph: Any, name: str = "G") -> str:
    """SVG of the graph: Graphviz when available, else a simple top-down layout."""
    dot = shutil.which("dot")
    if dot:
        proc = subprocess.run([dot, "-Tsvg"], input=to_dot(graph, name), capture_output=True, text=True)
        if proc.returncode == 0:
            return proc.stdout
    return _fallback_svg(getattr(graph, "_core", graph))


def _fallback_svg(g: Any) -> str:
    rows: List[str] = []
    w, h, gap = 220, 44, 26
    n = g.num_nodes()
    names = {g.node_name(i): i for i in range(n)}
    for i in range(n):
        y = 10 + i * (h + gap)
        text = html.escape(f"{g.node_name(i)}: {g.node_op(i)}")
        rows.append(
            f'<rect x="10" y="{y}" width="{w}" height="{h}" rx="8" fill="#eef3fb" stroke="#456"/>'
            f'<text x="{10 + w // 2}" y="{y + h // 2 + 4}" text-anchor="middle" '
            f'font-family="Helvetica" font-size="11">{text}</text>'
        )
        for inp in g.node_inputs(i):
            src = names.get(inp.lstrip("^").split(":")[0])
            if src is not None:
                y0 = 10 + src * (h + gap) + h
                rows.append(
                    f'<line x1="{10 + w // 2 + 8 * (i - src - 1)}" y1="{y0}" x2="{10 + w // 2}" y2="{y}" '
                    'stroke="#456" marker-end="url(#a)"/>'
                )
    height = 20 + n * (h + gap)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w + 20}" height="{height}">'
        '<defs><marker id="a" markerWidth="8" markerHeight="8" refX="8" refY="4" orient="auto">'
        '<path d="M0,0 L8,4 L0,8 z" fill="#456"/></marker></defs>' + "".join(rows) + "</svg>"
    )
