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

// Below these sizes a oneDNN call runs single-threaded: FN_ONEDNN_SMALL_MACS (multiply-adds,
// default 2^22: ~100 us on one AVX2 core, where a second core saves at most ~50 us and its wake-up
// costs 10-40 us idle) and FN_ONEDNN_SMALL_ELEMENTS (elements of a memory-bound pass, default
// 2^18: 1 MiB). Beside a busy process a parallel region waits at its barrier for a descheduled
// worker: the idle/one-busy-process tables of 2026-11-27 17:15 had the random small graphs 1.24
// -> 2.16 ms (JAX, single-threaded kernels: 0.70 -> 0.91) and the MLP/CNN steps 2.5-3.4x slower.
// Measured on the shared machine (load 4-8, profile_step.py, interleaved, this build with the
// variables at 0 vs these defaults): random graphs 3.0-5.1 -> 2.1-2.7 ms (CPU 1.5-2.2 -> 1.0-1.4),
// random graphs under a tape CPU 2.4 -> 2.0-2.1 ms, LSTM CPU 25.6-26.2 -> 21.9-25.5, GRU CPU
// 21.4-23.0 -> 15.2-18.4 ms. An earlier measurement at load 18-24 found the opposite in wall time
// (a one-thread process gets one scheduler share there); 0 turns each limit off.
constexpr int64_t kSmallMacs = int64_t{1} << 22;
constexpr int64_t kSmallElements = int64_t{1} << 18;

// True when a contraction of `macs` multiply-adds should stay on the calling thread.
bool small_contraction(double macs);
// True when a memory-bound pass over `elements` values should stay on the calling thread.
bool small_pass(int64_t elements);

// The calling thread's OpenMP team size (omp_get_max_threads), 1 where the runtime cannot be reached.
int max_threads();

// While alive, oneDNN calls made by this thread use `n` threads (another thread's max_threads():
// the inter-op worker runs a step's kernels as the caller would); restores the previous count.
class ThreadCount {
 public:
  explicit ThreadCount(int n);
  ~ThreadCount();
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int prev_ = 0;  // the thread count to restore, 0 when nothing was changed
};

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
