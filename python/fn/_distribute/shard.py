"""Splitting global batches across workers (TF's rebatch + ``AutoShardPolicy.DATA`` for one
replica per worker): every worker runs the whole input pipeline and keeps its piece of each
batch. A batch of ``b`` elements splits into ``W`` contiguous pieces, the first ``b % W`` one
element larger, so a global batch divisible by ``W`` gives each worker ``b / W`` elements."""

from __future__ import annotations

from typing import Any, Iterator

from fn._tensor.tensor_shape import TensorShape
from fn._tensor.tensor_spec import TensorSpec
from fn._data import structure
from fn._data.options import AutoShardPolicy
from fn._data.transforms import _UnaryDataset
from fn._distribute.file_shard import auto_shard_files, shard_files


def piece_bounds(batch: int, workers: int, index: int) -> tuple:
    """The [begin, end) rows of worker ``index``'s piece of a batch of ``batch`` rows."""
    base, extra = divmod(batch, workers)
    begin = index * base + min(index, extra)
    return begin, begin + base + (1 if index < extra else 0)


class _WorkerShardDataset(_UnaryDataset):
    _type_name = "_RebatchDataset"

    def __init__(self, input_dataset: Any, workers: int, index: Any) -> None:
        self._workers, self._index = workers, index  # index None: every piece (AutoShardPolicy.OFF)
        specs = structure.flatten(input_dataset.element_spec)
        for s in specs:
            if s.shape.rank == 0:
                raise ValueError(
                    f"Call the `batch` method on the input Dataset in order to be able to split your "
                    f"input across {workers} replicas.\n Please see the tf.distribute.Strategy guide."
                )

        def per_worker(s: Any) -> Any:
            if s.shape.rank is None:
                return s
            lead = s.shape[0]
            new = lead // workers if lead is not None and lead % workers == 0 else None
            return TensorSpec(TensorShape([new]).concatenate(s.shape[1:]), s.dtype)

        super().__init__(input_dataset, structure.map_structure(per_worker, input_dataset.element_spec))

    def _elements(self) -> Iterator[Any]:
        for element in self._input._elements():
            flat = structure.flatten(element)
            rows = int(flat[0].shape[0])
            for k in range(self._workers) if self._index is None else [self._index]:
                begin, end = piece_bounds(rows, self._workers, k)
                yield structure.pack(self._element_spec, [t[begin:end] for t in flat])

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        return n * self._workers if self._index is None and n > 0 else n


def batch_sizes_for_worker(global_batch: int, workers: int, index: int) -> list:
    """TF's ``distribute.batch_sizes_for_worker`` (one replica per worker): the sizes of the
    ``workers`` pieces of a global batch, ``global_batch % workers`` of them one larger, rolled
    by the worker's index."""
    floor, ceil = divmod(global_batch, workers)
    sizes = [floor + 1] * ceil + [floor] * (workers - ceil)
    return sizes[-index:] + sizes[:-index] if index else sizes


def _global_batch(dataset: Any) -> Any:
    """The batch size of the pipeline's last ``batch`` (TF's ``compute_batch_size``), or None."""
    d = dataset
    while d is not None:
        if getattr(d, "_type_name", "") in ("_BatchDataset", "_PaddedBatchDataset") and isinstance(
            getattr(d, "_n", None), int
        ):
            return d._n
        d = d._inputs[0] if len(getattr(d, "_inputs", ())) == 1 else None
    return None


class _FileShardPieces(_WorkerShardDataset):
    """Under FILE sharding each worker reads its own files and batches them with the global
    batch size; TF's rebatch then splits every batch into the workers' pieces (sizes from
    ``batch_sizes_for_worker``, filled in order, so a partial batch fills the first pieces) and
    the worker yields all of them."""

    def __init__(self, input_dataset: Any, workers: int, index: int, global_batch: Any) -> None:
        super().__init__(input_dataset, workers, None)
        self._sizes = None if global_batch is None else batch_sizes_for_worker(global_batch, workers, index)

    def _elements(self) -> Iterator[Any]:
        for element in self._input._elements():
            flat = structure.flatten(element)
            rows = int(flat[0].shape[0])
            sizes = self._sizes or [piece_bounds(rows, self._workers, k)[1] - piece_bounds(rows, self._workers, k)[0]
                                    for k in range(self._workers)]  # fmt: skip
            begin = 0
            for size in sizes:
                end = min(begin + size, rows)
                yield structure.pack(self._element_spec, [t[begin:end] for t in flat])
                begin = end


def shard_global_batches(dataset: Any, workers: int, index: int) -> Any:
    """This worker's part of ``dataset``'s batches: its piece of each (TF's rebatch +
    ``AutoShardPolicy.DATA``, which ``AUTO`` falls back to for data not read from files), or,
    when the dataset's options say ``AutoShardPolicy.OFF``, every piece of each batch in turn
    (TF rebatches and does not shard: every worker reads all the data)."""
    policy = dataset.options().experimental_distribute.auto_shard_policy
    policy = int(AutoShardPolicy.AUTO) if policy is None else int(policy)
    if policy == int(AutoShardPolicy.OFF):
        return _WorkerShardDataset(dataset, workers, None)
    if policy == int(AutoShardPolicy.FILE):
        return _FileShardPieces(shard_files(dataset, workers, index), workers, index, _global_batch(dataset))
    if policy == int(AutoShardPolicy.AUTO):
        walked, by_files = auto_shard_files(dataset, workers, index)
        if by_files:
            return _FileShardPieces(walked, workers, index, _global_batch(dataset))
        dataset = walked  # readers sharded before the walk failed stay so (TF's rewrite)
    return _WorkerShardDataset(dataset, workers, index)
