// Node attributes: a small ordered name -> value map (TensorFlow's AttrValue, simplified).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace fn {

class Graph;

// An opaque host object (e.g. a Python callable for py_function / print's stream). The
// bindings layer supplies it; C++ only carries it and compares it by identity.
struct HostObject {
  virtual ~HostObject() = default;
};

using AttrValue =
    std::variant<std::monostate, int64_t, double, bool, std::string, DType, Shape, std::vector<int64_t>,
                 std::vector<DType>, std::vector<Shape>, std::shared_ptr<Graph>, EagerPtr, std::shared_ptr<HostObject>>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) : items_(items) {}
  void set(const std::string& name, AttrValue v) {
    for (auto& kv : items_)
      if (kv.first == name) {
        kv.second = std::move(v);
        return;
      }
    items_.emplace_back(name, std::move(v));
  }
  // Lookups take a string_view: a kernel's literal name ("shrink_axis_mask") is compared in
  // place, not copied into a std::string (an allocation past 15 characters) on every call.
  bool has(std::string_view name) const { return find(name) != nullptr; }
  const AttrValue* find(std::string_view name) const {
    for (auto& kv : items_)
      if (kv.first == name) return &kv.second;
    return nullptr;
  }
  template <typename T>
  const T& get(std::string_view name) const {
    const AttrValue* v = find(name);
    if (!v || !std::holds_alternative<T>(*v)) throw_error(Code::Internal, "missing or mistyped attr '", name, "'");
    return std::get<T>(*v);
  }
  template <typename T>
  T get_or(std::string_view name, T dflt) const {
    const AttrValue* v = find(name);
    if (!v || !std::holds_alternative<T>(*v)) return dflt;
    return std::get<T>(*v);
  }
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  bool operator==(const Attrs& o) const;  // for CSE: graphs/host objects/tensors by identity
  size_t hash() const;

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

std::string attr_to_string(const AttrValue& v);

}  // namespace fn
