// oneDNN eltwise primitive (relu, tanh, logistic, exp, ...) over a contiguous float32 tensor.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"
#include "kernels/onednn/engine.h"

namespace fn {
namespace onednn {

// One oneDNN eltwise algorithm with its parameters (alg < 0: none).
struct Eltwise {
  int alg = -1;
  float alpha = 0.f, beta = 0.f;
  // oneDNN 3.2 maps NaN to a number for some algorithms (exp -> inf, relu/clip -> 0); TF keeps
  // NaN. When set, NaN inputs are copied to the output after the primitive runs.
  bool nan_passthrough = false;
  // Below this many elements the reference loop runs. oneDNN's vector code is faster from a
  // few hundred elements for exp/tanh on an idle machine, but its OpenMP regions stall for
  // milliseconds when the cores are oversubscribed, so small tensors stay single-threaded.
  int64_t min_elements = kMinEltwiseElements;
  bool valid() const { return alg >= 0; }
};
inline Eltwise eltwise_of(dnnl::algorithm a, float alpha = 0.f, float beta = 0.f, bool nan_passthrough = false) {
  return Eltwise{static_cast<int>(a), alpha, beta, nan_passthrough};
}
// True when `out = alg(x)` can run on oneDNN: float32 in and out, enough elements to gain.
bool eltwise_applicable(const Eltwise& e, const EagerTensor& x, const EagerTensor& out);
void eltwise(const Eltwise& e, const EagerTensor& x, EagerTensor& out);

}  // namespace onednn
}  // namespace fn
