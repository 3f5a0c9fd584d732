"""fn: TensorFlow's ``tf.function`` in a small package. ``import fn as tf`` runs tf.function code.

The C++ core (``fn._core``) holds tensors, ops, graphs and the executor; this package is the
TensorFlow-named public surface on top of it.
"""

from __future__ import annotations

import ctypes as _ctypes
import os as _os
import builtins as _builtins
import sys as _sys


def _preload_onednn() -> None:
    # The extension's rpath finds <prefix>/lib/libdnnl.so.3 for ordinary installs; for other
    # layouts (user installs, unusual prefixes) load it by absolute path first.
    for prefix in (
        _sys.prefix,
        getattr(_sys, "base_prefix", _sys.prefix),
        _os.path.join(_os.path.expanduser("~"), ".local"),
    ):
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
    del _os.environ["OMP_WAIT_POLICY"]  # not inherited by child processes

# The C++ core learns fn's Python classes before any other module of fn runs: everything below
# imports fn (this file) first, so the imports after this block may come in any order.
from fn import dtypes as _dtypes_mod
from fn import errors
from fn._tensor.tensor_shape import TensorShape

_core._register_dtypes(list(_dtypes_mod._ALL))
_core._register_shape_class(TensorShape)
for _i, _cls in enumerate(errors._BY_CPP_CODE):
    _core._register_error(_i, _cls)

# The public surface (TensorFlow's names). Sorted by module; none depends on another's import.
from fn import (
    autodiff,
    autograph,
    bitwise,
    compat,
    config,
    data,
    debugging,
    distribute,
    experimental,
    image,
    io,
    linalg,
    lookup,
    math,
    nest,
    nn,
    onnx,  # needs the onnx package only when exporting
    ragged,
    random,
    saved_model,
    sets,
    sparse,
    strings,
    train,
    types,
    version,
)
from fn._autodiff.custom_gradient import custom_gradient
from fn._autodiff.tape import GradientTape, UnconnectedGradients, gradients
from fn._function.function import Function, executing_eagerly, function
from fn._function.control_dependencies import control_dependencies
from fn._function.name_scope import name_scope
from fn._ops.array_ops import (
    cast,
    concat,
    constant,
    convert_to_tensor,
    expand_dims,
    fill,
    gather,
    gather_nd,
    identity,
    linspace,
    newaxis,
    one_hot,
    ones,
    pad,
    range,  # TensorFlow's name
    rank,
    reshape,
    scatter_nd,
    shape,
    shape_n,
    size,
    slice,  # TensorFlow's name
    split,
    squeeze,
    stack,
    strided_slice,
    tile,
    transpose,
    unstack,
    where,
    zeros,
)
from fn._ops.check_ops import Assert, assert_equal, assert_greater, assert_less, assert_rank
from fn._ops.clip_ops import clip_by_global_norm, clip_by_norm, clip_by_value, norm
from fn._ops.complex_ops import complex
from fn._ops.control_flow_ops import case, cond, switch_case, while_loop
from fn._ops.no_op import group, no_op
from fn._ops.einsum_ops import einsum
from fn._extension_type import type_spec_from_value
from fn._ops.functional_ops import foldl, foldr, map_fn, scan, vectorized_map
from fn._ops.linalg_ops import atan2
from fn._ops.manip_ops import (
    boolean_mask,
    broadcast_to,
    eye,
    meshgrid,
    repeat,
    reverse,
    roll,
    sequence_mask,
    tensor_scatter_nd_add,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
    unique,
)
from fn._ops.math_ops import (
    abs,
    add,
    add_n,
    argmax,
    argmin,
    cos,
    divide,
    equal,
    exp,
    floor,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    ones_like,
    pow,
    realdiv,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,
    scalar_mul,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    stop_gradient,
    subtract,
    tanh,
    tensordot,
    truediv,
    truncatediv,
    truncatemod,
    zeros_like,
)
from fn._ops.print_ops import print_ as print  # TensorFlow's name
from fn._ops.script_ops import numpy_function, py_function
from fn._ops.sort_ops import argsort, cumsum, sort
from fn._ops.tensor_array_ops import TensorArray
from fn._ragged import RaggedTensor, RaggedTensorSpec
from fn._runtime.device import device
from fn._runtime.log import get_logger
from fn._sparse.sparse_tensor import SparseTensor, SparseTensorSpec
from fn._state.module import Module
from fn._state.variables import Variable, init_scope, variable_creator_scope
from fn._tensor.tensor import EagerTensor, Tensor
from fn._tensor.tensor_spec import TensorSpec
from fn.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool_ as bool,  # TensorFlow's name
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)

# Names Keras' TensorFlow backend uses (issue 22), and tf.__internal__ (loaded on first use).
from fn._tf_compat._variable_enums import VariableAggregation, VariableSynchronization
from fn._tf_compat._static import get_static_value
from fn._data.optional import OptionalSpec
from fn._tf_compat._indexed_slices import IndexedSlices
from fn._tf_compat._array_extra import (
    bitcast,
    broadcast_dynamic_shape,
    broadcast_static_shape,
    ensure_shape,
    reverse_sequence,
    searchsorted,
    unique_with_counts,
)
from fn._tf_compat import _types as _tf_types
from fn._tf_compat._types import TypeSpec

# Wiring, once every module is loaded: Tensor's Python methods, the ragged operators and the
# ragged dispatch of public ops, the type-based dispatch of ExtensionTypes, SparseTensor's operators, and the API that AutoGraph's converted code stages with.
from fn import _distribute, _keras as _keras_glue, _ragged
from fn._tf_compat import _bindings as _tf_bindings
from fn._autograph import backend as _autograph_backend
from fn._ops import dispatch as _dispatch
from fn._sparse import sparse_ops as _sparse_ops
from fn._tensor import methods as _tensor_methods

_tensor_methods.install()
_ragged._install()
_dispatch.install(_sys.modules[__name__])  # after the ragged wrappers: type-based dispatch sees calls first
_sparse_ops.install_operators()
_tf_types._register_specs()
_autograph_backend.use(_sys.modules[__name__])
# install_as_tensorflow() aliases this package, and `import tensorflow.keras` loads Keras on it.
_tf_bindings.bind(_sys.modules[__name__], _keras_glue.load_keras, _keras_glue.install_glue)
_distribute.install_variable_hook()  # variables record (and sync) the strategy whose scope made them

_is_dense_tensor = _core.is_tensor  # AutoGraph's test: a tf.Tensor, eager or graph


def is_tensor(x: "object") -> "_builtins.bool":  # `bool` is tf.bool in this module
    """``tf.is_tensor``: True for a tensor, eager or symbolic, and for the tensor-like values TF
    counts (``tf.Variable``, ``tf.RaggedTensor``, ``tf.sparse.SparseTensor``, subclasses of
    ``tf.__internal__.types.Tensor`` such as Keras' ``Variable``); False for NumPy
    arrays, Python values, specs and TensorArrays."""
    return (
        True if _core.is_tensor(x) else isinstance(x, (Variable, RaggedTensor, SparseTensor, _tf_types.Tensor))
    )  # `bool` is tf.bool here


dtypes = _dtypes_mod

__version__ = version.VERSION  # the TF API level (see fn/version.py)

import importlib.util as _importlib_util

from fn._public import export as _export


def __getattr__(name: str) -> "object":
    # ``fn.keras`` loads Keras on first use, as TensorFlow's lazy loader does for ``tf.keras``:
    # ``import fn`` stays fast and works without the optional keras extra.
    if name == "keras":
        import importlib

        return importlib.import_module("fn.keras")
    if name in ("metrics", "losses", "optimizers", "initializers"):  # TF 2.21's aliases of tf.keras.*
        import importlib

        return getattr(importlib.import_module("fn.keras"), name)
    if name == "__internal__":  # TF's internal namespace for Keras
        from fn._tf_compat._internal import build

        globals()["__internal__"] = build()
        return globals()["__internal__"]
    raise AttributeError(f"module 'fn' has no attribute '{name}'")


_names = _export(globals(), hide=["EagerTensor", "Function"])
if _importlib_util.find_spec("keras") is not None:  # dir(tf) lists keras (when it can be loaded)
    globals()["__all__"] = sorted(_names + ["keras"])
    _export(globals())
