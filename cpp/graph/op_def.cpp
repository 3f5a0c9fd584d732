#include "graph/op_def.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "core/error.h"

namespace fn {

namespace {

OpRegistry& instance() {
  static OpRegistry reg;
  return reg;
}

std::atomic<bool> g_started{false};

// Python dtype names while tracing (op_def_library), TF's DataTypeString eagerly ("float").
std::string type_list(const std::vector<DType>& ds, bool tracing) {
  std::string s;
  for (size_t i = 0; i < ds.size(); ++i)
    s += (i ? ", " : "") + std::string(tracing ? dtype_name(ds[i]) : tf_type_string(ds[i]));
  return s;
}

}  // namespace

const OpRegistry& OpRegistry::global() {
  if (!g_started.load(std::memory_order_acquire))
    throw_error(Code::Internal, "the op registry was used before fn::start_up() filled it");
  return instance();
}

void OpRegistry::start_up(const std::function<void(OpRegistry&)>& fill) {
  static std::once_flag once;
  std::call_once(once, [&] {
    fill(instance());
    g_started.store(true, std::memory_order_release);
  });
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
    if (d->name == name) {
      d->kernel = std::move(kernel);
      return;
    }
  throw_error(Code::NotFound, "Op type not registered '", name, "'");
}

namespace {

// An attr outside its allowed values: op_def_library's ValueError (strings) or TypeError (types)
// while tracing, the kernel's InvalidArgument eagerly.
void check_attr_allowed(const OpDef& op, const AttrAllowed& a, const Attrs& attrs, bool tracing) {
  const AttrValue* v = attrs.find(a.attr);
  if (!v) return;
  if (const std::string* s = std::get_if<std::string>(v)) {
    if (a.values.empty() || std::find(a.values.begin(), a.values.end(), *s) != a.values.end()) return;
    std::string list;
    for (const std::string& x : a.values) list += (list.empty() ? "\"" : ", \"") + x + "\"";
    if (tracing)
      throw_error(Code::ValueError, "Attr '", a.attr, "' of '", op.name, "' Op passed string '", *s, "' not in: ", list,
                  ".");
    throw_error(Code::InvalidArgument, "Value for attr '", a.attr, "' of \"", *s,
                "\" is not in the list of allowed values: ", list, "\n\t; NodeDef: {{node ", op.name, "}}");
  }
  if (const DType* d = std::get_if<DType>(v)) {
    if (a.types.empty() || std::find(a.types.begin(), a.types.end(), *d) != a.types.end()) return;
    std::string list = type_list(a.types, tracing);
    for (const std::string& x : a.extra) list += ", " + x;
    if (tracing)
      throw_error(Code::TypeError, "Value passed to parameter '", a.attr, "' has DataType ", dtype_name(*d),
                  " not in list of allowed values: ", list);
    throw_error(Code::InvalidArgument, "Value for attr '", a.attr, "' of ", tf_type_string(*d),
                " is not in the list of allowed values: ", list, "\n\t; NodeDef: {{node ", op.name, "}}");
  }
}

}  // namespace

void check_op_inputs(const OpDef& op, const std::vector<DType>& dtypes, const Attrs& attrs, bool tracing) {
  for (const AttrAllowed& a : op.attr_allowed) check_attr_allowed(op, a, attrs, tracing);
  for (const auto& m : op.attr_mins) {
    const AttrValue* v = attrs.find(m.first);
    const int64_t* x = v ? std::get_if<int64_t>(v) : nullptr;
    if (!x || *x >= m.second) continue;
    if (tracing)
      throw_error(Code::ValueError, "Attr '", m.first, "' of '", op.name, "' Op passed ", *x, " less than minimum ",
                  m.second, ".");
    throw_error(Code::InvalidArgument, "Value for attr '", m.first, "' of ", *x, " must be at least minimum ", m.second,
                "\n\t; NodeDef: {{node ", op.name, "}}");
  }
  int n = static_cast<int>(dtypes.size());
  if ((op.num_inputs >= 0 && n != op.num_inputs) || n < op.min_inputs) {
    if (op.num_inputs < 0) {  // variadic: TF counts the list argument alone (ConcatV2 has an axis too)
      int extra = op.name == "ConcatV2" ? 1 : 0;
      throw_error(tracing ? Code::ValueError : Code::InvalidArgument, "List argument '",
                  op.name == "AddN" ? "inputs" : "values", "' to '", op.name, "' Op with length ", n - extra,
                  " shorter than minimum length ", op.min_inputs - extra, ".");
    }
    throw_error(tracing ? Code::ValueError : Code::InvalidArgument, "Op ", op.name, " takes ", op.num_inputs,
                " inputs, got ", n);
  }
  for (const InputType& t : op.input_types) {
    int i = t.input < 0 ? n - 1 : t.input;
    if (i < 0 || i >= n) continue;
    DType d = dtypes[static_cast<size_t>(i)];
    if (std::find(t.allowed.begin(), t.allowed.end(), d) != t.allowed.end()) continue;
    if (tracing)
      throw_error(Code::TypeError, "Value passed to parameter '", t.param, "' has DataType ", dtype_name(d),
                  " not in list of allowed values: ", type_list(t.allowed, true));
    throw_error(Code::InvalidArgument, "Value for attr '", t.attr, "' of ", tf_type_string(d),
                " is not in the list of allowed values: ", type_list(t.allowed, false), "\n\t; NodeDef: {{node ",
                op.name, "}}");
  }
}

}  // namespace fn
