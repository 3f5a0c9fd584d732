// Data types: the TensorFlow dtypes fn supports, with their sizes and names.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

namespace fn {

enum class DType : uint8_t {
  Bool,
  Int8,
  UInt8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  String,
  Resource,
  Variant,
  Complex64,
  Complex128,
  UInt16,  // appended (issue 21): the numbering is fn's saved-graph code, never reordered
  UInt32,
  UInt64,
  Count_
};
constexpr int kNumDTypes = static_cast<int>(DType::Count_);

size_t dtype_size(DType d);       // bytes per element (0 for String/Resource/Variant)
const char* dtype_name(DType d);  // "int32", as TensorFlow's DType.name
// TensorFlow's DataTypeString (float32 is "float", float64 "double", float16 "half").
const char* tf_type_string(DType d);
bool dtype_from_name(const std::string& name, DType* out);
inline bool is_floating(DType d) {
  return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32 || d == DType::Float64;
}
inline bool is_unsigned(DType d) {
  return d == DType::UInt8 || d == DType::UInt16 || d == DType::UInt32 || d == DType::UInt64;
}
inline bool is_integer(DType d) {
  return d == DType::Int8 || d == DType::Int16 || d == DType::Int32 || d == DType::Int64 || is_unsigned(d);
}
inline bool is_numeric(DType d) { return is_floating(d) || is_integer(d); }
// Complex types are stored as (re, im) pairs; only data movement and the ops in ops/complex.cpp
// handle them, so they are not "pod" for the numeric visitors (which reject them).
inline bool is_complex(DType d) { return d == DType::Complex64 || d == DType::Complex128; }
// Dtypes gradients flow through (TF's trainable dtypes).
inline bool is_differentiable(DType d) { return is_floating(d) || is_complex(d); }
inline bool is_pod(DType d) {
  return d != DType::String && d != DType::Resource && d != DType::Variant && !is_complex(d);
}

// Half-precision storage types: conversion to and from float (round to nearest even).
struct half_t {
  uint16_t bits;
};
struct bfloat16_t {
  uint16_t bits;
};
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
inline float bf16_to_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16(float f);

// Calls fn.template operator()<T>() with T the C++ element type of a numeric/bool dtype.
// Half types are visited as their storage structs; callers that compute convert through float.
template <typename F>
auto visit_pod(DType d, F&& f) {
  switch (d) {
    case DType::Bool: return f(bool{});
    case DType::Int8: return f(int8_t{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int16: return f(int16_t{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Float16: return f(half_t{});
    case DType::BFloat16: return f(bfloat16_t{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::UInt16: return f(uint16_t{});
    case DType::UInt32: return f(uint32_t{});
    case DType::UInt64: return f(uint64_t{});
    default: return f(int32_t{});  // callers check is_pod first
  }
}

// Numeric value conversion helpers usable on every POD storage type.
template <typename T>
inline double to_double(T v) {
  return static_cast<double>(v);
}
template <>
inline double to_double(half_t v) {
  return half_to_float(v.bits);
}
template <>
inline double to_double(bfloat16_t v) {
  return bf16_to_float(v.bits);
}
template <typename T>
inline T from_double(double v) {
  return static_cast<T>(v);
}
template <>
inline bool from_double<bool>(double v) {
  return v != 0.0;
}
template <>
inline half_t from_double<half_t>(double v) {
  return half_t{float_to_half(static_cast<float>(v))};
}
template <>
inline bfloat16_t from_double<bfloat16_t>(double v) {
  return bfloat16_t{float_to_bf16(static_cast<float>(v))};
}

}  // namespace fn
