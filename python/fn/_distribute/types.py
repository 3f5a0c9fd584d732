"""``tf.types.experimental.distributed``: the types of distributed values and inputs (TF's
``tensorflow/python/types/distribute.py``), here fn's own classes."""

from fn._distribute.values import DistributedDataset, DistributedIterator, DistributedValues, Mirrored, PerReplica

__all__ = ["DistributedDataset", "DistributedIterator", "DistributedValues", "Mirrored", "PerReplica"]
