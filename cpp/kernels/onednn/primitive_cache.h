// oneDNN primitives are expensive to create (a primitive descriptor picks and JITs a kernel),
// so each distinct problem (kind, dtypes, dims, strides, attrs) is created once and reused.
// A bounded, thread-safe LRU cache shared by all kernels.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

namespace fn {
namespace onednn {

std::shared_ptr<dnnl::primitive> cached_primitive(const std::string& key, const std::function<dnnl::primitive()>& make);
// Appends a readable description of a memory descriptor's dims/strides/type to a cache key.
void append_key(std::string& key, const dnnl::memory::desc& md);
size_t primitive_cache_size();

}  // namespace onednn
}  // namespace fn
