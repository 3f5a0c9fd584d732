#include "function/trace_type.h"

#include <algorithm>

namespace fn {

size_t TensorType::hash() const {
  return (shape.hash() * 131 + static_cast<size_t>(dtype)) ^ static_cast<size_t>(resource_id + 7);
}

bool TensorType::equals(const TraceType& o) const {
  if (this == &o) return true;  // (a reused key: see the Function fast path)
  if (o.kind != Kind::Tensor) return false;
  auto& t = static_cast<const TensorType&>(o);
  return dtype == t.dtype && shape == t.shape && resource_id == t.resource_id;
}

bool TensorType::is_subtype_of(const TraceType& o) const {
  if (o.kind != Kind::Tensor) return false;
  auto& t = static_cast<const TensorType&>(o);
  return dtype == t.dtype && resource_id == t.resource_id && shape.is_subtype_of(t.shape);
}

TypePtr TensorType::common_supertype(const TraceType& o, const TypePtr& self) const {
  if (o.kind != Kind::Tensor) return nullptr;
  auto& t = static_cast<const TensorType&>(o);
  if (dtype != t.dtype || resource_id != t.resource_id) return nullptr;
  if (shape == t.shape) return self;
  return std::make_shared<TensorType>(dtype, shape.most_specific_common_supertype(t.shape), resource_id);
}

std::string TensorType::to_string() const {
  std::string s = std::string("TensorSpec(shape=") + shape.to_string() + ", dtype=fn." + dtype_name(dtype) + ")";
  if (resource_id >= 0) s = "Variable(" + s + ", id=" + std::to_string(resource_id) + ")";
  return s;
}

bool LiteralType::equals(const TraceType& o) const {
  if (o.kind != Kind::Literal) return false;
  auto& l = static_cast<const LiteralType&>(o);
  return py_kind == l.py_kind && repr == l.repr;
}

size_t SequenceType::compute_hash() const {
  size_t h = std::hash<std::string>()(name) + elements.size();
  for (auto& e : elements) h = h * 1000003 ^ e->hash();
  return h;
}

bool SequenceType::equals(const TraceType& o) const {
  if (o.kind != Kind::Sequence) return false;
  auto& s = static_cast<const SequenceType&>(o);
  if (name != s.name || elements.size() != s.elements.size()) return false;
  for (size_t i = 0; i < elements.size(); ++i)
    if (!elements[i]->equals(*s.elements[i])) return false;
  return true;
}

bool SequenceType::is_subtype_of(const TraceType& o) const {
  if (o.kind != Kind::Sequence) return false;
  auto& s = static_cast<const SequenceType&>(o);
  if (name != s.name || elements.size() != s.elements.size()) return false;
  for (size_t i = 0; i < elements.size(); ++i)
    if (!elements[i]->is_subtype_of(*s.elements[i])) return false;
  return true;
}

TypePtr SequenceType::common_supertype(const TraceType& o, const TypePtr& self) const {
  if (o.kind != Kind::Sequence) return nullptr;
  auto& s = static_cast<const SequenceType&>(o);
  if (name != s.name || elements.size() != s.elements.size()) return nullptr;
  std::vector<TypePtr> out;
  for (size_t i = 0; i < elements.size(); ++i) {
    TypePtr c = elements[i]->common_supertype(*s.elements[i], elements[i]);
    if (!c) return nullptr;
    out.push_back(c);
  }
  return std::make_shared<SequenceType>(name, std::move(out));
}

std::string SequenceType::to_string() const {
  std::string s = name + "[";
  for (size_t i = 0; i < elements.size(); ++i) s += (i ? ", " : "") + elements[i]->to_string();
  return s + "]";
}

DictType::DictType(std::vector<std::pair<TypePtr, TypePtr>> e) : TraceType(Kind::Dict), entries(std::move(e)) {
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    size_t ha = a.first->hash(), hb = b.first->hash();
    if (ha != hb) return ha < hb;
    return a.first->to_string() < b.first->to_string();
  });
}

size_t DictType::hash() const {
  size_t h = 0x51ed + entries.size();
  for (auto& kv : entries) h = h * 1000003 ^ (kv.first->hash() * 31 + kv.second->hash());
  return h;
}

bool DictType::equals(const TraceType& o) const {
  if (o.kind != Kind::Dict) return false;
  auto& d = static_cast<const DictType&>(o);
  if (entries.size() != d.entries.size()) return false;
  for (size_t i = 0; i < entries.size(); ++i)
    if (!entries[i].first->equals(*d.entries[i].first) || !entries[i].second->equals(*d.entries[i].second))
      return false;
  return true;
}

bool DictType::is_subtype_of(const TraceType& o) const {
  if (o.kind != Kind::Dict) return false;
  auto& d = static_cast<const DictType&>(o);
  if (entries.size() != d.entries.size()) return false;
  for (size_t i = 0; i < entries.size(); ++i)
    if (!entries[i].first->equals(*d.entries[i].first) || !entries[i].second->is_subtype_of(*d.entries[i].second))
      return false;
  return true;
}

std::string DictType::to_string() const {
  std::string s = "dict{";
  for (size_t i = 0; i < entries.size(); ++i)
    s += (i ? ", " : "") + entries[i].first->to_string() + ": " + entries[i].second->to_string();
  return s + "}";
}

}  // namespace fn
