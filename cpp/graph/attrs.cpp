#include "graph/attrs.h"

#include <sstream>

#include "graph/graph.h"

namespace fn {

namespace {
struct Printer {
  std::string operator()(std::monostate) const { return "None"; }
  std::string operator()(int64_t v) const { return std::to_string(v); }
  std::string operator()(double v) const {
    std::ostringstream o;
    o << v;
    return o.str();
  }
  std::string operator()(bool v) const { return v ? "True" : "False"; }
  std::string operator()(const std::string& v) const { return "'" + v + "'"; }
  std::string operator()(DType v) const { return dtype_name(v); }
  std::string operator()(const Shape& v) const { return v.to_string(); }
  std::string operator()(const std::vector<int64_t>& v) const {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  }
  std::string operator()(const std::vector<DType>& v) const {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += std::string(i ? ", " : "") + dtype_name(v[i]);
    return s + "]";
  }
  std::string operator()(const std::vector<Shape>& v) const {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].to_string();
    return s + "]";
  }
  std::string operator()(const std::shared_ptr<Graph>& g) const {
    return g ? "<graph " + g->name() + ">" : "<null graph>";
  }
  std::string operator()(const EagerPtr& t) const {
    if (!t) return "<null>";
    if (t->num_elements() == 1 && is_pod(t->dtype())) {
      std::ostringstream o;
      o << t->scalar_as_double();
      return o.str();
    }
    return std::string("<") + dtype_name(t->dtype()) + t->shape().to_string() + ">";
  }
  std::string operator()(const std::shared_ptr<HostObject>&) const { return "<host object>"; }
};
}  // namespace

std::string attr_to_string(const AttrValue& v) { return std::visit(Printer{}, v); }

bool Attrs::operator==(const Attrs& o) const {
  if (items_.size() != o.items_.size()) return false;
  for (size_t i = 0; i < items_.size(); ++i) {
    if (items_[i].first != o.items_[i].first) return false;
    const AttrValue &a = items_[i].second, &b = o.items_[i].second;
    if (a.index() != b.index()) return false;
    if (auto* ta = std::get_if<EagerPtr>(&a)) {
      if (ta->get() != std::get<EagerPtr>(b).get()) return false;
    } else if (!(a == b)) {
      return false;
    }
  }
  return true;
}

size_t Attrs::hash() const {
  size_t h = items_.size();
  for (auto& kv : items_) {
    h = h * 31 + std::hash<std::string>()(kv.first) + kv.second.index();
    // Values too (tensors by identity, as ==), so CSE's table does not put every Const in one
    // bucket (compiling n constants was quadratic).
    if (auto* t = std::get_if<EagerPtr>(&kv.second))
      h = h * 31 + std::hash<const void*>()(t->get());
    else if (auto* i = std::get_if<int64_t>(&kv.second))
      h = h * 31 + std::hash<int64_t>()(*i);
    else if (auto* d = std::get_if<DType>(&kv.second))
      h = h * 31 + static_cast<size_t>(*d);
  }
  return h;
}

}  // namespace fn
