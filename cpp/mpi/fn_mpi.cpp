// fn._mpi: the MPI transport of fn's collective ops, built only where MPI's headers are found.
//
// The communicator comes from mpi4py (its Fortran handle, converted with MPI_Comm_f2c), so MPI
// is initialised once, by mpi4py, with MPI_THREAD_MULTIPLE. Two duplicates of it are used:
//   data: the collectives themselves, run on the calling (executor) thread as MPI's nonblocking
//         collectives, polled with MPI_Test until they complete or the deadline passes (no thread
//         hand-off per collective: on a loaded machine that costs a scheduler time slice);
//         The split all-reduce (CollectiveAllReduceStart/Done) is posted on the calling thread too
//         (program order) and progressed by a progress thread (MPI_Testall) while the executor
//         computes, until the Done step waits for it;
//   ctrl: status queries, answered by a watchdog thread: when a collective times out, the
//         waiting worker asks every other worker which collective it has reached and names in
//         its error the ranks that are elsewhere or do not answer.
// A timed-out collective leaves the communicator unusable: later collectives fail at once, and
// fn._distribute aborts the MPI job at exit (so no process hangs in MPI_Finalize).
// The C API only (Open MPI and MPICH would otherwise pull in their deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "ops/collective.h"

namespace py = pybind11;

namespace fnmpi {

using Clock = std::chrono::steady_clock;
constexpr int kQueryTag = 7101, kReplyTag = 7102;
constexpr size_t kWhatLen = 240;

struct Status {  // what a worker tells a worker that asks
  int64_t query_id;
  int64_t started;      // collectives this worker has started
  int64_t completed;    // ... and completed
  char what[kWhatLen];  // the collective it is in (or last ran)
};

class Transport {
 public:
  Transport(MPI_Comm base, double default_timeout) : default_timeout_(default_timeout) {
    MPI_Comm_dup(base, &data_);
    MPI_Comm_dup(base, &ctrl_);
    MPI_Comm_rank(data_, &rank_);
    MPI_Comm_size(data_, &size_);
    std::memset(&status_, 0, sizeof status_);
    watchdog_ = std::thread([this] { watchdog_loop(); });
    progress_ = std::thread([this] { progress_loop(); });
    table_.abi_version = fn::kFnCollectiveAbi;
    table_.state = this;
    table_.rank = [](void* s) { return static_cast<Transport*>(s)->rank_; };
    table_.size = [](void* s) { return static_cast<Transport*>(s)->size_; };
    table_.all_reduce_sum = &all_reduce_sum_c;
    table_.all_gatherv = &all_gatherv_c;
    table_.broadcast = &broadcast_c;
    table_.all_reduce_start = &all_reduce_start_c;
    table_.wait = &wait_c;
  }

  ~Transport() { shutdown(); }

  // Stops the watchdog and frees the communicators (not after a timeout: a collective is still
  // pending on them, and the job ends with MPI_Abort).
  void shutdown() {
    if (stopped_.exchange(true)) return;
    stop_ = true;
    {
      std::lock_guard<std::mutex> lock(async_mu_);
      async_cv_.notify_all();
    }
    if (progress_.joinable()) progress_.join();
    if (watchdog_.joinable()) watchdog_.join();
    if (!broken_) {
      MPI_Comm_free(&data_);
      MPI_Comm_free(&ctrl_);
    }
  }

  const FnCollectiveBackend* table() const { return &table_; }
  bool broken() const { return broken_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int64_t completed() const { return completed_; }

  // A collective's prologue (caller holds op_mu_): refuses after a failure, fills in the default
  // timeout, and numbers the collective for the stall diagnosis.
  int begin(const char* what, double* timeout, int64_t* seq, char* err, size_t err_len) {
    if (broken_) {
      std::snprintf(err, err_len, "%s: the collective communicator is unusable after an earlier failure: %s", what,
                    broken_msg_.c_str());
      return static_cast<int>(fn::Code::FailedPrecondition);
    }
    if (*timeout <= 0) *timeout = default_timeout_;
    std::lock_guard<std::mutex> lock(mu_);
    *seq = started_++;
    std::snprintf(status_.what, kWhatLen, "#%lld %s", static_cast<long long>(*seq), what);
    return 0;
  }

  static int mpi_failure(int rc, const char* what, char* err, size_t err_len) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::snprintf(err, err_len, "%s failed in MPI: %.*s", what, len, text);
    return static_cast<int>(fn::Code::Internal);
  }

  // Runs one collective: `post(i, &request)` posts its i-th nonblocking MPI call (0 <= i < parts;
  // large tensors go in parts, MPI counts being ints); each is polled with MPI_Test until it
  // completes or `timeout` (for the whole collective) passes. Serialised: one collective at a time.
  int run(int64_t parts, const std::function<int(int64_t, MPI_Request*)>& post, double timeout, const char* what,
          char* err, size_t err_len) {
    std::lock_guard<std::mutex> one_at_a_time(op_mu_);
    int64_t seq;
    if (int rc = begin(what, &timeout, &seq, err, err_len)) return rc;
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout));
    for (int64_t part = 0; part < parts; ++part) {
      MPI_Request req = MPI_REQUEST_NULL;
      int rc = post(part, &req);
      if (rc == MPI_SUCCESS) rc = wait(&req, deadline);
      if (rc == kTimedOut) {
        std::string who = diagnose(seq);
        broken_msg_ = "collective #" + std::to_string(seq) + " timed out";
        broken_ = true;
        std::snprintf(err, err_len,
                      "Collective #%lld %s timed out after %g s on rank %d waiting for the other workers "
                      "(CommunicationOptions(timeout_seconds=...)). %s",
                      static_cast<long long>(seq), what, timeout, rank_, who.c_str());
        return static_cast<int>(fn::Code::DeadlineExceeded);
      }
      if (rc != MPI_SUCCESS) return mpi_failure(rc, what, err, err_len);
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++completed_;
    return 0;
  }

  MPI_Comm data() const { return data_; }

  // Posts a split collective's nonblocking calls (`parts` of them, in order) and returns its
  // request id; the progress thread completes it.
  int start(int64_t parts, const std::function<int(int64_t, MPI_Request*)>& post, double timeout, const char* what,
            int64_t* request, char* err, size_t err_len) {
    std::lock_guard<std::mutex> one_at_a_time(op_mu_);
    Async a;
    if (int rc = begin(what, &timeout, &a.seq, err, err_len)) return rc;
    a.what = what;
    a.timeout = timeout;
    a.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout));
    for (int64_t part = 0; part < parts; ++part) {
      MPI_Request req = MPI_REQUEST_NULL;
      int rc = post(part, &req);
      if (rc != MPI_SUCCESS) return mpi_failure(rc, what, err, err_len);
      a.reqs.push_back(req);
    }
    std::lock_guard<std::mutex> lock(async_mu_);
    *request = next_request_++;
    a.done = a.reqs.empty();
    async_[*request] = std::move(a);
    async_cv_.notify_all();
    return 0;
  }

  // Waits for a started collective (until its deadline; a timeout names the late ranks).
  int wait_for(int64_t request, char* err, size_t err_len) {
    std::unique_lock<std::mutex> lock(async_mu_);
    auto it = async_.find(request);
    if (it == async_.end()) {
      std::snprintf(err, err_len, "no started collective #%lld", static_cast<long long>(request));
      return static_cast<int>(fn::Code::Internal);
    }
    Async& a = it->second;
    if (!async_cv_.wait_until(lock, a.deadline, [&] { return a.done; })) {
      int64_t seq = a.seq;
      std::string what = a.what;
      double timeout = a.timeout;
      lock.unlock();
      std::string who = diagnose(seq);
      broken_msg_ = "collective #" + std::to_string(seq) + " timed out";
      broken_ = true;
      std::snprintf(err, err_len,
                    "Collective #%lld %s timed out after %g s on rank %d waiting for the other workers "
                    "(CommunicationOptions(timeout_seconds=...)). %s",
                    static_cast<long long>(seq), what.c_str(), timeout, rank_, who.c_str());
      return static_cast<int>(fn::Code::DeadlineExceeded);
    }
    int rc = a.rc;
    std::string what = a.what;
    async_.erase(it);
    if (rc != MPI_SUCCESS) return mpi_failure(rc, what.c_str(), err, err_len);
    return 0;
  }

 private:
  struct Async {
    std::vector<MPI_Request> reqs;
    int64_t seq = 0;
    std::string what;
    double timeout = 0;
    Clock::time_point deadline;
    bool done = false;
    int rc = MPI_SUCCESS;
  };

  // Drives the started collectives (MPI progresses only inside MPI calls): MPI_Testall on each
  // pending one, busy for 2 ms after a post, then every 100 us; asleep while none is pending.
  void progress_loop() {
    std::unique_lock<std::mutex> lock(async_mu_);
    auto busy_until = Clock::now();
    while (!stop_) {
      bool pending = false;
      for (auto& entry : async_) {
        Async& a = entry.second;
        if (a.done || broken_) continue;
        int flag = 0;
        int rc = MPI_Testall(static_cast<int>(a.reqs.size()), a.reqs.data(), &flag, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || flag) {
          a.rc = rc;
          a.done = true;
          {
            std::lock_guard<std::mutex> status_lock(mu_);
            ++completed_;
          }
          async_cv_.notify_all();
        } else {
          pending = true;
        }
      }
      if (!pending) {
        async_cv_.wait(lock, [&] {
          if (stop_) return true;
          for (auto& entry : async_)
            if (!entry.second.done && !broken_) return true;
          return false;
        });
        busy_until = Clock::now() + std::chrono::milliseconds(2);
        continue;
      }
      lock.unlock();
      if (Clock::now() < busy_until)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      lock.lock();
    }
  }

  static constexpr int kTimedOut = -1;

  // Polls `req` (MPI_Test drives MPI's progress) until it completes or `deadline`: busy for the
  // first 2 ms (a collective's usual latency), then yielding the CPU between tests, so that
  // oversubscribed workers still make progress.
  static int wait(MPI_Request* req, Clock::time_point deadline) {
    auto spin_until = Clock::now() + std::chrono::milliseconds(2);
    bool yielding = false;
    for (int64_t spins = 0;; ++spins) {
      int flag = 0;
      int rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
      if (flag) return MPI_SUCCESS;
      if (yielding) std::this_thread::yield();
      if ((spins & 63) == 63) {
        auto now = Clock::now();
        if (now > deadline) return kTimedOut;
        yielding = now > spin_until;
      }
    }
  }

  Status snapshot(int64_t query_id) {
    std::lock_guard<std::mutex> lock(mu_);
    Status s = status_;
    s.query_id = query_id;
    s.started = started_;
    s.completed = completed_;
    return s;
  }

  // Answers other workers' status queries (every 5 ms) until shutdown.
  void watchdog_loop() {
    while (!stop_) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kQueryTag, ctrl_, &flag, &st);
      if (flag) {
        int64_t query_id = 0;
        MPI_Recv(&query_id, 1, MPI_INT64_T, st.MPI_SOURCE, kQueryTag, ctrl_, MPI_STATUS_IGNORE);
        Status s = snapshot(query_id);
        MPI_Send(&s, sizeof s, MPI_BYTE, st.MPI_SOURCE, kReplyTag, ctrl_);
        continue;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // Asks every other worker where it is; returns a sentence naming those not in collective `seq`.
  std::string diagnose(int64_t seq) {
    int64_t query_id = (static_cast<int64_t>(rank_) << 40) + seq;
    std::vector<MPI_Request> sends(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    std::vector<MPI_Request> recvs(static_cast<size_t>(size_), MPI_REQUEST_NULL);
    std::vector<Status> replies(static_cast<size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      MPI_Isend(&query_id, 1, MPI_INT64_T, r, kQueryTag, ctrl_, &sends[static_cast<size_t>(r)]);
      MPI_Irecv(&replies[static_cast<size_t>(r)], sizeof(Status), MPI_BYTE, r, kReplyTag, ctrl_,
                &recvs[static_cast<size_t>(r)]);
    }
    std::vector<bool> answered(static_cast<size_t>(size_), false);
    auto deadline = Clock::now() + std::chrono::seconds(3);
    int pending = size_ - 1;
    while (pending > 0 && Clock::now() < deadline) {
      for (int r = 0; r < size_; ++r) {
        auto i = static_cast<size_t>(r);
        if (r == rank_ || answered[i]) continue;
        int flag = 0;
        MPI_Test(&recvs[i], &flag, MPI_STATUS_IGNORE);
        if (flag) {
          if (replies[i].query_id == query_id) {
            answered[i] = true;
            --pending;
          } else {  // a stale reply: listen again
            MPI_Irecv(&replies[i], sizeof(Status), MPI_BYTE, r, kReplyTag, ctrl_, &recvs[i]);
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::string out;
    std::vector<int> late;
    for (int r = 0; r < size_; ++r) {
      auto i = static_cast<size_t>(r);
      if (r == rank_) continue;
      if (!answered[i]) {
        MPI_Cancel(&recvs[i]);
        MPI_Request_free(&recvs[i]);
        late.push_back(r);
        out += "Rank " + std::to_string(r) + " did not answer (dead, or hung inside MPI). ";
        continue;
      }
      const Status& s = replies[i];
      if (s.started <= seq) {
        late.push_back(r);
        out += "Rank " + std::to_string(r) + " has not reached collective #" + std::to_string(seq) +
               " (it has started " + std::to_string(s.started) + " collectives" +
               (s.started > 0 ? std::string(", the last: ") + std::string(s.what, strnlen(s.what, kWhatLen)) : "") +
               "): it is stalled or running different code. ";
      } else if (s.completed <= seq && s.started == seq + 1) {
        // also waiting in this collective
      } else {
        out += "Rank " + std::to_string(r) + " is past it (started " + std::to_string(s.started) + "). ";
      }
    }
    for (auto& q : sends) {
      if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
    }
    std::string names;
    for (int r : late) names += (names.empty() ? "" : ", ") + std::to_string(r);
    if (names.empty()) return out.empty() ? "Every worker answered from inside this collective." : out;
    return "Waiting for rank(s) " + names + ". " + out;
  }

  // One nonblocking MPI_SUM all-reduce of `count` elements, posted in parts of at most INT_MAX / 2
  // (MPI counts are int): how many parts, and a function posting part i.
  struct Chunked {
    int64_t parts = 0;
    std::function<int(int64_t, MPI_Request*)> post;
  };
  static bool chunked_sum(Transport* t, const void* send, void* recv, int64_t count, int dtype, const char* what,
                          char* err, size_t err_len, Chunked* out) {
    MPI_Datatype type;
    int64_t elem;
    if (!mpi_type(dtype, &type, &elem)) {
      std::snprintf(err, err_len, "%s: dtype %s cannot be all-reduced", what,
                    fn::dtype_name(static_cast<fn::DType>(dtype)));
      return false;
    }
    const int64_t chunk = INT_MAX / 2;
    out->parts = count == 0 ? 0 : (count + chunk - 1) / chunk;
    MPI_Comm comm = t->data();
    out->post = [=](int64_t part, MPI_Request* req) {
      int64_t begin = part * chunk;
      int n = static_cast<int>(std::min(count - begin, chunk));
      return MPI_Iallreduce(static_cast<const char*>(send) + begin * elem, static_cast<char*>(recv) + begin * elem, n,
                            type, MPI_SUM, comm, req);
    };
    return true;
  }

  static int all_reduce_sum_c(void* s, const void* send, void* recv, int64_t count, int dtype, double timeout,
                              const char* what, char* err, size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    Chunked c;
    if (!chunked_sum(t, send, recv, count, dtype, what, err, err_len, &c))
      return static_cast<int>(fn::Code::InvalidArgument);
    return t->run(c.parts, c.post, timeout, what, err, err_len);
  }

  static int all_reduce_start_c(void* s, const void* send, void* recv, int64_t count, int dtype, double timeout,
                                const char* what, int64_t* request, char* err, size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    Chunked c;
    if (!chunked_sum(t, send, recv, count, dtype, what, err, err_len, &c))
      return static_cast<int>(fn::Code::InvalidArgument);
    return t->start(c.parts, c.post, timeout, what, request, err, err_len);
  }

  static int wait_c(void* s, int64_t request, char* err, size_t err_len) {
    return static_cast<Transport*>(s)->wait_for(request, err, err_len);
  }

  static bool mpi_type(int dtype, MPI_Datatype* type, int64_t* elem) {
    switch (static_cast<fn::DType>(dtype)) {
      case fn::DType::Float32:
        *type = MPI_FLOAT;
        *elem = 4;
        return true;
      case fn::DType::Float64:
        *type = MPI_DOUBLE;
        *elem = 8;
        return true;
      case fn::DType::Int32:
        *type = MPI_INT32_T;
        *elem = 4;
        return true;
      case fn::DType::Int64:
        *type = MPI_INT64_T;
        *elem = 8;
        return true;
      default: return false;
    }
  }

  static int all_gatherv_c(void* s, const void* send, int64_t send_bytes, void* recv, const int64_t* recv_bytes,
                           double timeout, const char* what, char* err, size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    std::vector<int> counts(static_cast<size_t>(t->size_)), displs(static_cast<size_t>(t->size_));
    int64_t at = 0;
    for (int r = 0; r < t->size_; ++r) {
      auto i = static_cast<size_t>(r);
      if (recv_bytes[i] > INT_MAX || at > INT_MAX) {
        std::snprintf(err, err_len, "%s: gathers above 2 GiB are not supported", what);
        return static_cast<int>(fn::Code::InvalidArgument);
      }
      counts[i] = static_cast<int>(recv_bytes[i]);
      displs[i] = static_cast<int>(at);
      at += recv_bytes[i];
    }
    MPI_Comm comm = t->data();
    int n = static_cast<int>(send_bytes);
    if (at > (1 << 20)) {  // large: the caller keeps its buffers alive if this times out
      auto post = [&](int64_t, MPI_Request* req) {
        return MPI_Iallgatherv(send, n, MPI_BYTE, recv, counts.data(), displs.data(), MPI_BYTE, comm, req);
      };
      return t->run(1, post, timeout, what, err, err_len);
    }
    // Small (sizes, plan digests): staged in buffers that are not freed if the collective times
    // out (it may complete later), so MPI never writes into freed memory.
    struct Staging {
      std::vector<char> in, out;
      std::vector<int> counts, displs;
    };
    auto st = std::make_unique<Staging>(
        Staging{std::vector<char>(static_cast<const char*>(send), static_cast<const char*>(send) + n),
                std::vector<char>(static_cast<size_t>(at)), counts, displs});
    Staging* p = st.get();
    auto post = [&](int64_t, MPI_Request* req) {
      return MPI_Iallgatherv(p->in.data(), n, MPI_BYTE, p->out.data(), p->counts.data(), p->displs.data(), MPI_BYTE,
                             comm, req);
    };
    int rc = t->run(1, post, timeout, what, err, err_len);
    if (rc == static_cast<int>(fn::Code::DeadlineExceeded)) {
      st.release();  // pending in MPI: leaked on purpose (the job is about to end)
      return rc;
    }
    if (rc == 0 && at > 0) std::memcpy(recv, p->out.data(), static_cast<size_t>(at));
    return rc;
  }

  static int broadcast_c(void* s, void* buf, int64_t bytes, int root, double timeout, const char* what, char* err,
                         size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    MPI_Comm comm = t->data();
    const int64_t chunk = INT_MAX / 2;
    int64_t parts = bytes == 0 ? 0 : (bytes + chunk - 1) / chunk;
    auto post = [&](int64_t part, MPI_Request* req) {
      int64_t begin = part * chunk;
      return MPI_Ibcast(static_cast<char*>(buf) + begin, static_cast<int>(std::min(bytes - begin, chunk)), MPI_BYTE,
                        root, comm, req);
    };
    return t->run(parts, post, timeout, what, err, err_len);
  }

  double default_timeout_;
  MPI_Comm data_ = MPI_COMM_NULL, ctrl_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::mutex mu_;     // guards the status the watchdog reports
  std::mutex op_mu_;  // one collective at a time
  std::atomic<bool> stop_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> broken_{false};
  std::string broken_msg_;
  int64_t started_ = 0, completed_ = 0;
  Status status_;
  std::mutex async_mu_;  // guards async_ (the started split collectives)
  std::condition_variable async_cv_;
  std::map<int64_t, Async> async_;
  int64_t next_request_ = 0;
  std::thread watchdog_;
  std::thread progress_;
  FnCollectiveBackend table_{};
};

std::unique_ptr<Transport> g_transport;

}  // namespace fnmpi

PYBIND11_MODULE(_mpi, m) {
  m.doc() = "fn's MPI transport for collective ops (optional; needs Open MPI and mpi4py).";
  m.def("start", [](int64_t fortran_comm, double default_timeout) {
    int initialized = 0, provided = 0;
    MPI_Initialized(&initialized);
    if (!initialized) throw std::runtime_error("MPI is not initialised: import mpi4py.MPI first");
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE)
      throw std::runtime_error("fn's collectives need MPI_THREAD_MULTIPLE (mpi4py's default thread level)");
    if (fnmpi::g_transport) fnmpi::g_transport->shutdown();
    fnmpi::g_transport =
        std::make_unique<fnmpi::Transport>(MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_comm)), default_timeout);
    return py::capsule(fnmpi::g_transport->table(), "fn.collective_backend");
  });
  m.def("shutdown", [] {
    if (fnmpi::g_transport) {
      py::gil_scoped_release nogil;
      fnmpi::g_transport->shutdown();
    }
  });
  m.def("broken", [] { return fnmpi::g_transport && fnmpi::g_transport->broken(); });
  m.def("completed", [] { return fnmpi::g_transport ? fnmpi::g_transport->completed() : 0; });
  m.def("abort", [](int code) { MPI_Abort(MPI_COMM_WORLD, code); });
  m.def("library_version", [] {
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return std::string(v, static_cast<size_t>(len));
  });
}
