// The op interface every layer names ops through: an OpDef holds the op's name, its dtype/shape
// rule (on partial shapes), its kernel and its gradient; the OpRegistry holds every OpDef. It
// sits with the graph (a Node points at its OpDef) so graph/ and trace/ never include ops/; the
// definitions themselves live in ops/ (one file per family, registered by ops/registry.cpp).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "graph/attrs.h"

namespace fn {

struct InferContext {
  const std::vector<TensorSpec>& inputs;
  const Attrs& attrs;
  // Values of inputs that are known constants while tracing (nullptr otherwise); eagerly
  // every input is known. Shape rules use them (reshape's shape, fill's dims, range's bounds).
  const std::vector<EagerPtr>& values;
  const EagerPtr& value(size_t i) const { return values[i]; }
  // What is known of small int inputs' values while tracing when not all of it is (TF's
  // constant_value_as_shape): per input, the known elements as a partial shape (-1: unknown
  // element; unknown rank: nothing known). nullptr: not tracked.
  const std::vector<Shape>* partials = nullptr;
  // Input i's value as a partial shape (a scalar as one element): exact when value(i) is
  // known, else from `partials`, else as many unknown elements as its static length.
  Shape partial_value(size_t i) const {
    if (values[i]) {
      std::vector<int64_t> v(static_cast<size_t>(values[i]->num_elements()));
      for (size_t k = 0; k < v.size(); ++k) v[k] = values[i]->scalar_as_int(static_cast<int64_t>(k));
      return Shape(v);
    }
    if (partials && i < partials->size() && (*partials)[i].has_rank()) return (*partials)[i];
    const Shape& s = inputs[i].shape;
    if (s.rank() == 0) return Shape{Shape::kUnknown};
    if (s.rank() == 1 && s[0] >= 0) return Shape(std::vector<int64_t>(s[0], Shape::kUnknown));
    return Shape::unknown_rank();
  }
};

struct KernelContext {
  const Attrs& attrs;
  const std::string& node_name;  // for error messages ("{{node add}}")
};

struct GradContext {
  const std::vector<TensorPtr>& inputs;
  const std::vector<TensorPtr>& outputs;
  const std::vector<TensorPtr>& out_grads;  // nullptr entries mean zero
  const Attrs& attrs;
};

using InferFn = std::function<std::vector<TensorSpec>(const InferContext&)>;
using KernelFn = std::function<std::vector<EagerPtr>(KernelContext&, const std::vector<EagerPtr>&)>;
// Returns one gradient per input (nullptr: no gradient), built from dispatch() calls so the
// same rule works eagerly and while tracing.
using GradFn = std::function<std::vector<TensorPtr>(const GradContext&)>;

// An index-like input (perm, axis, indices, shape, ...) and the dtypes its op accepts: checked
// before the shape rule or kernel reads it (a string perm must never be read as ints).
struct InputType {
  int input = 0;                // -1: the last input (ConcatV2's axis)
  std::string param{}, attr{};  // TF's parameter name ("perm") and type attr ("Tperm")
  std::vector<DType> allowed{};
};

// A string or type attr's allowed values (TF's `attr: {'BYTE', 'UTF8_CHAR'}`, `type: {float, ...}`):
// checked with the inputs. `extra` names types fn has no DType for (uint32), for the message.
struct AttrAllowed {
  std::string attr{};
  std::vector<std::string> values{};  // string attrs
  std::vector<DType> types{};         // type attrs
  std::vector<std::string> extra{};
};

// Control-flow ops run graphs of their own (branches, loop bodies): passes that rewrite loops
// find them by this fact, not by name.
enum class ControlFlow : uint8_t { None, Cond, Loop };

// How output elements follow from input elements, for the code that treats ops by class (ragged
// dispatch, the ONNX exporter): Unary, output element i is f(input element i); Binary, f of the two
// inputs' elements under NumPy broadcasting; Reduction, inputs (input, axis) reduced over `axis`
// (attr keep_dims).
enum class OpClass : uint8_t { Other, Unary, Binary, Reduction };

// What the elementwise fuser (passes/fuse_elementwise.cpp) may do with an op: its instruction in a
// fused program (`opcode`, a fused::OpCode of kernels/fused/elementwise.h; -1: none), or, for a
// reduction over trailing axes that may end a fused program, its fused::Reduce kind (`reduce`;
// 0: none). Set where the op is registered (ops/ sees kernels/; graph/ only stores the numbers).
struct Fusion {
  int opcode = -1;
  int reduce = 0;
};

// An op's part in a split collective, for the step schedule (exec/plan.cpp): a Start posts the
// collective (the transport runs it on its own thread) and returns a token, a Done waits for the
// collective its token names. The plan runs starts as early and dones as late as it may, so
// communication overlaps computation (CollectiveAllReduceStart/Done).
enum class Collective : uint8_t { None, Start, Done };

// The complex64/complex128 path ops/complex.cpp's with_complex gives an op whose real kernel lives in
// another family: the elementwise function (Add, Sub, Mul, Div, Neg), the magnitude (Abs), the cast
// (Cast), a fill of the input's shape (Zeros, Ones). Stated where the op is registered:
// `with_complex(OpDef{"Sub", ...}, ComplexPath::Sub)`.
enum class ComplexPath : uint8_t { None, Add, Sub, Mul, Div, Neg, Abs, Cast, Zeros, Ones };

struct OpDef {
  // Every field has an initialiser, so OpDef{name, default_name, n, infer, kernel, grad} states
  // the rest by default (no -Wmissing-field-initializers) and the with_* setters add facts.
  std::string name{};          // TensorFlow op type, e.g. "AddV2"
  std::string default_name{};  // node name TensorFlow's Python API gives it, e.g. "add"
  int num_inputs = -1;         // -1: variadic
  InferFn infer{};
  KernelFn kernel{};
  GradFn grad{};            // empty: not differentiable (gradient None)
  bool stateful = false;    // never pruned, never CSE'd, runs in program order
  bool needs_host = false;  // kernel calls back into Python (takes the GIL itself)
  // The kernel reads only its inputs' shapes (Shape, Size, Rank): while tracing, such a node's
  // value is known as soon as its inputs' shapes are static (see GraphBuilder::constant_value).
  bool shape_only = false;
  // Optional: what is known of output 0's value (a small int vector or scalar used as a shape)
  // from what is known of the inputs' (InferContext::partial_value); unknown rank: nothing.
  // Shape gives its input's partial shape; Pack, ConcatV2 and StridedSlice pass elements on.
  std::function<Shape(const InferContext&)> partial = nullptr;
  std::vector<InputType> input_types{};                      // index-like inputs' allowed dtypes
  int min_inputs = 0;                                        // variadic ops: fewer inputs is TF's error
  std::vector<std::pair<std::string, int64_t>> attr_mins{};  // int attrs' minimums (num_split >= 1)
  // TF's output argument names ("z" for AddV2): FunctionDefs name results node:arg:index.
  // Empty: one argument named "output" (TF's most common name).
  std::vector<std::string> output_args{};
  std::vector<AttrAllowed> attr_allowed{};       // string/type attrs' allowed values (StringLength's unit)
  ControlFlow control_flow = ControlFlow::None;  // If/StatelessIf: Cond; While/StatelessWhile: Loop
  OpClass op_class = OpClass::Other;
  Fusion fusion{};
  // The ONNX (opset 18) operator computing the same function of the same inputs (a Unary/Binary op
  // elementwise, a Reduction over the same axes): fn.onnx.export emits it for the op. Empty: none, or
  // the exporter's own handler.
  std::string onnx{};
  // Output 0 is input 0's elements in the same row-major order under other dims (Reshape,
  // ExpandDims, Squeeze): passes may move an elementwise tail across it.
  bool relabels_dims = false;
  // Output 0 is the node's "value" attr, known before any run (Const): passes fold into it and
  // merge such nodes by value.
  bool constant = false;
  // A value the caller feeds at run time (Placeholder): two such nodes are never the same value.
  bool graph_input = false;
  // Output 0 is input 0 broadcast (NumPy rules) to the shape input 1 names (BroadcastTo): a reader
  // may read input 0 by the broadcast rule instead of the copy (the elementwise fuser does).
  bool broadcast_view = false;
  Collective collective = Collective::None;
  ComplexPath complex = ComplexPath::None;  // set by ops/complex.cpp's with_complex

  // The facts above stated where the op is defined, before it is registered (a registered
  // OpDef is never changed): r.add(OpDef{...}.with_input_types({...}).with_min_inputs(1)).
  OpDef with_input_types(std::vector<InputType> t) && {
    input_types = std::move(t);
    return std::move(*this);
  }
  OpDef with_min_inputs(int n) && {
    min_inputs = n;
    return std::move(*this);
  }
  OpDef with_output_args(std::vector<std::string> names) && {
    output_args = std::move(names);
    return std::move(*this);
  }
  OpDef with_attr_mins(std::vector<std::pair<std::string, int64_t>> m) && {
    attr_mins = std::move(m);
    return std::move(*this);
  }
  OpDef with_attr_allowed(std::vector<AttrAllowed> a) && {
    attr_allowed = std::move(a);
    return std::move(*this);
  }
  OpDef with_control_flow(ControlFlow c) && {
    control_flow = c;
    return std::move(*this);
  }
  OpDef with_class(OpClass c, std::string onnx_op = {}) && {
    op_class = c;
    onnx = std::move(onnx_op);
    return std::move(*this);
  }
  OpDef with_onnx(std::string onnx_op) && {
    onnx = std::move(onnx_op);
    return std::move(*this);
  }
  OpDef with_fusion(int opcode) && {
    fusion.opcode = opcode;
    return std::move(*this);
  }
  OpDef with_fused_reduce(int kind) && {
    fusion.reduce = kind;
    return std::move(*this);
  }
  OpDef with_relabels_dims() && {
    relabels_dims = true;
    return std::move(*this);
  }
  OpDef with_constant() && {
    constant = true;
    return std::move(*this);
  }
  OpDef with_graph_input() && {
    graph_input = true;
    return std::move(*this);
  }
  OpDef with_broadcast_view() && {
    broadcast_view = true;
    return std::move(*this);
  }
  OpDef with_collective(Collective c) && {
    collective = c;
    return std::move(*this);
  }
};

// The op types that layers below and beside ops/ create themselves (a traced argument, a folded
// value): registered under these names by ops/array.cpp. Code that asks what a node is reads its
// definition's facts instead (OpDef::constant, OpDef::graph_input).
inline const std::string kConstOp = "Const";
inline const std::string kPlaceholderOp = "Placeholder";

// Dtype lists TF's op definitions share for index-like inputs.
inline const std::vector<DType> kIndexDTypes{DType::Int32, DType::Int64};
inline const std::vector<DType> kIndex16DTypes{DType::Int16, DType::Int32, DType::Int64};
inline const std::vector<DType> kRangeDTypes{DType::BFloat16, DType::Float16, DType::Float32, DType::Float64,
                                             DType::Int8,     DType::Int16,   DType::Int32,   DType::Int64};

// Input count, index-input dtypes and attr values of one op call: TypeError/ValueError while
// tracing (TF's op_def_library), InvalidArgument eagerly (TF's kernel attr check).
void check_op_inputs(const OpDef& op, const std::vector<DType>& dtypes, const Attrs& attrs, bool tracing);

// Every op of the process. Filled once at start-up (exec/start_up.h: the ops/ families, the
// executor's control-flow kernels, the bindings' host kernels) and read-only afterwards: global()
// hands out a const registry, so nothing can add or change an op while graphs run.
class OpRegistry {
 public:
  // The filled registry; Internal error if start_up() has not run (every entry point, the Python
  // module and the Catch2 main, calls it first).
  static const OpRegistry& global();
  // Runs `fill` on the empty registry exactly once (thread-safe; later calls do nothing) and
  // freezes it. Called by fn::start_up (exec/), which knows every layer that adds ops.
  static void start_up(const std::function<void(OpRegistry&)>& fill);

  OpDef& add(OpDef def);
  const OpDef* find(const std::string& name) const;
  const OpDef& get(const std::string& name) const;  // throws NotFound
  std::vector<std::string> names() const;
  // Start-up only: a layer above ops/ supplies the kernel of an op it runs itself (the
  // executor's If/While, the bindings' PyCall).
  void set_kernel(const std::string& name, KernelFn kernel);

 private:
  std::vector<std::unique_ptr<OpDef>> defs_;
  std::unordered_map<std::string, OpDef*> index_;  // name -> def (dispatch by name is hot)
};

}  // namespace fn
