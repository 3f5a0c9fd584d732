// The cache of concrete functions of one Function, keyed by trace types. Exact hits are a hash
// lookup; otherwise the most specific cached key the call is a subtype of wins, among the
// kMaxSubtypeScan most recently used entries (so a miss costs O(1) however many signatures are
// cached; a call fitting only an older relaxed trace retraces). Bounded (LRU) when max_size > 0.
// Thread-safe.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "function/trace_type.h"

namespace fn {

struct TypeHash {
  size_t operator()(const TypePtr& t) const { return t->hash(); }
};
struct TypeEq {
  bool operator()(const TypePtr& a, const TypePtr& b) const { return a->equals(*b); }
};

template <typename V>
class FunctionCache {
 public:
  struct Stats {
    int64_t hits = 0, misses = 0, evictions = 0;
  };

  static constexpr size_t kMaxSubtypeScan = 256;
  explicit FunctionCache(size_t max_size = 0) : max_size_(max_size) {}

  // Exact match, else the most specific entry `key` is a subtype of; nullptr on a miss.
  // `stored`, if given, gets the cached key of an exact match (equal to `key`).
  std::shared_ptr<V> lookup(const TypePtr& key, TypePtr* stored = nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = exact_.find(key);
    if (it != exact_.end()) {
      touch(it->second);
      ++stats_.hits;
      if (stored) *stored = it->second->key;
      return it->second->value;
    }
    typename List::iterator best = entries_.end();
    size_t scanned = 0;
    for (auto e = entries_.begin(); e != entries_.end() && scanned < kMaxSubtypeScan; ++e, ++scanned) {
      if (!key->is_subtype_of(*e->key)) continue;
      if (best == entries_.end() || e->key->is_subtype_of(*best->key)) best = e;
    }
    if (best == entries_.end()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    touch(best);
    return best->value;
  }

  // Looks up without counting (used by the slow path, which already counted).
  std::shared_ptr<V> peek_exact(const TypePtr& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = exact_.find(key);
    return it == exact_.end() ? nullptr : it->second->value;
  }

  void insert(const TypePtr& key, std::shared_ptr<V> value) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = exact_.find(key);
    if (it != exact_.end()) {
      it->second->value = std::move(value);
      touch(it->second);
      return;
    }
    entries_.push_front(Entry{key, std::move(value)});
    exact_[key] = entries_.begin();
    while (max_size_ > 0 && entries_.size() > max_size_) {
      exact_.erase(entries_.back().key);
      entries_.pop_back();
      ++stats_.evictions;
    }
  }

  // Entries, most recently used first (the first `limit` when limit > 0).
  std::vector<std::pair<TypePtr, std::shared_ptr<V>>> items(size_t limit = 0) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<TypePtr, std::shared_ptr<V>>> out;
    for (auto& e : entries_) {
      if (limit && out.size() >= limit) break;
      out.emplace_back(e.key, e.value);
    }
    return out;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
    exact_.clear();
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }
  Stats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  void count_hit() {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.hits;
  }
  void set_max_size(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    max_size_ = n;
    while (max_size_ > 0 && entries_.size() > max_size_) {
      exact_.erase(entries_.back().key);
      entries_.pop_back();
      ++stats_.evictions;
    }
  }

 private:
  struct Entry {
    TypePtr key;
    std::shared_ptr<V> value;
  };
  using List = std::list<Entry>;
  void touch(typename List::iterator it) { entries_.splice(entries_.begin(), entries_, it); }

  mutable std::mutex mu_;
  size_t max_size_;
  List entries_;
  std::unordered_map<TypePtr, typename List::iterator, TypeHash, TypeEq> exact_;
  Stats stats_;
};

}  // namespace fn
