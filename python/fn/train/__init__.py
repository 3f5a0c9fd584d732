"""``fn.train`` (``tf.train``): the ``Example`` protocol buffers (TF's wire format), and checkpoints of object graphs in fn's own format
(docs/FORMATS.md): ``Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``,
``load_checkpoint``, ``list_variables``."""

from __future__ import annotations

import os
from typing import Any, List, Tuple

from fn._io.example_pb import (
    BytesList,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SequenceExample,
)
from fn.train._checkpoint import Checkpoint, CheckpointLoadStatus
from fn.train._checkpoint_io import CheckpointReader
from fn.train._manager import CheckpointManager
from fn.train._state import latest_checkpoint
from fn._distribute.cluster import ClusterSpec
from fn._tf_compat._trackable_view import TrackableView


def _resolve(ckpt_dir_or_file: Any) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is not None:
            return latest
    return path


def load_checkpoint(ckpt_dir_or_file: Any) -> CheckpointReader:
    """``tf.train.load_checkpoint``: a reader of the checkpoint (a folder means its latest)."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: Any) -> List[Tuple[str, List[int]]]:
    """``tf.train.list_variables``: (key, shape) of every saved tensor, sorted by key."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted(reader.get_variable_to_shape_map().items())


from fn._public import export as _export

# CheckpointLoadStatus and CheckpointReader are returned, not public names in TF 2.21's tf.train.
_export(globals(), hide=["CheckpointLoadStatus", "CheckpointReader"])
