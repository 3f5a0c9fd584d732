// oneDNN primitives are expensive to create (a primitive descriptor picks and JITs a kernel),
// so each distinct problem (kind, dtypes, dims, strides, attrs) is created once and reused.
// A bounded, thread-safe LRU cache shared by all kernels.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

namespace fn {
namespace onednn {

std::shared_ptr<dnnl::primitive> cached_primitive(const std::string& key, const std::function<dnnl::primitive()>& make);
// Appends a readable description of a memory descriptor's dims/strides/type to a cache key.
void append_key(std::string& key, const dnnl::memory::desc& md);
size_t primitive_cache_size();

// A primitive's execute arguments, made once per thread and re-pointed at each call's buffers
// (dnnl::memory::set_data_handle). Making a dnnl::memory allocates (its descriptor, its storage
// object) and the map its nodes: a matmul's 3-6 arguments cost ~20 allocations per call, ~60%
// of oneDNN's per-call allocations in the random-graphs profile (perf6x). An entry holds its
// primitive, so the address is not reused by another primitive while the entry lives; a
// primitive's arguments and their descriptors are fixed by the primitive (its cache key has the
// operands' descriptors and the post-ops). The calling thread's 32 most recently used entries.
using Args = std::unordered_map<int, dnnl::memory>;
struct ArgPtr {
  int arg;
  const void* ptr;
};
// The calling thread's arguments of `prim` (now the most recent), or nullptr.
Args* thread_args(const std::shared_ptr<dnnl::primitive>& prim);
// Stores `args` as the calling thread's arguments of `prim`; the reference lives until this
// thread's next thread_args/thread_args_insert call.
Args& thread_args_insert(const std::shared_ptr<dnnl::primitive>& prim, Args args);

// `prim`'s arguments (made by make() the first time on this thread) with ptrs[0..n) re-pointed.
template <typename Make>
Args& cached_args(const std::shared_ptr<dnnl::primitive>& prim, const ArgPtr* ptrs, int n, const Make& make) {
  Args* args = thread_args(prim);
  if (!args) args = &thread_args_insert(prim, make());
  for (int j = 0; j < n; ++j) args->at(ptrs[j].arg).set_data_handle(const_cast<void*>(ptrs[j].ptr));
  return *args;
}

}  // namespace onednn
}  // namespace fn
