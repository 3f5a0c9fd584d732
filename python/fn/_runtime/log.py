"""``fn.get_logger`` (``tf.get_logger``): the ``fn`` logger, which writes
``WARNING:fn:message`` lines to stderr as TensorFlow's writes ``WARNING:tensorflow:...``."""

from __future__ import annotations

import logging
import sys

_logger = logging.getLogger("fn")


class _StderrHandler(logging.StreamHandler):
    """Looks up ``sys.stderr`` at each record, so redirected streams (notebooks, tests) see it."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:  # StreamHandler assigns it in __init__
        pass


if not _logger.handlers:
    _handler = _StderrHandler()
    _handler.setFormatter(logging.Formatter("%(levelname)s:fn:%(message)s"))
    _logger.addHandler(_handler)


def get_logger() -> logging.Logger:
    """``tf.get_logger``: the logger fn reports warnings through."""
    return _logger
