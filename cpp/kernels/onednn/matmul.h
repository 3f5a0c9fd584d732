#pragma once
#include "core/tensor.h"
#include "kernels/epilogue.h"

namespace fn {
namespace onednn {
// Batched matmul with broadcast batch dims; a and b already have equal rank >= 2.
bool matmul_applicable(const EagerTensor& a, const EagerTensor& b);
// `e` (float32): scale, bias (rank 2 only), residual and activation as post-ops / the bias argument.
void matmul(const EagerTensor& a, const EagerTensor& b, bool ta, bool tb, EagerTensor& out,
            const Epilogue* e = nullptr);
}  // namespace onednn
}  // namespace fn
