"""``AutoShardPolicy.FILE`` (and ``AUTO`` on file-based input): TF's ``auto_shard`` rewrite. The
pipeline is walked from its end to its source through the transformations TF lets a shard
pass; at the reader (``TFRecordDataset`` / ``TextLineDataset`` / ``FixedLengthRecordDataset``,
read directly or inside a ``flat_map`` / ``interleave`` function) the file names are sharded
across workers (worker ``i`` reads files ``i, i + W, ...``) and a shuffle of the names moves
after that shard. Any other source is ``NotFoundError`` (``AUTO`` then shards by data)."""

from __future__ import annotations

import copy
from typing import Any, Iterator, Optional

from fn import errors
from fn._data.readers import _FileDataset
from fn._data.transforms import _UnaryDataset

# fn's dataset type names for TF's kPassThroughOps / kFuncDatasetOps (auto_shard.cc).
_PASS_THROUGH = {
    "_BatchDataset", "CacheDataset", "_FilterDataset", "_MapDataset", "_ParallelMapDataset",
    "_PaddedBatchDataset", "_PrefetchDataset", "_RebatchDatasetV2", "_RepeatDataset", "_ShardDataset",
    "_ShuffleDataset", "_SkipDataset", "_TakeDataset", "_WindowDataset", "_OptionsDataset",
}  # fmt: skip
_FUNC = {"_FlatMapDataset", "_InterleaveDataset", "_ParallelInterleaveDataset"}


class _FileNamesShard(_UnaryDataset):
    """TF's ``ShardDataset(require_non_empty=True)`` on the file names: this worker's names, or
    ``InvalidArgumentError`` when there are fewer names than workers (raised on every worker at
    the first read; TF raises where each worker's shard runs out)."""

    _type_name = "_ShardDataset"

    def __init__(self, names: Any, workers: int, index: int) -> None:
        super().__init__(names, names.element_spec)
        self._workers, self._index = workers, index

    def _elements(self) -> Iterator[Any]:
        names = list(self._input._elements())
        if len(names) < self._workers:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Could not apply FILE based sharding: the dataset only has {len(names)} file(s), which is not "
                f"enough for the required {self._workers} shards/workers. If you are using datasets with "
                "distribution strategy, consider setting the auto sharding policy to either DATA or OFF using "
                "the `experimental_distribute.auto_shard_policy` option of `tf.data.Options()`. Or, split your "
                "input files into a larger number of small files such that number of files is greater than "
                "number of shards/workers.",
            )
        yield from names[self._index :: self._workers]

    def _cardinality(self) -> int:
        return -2


def _with_input(node: Any, child: Any) -> Any:
    out = copy.copy(node)
    out._inputs = (child,) + tuple(node._inputs[1:])
    return out


def _shard_names(names: Any, workers: int, index: int) -> Any:
    """The names' shard, with a shuffle of the names moved after it (TF's Remove/AddShuffleDataset)."""
    chain, d = [], names
    while getattr(d, "_type_name", "") in _PASS_THROUGH and d._inputs:
        chain.append(d)
        d = d._inputs[0]
    shuffle = next((n for n in chain if n._type_name == "_ShuffleDataset"), None)
    if shuffle is None:
        return _FileNamesShard(names, workers, index)
    below = shuffle._inputs[0]
    for n in reversed(chain[: chain.index(shuffle)]):
        below = _with_input(n, below)
    return _with_input(shuffle, _FileNamesShard(below, workers, index))


def _reads_files(node: Any) -> bool:
    """TF's ``ReaderOpInFunction``: the function of a flat_map/interleave makes a reader (fn calls
    it on the first file name to see what it builds)."""
    first = next(iter(node._inputs[0]._elements()), None)
    if first is None:
        return False
    made = (node._call if hasattr(node, "_call") else node._func)(first)
    stack = [made]
    while stack:
        d = stack.pop()
        if isinstance(d, _FileDataset):
            return True
        stack.extend(getattr(d, "_inputs", ()))
    return False


def _unshardable(node: Any) -> errors.NotFoundError:
    return errors.NotFoundError(None, None, f"Found an unshardable source dataset: {node!r}")


def shard_files(dataset: Any, workers: int, index: int) -> Any:
    """``dataset`` with its reader(s) reading worker ``index``'s files; ``NotFoundError`` when
    the walk reaches a source that is not a file reader (TF: "Found an unshardable source")."""
    name = getattr(dataset, "_type_name", "")
    if isinstance(dataset, _FileDataset):
        if dataset._files_ds is None:
            from fn._data.sources import TensorSliceDataset

            names = TensorSliceDataset(dataset._tensors[0])
        else:
            names = dataset._files_ds
        out = copy.copy(dataset)
        out._files_ds = _shard_names(names, workers, index)
        out._inputs, out._tensors = (out._files_ds,), []
        return out
    if name in _FUNC and _reads_files(dataset):
        return _with_input(dataset, _shard_names(dataset._inputs[0], workers, index))
    if name in _PASS_THROUGH and dataset._inputs:
        return _with_input(dataset, shard_files(dataset._inputs[0], workers, index))
    raise _unshardable(dataset)


def try_shard_files(dataset: Any, workers: int, index: int) -> Optional[Any]:
    """``shard_files``, or None when there is no reader to shard (AUTO falls back to DATA)."""
    try:
        return shard_files(dataset, workers, index)
    except errors.NotFoundError:
        return None
