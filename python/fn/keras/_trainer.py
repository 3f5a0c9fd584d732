"""``compile``/``fit``/``evaluate``/``predict`` of ``keras.Model``: the train step (forward,
loss, gradients, optimizer update, metric updates) is traced once into one ``fn.function``
whose inputs have an unknown batch dimension, so the last, smaller batch reuses the trace."""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from fn import _core, nest
from fn._ops import math_ops
from fn.dtypes import as_dtype, float32
from fn.keras import _callbacks as cbks
from fn.keras import _metrics as metrics_mod
from fn.keras import losses as losses_mod
from fn.keras import optimizers as optimizers_mod


def _loss_fn(loss: Any) -> Any:
    if loss is None:
        return None
    if isinstance(loss, str):
        per_sample = losses_mod.get(loss)
        return lambda y, p, sample_weight=None: _reduce(per_sample(y, p), sample_weight)
    if isinstance(loss, losses_mod.Loss):
        return loss
    if callable(loss):
        return lambda y, p, sample_weight=None: _reduce(loss(y, p), sample_weight)
    raise ValueError(f"Could not interpret loss identifier: {loss}")


def _reduce(values: Any, sample_weight: Any) -> Any:
    if sample_weight is not None:
        values = values * _core.convert_to_tensor(sample_weight, None, values.dtype)
    return math_ops.reduce_mean(values)


def _to_array(x: Any) -> Any:
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return type(x)(_to_array(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_array(v) for k, v in x.items()}
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _num_samples(x: Any) -> int:
    return int(nest.flatten(x)[0].shape[0])


def _take(x: Any, idx: Any) -> Any:
    return nest.map_structure(lambda a: a[idx], x) if x is not None else None


class _Data:
    """Batches of (x, y, sample_weight): NumPy arrays sliced per step (shuffled each epoch), or
    the elements of an ``fn.data.Dataset``."""

    def __init__(self, x: Any, y: Any = None, sample_weight: Any = None, batch_size: Optional[int] = None,
                 shuffle: bool = False, steps: Optional[int] = None) -> None:
        self.dataset = None
        if hasattr(x, "__iter__") and type(x).__module__.startswith("fn._data"):
            self.dataset = x
            self.steps = steps
            return
        self.x, self.y, self.sw = _to_array(x), _to_array(y), _to_array(sample_weight)
        self.n = _num_samples(self.x)
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        self.steps = steps if steps is not None else -(-self.n // self.batch_size)

    def __iter__(self) -> Iterator[Tuple[Any, Any, Any]]:
        if self.dataset is not None:
            for i, element in enumerate(self.dataset):
                if self.steps is not None and i >= self.steps:
                    return
                if isinstance(element, tuple):
                    yield (tuple(element) + (None, None))[:3]
                else:
                    yield element, None, None
            return
        order = np.random.permutation(self.n) if self.shuffle else None
        for s in range(self.steps):
            lo, hi = s * self.batch_size, min((s + 1) * self.batch_size, self.n)
            idx = order[lo:hi] if order is not None else slice(lo, hi)
            yield _take(self.x, idx), _take(self.y, idx), _take(self.sw, idx)


def _spec_of(value: Any) -> Any:
    from fn._tensor.tensor_spec import TensorSpec
    if value is None:
        return None
    shape = list(np.shape(value)) if not hasattr(value, "shape") or not hasattr(value.shape, "as_list") \
        else value.shape.as_list()
    dtype = value.dtype if hasattr(value, "dtype") and not isinstance(value, np.ndarray) else \
        as_dtype(np.asarray(value).dtype if np.asarray(value).dtype != np.float64 else np.float32)
    return TensorSpec([None] + shape[1:], dtype)


def _tensor(value: Any, spec: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        value = value.astype(np.float32)
    return _core.convert_to_tensor(value, None, spec.dtype if spec is not None else None)


class Trainer:
    """The training half of ``keras.Model`` (mixed into ``Model``)."""

    def __init__(self) -> None:
        self.optimizer: Any = None
        self._fn_compiled = False
        self._fn_reset_functions()
        self.stop_training = False
        self.run_eagerly = False
        self._fn_history: Any = None

    def _fn_reset_functions(self) -> None:
        self._fn_train_function = self._fn_test_function = self._fn_predict_function = None

    @property
    def history(self) -> Any:
        return self._fn_history

    @history.setter
    def history(self, value: Any) -> None:
        self._fn_history = value

    @property
    def compiled(self) -> bool:
        return self._fn_compiled

    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, loss_weights: Any = None, metrics: Any = None,
                weighted_metrics: Any = None, run_eagerly: bool = False, steps_per_execution: int = 1,
                jit_compile: Any = "auto", auto_scale_loss: bool = True) -> None:
        """``keras.Model.compile``: the optimizer (name or instance), loss (name, function or
        ``Loss``) and metrics (names like ``'accuracy'``, functions or ``Metric``s)."""
        self.optimizer = optimizers_mod.get(optimizer)
        self.loss = loss
        self._fn_loss = _loss_fn(loss)
        self._fn_loss_tracker = metrics_mod.Mean(name="loss")
        self._fn_metrics = [metrics_mod.get(m, loss) for m in nest.flatten(metrics or [])]
        self.run_eagerly = bool(run_eagerly)
        self._fn_compiled = True
        self._fn_reset_functions()

    @property
    def metrics(self) -> List[Any]:
        return ([self._fn_loss_tracker] + list(self._fn_metrics)) if self._fn_compiled else []

    @property
    def metrics_names(self) -> List[str]:
        return [m.name for m in self.metrics]

    def _fn_require_compiled(self) -> None:
        if not self._fn_compiled:
            raise RuntimeError("You must call `compile()` before using the model.")

    # -- steps
    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None,
                     training: bool = True) -> Any:
        if self._fn_loss is None:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        loss = self._fn_loss(y, y_pred, sample_weight=sample_weight)
        extra = [l for layer in self._all_layers() for l in getattr(layer, "_fn_losses", [])]
        return loss + math_ops.add_n(extra) if extra else loss

    def _fn_update_metrics(self, loss: Any, x: Any, y: Any, y_pred: Any, sample_weight: Any) -> Dict[str, Any]:
        batch = _core.convert_to_tensor(nest.flatten(x)[0]).shape[0]
        if batch is None:
            from fn._ops import array_ops as _array_ops
            batch = _array_ops.cast(_array_ops.shape(nest.flatten(x)[0])[0], float32)
        self._fn_loss_tracker.update_state(loss, sample_weight=batch)
        for m in self._fn_metrics:
            m.update_state(y, y_pred, sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def train_step(self, data: Tuple[Any, Any, Any]) -> Dict[str, Any]:
        """One step: forward, loss, gradients, update, metrics (``keras.Model.train_step``)."""
        from fn._autodiff.tape import GradientTape
        x, y, sample_weight = data
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        variables = self.trainable_variables
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        return self._fn_update_metrics(loss, x, y, y_pred, sample_weight)

    def test_step(self, data: Tuple[Any, Any, Any]) -> Dict[str, Any]:
        x, y, sample_weight = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        return self._fn_update_metrics(loss, x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        x = data[0] if isinstance(data, tuple) else data
        return self(x, training=False)

    def _fn_make(self, kind: str, first: Tuple[Any, Any, Any]) -> Any:
        """The traced step (``kind`` is train/test/predict), with specs whose batch is unknown."""
        from fn._function.function import function
        step = {"train": self.train_step, "test": self.test_step, "predict": self.predict_step}[kind]
        if kind == "predict":
            def run(x: Any) -> Any:
                return step((x, None, None))
            specs = (nest.map_structure(_spec_of, first[0]),)
        else:
            n = 1 + (first[1] is not None) + (first[2] is not None and first[1] is not None)
            runs = {1: lambda x: step((x, None, None)), 2: lambda x, y: step((x, y, None)),
                    3: lambda x, y, w: step((x, y, w))}
            run = runs[n]   # type: ignore[assignment]
            specs = tuple(nest.map_structure(_spec_of, v) for v in first[:n])
        if self.run_eagerly:
            return run, specs
        return function(run, input_signature=list(specs), autograph=False), specs

    def _fn_step(self, kind: str, batch: Tuple[Any, Any, Any]) -> Any:
        attr = f"_fn_{kind}_function"
        if getattr(self, attr) is None:
            if not self.built or not self.weights:
                self(nest.map_structure(lambda v: _tensor(v, None), batch[0]))   # builds the weights eagerly
            if kind == "train" and not self.optimizer.built:
                self.optimizer.build(self.trainable_variables)
            setattr(self, attr, self._fn_make(kind, batch))
        fn, specs = getattr(self, attr)
        args = batch[:len(specs)]
        tensors = [nest.map_structure(_tensor, a, s) for a, s in zip(args, specs)]
        return fn(*tensors)

    # -- loops
    def _fn_callbacks(self, callbacks: Any, verbose: int, epochs: int, steps: Optional[int],
                      with_history: bool = True) -> Tuple[cbks.CallbackList, Any]:
        callbacks = list(callbacks or [])
        history = None
        if with_history:
            history = cbks.History()
            callbacks.append(history)
        if verbose:
            callbacks.insert(0, cbks.ProgbarLogger())
        return cbks.CallbackList(callbacks, self, verbose=verbose, epochs=epochs, steps=steps), history

    def fit(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None, epochs: int = 1,
            verbose: Any = "auto", callbacks: Any = None, validation_split: float = 0.0, validation_data: Any = None,
            shuffle: bool = True, class_weight: Any = None, sample_weight: Any = None, initial_epoch: int = 0,
            steps_per_epoch: Optional[int] = None, validation_steps: Optional[int] = None,
            validation_batch_size: Optional[int] = None, validation_freq: int = 1) -> Any:
        """``keras.Model.fit``: trains for ``epochs`` over ``x``/``y`` (arrays or an
        ``fn.data.Dataset`` of ``(x, y)`` batches); returns the ``History``."""
        self._fn_require_compiled()
        verbose = 1 if verbose == "auto" else int(verbose)
        if validation_split and validation_data is None:
            xs, ys = _to_array(x), _to_array(y)
            split = int(_num_samples(xs) * (1.0 - validation_split))
            validation_data = (_take(xs, slice(split, None)), _take(ys, slice(split, None)))
            x, y = _take(xs, slice(0, split)), _take(ys, slice(0, split))
        if class_weight is not None:
            sample_weight = _class_weights(class_weight, y, sample_weight)
        data = _Data(x, y, sample_weight, batch_size, shuffle, steps_per_epoch)
        callback_list, history = self._fn_callbacks(callbacks, verbose, epochs, data.steps)
        self.stop_training = False
        callback_list.on_train_begin()
        logs: Dict[str, Any] = {}
        for epoch in range(initial_epoch, epochs):
            for m in self.metrics:
                m.reset_state()
            callback_list.on_epoch_begin(epoch)
            step_logs: Any = {}
            for step, batch in enumerate(data):
                callback_list.on_train_batch_begin(step)
                step_logs = self._fn_step("train", batch)
                callback_list.on_train_batch_end(step, _Logs(step_logs))
                if self.stop_training:
                    break
            logs = {k: float(np.asarray(v)) for k, v in step_logs.items()}
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                vx, vy, vw = (tuple(validation_data) + (None,))[:3] if isinstance(validation_data, tuple) \
                    else (validation_data, None, None)
                val = self.evaluate(vx, vy, batch_size=validation_batch_size or batch_size, sample_weight=vw,
                                    steps=validation_steps, verbose=0, return_dict=True, _internal=True)
                logs.update({f"val_{k}": v for k, v in val.items()})
            logs = dict(sorted(logs.items()))
            callback_list.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        callback_list.on_train_end(logs)
        history.params = {"verbose": verbose, "epochs": epochs, "steps": data.steps}
        self.history = history
        return history

    def evaluate(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None, verbose: Any = "auto",
                 sample_weight: Any = None, steps: Optional[int] = None, callbacks: Any = None,
                 return_dict: bool = False, _internal: bool = False, **kwargs: Any) -> Any:
        """``keras.Model.evaluate``: the loss and metrics over ``x``/``y`` (a scalar when there
        are no metrics, else a list in ``metrics_names`` order, or a dict)."""
        self._fn_require_compiled()
        verbose = 1 if verbose == "auto" else int(verbose)
        data = _Data(x, y, sample_weight, batch_size, False, steps)
        for m in self.metrics:
            m.reset_state()
        bar = cbks.Progbar(data.steps, verbose) if verbose else None
        step_logs: Any = {}
        count = 0
        for count, batch in enumerate(data, 1):
            step_logs = self._fn_step("test", batch)
            if bar is not None:
                bar.update(count, _Logs(step_logs).floats())
        logs = {k: float(np.asarray(v)) for k, v in step_logs.items()}
        if bar is not None:
            bar.update(count, dict(sorted(logs.items())), finalize=True)
        if return_dict:
            return dict(sorted(logs.items()))
        values = [logs[m.name] for m in self.metrics]
        return values[0] if len(values) == 1 else values

    def predict(self, x: Any, batch_size: Optional[int] = None, verbose: Any = "auto", steps: Optional[int] = None,
                callbacks: Any = None) -> Any:
        """``keras.Model.predict``: the model's outputs on ``x``, batch by batch, as NumPy."""
        verbose = 1 if verbose == "auto" else int(verbose)
        data = _Data(x, None, None, batch_size, False, steps)
        bar = cbks.Progbar(data.steps, verbose) if verbose else None
        outs: List[Any] = []
        count = 0
        for count, batch in enumerate(data, 1):
            out = self._fn_step("predict", batch)
            outs.append(nest.map_structure(lambda t: np.asarray(t.numpy()), out))
            if bar is not None:
                bar.update(count, {})
        if bar is not None:
            bar.update(count, {}, finalize=True)
        return nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *outs)

    def predict_on_batch(self, x: Any) -> Any:
        return nest.map_structure(lambda t: np.asarray(t.numpy()), self._fn_step("predict", (x, None, None)))

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        self._fn_require_compiled()
        logs = {k: float(np.asarray(v)) for k, v in self._fn_step("train", (x, y, sample_weight)).items()}
        if return_dict:
            return logs
        values = [logs[m.name] for m in self.metrics]
        return values[0] if len(values) == 1 else values

    def get_weights(self) -> List[Any]:
        return [w.numpy() for w in self.weights]


def _class_weights(class_weight: Dict[int, float], y: Any, sample_weight: Any) -> Any:
    """Per-sample weights ``class_weight[label]`` (labels: integers, or one-hot rows)."""
    if y is None or isinstance(y, dict) or (isinstance(y, (list, tuple)) and y and np.ndim(y[0]) > 1):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    labels = np.asarray(_to_array(y))
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = labels.argmax(-1)
    labels = labels.reshape(labels.shape[0], -1)[:, 0].astype(np.int64)
    weights = np.array([class_weight.get(int(c), 1.0) for c in labels], np.float32)
    return weights if sample_weight is None else weights * np.asarray(_to_array(sample_weight), np.float32)


class _Logs(dict):
    """A step's logs (tensors); converted to floats only when a progress bar draws them."""

    def floats(self) -> Dict[str, float]:
        return {k: float(np.asarray(v)) for k, v in sorted(self.items())}

    def items(self) -> Any:   # type: ignore[override]
        return [(k, v if isinstance(v, float) else float(np.asarray(v))) for k, v in sorted(dict.items(self))]

