// oneDNN eltwise primitive (relu, tanh, logistic, exp, ...) over a contiguous float32 tensor.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"

namespace fn {
namespace onednn {

// One oneDNN eltwise algorithm with its parameters (alg < 0: none).
struct Eltwise {
  int alg = -1;
  float alpha = 0.f, beta = 0.f;
  bool valid() const { return alg >= 0; }
};
inline Eltwise eltwise_of(dnnl::algorithm a, float alpha = 0.f, float beta = 0.f) {
  return Eltwise{static_cast<int>(a), alpha, beta};
}
// True when `out = alg(x)` can run on oneDNN: float32 in and out, enough elements to gain.
bool eltwise_applicable(const EagerTensor& x, const EagerTensor& out);
void eltwise(const Eltwise& e, const EagerTensor& x, EagerTensor& out);

}  // namespace onednn
}  // namespace fn
