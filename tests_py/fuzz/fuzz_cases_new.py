"""The newer surface for ``fuzz_cases``: ragged, sparse, strings, image, linalg, einsum, map_fn,
stateless random, Checkpoint, SavedModel and ONNX export, built from the same random argument
generator (``Gen``). Cases whose name starts with ``onnx.`` exist in fn only (TF has no
``tf.onnx``); the agreement tool leaves them out."""
from __future__ import annotations

from typing import Any, Callable, Dict

import numpy as np


def pick(g: Any, *options: Any) -> str:
    """One of ``options`` as source text (strings quoted, np.inf as its name)."""
    o = g.r.choice(options)
    return "np.inf" if o == np.inf else repr(o)

# Helpers cases call (defined in both backends after fuzz_cases.PRELUDE).
PRELUDE_NEW = """
import os as _os, tempfile as _tempfile
def _ckpt_roundtrip(value, restore_into):
    d = _tempfile.mkdtemp()
    v = tf.Variable(value)
    path = tf.train.Checkpoint(v=v).write(_os.path.join(d, 'c'))
    w = tf.Variable(restore_into)
    tf.train.Checkpoint(v=w).read(path).assert_consumed()
    return w.read_value()
def _saved_model_roundtrip(fn_, spec, arg):
    d = _tempfile.mkdtemp()
    m = tf.Module()
    m.f = tf.function(fn_, input_signature=[spec])
    tf.saved_model.save(m, d)
    return tf.saved_model.load(d).f(arg)
def _onnx_roundtrip(fn_, spec, arg):
    import fn.onnx, onnxruntime
    f = tf.function(fn_, input_signature=[spec])
    want = np.asarray(f(arg).numpy())          # fn's own errors (a wrong argument) first
    model = tf.onnx.export(f.get_concrete_function())   # refusing is fine: NotImplementedError
    try:   # an export that onnxruntime cannot load or run is a failure (AssertionError), whatever it raises
        sess = onnxruntime.InferenceSession(model.SerializeToString())
        got = sess.run(None, {sess.get_inputs()[0].name: np.asarray(arg.numpy())})[0]   # a 0-d array, not a NumPy scalar
    except Exception as e:
        raise AssertionError(f'onnxruntime cannot run the export: {type(e).__name__}: {e}') from None
    if got.dtype != want.dtype or got.shape != want.shape or not np.allclose(got, want, rtol=1e-3, atol=1e-3, equal_nan=True):
        raise AssertionError(f'onnxruntime {got!r} != fn {want!r}')
    return want
"""


def add_calls(c: Dict[str, Callable]) -> None:
    """Adds the newer-surface calls to ``c`` (name -> Gen -> call text)."""
    T = lambda g: g.tensor()  # noqa: E731
    N = lambda g, dt=None: g.numeric_tensor(None, dt)  # noqa: E731

    def ragged_values(g):
        return g.r.choice(["[[1, 2], [], [3]]", "[[1.5], [2.5, 3.5]]", "[['a'], ['b', 'c']]", "[[[1]], [[2, 3]]]",
                           "[]", "[[1], [[2]]]", "[1, [2]]", g.nested(g.shape(2, 3), g.scalar)])

    def ints(g, n=None):
        return g.int_list(n)
    c["ragged.constant"] = lambda g: f"tf.ragged.constant({ragged_values(g)}, ragged_rank={g.r.choice(['None', g.int_()])})"
    c["ragged.from_row_lengths"] = lambda g: f"tf.RaggedTensor.from_row_lengths({T(g)}, {ints(g)})"
    c["ragged.from_row_splits"] = lambda g: f"tf.RaggedTensor.from_row_splits({T(g)}, {ints(g)})"
    c["ragged.from_value_rowids"] = lambda g: f"tf.RaggedTensor.from_value_rowids({T(g)}, {ints(g)}, nrows={g.r.choice(['None', g.int_()])})"
    c["ragged.range"] = lambda g: f"tf.ragged.range({ints(g)}, {ints(g)})"
    c["ragged.to_tensor"] = lambda g: f"tf.ragged.constant({ragged_values(g)}).to_tensor(default_value={g.r.choice(['None', g.scalar()])})"
    c["ragged.reduce_sum"] = lambda g: f"tf.reduce_sum(tf.ragged.constant({ragged_values(g)}), axis={g.axis()})"
    c["ragged.boolean_mask"] = lambda g: f"tf.ragged.boolean_mask({T(g)}, {T(g)})"

    def sparse(g):
        n = g.r.randint(0, 3)
        idx = "[" + ", ".join(ints(g, 2) for _ in range(n)) + "]"
        vals = "[" + ", ".join(g.r.choice([g.int_(), "1.5", "2"]) for _ in range(n + g.r.choice([0, 0, 0, 1]))) + "]"
        return f"tf.sparse.SparseTensor({idx}, {vals}, {ints(g, 2)})"
    c["sparse.to_dense"] = lambda g: f"tf.sparse.to_dense({sparse(g)})"
    c["sparse.reshape"] = lambda g: f"tf.sparse.to_dense(tf.sparse.reshape({sparse(g)}, {ints(g)}))"
    c["sparse.split"] = lambda g: f"tf.sparse.split({sparse(g)}, num_split={g.int_()}, axis={g.int_()})"
    c["sparse.reduce_sum"] = lambda g: f"tf.sparse.reduce_sum({sparse(g)}, axis={g.axis()})"
    c["sparse.add"] = lambda g: f"tf.sparse.to_dense(tf.sparse.add({sparse(g)}, {sparse(g)}))"
    c["sparse.from_dense"] = lambda g: f"tf.sparse.to_dense(tf.sparse.from_dense({T(g)}))"
    c["sparse.dense_matmul"] = lambda g: f"tf.sparse.sparse_dense_matmul({sparse(g)}, {N(g, 'tf.float32')})"
    c["sparse.slice"] = lambda g: f"tf.sparse.to_dense(tf.sparse.slice({sparse(g)}, {ints(g)}, {ints(g)}))"

    def strs(g):
        return g.r.choice(["tf.constant(['a b', 'c', ''])", "tf.constant('hello world')", "tf.constant([['1', '2.5'], ['x', '-3']])",
                           "tf.constant(['\\u00e9t\\u00e9', 'ab'])", "tf.constant([b'\\xff\\xfe'])", T(g)])
    c["strings.split"] = lambda g: f"tf.strings.split({strs(g)}, sep={g.r.choice(['None', repr(' '), repr(''), '3'])})"
    c["strings.substr"] = lambda g: f"tf.strings.substr({strs(g)}, {g.int_()}, {g.int_()}, unit={pick(g, 'BYTE', 'UTF8_CHAR', 'x')})"
    c["strings.to_number"] = lambda g: f"tf.strings.to_number({strs(g)}, out_type={g.r.choice(['tf.float32', 'tf.int32', 'tf.int64', 'tf.string'])})"
    c["strings.regex_replace"] = lambda g: f"tf.strings.regex_replace({strs(g)}, {pick(g, '[[:alpha:]]', '(', 'a|b', '', 3)}, 'X')"
    c["strings.length"] = lambda g: f"tf.strings.length({strs(g)}, unit={pick(g, 'BYTE', 'UTF8_CHAR', 'bad')})"
    c["strings.join"] = lambda g: f"tf.strings.join([{strs(g)}, {strs(g)}], separator={pick(g, '-', '', 3)})"
    c["strings.unicode_decode"] = lambda g: f"tf.strings.unicode_decode({strs(g)}, {pick(g, 'UTF-8', 'latin-1', 'nope')})"

    def image(g, rank=None):
        shape = [g.r.randint(0, 5) for _ in range(rank if rank is not None else g.r.choice([2, 3, 3, 4, 5]))]
        return g.numeric_tensor(shape, g.r.choice(["tf.float32", "tf.uint8", "tf.int32", "tf.float64"]))
    c["image.resize"] = lambda g: f"tf.image.resize({image(g)}, {ints(g)}, method={pick(g, 'bilinear', 'nearest', 'bicubic', 'area', 'bad')})"
    c["image.flip_left_right"] = lambda g: f"tf.image.flip_left_right({image(g)})"
    c["image.crop_to_bounding_box"] = lambda g: f"tf.image.crop_to_bounding_box({image(g)}, {g.int_()}, {g.int_()}, {g.int_()}, {g.int_()})"
    c["image.pad_to_bounding_box"] = lambda g: f"tf.image.pad_to_bounding_box({image(g)}, {g.int_()}, {g.int_()}, {g.int_()}, {g.int_()})"
    c["image.rgb_to_grayscale"] = lambda g: f"tf.image.rgb_to_grayscale({image(g)})"
    c["image.central_crop"] = lambda g: f"tf.image.central_crop({image(g)}, {g.r.choice(['0.5', '1.0', '0.0', '1.5', '-1'])})"
    c["image.adjust_brightness"] = lambda g: f"tf.image.adjust_brightness({image(g)}, {g.scalar()})"

    def mat(g):
        n = g.r.randint(0, 3)
        batch = [g.r.randint(0, 2) for _ in range(g.r.randint(0, 1))]
        shape = batch + [n, g.r.choice([n, n, n + 1])] if g.r.random() < 0.9 else g.shape()
        dt = g.r.choice(["tf.float32", "tf.float64", "tf.int32", "tf.float16"])
        if g.r.random() < 0.7 and dt.startswith("tf.float"):   # well-conditioned: I*3 + small
            return f"(tf.eye({shape[-1] if shape else 0}, batch_shape={shape[:-2]}, dtype={dt}) * 3 + tf.cast(tf.reshape(tf.range({_prod(shape)}), {shape}), {dt}) * 0.01)" if len(shape) >= 2 and shape[-1] == shape[-2] else g.numeric_tensor(shape, dt)
        return g.numeric_tensor(shape, dt)
    for name in ["inv", "det", "cholesky", "qr", "svd", "eigh", "trace", "logdet", "slogdet"]:
        if name in ("logdet", "slogdet"):
            c[f"linalg.{name}"] = (lambda n: lambda g: f"tf.linalg.{n}({mat(g)})")(name)
        else:
            c[f"linalg.{name}"] = (lambda n: lambda g: f"tf.linalg.{n}({mat(g)})")(name)
    c["linalg.solve"] = lambda g: f"tf.linalg.solve({mat(g)}, {mat(g)})"
    c["linalg.band_part"] = lambda g: f"tf.linalg.band_part({mat(g)}, {g.int_()}, {g.int_()})"
    c["linalg.diag"] = lambda g: f"tf.linalg.diag({T(g)}, k={g.r.choice(['0', g.int_()])})"
    c["linalg.norm"] = lambda g: f"tf.linalg.norm({mat(g)}, ord={pick(g, 'euclidean', 1, 2, np.inf, 'fro', 3, 'bad')}, axis={g.r.choice(['None', '-1', '[-2, -1]', g.axis()])})"
    c["linalg.matvec"] = lambda g: f"tf.linalg.matvec({mat(g)}, {T(g)})"

    def subscripts(g):
        return g.r.choice(["'ij,jk->ik'", "'ii->i'", "'ij->'", "'...ij,...jk->...ik'", "'i,i->'", "'ij,jk'",
                           "'ab,bc->ad'", "'ij->jj'", "'i j->'", "'ij,jk->ik,'", "''", "'->'", "'a->a'", "3",
                           "'bij,bjk->bik'", "'ijk'"])
    c["einsum"] = lambda g: f"tf.einsum({subscripts(g)}, {', '.join(T(g) for _ in range(g.r.randint(0, 3)))})"
    c["map_fn"] = lambda g: (f"tf.map_fn(lambda x: {g.r.choice(['x * 2', 'tf.reduce_sum(x)', '(x, x)', 'tf.strings.as_string(x)', 'x[0]'])}, "
                             f"{T(g)}{g.r.choice(['', ', fn_output_signature=tf.float32', ', fn_output_signature=tf.int64', ', parallel_iterations=-1'])})")
    c["random.stateless_uniform"] = lambda g: f"tf.random.stateless_uniform({ints(g)}, seed={g.r.choice([ints(g, 2), ints(g), '[1, 2, 3]', 'None'])}, dtype={g.r.choice(['tf.float32', 'tf.int32', 'tf.string', 'tf.float64'])}, maxval={g.r.choice(['None', g.int_()])})"
    c["random.stateless_normal"] = lambda g: f"tf.random.stateless_normal({ints(g)}, seed={g.r.choice([ints(g, 2), ints(g)])}, stddev={g.scalar()})"
    c["nn.softmax_cross_entropy"] = lambda g: f"tf.nn.softmax_cross_entropy_with_logits(labels={T(g)}, logits={T(g)}, axis={g.r.choice(['-1', g.int_()])})"
    c["nn.sparse_softmax_cross_entropy"] = lambda g: f"tf.nn.sparse_softmax_cross_entropy_with_logits(labels={T(g)}, logits={T(g)})"
    c["nn.conv1d"] = lambda g: f"tf.nn.conv1d({g.numeric_tensor(g.shape(3, 5), 'tf.float32')}, {g.numeric_tensor(g.shape(3, 3), 'tf.float32')}, stride={g.int_()}, padding={pick(g, 'VALID', 'SAME')})"
    c["nn.depthwise_conv2d"] = lambda g: f"tf.nn.depthwise_conv2d({g.numeric_tensor(g.shape(4, 5), 'tf.float32')}, {g.numeric_tensor(g.shape(4, 3), 'tf.float32')}, strides={g.r.choice(['[1, 1, 1, 1]', g.int_list()])}, padding='SAME')"
    c["checkpoint.roundtrip"] = lambda g: f"_ckpt_roundtrip({N(g)}, {N(g)})"
    c["saved_model.roundtrip"] = lambda g: (f"_saved_model_roundtrip(lambda x: {g.r.choice(['x * 2', 'tf.reduce_sum(x)', 'tf.reverse(x, [0])', 'x[0]'])}, "
                                            f"tf.TensorSpec({g.r.choice(['None', '[None]', '[2]', '[]'])}, {g.r.choice(NUMS)}), {N(g)})")
    c["onnx.export"] = lambda g: (f"_onnx_roundtrip(lambda x: {g.r.choice(ONNX_BODIES)}, "
                                  f"tf.TensorSpec({g.r.choice(['[None]', '[2, 3]', '[None, 3]', '[]', 'None'])}, {g.r.choice(NUMS)}), {N(g)})")


NUMS = ["tf.float32", "tf.float64", "tf.int32", "tf.int64"]
ONNX_BODIES = ["x * 2", "tf.reduce_sum(x)", "tf.math.floormod(x, 3)", "tf.one_hot(tf.cast(x, tf.int32), 3)",
               "tf.math.erf(tf.cast(x, tf.float32))", "tf.reduce_mean(x, 0)", "tf.abs(x) + 1", "tf.transpose(x)",
               "x[::-1]", "tf.nn.relu(x)", "tf.cast(x > 0, tf.int32)", "tf.reshape(x, [-1])"]


def _prod(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
