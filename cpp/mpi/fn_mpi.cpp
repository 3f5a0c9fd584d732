// fn._mpi: the MPI transport of fn's collective ops, built only where MPI's headers are found.
//
// The communicator comes from mpi4py (its Fortran handle, converted with MPI_Comm_f2c), so MPI
// is initialised once, by mpi4py, with MPI_THREAD_MULTIPLE. Two duplicates of it are used:
//   data: the collectives themselves, run by one communication thread with MPI's blocking calls
//         (Open MPI's tuned algorithms), so the executor thread can wait with a deadline;
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
#include <deque>
#include <functional>
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

struct Status {          // what a worker tells a worker that asks
  int64_t query_id;
  int64_t started;       // collectives this worker has started
  int64_t completed;     // ... and completed
  char what[kWhatLen];   // the collective it is in (or last ran)
};

struct Job {
  std::function<int()> run;   // returns an MPI error code
  int result = MPI_SUCCESS;
  bool done = false;
};

class Transport {
 public:
  Transport(MPI_Comm base, double default_timeout) : default_timeout_(default_timeout) {
    MPI_Comm_dup(base, &data_);
    MPI_Comm_dup(base, &ctrl_);
    MPI_Comm_rank(data_, &rank_);
    MPI_Comm_size(data_, &size_);
    std::memset(&status_, 0, sizeof status_);
    comm_thread_ = std::thread([this] { comm_loop(); });
    watchdog_ = std::thread([this] { watchdog_loop(); });
    table_.abi_version = fn::kFnCollectiveAbi;
    table_.state = this;
    table_.rank = [](void* s) { return static_cast<Transport*>(s)->rank_; };
    table_.size = [](void* s) { return static_cast<Transport*>(s)->size_; };
    table_.all_reduce_sum = &all_reduce_sum_c;
    table_.all_gatherv = &all_gatherv_c;
    table_.broadcast = &broadcast_c;
  }

  ~Transport() { shutdown(); }

  // Joins the threads (unless a collective is stuck: then they are left to MPI_Abort).
  void shutdown() {
    if (stopped_.exchange(true)) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (broken_) {
      comm_thread_.detach();
    } else if (comm_thread_.joinable()) {
      comm_thread_.join();
    }
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

  // Runs `run` (MPI calls on data_) on the communication thread; waits at most `timeout`.
  int submit(const std::function<int()>& run, double timeout, const char* what, char* err, size_t err_len) {
    if (broken_) {
      std::snprintf(err, err_len, "%s: the collective communicator is unusable after an earlier failure: %s", what,
                    broken_msg_.c_str());
      return static_cast<int>(fn::Code::FailedPrecondition);
    }
    if (timeout <= 0) timeout = default_timeout_;
    auto job = std::make_shared<Job>();
    job->run = run;
    int64_t seq;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seq = started_++;
      std::snprintf(status_.what, kWhatLen, "#%lld %s", static_cast<long long>(seq), what);
      queue_.push_back(job);
    }
    cv_.notify_all();
    std::unique_lock<std::mutex> lock(mu_);
    bool finished = done_cv_.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return job->done; });
    if (finished) {
      if (job->result == MPI_SUCCESS) return 0;
      char text[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(job->result, text, &len);
      std::snprintf(err, err_len, "%s failed in MPI: %.*s", what, len, text);
      return static_cast<int>(fn::Code::Internal);
    }
    lock.unlock();
    std::string who = diagnose(seq);
    broken_msg_ = "collective #" + std::to_string(seq) + " timed out";
    broken_ = true;
    std::snprintf(err, err_len,
                  "Collective #%lld %s timed out after %g s on rank %d waiting for the other workers "
                  "(CommunicationOptions(timeout_seconds=...)). %s",
                  static_cast<long long>(seq), what, timeout, rank_, who.c_str());
    return static_cast<int>(fn::Code::DeadlineExceeded);
  }

  MPI_Comm data() const { return data_; }

 private:
  void comm_loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = queue_.front();
        queue_.pop_front();
      }
      int rc = job->run();
      {
        std::lock_guard<std::mutex> lock(mu_);
        job->result = rc;
        job->done = true;
        ++completed_;
      }
      done_cv_.notify_all();
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
          } else {   // a stale reply: listen again
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

  static int all_reduce_sum_c(void* s, void* buf, int64_t count, int dtype, double timeout, const char* what,
                              char* err, size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    MPI_Datatype type;
    size_t elem;
    switch (static_cast<fn::DType>(dtype)) {
      case fn::DType::Float32: type = MPI_FLOAT; elem = 4; break;
      case fn::DType::Float64: type = MPI_DOUBLE; elem = 8; break;
      case fn::DType::Int32: type = MPI_INT32_T; elem = 4; break;
      case fn::DType::Int64: type = MPI_INT64_T; elem = 8; break;
      default:
        std::snprintf(err, err_len, "%s: dtype %s cannot be all-reduced", what, fn::dtype_name(static_cast<fn::DType>(dtype)));
        return static_cast<int>(fn::Code::InvalidArgument);
    }
    MPI_Comm comm = t->data();
    auto run = [=]() {
      char* p = static_cast<char*>(buf);
      for (int64_t done = 0; done < count;) {   // MPI counts are ints: large tensors in chunks
        int n = static_cast<int>(std::min<int64_t>(count - done, INT_MAX / 2));
        int rc = MPI_Allreduce(MPI_IN_PLACE, p + done * static_cast<int64_t>(elem), n, type, MPI_SUM, comm);
        if (rc != MPI_SUCCESS) return rc;
        done += n;
      }
      return static_cast<int>(MPI_SUCCESS);
    };
    return t->submit(run, timeout, what, err, err_len);
  }

  static int all_gatherv_c(void* s, const void* send, int64_t send_bytes, void* recv, const int64_t* recv_bytes,
                           double timeout, const char* what, char* err, size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    auto counts = std::make_shared<std::vector<int>>(static_cast<size_t>(t->size_));
    auto displs = std::make_shared<std::vector<int>>(static_cast<size_t>(t->size_));
    int64_t at = 0;
    for (int r = 0; r < t->size_; ++r) {
      auto i = static_cast<size_t>(r);
      if (recv_bytes[i] > INT_MAX || at > INT_MAX) {
        std::snprintf(err, err_len, "%s: gathers above 2 GiB are not supported", what);
        return static_cast<int>(fn::Code::InvalidArgument);
      }
      (*counts)[i] = static_cast<int>(recv_bytes[i]);
      (*displs)[i] = static_cast<int>(at);
      at += recv_bytes[i];
    }
    MPI_Comm comm = t->data();
    int n = static_cast<int>(send_bytes);
    if (at > (1 << 20)) {   // large: the caller keeps its buffers alive if this times out
      auto run = [=]() {
        return MPI_Allgatherv(send, n, MPI_BYTE, recv, counts->data(), displs->data(), MPI_BYTE, comm);
      };
      return t->submit(run, timeout, what, err, err_len);
    }
    // Small (sizes, plan digests): staged in buffers the job owns, so a collective that times out
    // and completes later never writes into freed memory.
    auto in = std::make_shared<std::vector<char>>(static_cast<const char*>(send), static_cast<const char*>(send) + n);
    auto out = std::make_shared<std::vector<char>>(static_cast<size_t>(at));
    auto run = [=]() {
      return MPI_Allgatherv(in->data(), n, MPI_BYTE, out->data(), counts->data(), displs->data(), MPI_BYTE, comm);
    };
    int rc = t->submit(run, timeout, what, err, err_len);
    if (rc == 0 && at > 0) std::memcpy(recv, out->data(), static_cast<size_t>(at));
    return rc;
  }

  static int broadcast_c(void* s, void* buf, int64_t bytes, int root, double timeout, const char* what, char* err,
                         size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    MPI_Comm comm = t->data();
    auto run = [=]() {
      char* p = static_cast<char*>(buf);
      for (int64_t done = 0; done < bytes;) {
        int n = static_cast<int>(std::min<int64_t>(bytes - done, INT_MAX / 2));
        int rc = MPI_Bcast(p + done, n, MPI_BYTE, root, comm);
        if (rc != MPI_SUCCESS) return rc;
        done += n;
      }
      return static_cast<int>(MPI_SUCCESS);
    };
    return t->submit(run, timeout, what, err, err_len);
  }

  double default_timeout_;
  MPI_Comm data_ = MPI_COMM_NULL, ctrl_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stop_ = false;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> broken_{false};
  std::string broken_msg_;
  int64_t started_ = 0, completed_ = 0;
  Status status_;
  std::thread comm_thread_, watchdog_;
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
    fnmpi::g_transport = std::make_unique<fnmpi::Transport>(MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_comm)),
                                                              default_timeout);
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
