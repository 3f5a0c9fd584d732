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

// Below these sizes a oneDNN call runs single-threaded: FN_ONEDNN_SMALL_MACS (multiply-adds)
// and FN_ONEDNN_SMALL_ELEMENTS (elements of a memory-bound pass). Off (0) by default: on the
// oversubscribed machine it was measured on (load average 18-24 on 2 cores) single-threaded
// calls made the LSTM/GRU/random-graph steps 3-4x slower in wall time (a one-thread process
// gets one scheduler share instead of two) at equal CPU time; the idle-machine gain it targets
// (one ~40 us wake-up saved per call, ~300 calls per LSTM step) is unmeasured. Suggested values
// to try on a quiet machine: 3145728 (~6 MFLOP, ~100 us on one AVX2 core) and 262144.
constexpr int64_t kSmallMacs = 0;
constexpr int64_t kSmallElements = 0;

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
