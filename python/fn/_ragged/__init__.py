"""RaggedTensor (``tf.RaggedTensor``, ``tf.ragged``): implementation package, one concept per file.

``_ragged_tensor`` the value, ``_spec`` its trace type, ``_factory`` constant/range/map_flat_values,
``_conversion`` dense/sparse conversions, ``_getitem`` indexing, ``_elementwise`` operators and
elementwise ops, ``_array_ops`` gather/concat/stack/reverse/boolean_mask/reductions,
``_dispatch`` the hook that sends public ops' ragged arguments here.
"""

from fn._ragged._ragged_tensor import RaggedTensor
from fn._ragged._spec import RaggedTensorSpec
from fn._ragged import _dispatch, _elementwise, _methods


def _install() -> None:
    """Called once by fn/__init__.py: RaggedTensor's methods and operators, the ragged dispatch."""

    _methods.install()
    _elementwise.install_operators()
    _dispatch.install()


__all__ = ["RaggedTensor", "RaggedTensorSpec"]
