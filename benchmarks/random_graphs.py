"""Property-style benchmark family: random small graphs (matmuls, bias adds, elementwise chains,
row reductions feeding elementwise ops, softmax) of random shapes, drawn from a fixed seed, so no
single shape or chain is what a system was tuned for. Each system interprets the same specs with
its own ops (`tf_ops`, `jax_ops`, `torch_ops`)."""
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

N_GRAPHS = 24
SEED = 24
Node = Tuple[Any, ...]


def specs() -> List[Dict[str, Any]]:
    """Each graph: input shape (n, m) and nodes; a node names the values it reads by index
    (0 is the input); the last value is the graph's output."""
    r = np.random.default_rng(SEED)
    out, w_count = [], 0
    for _ in range(N_GRAPHS):
        n, m = int(r.choice([8, 16, 32, 64, 128, 256])), int(r.choice([8, 16, 32, 64, 96, 128]))
        widths = [m]
        nodes: List[Node] = []
        for _ in range(int(r.integers(4, 11))):
            src = len(widths) - 1 if r.random() < 0.6 else int(r.integers(0, len(widths)))
            kind = r.choice(["matmul", "matmul", "bias", "unary", "unary", "binary", "center", "softmax", "scale"])
            width = widths[src]
            if kind == "matmul":
                width = int(r.choice([8, 16, 32, 64, 128, 256]))
                nodes.append(("matmul", src, w_count))
                w_count += 1
            elif kind == "bias":
                nodes.append(("bias", src, w_count))
                w_count += 1
            elif kind == "unary":
                nodes.append(("unary", src, str(r.choice(["tanh", "sigmoid", "relu"]))))
            elif kind == "binary":
                same = [i for i, w in enumerate(widths) if w == width and i != src]
                if not same:
                    nodes.append(("unary", src, "tanh"))
                else:
                    nodes.append(("binary", src, int(r.choice(same)), str(r.choice(["add", "mul", "sub", "maximum"]))))
            elif kind == "center":   # x - reduce(x) over rows: a reduction feeding an elementwise op
                nodes.append(("center", src, str(r.choice(["mean", "max"]))))
            elif kind == "softmax":
                nodes.append(("softmax", src))
            else:
                nodes.append(("scale", src, float(np.round(r.uniform(0.5, 1.5), 3)), float(np.round(r.uniform(-0.2, 0.2), 3))))
            widths.append(width)
        out.append({"n": n, "m": m, "nodes": nodes, "widths": widths})
    return out


def weight_shapes() -> List[Tuple[int, ...]]:
    shapes: Dict[int, Tuple[int, ...]] = {}
    for g in specs():
        for i, node in enumerate(g["nodes"]):
            if node[0] == "matmul":
                shapes[node[2]] = (g["widths"][node[1]], g["widths"][i + 1])
            elif node[0] == "bias":
                shapes[node[2]] = (g["widths"][node[1]],)
    return [shapes[i] for i in range(len(shapes))]


def weight_names() -> List[str]:
    return [f"rg_w{i}" for i in range(len(weight_shapes()))]


def input_names() -> List[str]:
    return [f"rg_x{i}" for i in range(N_GRAPHS)]


def make_data(r: np.random.Generator) -> Dict[str, np.ndarray]:
    d = {}
    for name, shape in zip(weight_names(), weight_shapes()):
        scale = shape[0] ** -0.5 if len(shape) == 2 else 0.1
        d[name] = (r.standard_normal(shape) * scale).astype(np.float32)
    for name, g in zip(input_names(), specs()):
        d[name] = r.standard_normal((g["n"], g["m"])).astype(np.float32)
    return d


def evaluate(g: Dict[str, Any], x: Any, ws: List[Any], ops: Dict[str, Callable[..., Any]]) -> Any:
    vals = [x]
    for node in g["nodes"]:
        kind, a = node[0], vals[node[1]]
        if kind == "matmul":
            v = ops["matmul"](a, ws[node[2]])
        elif kind == "bias":
            v = a + ws[node[2]]
        elif kind == "unary":
            v = ops[node[2]](a)
        elif kind == "binary":
            v = ops[node[3]](a, vals[node[2]])
        elif kind == "center":
            v = a - ops["reduce_" + node[2]](a)
        elif kind == "softmax":
            v = ops["softmax"](a)
        else:
            v = a * node[2] + node[3]
        vals.append(v)
    return vals[-1]


def tf_ops(tf: Any) -> Dict[str, Callable[..., Any]]:
    return {"matmul": tf.matmul, "tanh": tf.tanh, "sigmoid": tf.sigmoid, "relu": tf.nn.relu,
            "add": tf.add, "mul": tf.multiply, "sub": tf.subtract, "maximum": tf.maximum,
            "reduce_mean": lambda a: tf.reduce_mean(a, axis=-1, keepdims=True),
            "reduce_max": lambda a: tf.reduce_max(a, axis=-1, keepdims=True), "softmax": tf.nn.softmax}


def jax_ops() -> Dict[str, Callable[..., Any]]:
    import jax
    import jax.numpy as jnp
    return {"matmul": jnp.matmul, "tanh": jnp.tanh, "sigmoid": jax.nn.sigmoid, "relu": jax.nn.relu,
            "add": jnp.add, "mul": jnp.multiply, "sub": jnp.subtract, "maximum": jnp.maximum,
            "reduce_mean": lambda a: a.mean(-1, keepdims=True), "reduce_max": lambda a: a.max(-1, keepdims=True),
            "softmax": lambda a: jax.nn.softmax(a, axis=-1)}


def torch_ops() -> Dict[str, Callable[..., Any]]:
    import torch
    return {"matmul": torch.matmul, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
            "add": torch.add, "mul": torch.mul, "sub": torch.sub, "maximum": torch.maximum,
            "reduce_mean": lambda a: a.mean(-1, keepdim=True), "reduce_max": lambda a: a.amax(-1, keepdim=True),
            "softmax": lambda a: torch.softmax(a, -1)}
