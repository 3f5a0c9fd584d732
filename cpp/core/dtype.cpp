#include "core/dtype.h"

#include <cmath>

namespace fn {

namespace {
struct Info {
  const char* name;
  size_t size;
};
constexpr Info kInfo[kNumDTypes] = {
    {"bool", 1},    {"int8", 1},      {"uint8", 1},       {"int16", 2},   {"int32", 4},  {"int64", 8},
    {"float16", 2}, {"bfloat16", 2},  {"float32", 4},     {"float64", 8}, {"string", 0}, {"resource", 0},
    {"variant", 0}, {"complex64", 8}, {"complex128", 16}, {"uint16", 2},  {"uint32", 4}, {"uint64", 8},
};
}  // namespace

size_t dtype_size(DType d) { return kInfo[static_cast<int>(d)].size; }
const char* dtype_name(DType d) { return kInfo[static_cast<int>(d)].name; }

bool dtype_from_name(const std::string& name, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (name == kInfo[i].name) {
      *out = static_cast<DType>(i);
      return true;
    }
  }
  if (name == "double") {
    *out = DType::Float64;
    return true;
  }
  if (name == "half") {
    *out = DType::Float16;
    return true;
  }
  if (name == "float") {
    *out = DType::Float32;
    return true;
  }
  return false;
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ff;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
  if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (absx < 0x38800000u) {                                               // subnormal or zero in half
    float a;
    std::memcpy(&a, &absx, 4);
    // scale so that the half subnormal unit (2^-24) becomes 1, then round to nearest even
    float scaled = a * 16777216.0f;
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  uint32_t mant = absx & 0x7fffffu;
  uint32_t exp = (absx >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // carries into exponent correctly
  return static_cast<uint16_t>(sign | h);
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

const char* tf_type_string(DType d) {
  switch (d) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16: return "half";
    default: return dtype_name(d);
  }
}

}  // namespace fn
