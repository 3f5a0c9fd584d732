"""``Model.save("m.keras")`` and ``keras.models.load_model``: a zip holding ``config.json``
(the architecture: Sequential layers, or a functional model's layer calls), ``metadata.json``
and ``model.weights`` (fn's single-file weights format). Layer configs are read from the
attributes named like each constructor's parameters, as Keras's ``get_config`` does."""
from __future__ import annotations

import builtins
import codecs
import importlib
import inspect
import io
import marshal
import json
import os
import types
import zipfile
from typing import Any, Dict, List, Optional

import numpy as np

from fn import nest
from fn._state.serialize import atomic_write, to_numpy
from fn.keras import activations, initializers

FORMAT, VERSION = "fn-keras", 1
_SKIP = {"self", "kwargs", "args", "name", "trainable", "dtype"}


def _value(layer: Any, key: str, v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_value(layer, key, x) for x in v]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {"dict": {k: _value(layer, key, x) for k, x in v.items()}}
    if isinstance(v, initializers.Initializer):
        return {"initializer": type(v).__name__, "config": v.get_config()}
    if callable(v) and getattr(v, "__name__", None) in activations._BY_NAME:
        return v.__name__
    if inspect.isfunction(v):
        return _function_config(layer, key, v)
    raise ValueError(f"Cannot save layer '{layer.name}' ({type(layer).__name__}): its argument {key}={v!r} cannot be "
                     "serialized (a Python function or object; fn saves only built-in activations, initializers and "
                     "plain values).")


def _function_config(layer: Any, key: str, v: Any) -> Dict[str, Any]:
    """A Python function as Keras 3 saves one: by module and name when importable, else (a
    lambda or local function) its marshalled code, which only ``safe_mode=False`` loads."""
    if "<" not in v.__qualname__:
        return {"module": v.__module__, "class_name": "function", "config": v.__qualname__}
    if v.__closure__:
        raise ValueError(f"Cannot save layer '{layer.name}' ({type(layer).__name__}): its argument {key}={v!r} is a "
                         "closure; fn saves functions without free variables.")
    code = codecs.encode(marshal.dumps(v.__code__), "base64").decode("ascii")
    return {"class_name": "__lambda__", "config": {"code": code, "defaults": v.__defaults__, "closure": None}}


def _from_value(v: Any, safe_mode: bool = True) -> Any:
    if isinstance(v, dict) and set(v) == {"dict"}:
        return {k: _from_value(x, safe_mode) for k, x in v["dict"].items()}
    if isinstance(v, dict) and "initializer" in v:
        return getattr(initializers, v["initializer"])(**v["config"])
    if isinstance(v, dict) and v.get("class_name") == "function":
        return getattr(importlib.import_module(v["module"]), v["config"])
    if isinstance(v, dict) and v.get("class_name") == "__lambda__":
        if safe_mode:
            raise ValueError(
                "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This "
                "carries a potential risk of arbitrary code execution and thus it is disallowed by default. If you "
                "trust the source of the artifact, you can override this error by passing `safe_mode=False` to the "
                "loading function, or calling `keras.config.enable_unsafe_deserialization().")
        code = marshal.loads(codecs.decode(v["config"]["code"].encode("ascii"), "base64"))
        defaults = v["config"]["defaults"]
        return types.FunctionType(code, {"__builtins__": builtins}, code.co_name,
                                  tuple(defaults) if defaults is not None else None)
    return v


def layer_config(layer: Any) -> Dict[str, Any]:
    config: Dict[str, Any] = {"name": layer.name, "trainable": layer.trainable}
    for key, p in inspect.signature(type(layer).__init__).parameters.items():
        if key in _SKIP or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        if hasattr(layer, key):
            config[key] = _value(layer, key, getattr(layer, key))
        elif p.default is inspect.Parameter.empty:
            raise ValueError(f"Cannot save layer '{layer.name}' ({type(layer).__name__}): no attribute records its "
                             f"constructor argument `{key}`.")
    return {"class_name": type(layer).__name__, "config": config}


def _layer_class(name: str, custom_objects: Optional[dict]) -> Any:
    from fn.keras import layers
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    cls = getattr(layers, name, None)
    if cls is None:
        raise TypeError(f"Could not locate class '{name}'. Make sure custom classes are decorated with "
                        "`@keras.saving.register_keras_serializable()` or passed in `custom_objects`.")
    return cls


def make_layer(spec: Dict[str, Any], custom_objects: Optional[dict], safe_mode: bool = True) -> Any:
    cls = _layer_class(spec["class_name"], custom_objects)
    config = {k: _from_value(v, safe_mode) for k, v in spec["config"].items()}
    trainable = config.pop("trainable", True)
    layer = cls(**config)
    layer.trainable = trainable
    return layer


def _kt_spec(kt: Any) -> Dict[str, Any]:
    return {"shape": kt.shape.as_list(), "dtype": kt.dtype.name, "name": kt.name}


def model_config(model: Any) -> Dict[str, Any]:
    from fn.keras._functional import KerasTensor
    from fn.keras._model import Sequential
    if isinstance(model, Sequential):
        built = getattr(model.layer_list[0], "_fn_build_shape", None) if model.layer_list else None
        return {"class_name": "Sequential", "name": model.name,
                "input": _kt_spec(model._fn_input) if model._fn_input is not None else None,
                "build_input_shape": [None] + built.as_list()[1:] if built is not None and built.rank else None,
                "layers": [layer_config(x) for x in model.layer_list]}
    if model._fn_functional is None:
        raise NotImplementedError(f"Cannot save subclassed model '{model.name}' as `.keras`: its architecture is "
                                  "Python code. Use `save_weights` (and rebuild the model), or "
                                  "`fn.saved_model.save` to keep the traced functions.")
    inputs, flat_in, nodes, outputs = model._fn_functional
    layers: List[Any] = []
    where: Dict[int, Any] = {id(k): {"input": i} for i, k in enumerate(flat_in)}
    records = []
    for n_i, node in enumerate(nodes):
        if all(node.layer is not x for x in layers):
            layers.append(node.layer)

        def enc(v: Any) -> Any:
            if isinstance(v, KerasTensor):
                return where[id(v)]
            if isinstance(v, (list, tuple)):
                return {"list": [enc(x) for x in v]}
            if isinstance(v, dict):
                return {"dict": {k: enc(x) for k, x in v.items()}}
            return {"v": _value(node.layer, "argument", v)}
        records.append({"layer": next(i for i, x in enumerate(layers) if x is node.layer),
                        "args": enc(list(node.args)), "kwargs": enc(dict(node.kwargs))})
        for o_i, kt in enumerate(nest.flatten(node.outputs)):
            where[id(kt)] = {"node": n_i, "output": o_i}
    return {"class_name": "Functional", "name": model.name, "inputs": [_kt_spec(k) for k in flat_in],
            "inputs_nested": isinstance(inputs, (list, tuple)),
            "layers": [layer_config(x) for x in layers], "nodes": records,
            "outputs": [where[id(k)] for k in nest.flatten(outputs)],
            "outputs_nested": isinstance(outputs, (list, tuple))}


def _compile_config(model: Any) -> Optional[Dict[str, Any]]:
    if not getattr(model, "_fn_compiled", False):
        return None
    from fn.keras import losses
    loss = model.loss
    if isinstance(loss, losses.Loss):
        loss = {"loss": type(loss).__name__, "config": dict(getattr(loss, "_fn_kwargs", {}))}
    elif not isinstance(loss, str):
        return None
    metrics = []
    for m in model._fn_metrics:
        metrics.append(m.name)
    return {"optimizer": {"class_name": type(model.optimizer).__name__, "config": model.optimizer.get_config()},
            "loss": loss, "metrics": metrics}


def save_model(model: Any, filepath: str) -> None:
    config = model_config(model)
    from fn.train import _checkpoint_io as cio
    weights = model.weights
    tensors = {f"weights/{i:05d}": (w.dtype.name, to_numpy(w.read_value())) for i, w in enumerate(weights)}
    names = [{"children": [], "key": f"weights/{i:05d}", "name": w.name} for i, w in enumerate(weights)]
    index, blob = cio.encode("model.weights", tensors, names, single_file=True, kind="fn-weights")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("metadata.json", json.dumps({"format": FORMAT, "version": VERSION}))
        z.writestr("config.json", json.dumps({"model": config, "compile": _compile_config(model)}))
        z.writestr("model.weights", index + blob)
    atomic_write(filepath, buf.getvalue())


def load_model(filepath: Any, custom_objects: Optional[dict] = None, compile: bool = True,
               safe_mode: bool = True) -> Any:
    """``keras.models.load_model``: a model ``Model.save`` wrote to a ``.keras`` file."""
    from fn.keras import Input, losses, optimizers
    from fn.keras._model import Model, Sequential
    from fn.train import _checkpoint_io as cio
    from fn.train._checkpoint import _assign
    filepath = os.fspath(filepath)
    if not str(filepath).endswith(".keras"):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` files "
                         "and legacy H5 format files (`.h5` extension).")
    if not os.path.isfile(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` "
                         "zip file.")
    try:
        with zipfile.ZipFile(filepath) as z:
            meta = json.loads(z.read("metadata.json"))
            cfg = json.loads(z.read("config.json"))
            weights_data = z.read("model.weights")
    except (zipfile.BadZipFile, KeyError) as e:
        raise ValueError(f"{filepath} is not a `.keras` file written by fn ({e}).") from None
    if meta.get("format") != FORMAT or meta.get("version", 0) > VERSION:
        raise ValueError(f"{filepath} has format {meta.get('format')} version {meta.get('version')}; this fn reads "
                         f"{FORMAT} version {VERSION}.")
    spec = cfg["model"]
    if spec["class_name"] == "Sequential":
        model: Any = Sequential(name=spec["name"])
        if spec["input"] is not None:
            model.add(Input(batch_shape=spec["input"]["shape"], dtype=spec["input"]["dtype"]))
        for layer_spec in spec["layers"]:
            model.add(make_layer(layer_spec, custom_objects, safe_mode))
        if spec["input"] is None and spec.get("build_input_shape"):
            model.build(spec["build_input_shape"])
    else:
        inputs = [Input(batch_shape=s["shape"], dtype=s["dtype"], name=s["name"]) for s in spec["inputs"]]
        layers = [make_layer(x, custom_objects, safe_mode) for x in spec["layers"]]
        outs: List[Any] = []

        def dec(v: Any) -> Any:
            if "input" in v:
                return inputs[v["input"]]
            if "node" in v:
                return nest.flatten(outs[v["node"]])[v["output"]]
            if "list" in v:
                return [dec(x) for x in v["list"]]
            if "dict" in v:
                return {k: dec(x) for k, x in v["dict"].items()}
            return _from_value(v["v"], safe_mode)
        for rec in spec["nodes"]:
            outs.append(layers[rec["layer"]](*dec(rec["args"]), **dec(rec["kwargs"])))
        outputs = [dec(o) for o in spec["outputs"]]
        model = Model(inputs if spec["inputs_nested"] else inputs[0],
                      outputs if spec["outputs_nested"] else outputs[0], name=spec["name"])
    reader = cio.CheckpointReader(filepath + "/model.weights", single_file=True, data=weights_data)
    keys = sorted(k for k in reader.get_variable_to_shape_map() if k.startswith("weights/"))
    if len(keys) != len(model.weights):
        raise ValueError(f"{filepath}: the file holds {len(keys)} weights but the rebuilt model has "
                         f"{len(model.weights)}.")
    for key, w in zip(keys, model.weights):
        _assign(w, np.asarray(reader.get_tensor(key)))
    comp = cfg.get("compile")
    if compile and comp:
        opt_cls = getattr(optimizers, comp["optimizer"]["class_name"])
        loss = comp["loss"]
        if isinstance(loss, dict):
            loss = getattr(losses, loss["loss"])(**loss["config"])
        model.compile(optimizer=opt_cls(**comp["optimizer"]["config"]), loss=loss, metrics=comp["metrics"])
    return model
