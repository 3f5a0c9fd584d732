// A small per-thread cache of oneDNN primitives keyed by their geometry. Primitives are created
// and executed on the same thread (oneDNN's library scratchpad is per thread), and building a
// primitive descriptor costs far more than running a small primitive.
#pragma once
#include <initializer_list>
#include <string>
#include <unordered_map>

namespace fn {
namespace onednn {

template <typename V>
class PrimitiveCache {
 public:
  template <typename Make>
  V& get(const std::string& key, Make make) {
    auto it = map_.find(key);
    if (it != map_.end()) return it->second;
    if (map_.size() >= kMaxEntries) map_.clear();
    return map_.emplace(key, make()).first->second;
  }

 private:
  static constexpr size_t kMaxEntries = 128;
  std::unordered_map<std::string, V> map_;
};

inline std::string cache_key(std::initializer_list<int64_t> v) {
  std::string k;
  for (int64_t x : v) { k += std::to_string(x); k += ','; }
  return k;
}

}  // namespace onednn
}  // namespace fn
