// Shapes with TensorFlow's TensorShape semantics: unknown rank (rank() < 0) and unknown dims (-1).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace fn {

class Shape {
 public:
  static constexpr int64_t kUnknown = -1;
  Shape() : known_rank_(true) {}  // scalar
  Shape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : known_rank_(true), dims_(std::move(dims)) {}
  static Shape unknown_rank() {
    Shape s;
    s.known_rank_ = false;
    return s;
  }

  bool has_rank() const { return known_rank_; }
  int rank() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim(int i) const { return dims_[i]; }
  int64_t operator[](int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  // Inline: every kernel's output allocation asks (make_tensor), a loop step several times.
  bool is_fully_defined() const {
    if (!known_rank_) return false;
    for (int64_t d : dims_)
      if (d < 0) return false;
    return true;
  }
  int64_t num_elements() const {  // -1 when not fully defined
    if (!is_fully_defined()) return -1;
    int64_t n = 1;
    for (int64_t d : dims_)
      if (__builtin_mul_overflow(n, d, &n)) too_many_elements();
    return n;
  }
  bool is_compatible_with(const Shape& o) const;
  bool is_subtype_of(const Shape& o) const;  // every shape this admits, o admits too
  Shape most_specific_common_supertype(const Shape& o) const;
  bool operator==(const Shape& o) const { return known_rank_ == o.known_rank_ && dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string to_string() const;     // "(2, 3)", "(None, 3)", "<unknown>", "()"
  std::string debug_string() const;  // TF's kernel-side form: "[2,3]", "[?,3]", "<unknown>", "[]"
  size_t hash() const;

 private:
  [[noreturn]] void too_many_elements() const;  // TF's TensorShape refuses such shapes
  bool known_rank_;
  std::vector<int64_t> dims_;
};

// NumPy broadcasting of two (possibly partial) shapes; throws InvalidArgument on mismatch.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// Row-major strides (in elements) of a fully defined shape.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims);

}  // namespace fn
