// TensorList: an immutable list of tensors held by a scalar Variant tensor (fn.TensorArray's
// value). See ops/tensor_list.cpp for the ops.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace fn {

struct TensorList {
  static constexpr uint64_t kMagic = 0x666e5f746c697374ull;  // tells a list from other variants
  uint64_t magic = kMagic;
  DType dtype = DType::Float32;
  Shape element_shape = Shape::unknown_rank();  // the shape every element must be compatible with
  std::vector<EagerPtr> items;                  // nullptr: not written yet (reads give zeros)
};

// A scalar Variant tensor holding `list`.
EagerPtr make_list_tensor(std::shared_ptr<TensorList> list);
// The list a Variant tensor holds (InvalidArgument if it holds none).
const TensorList& list_of(const EagerTensor& t);

}  // namespace fn
