"""Saves the public names of TensorFlow's namespaces that fn mirrors to ``tf_names.json``.

Run under the TensorFlow venv: ``~/.cache/fn/tfref/bin/python tests_py/api/gen_tf_names.py``.
``test_namespace.py`` reads the file, so the fn test run needs no TensorFlow.
"""
import importlib
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

# The namespaces fn has (by their TensorFlow path).
MODULES = ["", "autodiff", "autograph", "autograph.experimental", "bitwise", "config",
           "config.experimental", "config.threading", "data", "data.experimental", "debugging",
           "dtypes", "errors", "keras", "keras.activations", "keras.initializers",
           "keras.layers", "keras.losses", "keras.optimizers", "keras.utils", "linalg", "math",
           "experimental", "nest", "nn", "ragged", "random", "strings", "types", "types.experimental",
           "version", "sparse", "io", "image", "saved_model", "train", "keras.callbacks",
           "keras.metrics", "keras.models", "distribute", "distribute.experimental"]


def _resolve(path: str):
    obj = tf
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


def main() -> None:
    names = {}
    for path in MODULES:
        names[path] = sorted(n for n in dir(_resolve(path)) if not n.startswith("_"))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_names.json")
    with open(out, "w") as f:
        json.dump({"tensorflow": tf.__version__, "names": names}, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
