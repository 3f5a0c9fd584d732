"""``tf.__internal__``: the internal namespace TensorFlow exports for Keras (TF's
``tensorflow/python/util/tf_export`` "__internal__" API), with the members Keras uses."""

from __future__ import annotations

import contextlib
import types
from typing import Any, Callable, Iterator

from fn import _core
from fn._tf_compat import _tracking, _types
from fn._tf_compat._graph import FuncGraph
from fn._ops import control_flow_ops as _control_flow_ops
from fn._tf_compat._static import get_static_value
from fn._tensor.tensor import EagerTensor
from fn._ragged._ragged_tensor import RaggedTensor
from fn._sparse.sparse_tensor import SparseTensor


def smart_cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any], name: Any = None) -> Any:
    """``tf.__internal__.smart_cond.smart_cond``: calls one branch when ``pred`` is known before
    running (a Python bool or a tensor with a static value), else builds ``tf.cond``."""

    if isinstance(pred, (bool, int)) or type(pred).__module__ == "numpy":
        return true_fn() if pred else false_fn()
    value = get_static_value(pred)
    if value is not None:
        return true_fn() if bool(value) else false_fn()
    return _control_flow_ops.cond(pred, true_fn, false_fn)


@contextlib.contextmanager
def eager_mode() -> Iterator[None]:
    """``tf.__internal__.eager_context.eager_mode``: run the enclosed code eagerly."""
    with _core.ContextScope(None):
        yield


def strategy_supports_no_merge_call() -> bool:
    """True when the current distribution strategy lets replicas skip ``merge_call`` (fn's do)."""
    return True


def maybe_merge_call(fn_: Callable[..., Any], strategy: Any, *args: Any, **kwargs: Any) -> Any:
    """``tf.__internal__.distribute.interim.maybe_merge_call``: ``fn_(strategy, *args, **kwargs)``
    when the strategy needs no merge call (always, for fn's strategies)."""
    return fn_(strategy, *args, **kwargs)


def unwrap(maybe_decorated: Any) -> Any:
    """``tf.__internal__.decorator.unwrap``: (decorators, target) of a functools-wrapped callable."""
    decorators = []
    cur = maybe_decorated
    while hasattr(cur, "__wrapped__"):
        decorators.append(cur)
        cur = cur.__wrapped__
    return decorators, cur


def _namespace(name: str, **members: Any) -> types.ModuleType:
    module = types.ModuleType(f"fn.__internal__.{name}" if name else "fn.__internal__")
    module.__dict__.update(members)
    return module


def build() -> types.ModuleType:
    """The ``tf.__internal__`` module object."""

    _types.CompositeTensor.register(RaggedTensor)
    _types.CompositeTensor.register(SparseTensor)
    interim = _namespace("distribute.interim", maybe_merge_call=maybe_merge_call)
    return _namespace(
        "",
        types=_namespace("types", Tensor=_types.Tensor),
        tracking=_namespace(
            "tracking",
            Trackable=_tracking.Trackable,
            AutoTrackable=_tracking.AutoTrackable,
            no_automatic_dependency_tracking=_tracking.no_automatic_dependency_tracking,
        ),
        smart_cond=_namespace("smart_cond", smart_cond=smart_cond),
        eager_context=_namespace("eager_context", eager_mode=eager_mode),
        distribute=_namespace(
            "distribute", interim=interim, strategy_supports_no_merge_call=strategy_supports_no_merge_call
        ),
        decorator=_namespace("decorator", unwrap=unwrap),
        CompositeTensor=_types.CompositeTensor,
        EagerTensor=EagerTensor,
        FuncGraph=FuncGraph,
    )
