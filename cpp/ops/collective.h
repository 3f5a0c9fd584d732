// Collective ops (CollectiveAllReduce, CollectiveAllGather, CollectiveBroadcast): graph ops whose
// kernels exchange data with the other workers through a transport installed at run time. fn_core
// never links MPI: an optional module (fn._mpi, built only where MPI's headers are found) fills a
// FnCollectiveBackend table of C functions and hands it over as a PyCapsule.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" {

// Every function returns 0 on success, else an fn::Code value with a message in err (NUL-ended).
// They block until the collective completes or `timeout_seconds` passes, and run without the GIL.
// After a timeout the collective may still be pending in the transport: the caller must keep the
// buffers it passed alive (the transport copies small ones itself).
struct FnCollectiveBackend {
  int abi_version;  // kFnCollectiveAbi
  void* state;
  int (*rank)(void* state);
  int (*size)(void* state);
  // recv = the sum over workers of each worker's `count` elements of `dtype` (fn::DType) in send.
  // send == recv: in place (the kernel forwarded its input; MPI_IN_PLACE).
  int (*all_reduce_sum)(void* state, const void* send, void* recv, int64_t count, int dtype, double timeout_seconds,
                        const char* what, char* err, size_t err_len);
  // Concatenation of every worker's bytes in rank order; recv_bytes[r]: bytes of rank r.
  int (*all_gatherv)(void* state, const void* send, int64_t send_bytes, void* recv, const int64_t* recv_bytes,
                     double timeout_seconds, const char* what, char* err, size_t err_len);
  int (*broadcast)(void* state, void* buf, int64_t bytes, int root, double timeout_seconds, const char* what, char* err,
                   size_t err_len);
  // Split all-reduce (overlap with computation): posts the sum (as all_reduce_sum) and returns at
  // once with a request id in *request; the transport progresses it on its own thread. `wait`
  // blocks until that request completes or `timeout_seconds` passes. Collectives are posted in
  // program order on every worker; send and recv must stay alive until `wait` returns.
  int (*all_reduce_start)(void* state, const void* send, void* recv, int64_t count, int dtype, double timeout_seconds,
                          const char* what, int64_t* request, char* err, size_t err_len);
  int (*wait)(void* state, int64_t request, char* err, size_t err_len);
  // Storage for a collective's output of `bytes` bytes (64-byte aligned at least), or NULL: the
  // kernel then allocates as any op does. *capacity: the bytes the storage holds; *handle goes to
  // release_storage, from any thread and possibly after the transport stopped, when the output
  // dies. Either may be NULL in the table (no storage of the transport's own).
  void* (*output_storage)(void* state, size_t bytes, size_t* capacity, void** handle);
  void (*release_storage)(void* handle);
};

}  // extern "C"

namespace fn {

constexpr int kFnCollectiveAbi = 5;  // 4: send == recv means in place; 5: output_storage

// The installed transport (nullptr: none; the kernels then fail with FailedPrecondition).
void set_collective_backend(const FnCollectiveBackend* backend);
const FnCollectiveBackend* collective_backend();

// A traced function's collectives, in trace order ("plans"): the first collective of a plan to
// run compares the whole plan across workers once, so programs that differ fail on every worker
// with the difference spelled out instead of exchanging mismatched buffers (or hanging).
int64_t collective_plan_add(int64_t plan_id, const std::string& signature);  // returns its index
std::vector<std::string> collective_plan(int64_t plan_id);

}  // namespace fn
