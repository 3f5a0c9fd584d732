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

// oneDNN as built here (no ONEDNN_ENABLE_CONCURRENT_EXEC) gives primitives made with default
// attributes a scratchpad shared by every thread: two threads executing at once (two runs of a
// plan, the inter-op worker beside the caller) overwrite each other's partial results (a
// 64x2048x8 matmul run from two threads came out wrong 20 times in 600). So every primitive is
// made with scratchpad_mode::user (`user_scratchpad`) and run by `execute`, which hands it the
// calling thread's own scratchpad.
dnnl::primitive_attr user_scratchpad(dnnl::primitive_attr attr = dnnl::primitive_attr());
// Bytes of scratchpad a primitive made with scratchpad_mode::user needs (0 for most).
size_t scratchpad_bytes(const dnnl::primitive& p);
void execute(const dnnl::primitive& p, dnnl::stream& s, std::unordered_map<int, dnnl::memory>& args);
inline void execute(const dnnl::primitive& p, dnnl::stream& s, std::unordered_map<int, dnnl::memory>&& args) {
  execute(p, s, args);
}

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
