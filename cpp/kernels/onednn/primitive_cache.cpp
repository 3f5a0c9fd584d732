#include "kernels/onednn/primitive_cache.h"

#include <list>
#include <mutex>
#include <unordered_map>

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

void append_key(std::string& key, const dnnl::memory::desc& md) {
  key += std::to_string(static_cast<int>(md.get_data_type()));
  key += '[';
  for (auto d : md.get_dims()) key += std::to_string(d) + ',';
  key += '|';
  for (auto s : md.get_strides()) key += std::to_string(s) + ',';
  key += ']';
}

size_t primitive_cache_size() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().lru.size();
}

}  // namespace onednn
}  // namespace fn
