"""``Model.summary()``: Keras 3's table (layer, output shape, parameter count) and totals."""
from __future__ import annotations

from typing import Any, List

from fn import nest


def _readable(nbytes: int) -> str:
    units = ["B", "KB", "MB", "GB", "TB"]
    size, i = float(nbytes), 0
    while size >= 1024 and i < len(units) - 1:
        size /= 1024
        i += 1
    return f"{size:.2f} {units[i]}"


def _shape_text(shape: Any) -> str:
    if shape is None:
        return "?"
    shapes = nest.flatten(shape) if isinstance(shape, (list, tuple)) and shape and not hasattr(shape, "as_list") \
        else [shape]
    texts = []
    for s in shapes:
        dims = s.as_list() if s.rank is not None else None
        texts.append("?" if dims is None else "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "")
                     + ")")
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def _count(variables: List[Any]) -> int:
    return int(sum(v.shape.num_elements() for v in variables))


def _nbytes(variables: List[Any]) -> int:
    return int(sum(v.shape.num_elements() * v.dtype.size for v in variables))


def summary_text(model: Any) -> str:
    widths = (33, 24, 15)
    rows: List[tuple] = []
    for layer in model.layers:
        name = f"{layer.name} ({type(layer).__name__})"
        rows.append((name, _shape_text(getattr(layer, "_fn_output_shape", None)), f"{layer.count_params():,}"))

    def line(left: str, mid: str, right: str, fill: str) -> str:
        return left + mid.join(fill * w for w in widths) + right

    def row(cells: tuple, sep: str) -> str:
        a, b, c = cells
        return (sep + " " + a.ljust(widths[0] - 1)[:widths[0] - 1] + sep + " " + b.ljust(widths[1] - 1) + sep
                + c.rjust(widths[2] - 1) + " " + sep)
    out = [f'Model: "{model.name}"', line("┏", "┳", "┓", "━"), row(("Layer (type)", "Output Shape", "Param #"), "┃"),
           line("┡", "╇", "┩", "━")]
    for i, r in enumerate(rows):
        out.append(row(r, "│"))
        if i < len(rows) - 1:
            out.append(line("├", "┼", "┤", "─"))
    out.append(line("└", "┴", "┘", "─"))
    trainable = model.trainable_weights
    ids = {id(v) for v in trainable}
    non_trainable = [v for v in model.weights if id(v) not in ids]
    opt = list(model.optimizer.variables) if getattr(model, "optimizer", None) is not None and \
        getattr(model.optimizer, "built", False) else []
    total = trainable + non_trainable + opt
    out.append(f" Total params: {_count(total):,} ({_readable(_nbytes(total))})")
    out.append(f" Trainable params: {_count(trainable):,} ({_readable(_nbytes(trainable))})")
    out.append(f" Non-trainable params: {_count(non_trainable):,} ({_readable(_nbytes(non_trainable))})")
    if opt:
        out.append(f" Optimizer params: {_count(opt):,} ({_readable(_nbytes(opt))})")
    return "\n".join(out)
