// Geometry of 2-D windowed ops (convolution, pooling) in NHWC layout, shared by the op layer
// (which derives it from TensorFlow's attrs) and the kernels (oneDNN and reference loops).
#pragma once
#include <cstdint>

namespace fn {

struct Conv2DGeom {
  int64_t n = 0, ih = 0, iw = 0, ic = 0;   // input  [n, ih, iw, ic]
  int64_t kh = 0, kw = 0, oc = 0;          // filter [kh, kw, ic, oc]
  int64_t oh = 0, ow = 0;                  // output [n, oh, ow, oc]
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;  // strides, dilations (TensorFlow's: 1 = dense)
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;  // padding top/bottom/left/right
  int64_t input_size() const { return n * ih * iw * ic; }
  int64_t filter_size() const { return kh * kw * ic * oc; }
  int64_t output_size() const { return n * oh * ow * oc; }
  int64_t macs() const { return output_size() * kh * kw * ic; }
};

struct Pool2DGeom {
  int64_t n = 0, ih = 0, iw = 0, c = 0;    // input  [n, ih, iw, c]
  int64_t kh = 1, kw = 1, oh = 0, ow = 0;  // window, output [n, oh, ow, c]
  int64_t sh = 1, sw = 1;
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  int64_t input_size() const { return n * ih * iw * c; }
  int64_t output_size() const { return n * oh * ow * c; }
};

}  // namespace fn
