"""``AutoShardPolicy.FILE`` (and ``AUTO`` on file-based input): TF's ``auto_shard`` rewrite. The
pipeline is walked from its end to its source through the transformations TF lets a shard
pass; at the reader (``TFRecordDataset`` / ``TextLineDataset`` / ``FixedLengthRecordDataset``,
read directly or made by a ``flat_map`` / ``interleave`` function's traced graph; every input of
a ``concatenate`` / ``zip``) the file names are sharded
across workers (worker ``i`` reads files ``i, i + W, ...``) and a shuffle of the names moves
after that shard. Any other source is ``NotFoundError`` (``AUTO`` then shards by data, the readers
sharded before it kept, as TF's rewrite leaves them)."""

from __future__ import annotations

import copy
from typing import Any, Iterator, Tuple

from fn import errors
from fn._data.readers import _FileDataset
from fn._data.sources import TensorSliceDataset
from fn._data.transforms import _UnaryDataset

# fn's dataset type names for TF's kPassThroughOps / kFuncDatasetOps (auto_shard.cc).
_PASS_THROUGH = {
    "_BatchDataset", "CacheDataset", "_FilterDataset", "_MapDataset", "_ParallelMapDataset",
    "_PaddedBatchDataset", "_PrefetchDataset", "_RebatchDatasetV2", "_RepeatDataset", "_ShardDataset",
    "_ShuffleDataset", "_SkipDataset", "_TakeDataset", "_WindowDataset", "_OptionsDataset",
}  # fmt: skip
_FUNC = {"_FlatMapDataset", "_InterleaveDataset", "_ParallelInterleaveDataset"}
_MULTI = {"_ConcatenateDataset", "_ZipDataset"}


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
    """TF's ``ReaderOpInFunction``: the flat_map/interleave function's traced graph makes a reader.
    The dataset its trace (at ``flat_map``/``interleave`` time) returned is inspected; the user's
    function is not called again (its Python side effects fire as often as under TF)."""
    func = getattr(node, "_call", None) or getattr(node, "_func", None)  # none: from_generator
    stack = [getattr(func, "traced_output", None)]
    while stack:
        d = stack.pop()
        if isinstance(d, _FileDataset):
            return True
        stack.extend(getattr(d, "_inputs", ()) or ())
    return False


def _unshardable(node: Any) -> errors.NotFoundError:
    return errors.NotFoundError(None, None, f"Found an unshardable source dataset: {node!r}")


class _NoReader(Exception):
    """The walk reached a source that is not a file reader: ``partial`` is the dataset with the
    readers met before it already sharded (TF's rewrite keeps them: AUTO then shards that by data)."""

    def __init__(self, partial: Any, error: errors.NotFoundError) -> None:
        super().__init__(str(error))
        self.partial, self.error = partial, error


def _with_inputs(node: Any, inputs: Any) -> Any:
    out = copy.copy(node)
    out._inputs = tuple(inputs)
    return out


def _walk(dataset: Any, workers: int, index: int) -> Any:
    name = getattr(dataset, "_type_name", "")
    if isinstance(dataset, _FileDataset):
        names: Any
        if dataset._files_ds is None:
            names = TensorSliceDataset(dataset._tensors[0])
        else:
            names = dataset._files_ds
        out = copy.copy(dataset)
        out._files_ds = _shard_names(names, workers, index)
        out._inputs, out._tensors = (out._files_ds,), []
        return out
    if name in _FUNC and _reads_files(dataset):
        return _with_input(dataset, _shard_names(dataset._inputs[0], workers, index))
    if name in _MULTI:  # every input, in order (TF's kMultipleInputsDatasetOps)
        inputs = list(dataset._inputs)
        for k, child in enumerate(inputs):
            try:
                inputs[k] = _walk(child, workers, index)
            except _NoReader as e:
                inputs[k] = e.partial
                raise _NoReader(_with_inputs(dataset, inputs), e.error) from None
        return _with_inputs(dataset, inputs)
    if name in _PASS_THROUGH and dataset._inputs:
        try:
            return _with_input(dataset, _walk(dataset._inputs[0], workers, index))
        except _NoReader as e:
            raise _NoReader(_with_input(dataset, e.partial), e.error) from None
    raise _NoReader(dataset, _unshardable(dataset))


def shard_files(dataset: Any, workers: int, index: int) -> Any:
    """``dataset`` with its reader(s) reading worker ``index``'s files; ``NotFoundError`` when
    the walk reaches a source that is not a file reader (TF: "Found an unshardable source")."""
    try:
        return _walk(dataset, workers, index)
    except _NoReader as e:
        raise e.error from None


def auto_shard_files(dataset: Any, workers: int, index: int) -> Tuple[Any, bool]:
    """``AUTO``'s attempt: ``(shard_files(dataset), True)``, or, when the walk reaches a source that
    is not a file reader, ``(dataset, False)`` with the readers the walk sharded before that source
    kept sharded (a ``concatenate``/``zip`` of files and in-memory data: TF's rewrite keeps them,
    then shards the result by data)."""
    try:
        return _walk(dataset, workers, index), True
    except _NoReader as e:
        return e.partial, False
