// Variables' state: a resource handle (a scalar tensor of dtype resource) points at one of
// these. Assignments swap in a new value under the lock, so a read is a consistent snapshot.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/tensor.h"

namespace fn {

inline const std::string kReadVariableOp = "ReadVariableOp";  // named by passes/merge_forward_while.cpp

class VariableState {
 public:
  VariableState(EagerPtr value, bool trainable, std::string name);
  EagerPtr read() const;
  void assign(EagerPtr value);  // checks dtype and shape compatibility
  // Held across a read-modify-write (assign_add/sub) and by assign, as TF's resource variables
  // lock, so concurrent updates are never lost.
  std::mutex& update_mutex() const { return update_mu_; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  bool trainable() const { return trainable_; }
  int64_t id() const { return id_; }
  const std::string& name() const { return name_; }

 private:
  mutable std::mutex mu_;
  mutable std::mutex update_mu_;
  EagerPtr value_;
  DType dtype_;
  Shape shape_;
  bool trainable_;
  int64_t id_;
  std::string name_;
};

// A new resource handle owning `state`.
EagerPtr make_variable_handle(std::shared_ptr<VariableState> state);
// The state behind an eager resource handle (InvalidArgument if it is not one).
VariableState& variable_state(const EagerTensor& handle);

}  // namespace fn
