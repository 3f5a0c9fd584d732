#include <algorithm>
#include <mutex>

#include "core/error.h"
#include "ops/families.h"
#include "ops/op.h"

namespace fn {

OpRegistry& OpRegistry::global() {
  static OpRegistry reg;
  static std::once_flag once;
  std::call_once(once, [] { register_all_ops(reg); });
  return reg;
}

OpDef& OpRegistry::add(OpDef def) {
  if (find(def.name)) throw_error(Code::AlreadyExists, "op ", def.name, " registered twice");
  if (def.default_name.empty()) def.default_name = def.name;
  defs_.push_back(std::make_unique<OpDef>(std::move(def)));
  index_[defs_.back()->name] = defs_.back().get();
  return *defs_.back();
}

const OpDef* OpRegistry::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : it->second;
}

const OpDef& OpRegistry::get(const std::string& name) const {
  const OpDef* d = find(name);
  if (!d) throw_error(Code::NotFound, "Op type not registered '", name, "'");
  return *d;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (auto& d : defs_) out.push_back(d->name);
  std::sort(out.begin(), out.end());
  return out;
}

void OpRegistry::set_kernel(const std::string& name, KernelFn kernel) {
  for (auto& d : defs_)
    if (d->name == name) { d->kernel = std::move(kernel); return; }
  throw_error(Code::NotFound, "Op type not registered '", name, "'");
}

void register_all_ops(OpRegistry& r) {
  register_array_ops(r);
  register_elementwise_ops(r);
  register_binary_ops(r);
  register_compare_ops(r);
  register_unary_ops(r);
  register_cast_ops(r);
  register_reduce_ops(r);
  register_matmul_ops(r);
  register_state_ops(r);
  register_host_ops(r);
  register_control_flow_ops(r);
  register_tensor_list_ops(r);
  register_shape_ops(r);
  register_concat_split_ops(r);
  register_gather_ops(r);
  register_slice_ops(r);
  register_sequence_ops(r);
  register_conv_ops(r);
  register_nn_ops(r);
  register_random_ops(r);
  register_scan_ops(r);
  register_sort_ops(r);
  register_permute_ops(r);
  register_special_ops(r);
  register_scatter_ops(r);
  register_linalg_ops(r);
  register_loss_ops(r);
  register_string_ops(r);
  register_complex_ops(r);   // last: extends AddV2, Sub, Mul, RealDiv, Abs
}

}  // namespace fn
