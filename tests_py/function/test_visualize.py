"""Graphs render as SVG (Graphviz, or the pure-Python fallback) and as DOT/text."""
import xml.etree.ElementTree as ET

import fn
from fn._function import visualize


def _concrete():
    @fn.function
    def f(x):
        return fn.matmul(x, x) + x
    return f.get_concrete_function(fn.ones([2, 2]))


def test_svg_is_valid_xml_and_names_every_node():
    c = _concrete()
    svg = c._repr_svg_()
    root = ET.fromstring(svg.split("?>", 1)[-1].split("-->", 1)[-1] if svg.startswith("<?xml") else svg)
    assert root.tag.endswith("svg")
    for name in ["x", "MatMul", "add", "Identity"]:
        assert name in svg


def test_fallback_svg_without_graphviz():
    c = _concrete()
    svg = visualize._fallback_svg(c.graph._core)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and len(root.findall(".//{http://www.w3.org/2000/svg}rect")) == 4


def test_dot_and_text():
    c = _concrete()
    dot = c.graph.to_dot()
    assert dot.startswith("digraph") and "n0 -> n1" in dot
    assert "MatMul(%x, %x)" in c.graph.to_text()


def test_control_flow_sub_graphs_are_clusters():
    @fn.function
    def f(n):
        s = fn.constant(0)
        for i in fn.range(n):
            if i % 2 == 0:
                s += i
        return s
    assert f(fn.constant(5)).numpy() == 6
    dot = f.get_concrete_function(fn.constant(5)).graph.to_dot()
    assert "subgraph cluster_" in dot and ".body" in dot and ".then_branch" in dot
    assert "<svg" in f.get_concrete_function(fn.constant(5))._repr_svg_()
