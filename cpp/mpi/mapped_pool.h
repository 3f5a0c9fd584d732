// The storage of collective outputs (fn._mpi): anonymous private mappings, 2 MiB-aligned with
// transparent huge pages advised, kept per process and reused when the output dies.
//
// Why (benchmarks/README.md, "Collective outputs in mapped memory"): on this kind of host a 16 MiB
// MPI_Allreduce into a block of glibc's heap (where large blocks land once glibc's dynamic mmap
// threshold has risen) runs at 0.67-0.80 of the same call into a fresh aligned mapping. Only the
// collectives' outputs come from here: every other tensor keeps fn's allocator, and the process's
// malloc policy (mallopt, thresholds) is left alone.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace fnmpi {

class MappedPool : public std::enable_shared_from_this<MappedPool> {
 public:
  static constexpr size_t kMin = size_t{1} << 20;    // smaller outputs keep fn's allocator
  static constexpr size_t kAlign = size_t{2} << 20;  // a huge page
  static constexpr size_t kMaxIdleBytes = size_t{256} << 20;
  static constexpr size_t kMaxIdleBlocks = 16;

  struct Stats {
    uint64_t maps = 0;    // mappings made
    uint64_t unmaps = 0;  // mappings returned to the kernel
    uint64_t reuses = 0;  // acquisitions served from an idle block
    uint64_t leased = 0;  // blocks in use now
    uint64_t idle = 0;    // blocks kept for reuse now
    uint64_t idle_bytes = 0;
  };

  // A block of at least `bytes` (rounded up to kAlign) or nullptr when `bytes` is below kMin or
  // the mapping fails (the caller then allocates as before). *length: the block's length.
  void* acquire(size_t bytes, size_t* length);
  // Gives a block back (from any thread): kept for reuse within the bounds, else unmapped.
  void release(void* p, size_t length) noexcept;
  Stats stats();
  ~MappedPool();

 private:
  std::mutex mu_;
  std::vector<std::pair<void*, size_t>> idle_;  // (block, length), most recently released last
  Stats stats_;
};

// The process's pool (a thread-safe cache; leases keep it alive past module teardown).
std::shared_ptr<MappedPool> process_pool();

// A leased block for the collective ABI's output_storage / release_storage (C function pointers):
// the handle owns a reference to the pool, so a release after the transport stopped is safe.
void* lease_output(size_t bytes, size_t* capacity, void** handle);
void release_output(void* handle);

// Tests: `threads` threads lease and release blocks of `sizes` through lease_output, `rounds`
// times each, filling each block with their own pattern and checking it before release.
bool stress_pool(int threads, int rounds, const std::vector<size_t>& sizes);

}  // namespace fnmpi
