"""fn: TensorFlow's ``tf.function`` in a small package. ``import fn as tf`` runs tf.function code.

The C++ core (``fn._core``) holds tensors, ops, graphs and the executor; this package is the
TensorFlow-named public surface on top of it.
"""
from __future__ import annotations

import ctypes as _ctypes
import os as _os
import sys as _sys


def _preload_onednn() -> None:
    # The extension's rpath finds <prefix>/lib/libdnnl.so.3 for ordinary installs; for other
    # layouts (user installs, unusual prefixes) load it by absolute path first.
    for prefix in (_sys.prefix, getattr(_sys, "base_prefix", _sys.prefix),
                   _os.path.join(_os.path.expanduser("~"), ".local")):
        path = _os.path.join(prefix, "lib", "libdnnl.so.3")
        if _os.path.exists(path):
            try:
                _ctypes.CDLL(path, mode=_ctypes.RTLD_GLOBAL)
                return
            except OSError:
                pass


# GNU OpenMP (oneDNN's thread pool) spins its idle threads by default: with one other busy process
# on the machine, matmuls and convs get 3-10x slower. Passive waiting unless the user chose a policy
# (libgomp reads it when it loads, with _core); measured in benchmarks/README.md.
_omp_default = "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ
if _omp_default:
    _os.environ["OMP_WAIT_POLICY"] = "passive"
try:
    from fn import _core
except ImportError:
    _preload_onednn()
    from fn import _core
if _omp_default:
    del _os.environ["OMP_WAIT_POLICY"]   # not inherited by child processes

from fn import dtypes as _dtypes_mod
from fn import errors
from fn.dtypes import (DType, as_dtype, bfloat16, double, float16, float32, float64, half, int8, int16,
                       int32, int64, resource, string, uint8, variant)
from fn.dtypes import bool_ as bool  # noqa: A001  (TensorFlow's name)
from fn._tensor_shape import TensorShape

_core._register_dtypes(list(_dtypes_mod._ALL))
_core._register_shape_class(TensorShape)
for _i, _cls in enumerate(errors._BY_CPP_CODE):
    _core._register_error(_i, _cls)

from fn import _tensor  # noqa: E402  (installs printing on the C++ classes)
from fn._tensor import EagerTensor, Tensor  # noqa: E402
from fn._array_ops import cast, constant, convert_to_tensor, fill, ones, zeros  # noqa: E402
from fn._array_ops import (concat, expand_dims, gather, gather_nd, identity, linspace, newaxis,  # noqa: E402
                          one_hot, pad, rank, reshape, scatter_nd, shape, shape_n, size,
                          split, squeeze, stack, strided_slice, tile, transpose,
                          unstack, where)
from fn._array_ops import range, slice  # noqa: E402,A004  (TensorFlow's names)
from fn import _slicing  # noqa: E402,F401  (installs Tensor.__getitem__)
from fn._math_ops import (abs, add, add_n, argmax, argmin, cos, divide, equal, exp, floor,  # noqa: E402,A004
                         greater, greater_equal, less, less_equal, logical_and, logical_not,
                         logical_or, matmul, maximum, minimum, multiply, negative, not_equal,
                         ones_like, pow, realdiv, reduce_all, reduce_any, reduce_logsumexp,
                         reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum, round,
                         scalar_mul, sigmoid, sign, sin, sqrt, square, stop_gradient, subtract,
                         tanh, tensordot, truediv, zeros_like)
from fn._tape import GradientTape, UnconnectedGradients  # noqa: E402
from fn._tape import gradients  # noqa: E402
from fn import bitwise, linalg, math, nn, random  # noqa: E402  (submodules)
from fn._tensor_spec import TensorSpec  # noqa: E402
from fn._function import Function, function  # noqa: E402
from fn._function import executing_eagerly, get_logger  # noqa: E402
from fn._name_scope import name_scope  # noqa: E402
from fn import config, debugging, types  # noqa: E402,F401
from fn import nest  # noqa: E402,F401
from fn._print_ops import print_ as print  # noqa: E402,A001  (TensorFlow's name)
from fn._script_ops import numpy_function, py_function  # noqa: E402
from fn._variables import Variable, init_scope  # noqa: E402
from fn._module import Module  # noqa: E402
from fn._tensor_array import TensorArray  # noqa: E402
from fn._control_flow import case, cond, switch_case, while_loop  # noqa: E402
from fn._functional_ops import foldl, foldr, map_fn, scan  # noqa: E402
from fn import data  # noqa: E402,F401
from fn import distribute  # noqa: E402,F401
from fn import train  # noqa: E402,F401
from fn import saved_model  # noqa: E402,F401
from fn import onnx  # noqa: E402,F401  (needs the onnx package only when exporting)
from fn import autograph, version  # noqa: E402,F401
from fn._device import device  # noqa: E402
from fn._custom_gradient import custom_gradient  # noqa: E402
from fn._logging import get_logger  # noqa: E402
from fn._check_ops import Assert, assert_equal, assert_greater, assert_less, assert_rank  # noqa: E402
from fn import autodiff  # noqa: E402,F401
from fn import _device  # noqa: E402
_device._install()
# Ops of issue 14 (sorting, scans, clipping, manipulation, einsum).
from fn._sort_ops import argsort, cumsum, sort  # noqa: E402
from fn._clip_ops import clip_by_global_norm, clip_by_norm, clip_by_value, norm  # noqa: E402
from fn._manip_ops import (boolean_mask, broadcast_to, eye, meshgrid, repeat, reverse, roll,  # noqa: E402
                           sequence_mask, tensor_scatter_nd_add, tensor_scatter_nd_max,
                           tensor_scatter_nd_min, tensor_scatter_nd_sub, tensor_scatter_nd_update, unique)
from fn._einsum import einsum  # noqa: E402
from fn._linalg_ops import atan2  # noqa: E402
from fn import strings  # noqa: E402,F401
from fn.dtypes import complex64, complex128  # noqa: E402
from fn._complex_ops import complex  # noqa: E402,A004
from fn._sparse.sparse_tensor import SparseTensor, SparseTensorSpec  # noqa: E402
from fn import sparse  # noqa: E402,F401
from fn import io  # noqa: E402,F401
from fn import image  # noqa: E402,F401
# RaggedTensor (issue 14): the value, its spec, fn.ragged, and the ragged dispatch of public ops.
from fn._ragged import RaggedTensor, RaggedTensorSpec, _install as _ragged_install  # noqa: E402
from fn import ragged, experimental  # noqa: E402,F401
from fn import compat  # noqa: E402,F401
# Names Keras' TensorFlow backend uses (issue 22).
from fn._tf_compat._variable_enums import VariableAggregation, VariableSynchronization  # noqa: E402
from fn._tf_compat._static import get_static_value  # noqa: E402
from fn.data._optional import OptionalSpec  # noqa: E402
from fn._tf_compat._indexed_slices import IndexedSlices  # noqa: E402
from fn._tf_compat._array_extra import (bitcast, broadcast_dynamic_shape, broadcast_static_shape,  # noqa: E402
                                        ensure_shape, reverse_sequence, searchsorted, unique_with_counts)
from fn._tf_compat import _types as _tf_types  # noqa: E402
from fn._tf_compat._types import TypeSpec, type_spec_from_value  # noqa: E402
_tf_types._register_specs()
_ragged_install()

_is_dense_tensor = _core.is_tensor   # AutoGraph's test: a tf.Tensor, eager or graph


def is_tensor(x: "object") -> bool:
    """``tf.is_tensor``: True for a tensor, eager or symbolic, and for the tensor-like values TF
    counts (``tf.Variable``, ``tf.RaggedTensor``, ``tf.sparse.SparseTensor``, subclasses of
    ``tf.__internal__.types.Tensor`` such as Keras' ``Variable``); False for NumPy
    arrays, Python values, specs and TensorArrays."""
    return True if _core.is_tensor(x) else isinstance(x, (Variable, RaggedTensor, SparseTensor, _tf_types.Tensor))   # `bool` is tf.bool here


dtypes = _dtypes_mod

__version__ = "0.1.0"



def __getattr__(name: str) -> "object":
    # ``fn.keras`` loads Keras on first use, as TensorFlow's lazy loader does for ``tf.keras``:
    # ``import fn`` stays fast and works without the optional keras extra.
    if name == "keras":
        import importlib
        return importlib.import_module("fn.keras")
    if name == "__internal__":   # TF's internal namespace for Keras
        from fn._tf_compat._internal import build
        globals()["__internal__"] = build()
        return globals()["__internal__"]
    raise AttributeError(f"module 'fn' has no attribute '{name}'")


from fn._public import export as _export  # noqa: E402
_export(globals(), hide=["EagerTensor", "Function"])
import importlib.util as _importlib_util  # noqa: E402
if _importlib_util.find_spec("keras") is not None:   # dir(tf) lists keras (when it can be loaded)
    __all__.append("keras")
    _export(globals())
