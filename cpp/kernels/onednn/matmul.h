#pragma once
#include "core/tensor.h"

namespace fn {
namespace onednn {
// Batched matmul with broadcast batch dims; a and b already have equal rank >= 2.
bool matmul_applicable(const EagerTensor& a, const EagerTensor& b);
void matmul(const EagerTensor& a, const EagerTensor& b, bool ta, bool tb, EagerTensor& out);
}  // namespace onednn
}  // namespace fn
