// Tensors. `Tensor` is the base (dtype + possibly partial shape); an EagerTensor owns a buffer;
// a symbolic (graph) tensor is a plain Tensor that names a node output of a graph being built.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace fn {

// What a symbolic tensor knows of the graph that made it: its nodes' names. graph/'s Graph
// implements it, so core/ names nothing of the layers above it.
class NodeSource {
 public:
  virtual ~NodeSource() = default;
  virtual const std::string& node_name(int node) const = 0;
  virtual int node_count() const = 0;
};

// Contiguous row-major storage. POD data is 64-byte aligned (oneDNN likes it); strings are a
// vector. A buffer may also view memory owned by someone else (e.g. a NumPy array): `owner`
// keeps that memory alive.
class Buffer {
 public:
  static std::shared_ptr<Buffer> allocate(DType dtype, int64_t num_elements);
  static std::shared_ptr<Buffer> wrap(void* data, size_t nbytes, std::shared_ptr<void> owner);
  // Storage made for this buffer alone by another allocator (`capacity` bytes at `data`), freed
  // by `owner`'s deleter: unlike a wrapped view it counts as owned (forwardable, recyclable).
  static std::shared_ptr<Buffer> adopt(void* data, size_t nbytes, size_t capacity, std::shared_ptr<void> owner);
  // Storage allocations so far in the process (not counting recycled buffers): for tests and
  // benchmarks of the memory plan.
  static uint64_t fresh_allocations();
  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  // Bytes of storage this buffer owns (0 for strings and wrapped memory); a buffer recycled
  // through a BufferPool may own more than it uses.
  size_t capacity() const { return capacity_; }
  std::vector<std::string>& strings() { return strings_; }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  struct FreeDeleter {
    FreeDeleter() noexcept : small(false) {}
    explicit FreeDeleter(bool s) noexcept : small(s) {}
    bool small;  // one 64-byte block: back to this thread's free list
    void operator()(void* p) const;
  };
  std::unique_ptr<void, FreeDeleter> storage_;
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  size_t capacity_ = 0;
  std::vector<std::string> strings_;
};

struct TensorSpec {
  DType dtype = DType::Float32;
  Shape shape;
};

class Tensor : public std::enable_shared_from_this<Tensor> {
 public:
  Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {}
  virtual ~Tensor() = default;
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  virtual bool is_eager() const { return false; }
  TensorSpec spec() const { return {dtype_, shape_}; }

  // Symbolic tensors: the graph that made them and which node output they are.
  std::weak_ptr<NodeSource> graph;
  int node = -1;
  int index = 0;
  std::string name() const;  // "add:0"
  // Unique id of the graph this tensor was made in, stable after the graph dies (leak checks).
  uint64_t graph_id = 0;

 protected:
  DType dtype_;
  Shape shape_;
};

class EagerTensor : public Tensor {
 public:
  EagerTensor(DType dtype, Shape shape, std::shared_ptr<Buffer> buffer)
      : Tensor(dtype, std::move(shape)), buffer_(std::move(buffer)) {}
  bool is_eager() const override { return true; }
  int64_t num_elements() const { return shape_.num_elements(); }
  template <typename T>
  T* data() {
    return static_cast<T*>(buffer_->data());
  }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(buffer_->data());
  }
  void* raw() { return buffer_->data(); }
  const void* raw() const { return buffer_->data(); }
  std::vector<std::string>& strings() { return buffer_->strings(); }
  const std::vector<std::string>& strings() const { return buffer_->strings(); }
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  double scalar_as_double(int64_t i = 0) const;  // element i converted to double (numeric/bool)
  int64_t scalar_as_int(int64_t i = 0) const;

 private:
  std::shared_ptr<Buffer> buffer_;
};

using TensorPtr = std::shared_ptr<Tensor>;
using EagerPtr = std::shared_ptr<EagerTensor>;

EagerPtr make_tensor(DType dtype, const Shape& shape);  // uninitialised storage
EagerPtr make_scalar(DType dtype, double value);
EagerPtr make_string_scalar(const std::string& s);
// A new tensor sharing storage with `t` but with another shape (same element count).
EagerPtr reshaped(const EagerPtr& t, const Shape& shape);
// Elementwise cast (numeric <-> numeric, bool); used by kernels and by constant conversion.
EagerPtr cast_tensor(const EagerPtr& t, DType to);
inline EagerPtr as_eager(const TensorPtr& t) { return std::static_pointer_cast<EagerTensor>(t); }

}  // namespace fn
