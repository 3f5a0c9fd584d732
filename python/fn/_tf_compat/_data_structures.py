"""Shim of ``tensorflow.python.trackable.data_structures``: the wrapper classes Keras registers
as tree nodes. TF's AutoTrackable wraps lists and dicts assigned to attributes in them; fn's
``__internal__.tracking.AutoTrackable`` stores plain lists and dicts, so fn never makes one of
these, and Keras' registrations of them are harmless."""

from __future__ import annotations


class ListWrapper(list):
    """TF's tracked list wrapper (a plain ``list`` subclass here)."""


class _DictWrapper(dict):
    """TF's tracked dict wrapper (a plain ``dict`` subclass here)."""
