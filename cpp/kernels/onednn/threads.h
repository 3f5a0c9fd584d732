// How many threads a oneDNN call may use. oneDNN (the GNU OpenMP build) splits every call over
// all cores; a sleeping OpenMP worker takes ~35-45 us to wake on an idle VM (passive waiting,
// set by `import fn`) and milliseconds when the cores are oversubscribed, which is more than a
// small problem takes on one core: an LSTM step's 32x128x512 matmuls, a batch norm's 64 KiB
// elementwise passes, a filter reorder. Such calls run on the calling thread alone.
//
// oneDNN reads the thread count (omp_get_max_threads) both when it creates a primitive (some
// kernels fix their partition then) and when it runs one, so a ThreadScope spans both. The
// choice depends on the problem's size only: eager and graph calls of one shape run the same
// kernel, and a primitive's cache key records the choice.
#pragma once
#include <cstdint>
#include <string>

namespace fn {
namespace onednn {

// Below these sizes a oneDNN call runs single-threaded (FN_ONEDNN_SMALL_MACS /
// FN_ONEDNN_SMALL_ELEMENTS override them; 0 turns the policy off).
constexpr int64_t kSmallMacs = int64_t{3} << 20;      // ~6 MFLOP: ~100 us on one AVX2 core
constexpr int64_t kSmallElements = int64_t{1} << 18;  // 1 MiB of float32 per pass

// True when a contraction of `macs` multiply-adds should stay on the calling thread.
bool small_contraction(double macs);
// True when a memory-bound pass over `elements` values should stay on the calling thread.
bool small_pass(int64_t elements);

// While alive, oneDNN calls made by this thread use one thread (when `single`); restores the
// previous setting on destruction. A no-op where the OpenMP runtime cannot be reached.
class ThreadScope {
 public:
  explicit ThreadScope(bool single);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;
  bool single() const { return prev_ > 0; }
  // Appended to primitive cache keys: a primitive made for one thread is never run on two.
  const char* key() const { return prev_ > 0 ? "|t1" : ""; }

 private:
  int prev_ = 0;  // the thread count to restore, 0 when nothing was changed
};

}  // namespace onednn
}  // namespace fn
