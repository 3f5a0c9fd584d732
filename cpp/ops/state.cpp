// Variable ops: VarHandleOp-free (handles are made eagerly), ReadVariableOp, AssignVariableOp,
// AssignAddVariableOp, AssignSubVariableOp.
#include "ops/state.h"

#include "core/buffer_pool.h"
#include "core/error.h"
#include "ops/families.h"
#include "ops/op.h"
#include "trace/context.h"
#include "trace/tape.h"

namespace fn {

namespace {
std::atomic<int64_t> next_variable_id{1};
}

VariableState::VariableState(EagerPtr value, bool trainable, std::string name)
    : value_(std::move(value)),
      dtype_(value_->dtype()),
      shape_(value_->shape()),
      trainable_(trainable),
      id_(next_variable_id++),
      name_(std::move(name)) {}

EagerPtr VariableState::read() const {
  std::lock_guard<std::mutex> lock(mu_);
  return value_;
}

void VariableState::assign(EagerPtr value) {
  if (value->dtype() != dtype_)
    throw_error(Code::InvalidArgument, "Trying to assign a ", dtype_name(value->dtype()), " value to variable '", name_,
                "' of dtype ", dtype_name(dtype_));
  if (value->shape() != shape_)
    throw_error(Code::InvalidArgument, "Trying to assign to variable with tensor with wrong shape. Expected ",
                shape_.to_string(), " got ", value->shape().to_string());
  std::lock_guard<std::mutex> lock(mu_);
  value_ = std::move(value);
}

EagerPtr make_variable_handle(std::shared_ptr<VariableState> state) {
  void* raw = state.get();
  auto buf = Buffer::wrap(raw, 0, std::shared_ptr<void>(std::move(state)));
  return std::make_shared<EagerTensor>(DType::Resource, Shape{}, std::move(buf));
}

VariableState& variable_state(const EagerTensor& handle) {
  if (handle.dtype() != DType::Resource || !handle.raw())
    throw_error(Code::InvalidArgument, "expected a variable handle, got a ", dtype_name(handle.dtype()), " tensor");
  return *static_cast<VariableState*>(const_cast<void*>(handle.raw()));
}

namespace {

// Shape rules see only the handle; its dtype/shape come from attrs recorded at trace time.
std::vector<TensorSpec> read_infer(const InferContext& c) {
  return one(c.attrs.get<DType>("dtype"), c.attrs.get_or<Shape>("shape", Shape::unknown_rank()));
}

std::vector<EagerPtr> read_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  VariableState& v = variable_state(*in[0]);
  // Tapes watch trainable variables as they are read (watch_accessed_variables).
  if (v.trainable() && !active_tapes().empty()) notify_variable_accessed(in[0]);
  // Each read is a tensor of its own (as in TF): tapes key gradients by tensor identity, and
  // two reads returning the stored object would look like one op output produced twice.
  EagerPtr value = v.read();
  return {reshaped(value, value->shape())};
}

KernelFn assign_kernel(const std::string& op, int sign) {
  return [op, sign](KernelContext&, const std::vector<EagerPtr>& in) {
    VariableState& v = variable_state(*in[0]);
    std::lock_guard<std::mutex> update(v.update_mutex());
    if (sign == 0) {
      EagerPtr old = v.read();
      v.assign(in[1]);
      // As for the updates below: the replaced value's storage serves a later output of the run
      // (passes/split_assign_update.cpp turns a training step's assign_sub into this op).
      if (BufferPool* pool = current_buffer_pool(); pool && old != in[1]) pool->recycle(old);
    } else {
      EagerPtr cur = v.read();
      EagerPtr delta = in[1];
      if (delta->dtype() != cur->dtype())
        throw_error(Code::InvalidArgument, "cannot compute ", op, " as input #1(zero-based) was expected to be a ",
                    dtype_name(cur->dtype()), " tensor but is a ", dtype_name(delta->dtype()), " tensor");
      if (delta->shape() != cur->shape()) {
        // TF's kernel refuses to broadcast an update (the message names shapes as [2]).
        auto dims = [](const Shape& s) {
          std::string t = "[";
          for (int i = 0; i < s.rank(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
          return t + "]";
        };
        throw_error(Code::InvalidArgument, "Cannot update variable with shape ", dims(cur->shape()),
                    " using a Tensor with shape ", dims(delta->shape()), ", shapes must be equal.");
      }
      const OpDef& math = OpRegistry::global().get(sign > 0 ? "AddV2" : "Sub");
      auto out = run_kernel(math, {cur, delta}, Attrs{}, op);
      v.assign(out[0]);
      // Inside a plan run the old value's storage (if no reader still holds it) serves the
      // next output instead of being freed: a training step's updates allocate nothing.
      if (BufferPool* pool = current_buffer_pool()) pool->recycle(cur);
    }
    return std::vector<EagerPtr>{};
  };
}

}  // namespace

void register_state_ops(OpRegistry& r) {
  // Stateful: a read must see the assignments made before it in program order, so two reads
  // of one variable are never merged (CSE) or reordered around an assignment.
  OpDef read{
      kReadVariableOp, kReadVariableOp, 1,
      read_infer,      read_kernel,     [](const GradContext& g) { return std::vector<TensorPtr>{g.out_grads[0]}; }};
  read.stateful = true;
  read.output_args = {"value"};
  r.add(std::move(read));
  for (auto [name, sign] :
       {std::pair<const char*, int>{"AssignVariableOp", 0}, {"AssignAddVariableOp", 1}, {"AssignSubVariableOp", -1}}) {
    OpDef d{name, name, 2, [](const InferContext&) { return std::vector<TensorSpec>{}; }, assign_kernel(name, sign),
            {}};
    d.stateful = true;
    r.add(std::move(d));
  }
}

}  // namespace fn
