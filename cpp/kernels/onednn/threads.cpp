#include "kernels/onednn/threads.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>

namespace fn {
namespace onednn {

namespace {

// libgomp, as oneDNN loaded it (RTLD_NOLOAD: the copy already in the process, never another).
struct Omp {
  void (*set_num_threads)(int) = nullptr;
  int (*get_max_threads)() = nullptr;
  Omp() {
    void* h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h) return;
    set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "omp_set_num_threads"));
    get_max_threads = reinterpret_cast<int (*)()>(dlsym(h, "omp_get_max_threads"));
    if (!set_num_threads || !get_max_threads) set_num_threads = nullptr;
  }
};

const Omp& omp() {
  static const Omp o;
  return o;
}

int64_t limit(const char* env, int64_t fallback) {
  const char* v = std::getenv(env);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long long x = std::strtoll(v, &end, 10);
  return (end && *end == '\0' && x >= 0) ? static_cast<int64_t>(x) : fallback;
}

}  // namespace

bool small_contraction(double macs) {
  static const int64_t lim = limit("FN_ONEDNN_SMALL_MACS", kSmallMacs);
  return macs < static_cast<double>(lim);
}

bool small_pass(int64_t elements) {
  static const int64_t lim = limit("FN_ONEDNN_SMALL_ELEMENTS", kSmallElements);
  return elements < lim;
}

int max_threads() {
  const Omp& o = omp();
  return o.set_num_threads ? std::max(1, o.get_max_threads()) : 1;
}

ThreadScope::ThreadScope(bool single) {
  if (!single) return;
  const Omp& o = omp();
  if (!o.set_num_threads) return;
  int prev = o.get_max_threads();
  if (prev <= 1) return;  // already one thread (or nested): nothing to change
  o.set_num_threads(1);
  prev_ = prev;
}

ThreadCount::ThreadCount(int n) {
  const Omp& o = omp();
  if (!o.set_num_threads || n < 1) return;
  int prev = o.get_max_threads();
  if (prev == n) return;
  o.set_num_threads(n);
  prev_ = prev;
}

ThreadCount::~ThreadCount() {
  if (prev_ > 0) omp().set_num_threads(prev_);
}

ThreadScope::~ThreadScope() {
  if (prev_ > 0) omp().set_num_threads(prev_);
}

}  // namespace onednn
}  // namespace fn
