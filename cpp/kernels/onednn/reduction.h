// oneDNN reduction primitive (sum, mean, max, min, mul) for float32.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "core/tensor.h"

namespace fn {
namespace onednn {

// True when reducing x along `reduced` axes can run on oneDNN (float32, large enough, no
// empty dims, rank within oneDNN's limit).
bool reduction_applicable(const EagerTensor& x, const std::vector<bool>& reduced);
// `out` holds the result with the kept dims (any shape with that element count).
void reduction(dnnl::algorithm alg, const EagerTensor& x, const std::vector<bool>& reduced, EagerTensor& out);

}  // namespace onednn
}  // namespace fn
