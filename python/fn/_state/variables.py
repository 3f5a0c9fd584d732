"""``fn.Variable`` (``tf.Variable``) and ``fn.init_scope``, with tf.function's variable rules:
variables are captured by reference, and a Function may create them only on its first trace."""

from __future__ import annotations

import functools

import contextlib
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional

from fn import _core
from fn._autodiff import tape as _tape
from fn._function.name_scope import current_scope
from fn._ops.array_ops import convert_to_tensor
from fn.dtypes import as_dtype
from fn._tensor.tensor_shape import TensorShape
from fn._ops import array_ops as A
from fn._ops.manip_ops import broadcast_to, tensor_scatter_nd_update
from fn._tensor.tensor import Reference
from fn._runtime.device import CPU_DEVICE, device as _device_scope, device_scope_open
from fn._tensor.tensor import _numpy_text
from fn._tf_compat._variable_enums import VariableAggregation
from fn._tf_compat._variable_enums import VariableSynchronization
from fn._ops.array_ops import expand_dims

_SINGLETON_MESSAGE = (
    "fn.function only supports singleton fn.Variables created on the first call. Make sure the "
    "fn.Variable is only created once or created outside fn.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."
)

_local = threading.local()

# Called with each new Variable (fn._distribute records the strategy whose scope created it and,
# across workers, makes every worker start from the chief's initial value).
_creation_hooks: List[Callable[["Variable"], None]] = []


def _policies() -> List["_CreationPolicy"]:
    if not hasattr(_local, "policies"):
        _local.policies = []
    return _local.policies


class _CreationPolicy:
    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed
        self.created: List["Variable"] = []
        self.message = ""
        # Set by Function._trace: computes a graph tensor's value from the call's arguments, so
        # an initial value made from them (`fn.Variable(fn.ones_like(x))`) is known on the first call.
        self.evaluate: Optional[Callable[[Any], Any]] = None


@contextlib.contextmanager
def _creation_scope(function: Any, evaluate: Optional[Callable[[Any], Any]] = None) -> Iterator[List["Variable"]]:
    """Entered by Function._trace: creation is allowed only while tracing for the first time."""
    policy = _CreationPolicy(allowed=not getattr(function, "_first_trace_done", False))
    # TF's two messages: variables made again by a Function whose first call made some
    # (singleton), or made by a later call of one whose first call made none.
    policy.message = (
        _SINGLETON_MESSAGE
        if getattr(function, "_first_trace_created", True)
        else "Creating variables on a non-first call to a function decorated with tf.function."
    )
    policy.evaluate = evaluate
    _policies().append(policy)
    try:
        yield policy.created
    finally:
        _policies().pop()


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """``tf.init_scope``: run the enclosed code eagerly, outside any graph being traced."""
    with _core.ContextScope(None):
        yield


def _creators() -> List[Callable[..., Any]]:
    if not hasattr(_local, "creators"):
        _local.creators = []
    return _local.creators


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Callable[..., Any]) -> Iterator[None]:
    """``tf.variable_creator_scope``: while active, ``tf.Variable(...)`` calls
    ``variable_creator(next_creator, **kwargs)``, which makes the variable by calling
    ``next_creator(**kwargs)`` (possibly with changed kwargs). Scopes nest, the innermost first;
    they apply inside tf.functions traced while they are active."""
    stack = _creators()
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.remove(variable_creator)


_CREATOR_ARGS = (
    "initial_value",
    "trainable",
    "validate_shape",
    "caching_device",
    "name",
    "variable_def",
    "dtype",
    "import_scope",
    "constraint",
    "synchronization",
    "aggregation",
    "shape",
    "experimental_enable_variable_lifting",
)


class _VariableMeta(type):
    """``tf.Variable(...)`` goes through the active variable creator scopes (TF's
    VariableMetaclass); subclasses are constructed directly."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        creators = list(_creators()) if cls is Variable else []
        if not creators:
            return super().__call__(*args, **kwargs)
        if len(args) > len(_CREATOR_ARGS):
            raise TypeError(f"Variable takes at most {len(_CREATOR_ARGS)} positional arguments")
        full: Dict[str, Any] = {k: None for k in _CREATOR_ARGS}
        full["validate_shape"] = True
        for k, v in zip(_CREATOR_ARGS, args):
            if k in kwargs:
                raise TypeError(f"Variable got multiple values for argument '{k}'")
            kwargs[k] = v
        full.update(kwargs)

        def make(previous: Callable[..., Any], creator: Callable[..., Any]) -> Callable[..., Any]:
            return lambda **kw: creator(previous, **kw)

        create: Callable[..., Any] = lambda **kw: type.__call__(Variable, **kw)  # noqa: E731
        for creator in creators:  # outermost first, so the innermost scope runs first
            create = make(create, creator)
        return create(**full)


class Variable(metaclass=_VariableMeta):
    """A mutable tensor backed by a resource (``tf.Variable``). Functions capture it by reference:
    reads inside a graph see assignments made outside, and assignments run on every call."""

    __array_priority__ = 100
    _distribute_strategy: Any = None  # the tf.distribute strategy whose scope created it

    def __new__(cls, *args: Any, **kwargs: Any) -> "Variable":
        # As in TF, fn.Variable(...) makes a ResourceVariable (type(v).__name__ says so).
        return object.__new__(ResourceVariable if cls is Variable else cls)

    def __init__(
        self,
        initial_value: Any = None,
        trainable: Optional[bool] = None,
        validate_shape: bool = True,
        name: Optional[str] = None,
        dtype: Any = None,
        shape: Any = None,
        **unused: Any,
    ) -> None:
        if initial_value is None:
            raise ValueError(
                "The `initial_value` arg to `tf.Variable` must be specified except when you "
                "are not providing a `variable_def`. You provided neither."
            )
        scope_prefix = current_scope()  # the caller's name scope, before init_scope leaves it
        policies = _policies()
        if not _core.executing_eagerly() and policies:
            if not policies[-1].allowed:
                raise ValueError(getattr(policies[-1], "message", _SINGLETON_MESSAGE))
        with init_scope():  # variables live outside graphs (TF lifts their creation out)
            if callable(initial_value):
                initial_value = initial_value()
            if _core.is_tensor(initial_value) and not initial_value._is_eager and policies and policies[-1].evaluate:
                initial_value = policies[-1].evaluate(initial_value)
            if _core.is_tensor(initial_value) and not initial_value._is_eager:
                raise ValueError(
                    "A fn.Variable's initial value cannot depend on a graph tensor of the "
                    "Function being traced; pass a value computable outside the Function."
                )
            value = convert_to_tensor(initial_value, dtype)
            if not value._is_eager:
                raise ValueError("A fn.Variable's initial value must be computable eagerly.")
        self._shape = TensorShape(shape) if shape is not None else value.shape
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(
                f"The initial value's shape ({value.shape}) is not compatible with the explicitly "
                f"supplied `shape` argument ({self._shape})."
            )
        self._constraint = unused.get("constraint")
        self._aggregation = unused.get("aggregation")
        self._synchronization = unused.get("synchronization")
        if trainable is None:
            # TF: a variable synchronized on read (a metric's state) is not trainable by default.
            trainable = self._synchronization is None or self.synchronization.name != "ON_READ"
        self._trainable = bool(trainable)
        self._given_name = name
        self._name = scope_prefix + (name or "Variable") + ":0"
        self._handle = _core.create_variable(value, self._trainable, self._name)
        self._dtype = value.dtype
        self._id = _core.variable_info(self._handle)[0]
        _tape._register_variable(self)  # lets GradientTape.watched_variables() find it
        if policies and not _core.executing_eagerly() or (policies and policies[-1].allowed):
            policies[-1].created.append(self)
        for hook in _creation_hooks:
            hook(self)

    # -- identity and metadata
    @property
    def handle(self) -> Any:
        return self._handle

    @property
    def _fn_handle(self) -> Any:
        return self._handle

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def name(self) -> str:
        return self._name

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def get_shape(self) -> TensorShape:
        return self._shape

    def ref(self) -> Any:
        return Reference(self)

    # TF 2: == and != are elementwise on the values, for variables too (no identity comparison).
    def __eq__(self, other: Any) -> Any:  # a bool tensor, as TF's
        return self.read_value() == other

    def __ne__(self, other: Any) -> Any:
        return self.read_value() != other

    def __getitem__(self, slice_spec: Any) -> Any:
        return _variable_getitem(self, slice_spec)

    def __hash__(self) -> int:
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})")

    @property
    def aggregation(self) -> Any:
        """``Variable.aggregation`` (``tf.VariableAggregation``; NONE unless given)."""

        return VariableAggregation(self._aggregation or VariableAggregation.NONE)

    @property
    def synchronization(self) -> Any:
        """``Variable.synchronization`` (``tf.VariableSynchronization``; AUTO unless given)."""

        return VariableSynchronization(self._synchronization or VariableSynchronization.AUTO)

    @property
    def constraint(self) -> Any:
        """``Variable.constraint``: the projection function given at creation, or None."""
        return self._constraint

    @property
    def _unique_id(self) -> str:
        # TF's per-process unique key of a variable (optimizers key their slots by it).
        return f"{self._name.split(':')[0]}_{self._id}"

    @property
    def _shared_name(self) -> str:
        return self._name.split(":")[0]

    def _scatter(self, op: str, sparse_delta: Any) -> Any:
        from fn._ops.manip_ops import tensor_scatter_nd_add, tensor_scatter_nd_sub, tensor_scatter_nd_update

        scatter = {"add": tensor_scatter_nd_add, "sub": tensor_scatter_nd_sub, "update": tensor_scatter_nd_update}[op]
        indices = expand_dims(sparse_delta.indices, -1)
        return self.assign(scatter(self.read_value(), indices, sparse_delta.values))

    def scatter_add(self, sparse_delta: Any, use_locking: Any = None, name: Any = None) -> Any:
        """``Variable.scatter_add``: adds an ``IndexedSlices`` to the rows it names."""
        return self._scatter("add", sparse_delta)

    def scatter_sub(self, sparse_delta: Any, use_locking: Any = None, name: Any = None) -> Any:
        """``Variable.scatter_sub``."""
        return self._scatter("sub", sparse_delta)

    def scatter_update(self, sparse_delta: Any, use_locking: Any = None, name: Any = None) -> Any:
        """``Variable.scatter_update``: sets the rows an ``IndexedSlices`` names."""
        return self._scatter("update", sparse_delta)

    @property
    def device(self) -> str:
        """``Variable.device``: fn keeps every variable on the CPU."""

        return CPU_DEVICE

    _fn_variable = True  # a Function input: its handle is passed at call time (trace type below)
    # A class whose accesses trace differently (a distributed variable: its replica-context
    # updates are all-reduced) is part of the trace type, as TF's DistributedVariableTraceType
    # is not a VariableSpec: a trace made for a plain variable never serves it, nor the reverse.
    _fn_trace_class = False

    def _trace_kind(self) -> Optional[type]:
        return type(self) if type(self)._fn_trace_class else None

    def __tf_tracing_type__(self, context: Any) -> Any:
        return _VariableType(self._dtype, self._shape, self._trainable, kind=self._trace_kind())

    def _fn_aliased_tracing_type(self, alias_id: int) -> Any:
        # The cache key's type: also which distinct variable of the call this is (alias_id).
        return _VariableType(self._dtype, self._shape, self._trainable, alias_id, self._trace_kind())

    # -- reading
    def read_value(self) -> Any:
        """The current value (a ReadVariableOp node when traced)."""
        if self._trainable and not _core.executing_eagerly():
            _core.notify_variable_accessed(self._handle)  # eagerly the read kernel does this
        return _core.execute("ReadVariableOp", [self._handle], {"dtype": self._dtype, "shape": self._shape}, None)[0]

    def value(self) -> Any:
        """The current value; while tracing, read with no requested device (TF reads it
        colocated with the variable's handle, outside every ``tf.device`` scope)."""
        if _core.executing_eagerly() or not device_scope_open():
            return self.read_value()
        with _device_scope(None):
            return self.read_value()

    def __fn_tensor__(self, dtype: Any = None) -> Any:
        v = self.value()  # TF's _dense_var_to_tensor
        if dtype is not None and as_dtype(dtype) != self._dtype:
            raise ValueError(
                f"Incompatible type conversion requested to type {as_dtype(dtype).name} for "
                f"`fn.Variable of type {self._dtype.name}. (Variable: {self!r})"
            )
        return v

    def numpy(self) -> Any:
        if not _core.executing_eagerly():
            raise NotImplementedError("numpy() is only available when eager execution is enabled.")
        return self.read_value().numpy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        return np.asarray(self.numpy(), dtype=dtype)

    # -- writing
    def _assign(self, op: str, value: Any, read_value: bool) -> Any:
        value = _core.convert_to_tensor(value, self._dtype, None)  # TF's conversion errors
        if value.dtype != self._dtype:
            raise TypeError(
                f"Cannot assign a {value.dtype.name} value to a {self._dtype.name} variable ({self._name})."
            )
        if op == "AssignVariableOp" and not value.shape.is_compatible_with(self._shape):
            raise ValueError(
                f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable "
                f"shape {self._shape}, and the assigned value shape {value.shape} are incompatible."
            )
        _core.execute(op, [self._handle, value], None, None)
        if not read_value:
            return None
        unread = _UnreadVariable(self)
        if not _core.executing_eagerly():  # its `op` is the assignment (tf.control_dependencies)
            graph = _core.current_graph()
            unread._assign_node = (graph, graph.num_nodes() - 1)
        return unread

    def assign(self, value: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        """Sets the value; returns the variable, as TF's ``_UnreadVariable`` (reads see the new
        value), or None with ``read_value=False``."""
        return self._assign("AssignVariableOp", value, read_value)

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        return self._assign("AssignAddVariableOp", delta, read_value)

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        return self._assign("AssignSubVariableOp", delta, read_value)

    # -- printing
    def __repr__(self) -> str:
        if _core.executing_eagerly():
            return "<fn.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (
                self.name,
                self._shape,
                self._dtype.name,
                _numpy_text(self.read_value(), True),
            )
        return "<fn.Variable '%s' shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)

    def __str__(self) -> str:
        return self.__repr__()

    def __bool__(self) -> bool:
        return bool(self.read_value())

    def __int__(self) -> int:
        return int(self.read_value())

    def __float__(self) -> float:
        return float(self.read_value())

    def __index__(self) -> int:
        return self.read_value().__index__()

    def __len__(self) -> int:
        # TF's variables define no __len__ (use v.shape[0]).
        raise TypeError(f"object of type '{type(self).__name__}' has no len()")

    def __iter__(self) -> Iterator[Any]:
        return iter(self.read_value())


def _forward(name: str) -> Callable:
    def op(self: Variable, *args: Any) -> Any:
        return getattr(self.read_value(), name)(*args)

    op.__name__ = name
    return op


for _name in [
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__pow__",
    "__rpow__",
    "__matmul__",
    "__rmatmul__",
    "__neg__",
    "__abs__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__xor__",
    "__rxor__",
    "__invert__",
]:
    setattr(Variable, _name, _forward(_name))


def _assign_slice(var: Variable, slice_spec: Any, value: Any, name: Any = None) -> Any:
    """``v[spec].assign(value)`` (TF's ``strided_slice_assign``): the sliced elements take ``value``
    (broadcast to the slice's shape); returns the variable, as ``assign`` does."""

    shape = A.shape(var.read_value())
    positions = A.reshape(A.range(A.size(var.read_value())), shape)[slice_spec]
    value = broadcast_to(convert_to_tensor(value, var.dtype), A.shape(positions))
    flat = tensor_scatter_nd_update(
        A.reshape(var.read_value(), [-1]), A.reshape(positions, [-1, 1]), A.reshape(value, [-1])
    )
    return var.assign(A.reshape(flat, shape))


def _variable_getitem(self: Variable, slice_spec: Any) -> Any:
    """``v[spec]``: the sliced value, with TF's ``.assign`` writing the slice back into ``v``."""
    out = self.read_value()[slice_spec]
    out.assign = functools.partial(_assign_slice, self, slice_spec)
    return out


class ResourceVariable(Variable):
    """The class of the variables ``fn.Variable`` makes (TF's ``ResourceVariable``)."""


class _UnreadVariable(ResourceVariable):
    """What ``assign*`` returns (TF's ``_UnreadVariable``): the same variable (same handle and
    state), named ``UnreadVariable``; using it reads the value after the assignment."""

    def __init__(self, parent: Variable) -> None:  # no super().__init__: shares the parent's state
        self.__dict__.update(parent.__dict__)

    _assign_node: Any = None

    @property
    def name(self) -> str:
        return "UnreadVariable"

    @property
    def op(self) -> Any:
        """The assignment's Operation inside a Function (TF's ``_UnreadVariable.op``)."""
        if self._assign_node is None:
            raise AttributeError("Tensor.op is undefined when eager execution is enabled.")
        from fn._function.operation import Operation

        return Operation(*self._assign_node)


class _VariableType:
    """Trace type of a Variable argument: dtype, shape and trainability (TF's VariableSpec). Its
    handle is an input of the traced graph, so another Variable of that type reuses the trace."""

    __slots__ = ("dtype", "shape", "trainable", "alias_id", "kind")

    def __init__(
        self, dtype: Any, shape: Any, trainable: bool, alias_id: Optional[int] = None, kind: Optional[type] = None
    ) -> None:
        self.dtype, self.shape, self.trainable, self.alias_id = dtype, shape, trainable, alias_id
        self.kind = kind  # a distributed variable's class (Variable._fn_trace_class), else None

    def is_subtype_of(self, other: Any) -> bool:
        return self == other

    def most_specific_common_supertype(self, others: Any) -> Any:
        return self if all(self == o for o in others) else None

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, _VariableType)
            and self.dtype == other.dtype
            and self.shape == other.shape
            and self.trainable == other.trainable
            and self.alias_id == other.alias_id
            and self.kind is other.kind
        )

    def __hash__(self) -> int:
        return hash((self.dtype, self.shape, self.trainable, self.alias_id, self.kind))

    def __repr__(self) -> str:
        alias = "" if self.alias_id is None else f", alias_id={self.alias_id}"
        kind = "" if self.kind is None else f", class={self.kind.__name__}"
        return f"VariableSpec(shape={self.shape}, dtype={self.dtype!r}, trainable={self.trainable}{alias}{kind})"
