// Trace types: what the function cache keys on (TensorFlow's tf.types.experimental.TraceType).
// Tensors by dtype+shape (with subtyping), Python primitives by value, containers by their
// elements; types defined in Python (custom __tf_tracing_type__, weakref-held objects) plug in
// by subclassing TraceType in the bindings.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace fn {

class TraceType;
using TypePtr = std::shared_ptr<const TraceType>;

class TraceType {
 public:
  enum class Kind { Tensor, Literal, Sequence, Dict, Opaque };
  explicit TraceType(Kind k) : kind(k) {}
  virtual ~TraceType() = default;
  virtual size_t hash() const = 0;
  virtual bool equals(const TraceType& o) const = 0;
  // Every value of this type is also a value of `o` (the call fits a trace of type o).
  virtual bool is_subtype_of(const TraceType& o) const { return equals(o); }
  // The most specific type both this and `o` are subtypes of (nullptr if none).
  virtual TypePtr common_supertype(const TraceType& o, const TypePtr& self) const { return equals(o) ? self : nullptr; }
  virtual std::string to_string() const = 0;
  const Kind kind;
};

class TensorType : public TraceType {
 public:
  TensorType(DType d, Shape s, int64_t resource_id = -1)
      : TraceType(Kind::Tensor), dtype(d), shape(std::move(s)), resource_id(resource_id) {}
  size_t hash() const override;
  bool equals(const TraceType& o) const override;
  bool is_subtype_of(const TraceType& o) const override;
  TypePtr common_supertype(const TraceType& o, const TypePtr& self) const override;
  std::string to_string() const override;
  const DType dtype;
  const Shape shape;
  const int64_t resource_id;  // variables: their unique id; -1 for plain tensors
};

class LiteralType : public TraceType {
 public:
  enum class PyKind { None, Bool, Int, Float, Str, Bytes };
  LiteralType(PyKind k, std::string repr, size_t value_hash)
      : TraceType(Kind::Literal), py_kind(k), repr(std::move(repr)), value_hash(value_hash) {}
  size_t hash() const override { return value_hash * 31 + static_cast<size_t>(py_kind); }
  bool equals(const TraceType& o) const override;
  std::string to_string() const override { return "Literal[" + repr + "]"; }
  const PyKind py_kind;
  const std::string repr;  // canonical text of the value (Python repr)
  const size_t value_hash;
};

class SequenceType : public TraceType {
 public:
  // `name`: "tuple", "list" or a namedtuple's qualified class name.
  SequenceType(std::string name, std::vector<TypePtr> elems)
      : TraceType(Kind::Sequence), name(std::move(name)), elements(std::move(elems)), hash_(compute_hash()) {}
  size_t hash() const override { return hash_; }
  bool equals(const TraceType& o) const override;
  bool is_subtype_of(const TraceType& o) const override;
  TypePtr common_supertype(const TraceType& o, const TypePtr& self) const override;
  std::string to_string() const override;
  const std::string name;
  const std::vector<TypePtr> elements;

 private:
  size_t compute_hash() const;
  const size_t hash_;  // elements are immutable: hashed once (cache lookups rehash every call)
};

class DictType : public TraceType {
 public:
  // Entries sorted by key type hash/text so that insertion order does not matter.
  DictType(std::vector<std::pair<TypePtr, TypePtr>> entries);
  size_t hash() const override;
  bool equals(const TraceType& o) const override;
  bool is_subtype_of(const TraceType& o) const override;
  std::string to_string() const override;
  std::vector<std::pair<TypePtr, TypePtr>> entries;
};

}  // namespace fn
