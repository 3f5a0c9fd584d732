"""``fn.config.threading`` (``tf.config.threading``): the thread-pool sizes (0 lets fn choose)."""

from __future__ import annotations

_threads = {"inter": 0, "intra": 0}


def get_inter_op_parallelism_threads() -> int:
    """``tf.config.threading.get_inter_op_parallelism_threads``."""
    return _threads["inter"]


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """``tf.config.threading.set_inter_op_parallelism_threads``: kept; fn runs ops on one pool."""
    _threads["inter"] = int(num_threads)


def get_intra_op_parallelism_threads() -> int:
    """``tf.config.threading.get_intra_op_parallelism_threads``."""
    return _threads["intra"]


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """``tf.config.threading.set_intra_op_parallelism_threads``: kept (oneDNN picks its threads)."""
    _threads["intra"] = int(num_threads)


from fn._public import export as _export

_export(globals())
