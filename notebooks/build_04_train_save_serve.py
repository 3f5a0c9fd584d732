"""Build ``notebooks/04_train_save_serve.ipynb`` (saved without outputs) from the cells below.

Usage: ``python notebooks/build_04_train_save_serve.py`` (write) or ``--check``.
``tests_py/test_notebook_04.py`` executes the notebook and checks what it prints."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
STEM = "04_train_save_serve"

CELLS = [
    ("md", """# Train, save, load and serve a model

A small classifier is trained with Keras's `fit` on `fn` (`fn.keras` is the real Keras 3 package;
its train step is traced once into one `fn.function`), checkpointed with `fn.train.Checkpoint` and restored into a new model, saved as
a SavedModel that a fresh Python process loads and runs without this notebook's code, and
exported to ONNX, where ONNX Runtime gives the same answers."""),
    ("code", """import os, subprocess, sys, tempfile
import numpy as np
import fn as tf
keras = tf.keras

workdir = tempfile.mkdtemp(prefix="fn_train_save_serve_")
keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
# Two interleaved half-moons: not linearly separable.
t = rng.uniform(0, np.pi, 1200)
label = rng.integers(0, 2, 1200)
x = np.stack([np.cos(t) + label, np.sin(t) * (1 - 2 * label) + 0.5 * label], 1)
x = (x + 0.1 * rng.normal(size=x.shape)).astype(np.float32)
y = label.astype(np.int64)
x.shape, y[:10]"""),
    ("md", "## Train with `fit`\n\nA functional-style `Sequential` with an `Input`, dropout, and a "
           "progress bar per epoch (`verbose=1`)."),
    ("code", """def make_model():
    return keras.Sequential([
        keras.Input((2,)),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dropout(0.1),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(2),
    ], name="moons")

model = make_model()
model.compile(optimizer=keras.optimizers.Adam(0.01),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
model.summary()"""),
    ("code", """history = model.fit(x, y, batch_size=32, epochs=8, validation_split=0.2, verbose=1,
                    callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss", patience=3)])
print("final accuracy:", round(history.history["accuracy"][-1], 3))
# Keras keeps its tf.functions in the train function's closure: the step traced once for all batches.
step = [c.cell_contents for c in model.train_function.__closure__
        if hasattr(c.cell_contents, "experimental_get_tracing_count")][0]
print("traces of the train step:", step.experimental_get_tracing_count())"""),
    ("md", "## Checkpoint, and restore into a new model\n\nThe checkpoint keys are attribute paths; "
           "the new model's weights are created by its first call and then matched by path."),
    ("code", """ckpt = tf.train.Checkpoint(model=model, optimizer=model.optimizer)
manager = tf.train.CheckpointManager(ckpt, os.path.join(workdir, "ckpts"), max_to_keep=2)
path = manager.save()
print(path)
for name, shape in tf.train.list_variables(path)[:6]:
    print(f"  {name:60s} {shape}")"""),
    ("code", """restored = make_model()
status = tf.train.Checkpoint(model=restored).restore(manager.latest_checkpoint)
status.expect_partial()   # the optimizer's slots are in the checkpoint but not in this object
probe = x[:5]
print("restored model agrees:", np.allclose(restored.predict(probe, verbose=0), model.predict(probe, verbose=0)))"""),
    ("md", "## SavedModel, loaded in a fresh process\n\n`fn.saved_model.save` writes the traced "
           "serving function (its graph, not its Python code) and the variables. The child "
           "process below only imports `fn`."),
    ("code", """export_dir = os.path.join(workdir, "moons_savedmodel")
tf.saved_model.save(model, export_dir)
np.save(os.path.join(workdir, "probe.npy"), probe)
child = f'''
import numpy as np, fn
loaded = fn.saved_model.load({export_dir!r})
serve = loaded.signatures["serving_default"]
out = serve(fn.constant(np.load({os.path.join(workdir, "probe.npy")!r})))
np.save({os.path.join(workdir, "served.npy")!r}, list(out.values())[0].numpy())
print("served", sorted(out), "from a process without the model's code")
'''
env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tf.__file__)))
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env, check=True).stdout)
served = np.load(os.path.join(workdir, "served.npy"))
print("fresh process agrees:", np.allclose(served, model.predict(probe, verbose=0), atol=1e-6))"""),
    ("md", "## Export to ONNX and run it on ONNX Runtime"),
    ("code", """import onnxruntime as ort
serving = tf.function(lambda inputs: model(inputs, training=False),
                      input_signature=[tf.TensorSpec([None, 2], tf.float32, name="inputs")])
onnx_path = os.path.join(workdir, "moons.onnx")
onnx_model = tf.onnx.export(serving.get_concrete_function(), onnx_path)
print(sorted({n.op_type for n in onnx_model.graph.node}))
session = ort.InferenceSession(onnx_path)
(onnx_out,) = session.run(None, {"inputs": x})
print("onnxruntime agrees:", np.allclose(onnx_out, model.predict(x, verbose=0), atol=1e-5))"""),
]


def build() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    for i, (kind, text) in enumerate(CELLS):
        cell = nbformat.v4.new_markdown_cell(text) if kind == "md" else nbformat.v4.new_code_cell(text)
        cell["id"] = f"{kind}-{i}"
        nb.cells.append(cell)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return nb


def render() -> str:
    return nbformat.writes(build()) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    path = HERE / f"{STEM}.ipynb"
    text = render()
    if args.check:
        return 0 if path.exists() and path.read_text(encoding="utf-8") == text else 1
    path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
