"""``input_signature`` binding for ``fn.function``: values conformed to their specs, and the
error TF 2.21 raises (``TypeError``) that is also the guide's ``ValueError``."""

from __future__ import annotations

import inspect
from typing import Any

from fn import _core
from fn._tensor.tensor_spec import TensorSpec


class _CastError(Exception):
    """A value does not match its input_signature spec (worded as TF's trace types say it)."""

    guide_note = ""  # the guide's wording of the mismatch, where a ConcreteFunction call adds it


class _InputSignatureError(ValueError, TypeError):
    """A call that does not match ``input_signature``. TF 2.21 raises ``TypeError`` ("Binding
    inputs to tf.function failed ..."); the guide catches ``ValueError`` and prints its name, so
    the class is both and prints as ``ValueError`` (see docs/DESIGN.md)."""


_InputSignatureError.__name__ = _InputSignatureError.__qualname__ = "ValueError"
_InputSignatureError.__module__ = "builtins"


def _signature_text(f: Any, sig: tuple) -> str:
    positional, var = f._signature.positional, f._signature.var_positional
    parts = []
    for i, spec in enumerate(sig):
        name = positional[i].name if i < len(positional) else f"{var.name if var else 'args'}_{i - len(positional)}"
        parts.append(f"{name}: {spec!r}")
    for p in positional[len(sig) :]:
        if p.default is not inspect.Parameter.empty:
            parts.append(f"{p.name}: Literal[{p.default!r}] = <captured_default_value>")
    if len(sig) > len(positional):
        parts.append("/")  # *args become positional-only parameters in TF's signature
    return "(" + ", ".join(parts) + ")"


def _binding_error(f: Any, e: Exception, args: tuple, kwargs: dict, sig: tuple) -> Exception:
    """TF's message, then the inputs and the signature as the guide shows them."""
    inputs = ",\n    ".join(str(a) for a in args)
    specs = ",\n    ".join(repr(s) for s in sig)
    return _InputSignatureError(
        f"Binding inputs to tf.function failed due to `{e}`. Received args: {args!r} and kwargs: {kwargs!r} "
        f"for signature: {_signature_text(f, sig)}.\n"
        "Python inputs incompatible with input_signature:\n"
        f"  inputs: (\n    {inputs})\n  input_signature: (\n    {specs})."
    )


def _conform(value: Any, spec: Any) -> Any:
    """``value`` converted to match ``spec`` (a TensorSpec or a structure of them); raises
    _CastError when it does not."""
    if isinstance(spec, TensorSpec):
        if isinstance(value, TensorSpec):
            if value.dtype == spec.dtype and value.shape.is_subtype_of(spec.shape):
                return value
            raise _CastError(f"Can not cast {TensorSpec(value.shape, value.dtype)!r} to {spec!r}")
        if not _core.is_tensor(value):
            try:
                value = _core.convert_to_tensor(value, spec.dtype)
            except Exception:
                raise _CastError(f"Can not cast {value!r} to {spec!r}") from None
        # A graph tensor whose shape is only partly known is cast to the more specific spec
        # (TF: compatible shapes); an eager tensor's shape is fully known.
        fits = value.shape.is_subtype_of(spec.shape) or (
            not value._is_eager and value.shape.is_compatible_with(spec.shape)
        )
        if value.dtype != spec.dtype or not fits:
            raise _CastError(f"Can not cast {TensorSpec(value.shape, value.dtype)!r} to {spec!r}")
        return value
    if hasattr(type(spec), "_fn_from_components"):  # a composite's spec (Sparse/RaggedTensorSpec)
        got = (
            value
            if type(value) is type(spec)
            else (value.__fn_composite__()[0] if hasattr(type(value), "__fn_composite__") else None)
        )
        if got is None or type(got) is not type(spec) or not got.is_subtype_of(spec):
            raise _CastError(f"Can not cast {value!r} to {spec!r}")
        return value
    if isinstance(spec, (list, tuple)) and isinstance(value, (list, tuple)) and len(spec) == len(value):
        parts = [_conform(v, s) for v, s in zip(value, spec)]
        return type(value)(*parts) if hasattr(value, "_fields") else type(value)(parts)
    if isinstance(spec, dict) and isinstance(value, dict):
        if set(spec) != set(value):
            raise _CastError(f"{value!r} has different keys with the TraceType {spec!r}.")
        return {k: _conform(value[k], spec[k]) for k in value}
    raise _CastError(f"Can not cast {value!r} to {spec!r}")
