"""``fn.onnx``: ``export(concrete_function, path)`` writes a traced function as an ONNX model
(opset 18, the ``onnx`` package) so it serves on ONNX Runtime or any ONNX engine."""

from __future__ import annotations

from fn.onnx._export import export, supported_ops

__all__ = ["export", "supported_ops"]
