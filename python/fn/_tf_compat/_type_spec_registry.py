"""Shim of ``tensorflow.python.framework.type_spec_registry``: names for TypeSpec classes (Keras'
legacy JSON config decodes ``{"class_name": "TypeSpec", "type_spec": NAME}`` with ``lookup``)."""

from __future__ import annotations

from typing import Callable, Dict, Type

_REGISTRY: Dict[str, type] = {}


def register(name: str) -> Callable[[type], type]:
    def decorate(cls: type) -> type:
        if name in _REGISTRY:
            raise ValueError(
                f"Name {name} has already been registered for class "
                f"{_REGISTRY[name].__module__}.{_REGISTRY[name].__name__}."
            )
        _REGISTRY[name] = cls
        cls._type_spec_name = name  # type: ignore[attr-defined]
        return cls

    return decorate


def lookup(name: str) -> type:
    if name not in _REGISTRY:
        _register_builtins()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"No TypeSpec has been registered with name {name!r}") from None


def get_name(cls: Type) -> str:
    _register_builtins()
    for name, c in _REGISTRY.items():
        if c is cls:
            return name
    raise ValueError(f"TypeSpec {cls.__module__}.{cls.__name__} has not been registered.")


def _register_builtins() -> None:
    import fn

    for name, cls in (
        ("tf.TensorSpec", fn.TensorSpec),
        ("tf.RaggedTensorSpec", fn.RaggedTensorSpec),
        ("tf.SparseTensorSpec", fn.SparseTensorSpec),
    ):
        _REGISTRY.setdefault(name, cls)
