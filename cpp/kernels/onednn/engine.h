// The oneDNN CPU engine and a per-thread stream, plus dtype mapping.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include "core/dtype.h"
#include "core/shape.h"

namespace fn {
namespace onednn {

dnnl::engine& engine();  // created once, immutable afterwards
dnnl::stream& stream();  // one per thread
// oneDNN data type of a dtype; undef when oneDNN cannot compute in it (f64, int64, int16, bool).
dnnl::memory::data_type to_dnnl(DType d);
inline bool supported(DType d) { return to_dnnl(d) != dnnl::memory::data_type::undef; }
dnnl::memory::dims dims_of(const Shape& s);  // scalars as {1}
// Below this many elements a plain loop beats oneDNN's fixed per-call cost.
constexpr int64_t kMinElements = 1 << 14;
// Eltwise and reductions gain earlier: their reference loops call libm per element.
constexpr int64_t kMinEltwiseElements = 1 << 12;

}  // namespace onednn
}  // namespace fn
