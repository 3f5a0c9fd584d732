"""Keras 3's ``fit``/``evaluate`` under a multi-worker ``MultiWorkerMirroredStrategy``.

Keras 3.15's TensorFlow trainer fails there under TensorFlow 2.21 itself (keras-team/keras#20585,
tensorflow#72388): ``_maybe_symbolic_build`` passes the whole ``(x, y)`` batch of PerReplica
values to ``strategy.reduce`` (TF reduces one value, not a structure: "Attempt to convert a value
(PerReplica...)"), and ``reduce_per_replica`` reduces each scalar log with ``axis=0`` ("Invalid
reduction dimension 0 for input with 0 dimensions"). fn makes them do what their single-worker
branches do:

- the symbolic build sees this replica's piece of the first batch (what the MEAN reduce of a
  per-replica batch would have as shape and dtype, without a collective);
- a ``"mean"``/``"auto"`` reduction of the step's logs is the mean over replicas of each value
  (Keras' ``reduce_mean`` of the local results, across workers), one packed all-reduce.

Only the multi-worker case changes; every other path is Keras' own code.
"""

from __future__ import annotations

from typing import Any, Callable

_installed = False


def _symbolic_build(original: Callable) -> Callable:
    def _maybe_symbolic_build(self: Any, iterator: Any = None, data_batch: Any = None) -> Any:
        from keras.src import tree
        from keras.src.backend.tensorflow import trainer as tf_trainer

        strategy = self._distribute_strategy
        if iterator is None or strategy is None or not tf_trainer._collective_all_reduce_multi_worker(strategy):
            return original(self, iterator=iterator, data_batch=data_batch)
        for _, _, it in iterator:
            batch = next(it)
            data_batch = tree.map_structure(lambda v: strategy.experimental_local_results(v)[0], batch)
            break
        with strategy.scope():
            self._symbolic_build(data_batch=data_batch)

    _maybe_symbolic_build.__wrapped__ = original  # type: ignore[attr-defined]
    return _maybe_symbolic_build


def _reduce_per_replica(original: Callable) -> Callable:
    def reduce_per_replica(values: Any, strategy: Any, reduction: Any) -> Any:
        from keras.src import tree
        from keras.src.backend.tensorflow import trainer as tf_trainer

        if reduction not in ("auto", "mean") or not tf_trainer._collective_all_reduce_multi_worker(strategy):
            return original(values, strategy, reduction)
        leaves = tree.flatten(values)
        if not leaves:
            return values
        # To the worker's device: a value of a steps_per_execution loop has none in the Function.
        dest = strategy.extended.worker_devices[0]
        reduced = strategy.extended.batch_reduce_to("MEAN", [(v, dest) for v in leaves])
        return tree.pack_sequence_as(values, [strategy.experimental_local_results(r)[0] for r in reduced])

    reduce_per_replica.__wrapped__ = original  # type: ignore[attr-defined]
    return reduce_per_replica


def install() -> None:
    """Patches Keras' TensorFlow trainer (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    from keras.src.backend.tensorflow import trainer as tf_trainer

    cls = tf_trainer.TensorFlowTrainer
    cls._maybe_symbolic_build = _symbolic_build(cls._maybe_symbolic_build)
    tf_trainer.reduce_per_replica = _reduce_per_replica(tf_trainer.reduce_per_replica)
