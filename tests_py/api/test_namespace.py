"""Each public fn namespace shows only public names, all of them TensorFlow's (``tf_names.json``,
saved from TensorFlow 2.21 by ``gen_tf_names.py``), except the documented fn extras."""
import json
import os
import types

import pytest

import fn

with open(os.path.join(os.path.dirname(__file__), "tf_names.json")) as _f:
    TF_NAMES = json.load(_f)["names"]

# Names fn has beyond TensorFlow, on purpose (ARCHITECTURE.md "Beyond TensorFlow").
FN_EXTRAS = {"config": {"explain_retracing"}, "": {"onnx"}, "version": {"FN_VERSION"},
             "experimental": {"install_as_tensorflow"}}
# Namespaces another area owns and still cleans up.
NOT_YET: set = set()
# Namespaces fn must have (the ones the guide notebooks use).
REQUIRED = {"", "autodiff", "bitwise", "config", "config.threading", "data", "data.experimental",
            "debugging", "dtypes", "errors", "keras", "keras.layers", "linalg", "math", "nest",
            "nn", "random", "types", "types.experimental", "version"}


def _module(path):
    obj = fn
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _public(mod):
    return {n for n in dir(mod) if not n.startswith("_")}


# fn.keras is the Keras package itself (tf.keras in TF 2.21 is too): its namespaces are Keras'.
CHECKED = sorted(p for p in TF_NAMES if p not in NOT_YET and not (p == "keras" or p.startswith("keras."))
                 and _module(p) is not None)


@pytest.mark.parametrize("path", sorted(REQUIRED))
def test_namespace_exists(path):
    assert isinstance(_module(path), types.ModuleType), f"fn.{path} is missing"


@pytest.mark.parametrize("path", CHECKED)
def test_only_tensorflow_names(path):
    extra = _public(_module(path)) - set(TF_NAMES[path]) - FN_EXTRAS.get(path, set())
    assert not extra, f"fn.{path} shows names TensorFlow's namespace does not have: {sorted(extra)}"


@pytest.mark.parametrize("path", CHECKED)
def test_all_defined_and_listed(path):
    mod = _module(path)
    assert hasattr(mod, "__all__"), f"fn.{path} defines no __all__"
    assert _public(mod) == set(mod.__all__)
    missing = [n for n in mod.__all__ if not hasattr(mod, n)]
    assert not missing, f"fn.{path}.__all__ names missing attributes: {missing}"


def test_no_implementation_leftovers():
    leftovers = {"annotations", "Any", "Optional", "Callable", "re", "np", "sys", "threading",
                 "array_ops", "math_ops", "printing", "tape", "dataset_ops", "iterator_ops",
                 "structure", "sources", "transforms"}
    for path in CHECKED:
        seen = (leftovers & _public(_module(path))) - set(TF_NAMES[path])
        assert not seen, f"fn.{path} shows {sorted(seen)}"


@pytest.mark.parametrize("path", CHECKED)
def test_no_tensorflow_name_hidden(path):
    """A TF name the module has must be listed (an import placed after ``_export`` would not be)."""
    mod = _module(path)
    hidden = {n for n in vars(mod) if n in set(TF_NAMES[path])} - set(mod.__all__)
    assert not hidden, f"fn.{path} has TensorFlow names missing from __all__/dir(): {sorted(hidden)}"
