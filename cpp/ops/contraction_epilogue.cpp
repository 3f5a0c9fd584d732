#include "ops/contraction_epilogue.h"

#include "core/error.h"
#include "kernels/fused/blocks.h"

namespace fn {

namespace {

Activation activation_of(const Attrs& a) {
  const std::string& s = a.get_or("activation", std::string());
  if (s.empty()) return Activation::None;
  if (s == "Relu") return Activation::Relu;
  if (s == "Relu6") return Activation::Relu6;
  throw_error(Code::Internal, "unknown fused activation ", s);
}

}  // namespace

Epilogue epilogue_of(const std::string& op, const Attrs& attrs, const std::vector<EagerPtr>& in, const Shape& out) {
  bool bias = attrs.get_or("bias", true);
  size_t res = bias ? 3 : 2;
  if (in.size() < res || in.size() > res + 1) throw_error(Code::Internal, op, ": wrong number of inputs");
  for (const auto& t : in)
    if (t->dtype() != DType::Float32) throw_error(Code::Internal, op, " runs on float32 only");
  int64_t channels = out.rank() > 0 ? out[out.rank() - 1] : 0;
  if (bias && in[2]->num_elements() != channels)
    throw_error(Code::Internal, op, ": bias of shape ", in[2]->shape().to_string(), " for output ", out.to_string());
  if (in.size() > res && !(in[res]->shape() == out))
    throw_error(Code::Internal, op, ": residual of shape ", in[res]->shape().to_string(), " for output ",
                out.to_string());
  Epilogue e;
  e.bias = bias ? in[2]->data<float>() : nullptr;
  e.residual = in.size() > res ? in[res]->data<float>() : nullptr;
  e.act = activation_of(attrs);
  return e;
}

size_t epilogue_inputs(const std::string& op, const Attrs& a, size_t num_inputs) {
  if (!a.has("epilogue_program")) return 0;
  int64_t extra = a.get<int64_t>("epilogue_inputs");
  if (extra < 0 || static_cast<size_t>(extra) + 2 > num_inputs) throw_error(Code::Internal, op, ": malformed epilogue");
  return static_cast<size_t>(extra);
}

std::vector<EagerPtr> contraction_inputs(const std::vector<EagerPtr>& in, size_t extra) {
  return std::vector<EagerPtr>(in.begin(), in.end() - static_cast<std::ptrdiff_t>(extra));
}

EpilogueProgram::EpilogueProgram(const std::string& op, const Attrs& a, const std::vector<EagerPtr>& in, size_t extra,
                                 int64_t n)
    : n_(n) {
  const auto& prog = a.get<std::vector<int64_t>>("epilogue_program");
  const auto& bcast = a.get<std::vector<int64_t>>("epilogue_bcast");
  slot_ = a.get<int64_t>("epilogue_slot");
  if (prog.size() % 3 != 0 || bcast.size() != 2 * (extra + 1) || slot_ < 0 || slot_ > static_cast<int64_t>(extra) ||
      bcast[2 * slot_] != 1 || bcast[2 * slot_ + 1] != n)
    throw_error(Code::Internal, op, ": malformed epilogue");
  ops_.resize(extra + 1);
  size_t next = in.size() - extra;
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (static_cast<int64_t>(i) == slot_) {
      ops_[i] = fused::Operand{nullptr, 1, n};
      continue;
    }
    const EagerPtr& t = in[next++];
    // The plan was made for these shapes: a mismatch is a bug, never a wrong read.
    if (t->dtype() != DType::Float32 || t->num_elements() != bcast[2 * i + 1] || bcast[2 * i] < 1)
      throw_error(Code::Internal, op, ": epilogue input of shape ", t->shape().to_string(), ", not the traced one");
    ops_[i] = fused::Operand{t->data<float>(), bcast[2 * i], bcast[2 * i + 1]};
  }
  instrs_.resize(prog.size() / 3);
  for (size_t i = 0; i < instrs_.size(); ++i) {
    instrs_[i] = fused::Instr{static_cast<int>(prog[3 * i]), static_cast<int>(prog[3 * i + 1]),
                              static_cast<int>(prog[3 * i + 2])};
    const fused::Instr& in_ = instrs_[i];
    if (in_.op == fused::kPow && in_.b >= 0 && static_cast<size_t>(in_.b) < ops_.size() &&
        ops_[static_cast<size_t>(in_.b)].mod > 1)
      broadcast_pow_ = true;
  }
  fused::validate(instrs_, ops_.size());
}

void EpilogueProgram::run_whole(float* out) const {
  std::vector<fused::Operand> ops = ops_;
  ops[static_cast<size_t>(slot_)].data = out;
  // An epilogue over a big output (a conv layer's activations, a gelu over a wide product) runs as
  // blocks on the task pool, not on the calling thread alone while the other cores idle: the
  // contraction has already released its team (kernels/fused/blocks.h: same bits on any count).
  fused::run_blocks(instrs_, ops, out, n_);
}

// As kernels/fused/blocks.cpp re-bases an operand to a block: element i0 + j of the whole is
// element j of the result.
bool EpilogueProgram::rebase(const fused::Operand& o, int64_t i0, int64_t len, fused::Operand* r) const {
  *r = o;
  r->tiled = nullptr;
  if (o.mod == 1) return true;
  if (i0 % o.div != 0) return false;
  const int64_t at = (i0 / o.div) % o.mod;
  if (at == 0) return true;  // a period's start: the same (div, mod) rule
  const int64_t last = (len - 1) / o.div;
  if (at + last >= o.mod || o.mod - at < 2) return false;  // wraps inside, or turns into one value
  r->data = o.data + at;
  r->mod = o.mod - at;
  return true;
}

bool EpilogueProgram::runs_range(int64_t i0, int64_t len) const {
  if (broadcast_pow_ || i0 < 0 || len <= 0 || i0 + len > n_) return false;
  fused::Operand scratch;
  for (size_t i = 0; i < ops_.size(); ++i)
    if (static_cast<int64_t>(i) != slot_ && !rebase(ops_[i], i0, len, &scratch)) return false;
  return true;
}

void EpilogueProgram::run_range(int64_t i0, int64_t len, float* at) const {
  std::vector<fused::Operand> ops(ops_.size());
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (static_cast<int64_t>(i) == slot_) {
      ops[i] = fused::Operand{at, 1, len};
    } else if (!rebase(ops_[i], i0, len, &ops[i])) {
      throw_error(Code::Internal, "epilogue: a range that cannot be re-based");
    }
  }
  fused::run(instrs_, ops, at, len);
}

}  // namespace fn
