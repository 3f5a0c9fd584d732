#include "core/shape.h"

#include <algorithm>

#include "core/error.h"

namespace fn {

void Shape::too_many_elements() const {
  throw_error(Code::InvalidArgument, "Shape ", debug_string(), " would have more than 2**63 - 1 elements");
}

bool Shape::is_compatible_with(const Shape& o) const {
  if (!known_rank_ || !o.known_rank_) return true;
  if (dims_.size() != o.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] >= 0 && o.dims_[i] >= 0 && dims_[i] != o.dims_[i]) return false;
  return true;
}

bool Shape::is_subtype_of(const Shape& o) const {
  if (!o.known_rank_) return true;
  if (!known_rank_ || dims_.size() != o.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (o.dims_[i] >= 0 && dims_[i] != o.dims_[i]) return false;
  return true;
}

Shape Shape::most_specific_common_supertype(const Shape& o) const {
  if (!known_rank_ || !o.known_rank_ || dims_.size() != o.dims_.size()) return unknown_rank();
  std::vector<int64_t> d(dims_.size());
  for (size_t i = 0; i < d.size(); ++i) d[i] = dims_[i] == o.dims_[i] ? dims_[i] : kUnknown;
  return Shape(std::move(d));
}

std::string Shape::to_string() const {
  if (!known_rank_) return "<unknown>";
  std::string s = "(";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ", ";
    s += dims_[i] < 0 ? "None" : std::to_string(dims_[i]);
  }
  if (dims_.size() == 1) s += ",";
  return s + ")";
}

std::string Shape::debug_string() const {
  if (!known_rank_) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += dims_[i] < 0 ? "?" : std::to_string(dims_[i]);
  }
  return s + "]";
}

size_t Shape::hash() const {
  size_t h = known_rank_ ? 0x9e3779b97f4a7c15ull : 0x1234567ull;
  for (int64_t d : dims_) h = (h ^ static_cast<size_t>(d + 2)) * 0x100000001b3ull;
  return h;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  if (!a.has_rank() || !b.has_rank()) return Shape::unknown_rank();
  int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(r);
  for (int i = 0; i < r; ++i) {
    int ia = a.rank() - r + i, ib = b.rank() - r + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (da < 0)
      out[i] = db;  // unknown vs known: assume compatible
    else if (db < 0)
      out[i] = da;
    else if (da == db)
      out[i] = da;
    else
      throw_error(Code::InvalidArgument, "Incompatible shapes: ", a.debug_string(), " vs. ", b.debug_string());
  }
  return Shape(std::move(out));
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size());
  int64_t acc = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    s[i] = acc;
    if (__builtin_mul_overflow(acc, dims[i], &acc))
      throw_error(Code::InvalidArgument, "Shape ", Shape(dims).debug_string(),
                  " would have more than 2**63 - 1 elements");
  }
  return s;
}

}  // namespace fn
