// What TensorFlow's fused contractions (_FusedMatMul, _FusedConv2D: grappler's remapper on
// oneDNN) do after the multiply-adds: y = act((acc * scale + bias[c]) + residual). The activations
// are oneDNN's post-ops, which TF 2.21 uses inside tf.function: NaN -> 0 in Relu and Relu6,
// unlike the standalone ops (NaN stays NaN). The loop below is the oneDNN post-op's twin, for
// problems too small for oneDNN and as the test oracle.
#pragma once
#include <cstdint>

namespace fn {

enum class Activation { None, Relu, Relu6 };

struct Epilogue {
  const float* scale = nullptr;     // one value multiplying the product first (never with a bias)
  const float* bias = nullptr;      // [channels], added to every row
  const float* residual = nullptr;  // same shape as the output, or nullptr
  Activation act = Activation::None;
};

// oneDNN's eltwise_relu (alpha 0) / eltwise_clip_v2(0, 6): NaN and -0 give +0.
inline float activate(float v, Activation a) {
  if (a == Activation::None) return v;
  float y = v > 0.f ? v : 0.f;
  if (a == Activation::Relu6) y = y < 6.f ? y : 6.f;
  return y;
}

// y: rows x channels, row-major (NHWC output or a matmul's rows).
inline void apply_epilogue(float* y, int64_t rows, int64_t channels, const Epilogue& e) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = y + r * channels;
    const float* res = e.residual ? e.residual + r * channels : nullptr;
    for (int64_t c = 0; c < channels; ++c) {
      float v = row[c];
      if (e.scale) v *= *e.scale;
      if (e.bias) v += e.bias[c];
      if (res) v += res[c];
      row[c] = activate(v, e.act);
    }
  }
}

}  // namespace fn
