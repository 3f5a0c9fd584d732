#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"

namespace fn {
namespace onednn {
// True when dst = alg(a, b) can run on oneDNN: supported dtype, b broadcasts into a's shape.
bool binary_applicable(const EagerTensor& a, const EagerTensor& b, const Shape& out);
void binary(dnnl::algorithm alg, const EagerTensor& a, const EagerTensor& b, EagerTensor& out);
}  // namespace onednn
}  // namespace fn
