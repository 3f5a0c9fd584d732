#include "kernels/onednn/primitive_cache.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <cstdlib>
#include <memory>
#include <new>
#include <unordered_map>
#include <vector>

#include "kernels/onednn/engine.h"

namespace fn {
namespace onednn {

namespace {
constexpr size_t kCapacity = 512;

struct Cache {
  std::mutex mu;
  std::list<std::pair<std::string, std::shared_ptr<dnnl::primitive>>> lru;
  std::unordered_map<std::string, decltype(lru)::iterator> index;
};
Cache& cache() {
  static Cache c;
  return c;
}
}  // namespace

std::shared_ptr<dnnl::primitive> cached_primitive(const std::string& key,
                                                  const std::function<dnnl::primitive()>& make) {
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.index.find(key);
    if (it != c.index.end()) {
      c.lru.splice(c.lru.begin(), c.lru, it->second);
      return it->second->second;
    }
  }
  auto prim = std::make_shared<dnnl::primitive>(make());  // created outside the lock
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.index.find(key);
  if (it != c.index.end()) return it->second->second;
  c.lru.emplace_front(key, prim);
  c.index[key] = c.lru.begin();
  if (c.lru.size() > kCapacity) {
    c.index.erase(c.lru.back().first);
    c.lru.pop_back();
  }
  return prim;
}

dnnl::primitive_attr user_scratchpad(dnnl::primitive_attr attr) {
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

size_t scratchpad_bytes(const dnnl::primitive& p) {
  const_dnnl_primitive_desc_t pd = nullptr;
  if (dnnl_primitive_get_primitive_desc(p.get(), &pd) != dnnl_success || !pd) return 0;
  const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  return md ? dnnl_memory_desc_get_size(md) : 0;
}

void execute(const dnnl::primitive& p, dnnl::stream& s, std::unordered_map<int, dnnl::memory>& args) {
  const size_t bytes = scratchpad_bytes(p);
  if (bytes > 0) {
    // One execute at a time per thread; page-aligned as the library's own scratchpad (oneDNN
    // places packed gemm blocks at aligned offsets from its base).
    struct Free {
      void operator()(char* q) const { std::free(q); }
    };
    thread_local std::unique_ptr<char, Free> buf;
    thread_local size_t size = 0;
    if (size < bytes) {
      const size_t n = (bytes + 4095) & ~size_t{4095};
      buf.reset(static_cast<char*>(std::aligned_alloc(4096, n)));
      if (!buf) throw std::bad_alloc();
      size = n;
    }
    char* scratch = buf.get();
    auto it = args.find(DNNL_ARG_SCRATCHPAD);
    if (it != args.end() && it->second.get_desc().get_size() == bytes) {
      it->second.set_data_handle(scratch);
    } else {
      dnnl::memory::desc md({static_cast<int64_t>(bytes)}, dnnl::memory::data_type::u8, dnnl::memory::format_tag::a);
      args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(md, engine(), scratch);
    }
  }
  p.execute(s, args);
}

void append_key(std::string& key, const dnnl::memory::desc& md) {
  key += std::to_string(static_cast<int>(md.get_data_type()));
  key += '[';
  for (auto d : md.get_dims()) key += std::to_string(d) + ',';
  key += '|';
  for (auto s : md.get_strides()) key += std::to_string(s) + ',';
  // A blocked layout (a packed matmul weight) also has inner blocks; plain layouts have none.
  const int blocks = md.get_inner_nblks();
  if (blocks > 0) {
    const auto sizes = md.get_inner_blks(), idxs = md.get_inner_idxs();
    key += '/';
    for (int i = 0; i < blocks; ++i) key += std::to_string(sizes[i]) + ':' + std::to_string(idxs[i]) + ',';
  }
  key += ']';
}

namespace {
constexpr size_t kArgCacheEntries = 32;
struct ArgEntry {
  std::shared_ptr<dnnl::primitive> prim;
  Args args;
};
std::vector<ArgEntry>& arg_entries() {
  thread_local std::vector<ArgEntry> entries;  // most recently used first
  return entries;
}
}  // namespace

Args* thread_args(const std::shared_ptr<dnnl::primitive>& prim) {
  auto& entries = arg_entries();
  size_t i = 0;
  while (i < entries.size() && entries[i].prim != prim) ++i;
  if (i == entries.size()) return nullptr;
  if (i > 0)
    std::rotate(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(i),
                entries.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  return &entries.front().args;
}

Args& thread_args_insert(const std::shared_ptr<dnnl::primitive>& prim, Args args) {
  auto& entries = arg_entries();
  if (entries.size() == kArgCacheEntries) entries.pop_back();
  entries.insert(entries.begin(), ArgEntry{prim, std::move(args)});
  return entries.front().args;
}

size_t primitive_cache_size() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().lru.size();
}

}  // namespace onednn
}  // namespace fn
