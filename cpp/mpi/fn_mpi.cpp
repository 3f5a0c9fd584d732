// fn._mpi: the MPI transport of fn's collective ops, built only where MPI's headers are found.
//
// The communicator comes from mpi4py (its Fortran handle, converted with MPI_Comm_f2c), so MPI
// is initialised once, by mpi4py, with MPI_THREAD_MULTIPLE. Two duplicates of it are used:
//   data: the collectives themselves, run by one communication thread as MPI's *blocking*
//         collectives (MPI_Allreduce & co.: the library's tuned algorithms, progressed in its own
//         tight loop), in the order the executor submitted them, which is program order on every
//         worker. A blocking op (CollectiveAllReduce) submits its collective and waits for it
//         with a deadline; the split all-reduce (CollectiveAllReduceStart/Done) submits in its
//         start and waits in its done, so the reduction runs while the executor computes.
//   ctrl: status queries, answered by a watchdog thread: when a collective times out, the
//         waiting worker asks every other worker which collective it has reached and names in
//         its error the ranks that are elsewhere or do not answer.
// Why a thread and blocking calls (measured, benchmarks/README.md): MPI's nonblocking
// collectives (Open MPI's libnbc) polled with MPI_Test reach 0.6-0.8 of MPI_Allreduce's
// bandwidth from 1 MiB up, and only progress inside MPI calls; a blocking call cannot time out,
// so it runs on a thread the caller waits for until its deadline.
// A timed-out collective leaves the communicator unusable: later collectives fail at once, the
// communication thread may stay inside MPI, and fn._distribute aborts the MPI job at exit (so no
// process hangs in MPI_Finalize).
// The C API only (Open MPI and MPICH would otherwise pull in their deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "mpi/mapped_pool.h"
#include "ops/collective.h"

namespace py = pybind11;

namespace fnmpi {

using Clock = std::chrono::steady_clock;
constexpr int kQueryTag = 7101, kReplyTag = 7102;
constexpr size_t kWhatLen = 240;

struct Status {  // what a worker tells a worker that asks
  int64_t query_id;
  int64_t started;      // collectives this worker has submitted
  int64_t completed;    // ... and completed
  char what[kWhatLen];  // the last it submitted
};

// One collective for the communication thread: `run` makes the blocking MPI call(s) and owns
// what they read or write besides the caller's tensors (which collective.cpp keeps alive).
struct Job {
  std::function<int()> run;
  int64_t seq = 0;
  std::string what;
  double timeout = 0;
  Clock::time_point deadline;
  std::atomic<bool> done{false};
  int rc = MPI_SUCCESS;  // written before `done`
};
using JobPtr = std::shared_ptr<Job>;

class Transport {
 public:
  Transport(MPI_Comm base, double default_timeout) : default_timeout_(default_timeout) {
    MPI_Comm_dup(base, &data_);
    MPI_Comm_dup(base, &ctrl_);
    MPI_Comm_rank(data_, &rank_);
    MPI_Comm_size(data_, &size_);
    std::memset(&status_, 0, sizeof status_);
    watchdog_ = std::thread([this] { watchdog_loop(); });
    comm_ = std::thread([this] { comm_loop(); });
    table_.abi_version = fn::kFnCollectiveAbi;
    table_.state = this;
    table_.rank = [](void* s) { return static_cast<Transport*>(s)->rank_; };
    table_.size = [](void* s) { return static_cast<Transport*>(s)->size_; };
    table_.all_reduce_sum = &all_reduce_sum_c;
    table_.all_gatherv = &all_gatherv_c;
    table_.broadcast = &broadcast_c;
    table_.all_reduce_start = &all_reduce_start_c;
    table_.wait = &wait_c;
    // Outputs of 1 MiB and more in the process's pool of mappings (mapped_pool.h), unless
    // FN_MPI_OUTPUT_POOL=0 (then fn's allocator, as every other op's output).
    const char* pool_env = std::getenv("FN_MPI_OUTPUT_POOL");
    if (!pool_env || std::strcmp(pool_env, "0") != 0) {
      table_.output_storage = [](void*, size_t bytes, size_t* capacity, void** handle) {
        return lease_output(bytes, capacity, handle);
      };
      table_.release_storage = &release_output;
    }
  }

  ~Transport() { shutdown(); }

  // Stops the threads and frees the communicators. Returns false when a collective may still be
  // pending inside MPI (one timed out, or one submitted and never waited for did not complete by
  // its deadline): then nothing is freed, the communication thread may be detached, this object
  // must outlive the process (the caller leaks it), and the job is to be aborted.
  bool shutdown() {
    if (stopped_.exchange(true)) return clean_;
    bool exited;
    {
      std::unique_lock<std::mutex> lock(mu_);
      stop_ = true;
      work_cv_.notify_all();
      // A collective still running (submitted, never waited for): give it until its deadline.
      done_cv_.wait_until(lock, idle_deadline_locked(), [&] { return comm_exited_ || broken_; });
      exited = comm_exited_;
      if (!exited) broken_ = true;
      clean_ = !broken_;
    }
    if (exited)
      comm_.join();
    else
      comm_.detach();
    watchdog_stop_ = true;
    if (watchdog_.joinable()) watchdog_.join();
    if (clean_) {
      MPI_Comm_free(&data_);
      MPI_Comm_free(&ctrl_);
    }
    return clean_;
  }

  const FnCollectiveBackend* table() const { return &table_; }
  bool broken() const { return broken_; }
  int64_t completed() {
    std::lock_guard<std::mutex> lock(mu_);
    return completed_;
  }

  // A blocking collective (all-reduce, gather, broadcast): run on the calling thread when no
  // collective is queued or running (no hand-off), else queued behind them (program order) and
  // waited for. Either way with its deadline.
  int run(std::function<int()> call, double timeout, const char* what, char* err, size_t err_len) {
    std::unique_lock<std::mutex> lock(mu_);
    if (int rc = refuse_locked(what, err, err_len)) return rc;
    JobPtr job = make_job_locked(std::move(call), timeout, what);
    if (!queue_.empty() || running_ || inline_) {
      queue_.push_back(job);
      lock.unlock();
      work_cv_.notify_one();
      return wait(job, err, err_len);
    }
    inline_ = true;  // the communication thread starts nothing meanwhile
    lock.unlock();
    int rc = guarded(*job);
    lock.lock();
    inline_ = false;
    if (rc == MPI_SUCCESS) ++completed_;
    bool queued = !queue_.empty();
    lock.unlock();
    if (queued) work_cv_.notify_one();
    return finish(*job, rc, err, err_len);
  }

  // The split all-reduce's halves: start queues the collective for the communication thread and
  // returns a request id at once; wait_for waits for it.
  int start(std::function<int()> call, double timeout, const char* what, int64_t* request, char* err, size_t err_len) {
    std::unique_lock<std::mutex> lock(mu_);
    if (int rc = refuse_locked(what, err, err_len)) return rc;
    JobPtr job = make_job_locked(std::move(call), timeout, what);
    queue_.push_back(job);
    *request = next_request_++;
    started_jobs_[*request] = std::move(job);
    lock.unlock();
    work_cv_.notify_one();
    return 0;
  }

  int wait_for(int64_t request, char* err, size_t err_len) {
    JobPtr job;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = started_jobs_.find(request);
      if (it == started_jobs_.end()) {
        std::snprintf(err, err_len, "no started collective #%lld", static_cast<long long>(request));
        return static_cast<int>(fn::Code::Internal);
      }
      job = std::move(it->second);
      started_jobs_.erase(it);
    }
    return wait(job, err, err_len);
  }

  MPI_Comm data() const { return data_; }

  static int mpi_failure(int rc, const char* what, char* err, size_t err_len) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::snprintf(err, err_len, "%s failed in MPI: %.*s", what, len, text);
    return static_cast<int>(fn::Code::Internal);
  }

 private:
  static constexpr int kTimedOut = -1;
  static constexpr int kSkipped = -2;
  static constexpr int kWaitChecks = 16;  // yields before a waiter sleeps

  // After a failure (or at shutdown) collectives fail at once (caller holds mu_).
  int refuse_locked(const char* what, char* err, size_t err_len) const {
    if (!broken_ && !stop_) return 0;
    std::snprintf(err, err_len, "%s: the collective communicator is unusable after an earlier failure: %s", what,
                  broken_msg_.empty() ? "the transport was shut down" : broken_msg_.c_str());
    return static_cast<int>(fn::Code::FailedPrecondition);
  }

  // Numbers a collective (program order: the executor runs collectives one at a time, in order,
  // and the lock numbers and queues each in one step) and records it for the stall diagnosis.
  JobPtr make_job_locked(std::function<int()> call, double timeout, const char* what) {
    auto job = std::make_shared<Job>();
    job->run = std::move(call);
    job->seq = started_++;
    job->what = what;
    job->timeout = timeout > 0 ? timeout : default_timeout_;
    job->deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(job->timeout));
    std::snprintf(status_.what, kWhatLen, "#%lld %s", static_cast<long long>(job->seq), what);
    return job;
  }

  // Runs a collective's blocking MPI call once every worker has reached it: an MPI_Ibarrier,
  // polled until the deadline, comes first (a blocking call cannot time out, and once every
  // worker is in the barrier each goes straight into the call: no worker can stall in it).
  int guarded(Job& job) {
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_Ibarrier(data_, &req);
    if (rc == MPI_SUCCESS) rc = poll(&req, job.deadline);
    if (rc == MPI_SUCCESS) rc = job.run();
    return rc;  // after a timeout the barrier stays pending: the communicator is then unusable
  }

  // Polls `req` (MPI_Test drives MPI's progress) until it completes or `deadline`: busy for the
  // first 2 ms (a barrier's usual latency), then yielding the CPU between tests, so that
  // oversubscribed workers still make progress.
  static int poll(MPI_Request* req, Clock::time_point deadline) {
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

  // Waits for a queued collective until its deadline.
  int wait(const JobPtr& job, char* err, size_t err_len) {
    // Most collectives queued behind others finish soon: a few checks before sleeping save the
    // wake-up on the way back.
    for (int i = 0; i < kWaitChecks && !job->done.load(std::memory_order_acquire); ++i) std::this_thread::yield();
    if (!job->done.load(std::memory_order_acquire)) {
      std::unique_lock<std::mutex> lock(mu_);
      bool finished = done_cv_.wait_until(lock, job->deadline, [&] { return job->done.load() || broken_; });
      if (!job->done.load()) {
        if (finished) {  // another collective timed out: this one will not run
          std::snprintf(err, err_len, "Collective #%lld %s: the collective communicator is unusable: %s",
                        static_cast<long long>(job->seq), job->what.c_str(), broken_msg_.c_str());
          return static_cast<int>(fn::Code::FailedPrecondition);
        }
        lock.unlock();
        return timed_out(*job, err, err_len);
      }
    }
    return finish(*job, job->rc, err, err_len);
  }

  // A collective's outcome as an fn::Code with its message.
  int finish(const Job& job, int rc, char* err, size_t err_len) {
    if (rc == MPI_SUCCESS) return 0;
    if (rc == kTimedOut) return timed_out(job, err, err_len);
    if (rc == kSkipped) {
      std::lock_guard<std::mutex> lock(mu_);
      std::snprintf(err, err_len, "Collective #%lld %s was not run: the collective communicator is unusable: %s",
                    static_cast<long long>(job.seq), job.what.c_str(), broken_msg_.c_str());
      return static_cast<int>(fn::Code::FailedPrecondition);
    }
    return mpi_failure(rc, job.what.c_str(), err, err_len);
  }

  // The communication thread: runs the queued collectives one after the other (skipped, once
  // the communicator is broken); asleep while the queue is empty.
  void comm_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_cv_.wait(lock, [&] { return stop_ || (!queue_.empty() && !inline_); });
      if (queue_.empty() || inline_) break;  // stopping, and nothing left
      JobPtr job = std::move(queue_.front());
      queue_.pop_front();
      bool skip = broken_ || stop_;
      running_ = job;
      lock.unlock();
      int rc = skip ? kSkipped : guarded(*job);
      lock.lock();
      running_.reset();
      job->rc = rc;
      job->done.store(true, std::memory_order_release);
      if (!skip) ++completed_;
      lock.unlock();  // the waiter wakes to a free lock
      done_cv_.notify_all();
      lock.lock();
    }
    comm_exited_ = true;
    done_cv_.notify_all();
  }

  // When shutdown stops waiting for the communication thread (caller holds mu_).
  Clock::time_point idle_deadline_locked() const {
    Clock::time_point t = Clock::now() + std::chrono::seconds(2);  // time to see `stop_` and leave
    if (running_) t = std::max(t, running_->deadline);
    return t;
  }

  // The deadline of `job` passed: asks the others where they are, breaks the communicator.
  int timed_out(const Job& job, char* err, size_t err_len) {
    std::string who = diagnose(job.seq);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!broken_) broken_msg_ = "collective #" + std::to_string(job.seq) + " timed out";
      broken_ = true;
      done_cv_.notify_all();
    }
    std::snprintf(err, err_len,
                  "Collective #%lld %s timed out after %g s on rank %d waiting for the other workers "
                  "(CommunicationOptions(timeout_seconds=...)). %s",
                  static_cast<long long>(job.seq), job.what.c_str(), job.timeout, rank_, who.c_str());
    return static_cast<int>(fn::Code::DeadlineExceeded);
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
    while (!watchdog_stop_) {
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
      } else if (s.completed <= seq) {
        // submitted it and not done with it: also waiting (collectives complete in order)
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

  // recv = the MPI_SUM over workers of `count` elements in send, in calls of at most INT_MAX / 2
  // elements (MPI counts are int); in place (MPI_IN_PLACE) when send == recv, which saves the
  // library's copy of send into recv; nullptr (with err filled) for a dtype MPI cannot sum here.
  static std::function<int()> sum_call(Transport* t, const void* send, void* recv, int64_t count, int dtype,
                                       const char* what, char* err, size_t err_len) {
    MPI_Datatype type;
    int64_t elem;
    if (!mpi_type(dtype, &type, &elem)) {
      std::snprintf(err, err_len, "%s: dtype %s cannot be all-reduced", what,
                    fn::dtype_name(static_cast<fn::DType>(dtype)));
      return nullptr;
    }
    MPI_Comm comm = t->data();
    return [=] {
      const int64_t chunk = INT_MAX / 2;
      for (int64_t begin = 0; begin < count; begin += chunk) {
        int n = static_cast<int>(std::min(count - begin, chunk));
        const void* src = send == recv ? MPI_IN_PLACE : static_cast<const char*>(send) + begin * elem;
        int rc = MPI_Allreduce(src, static_cast<char*>(recv) + begin * elem, n, type, MPI_SUM, comm);
        if (rc != MPI_SUCCESS) return rc;
      }
      return MPI_SUCCESS;
    };
  }

  static int all_reduce_sum_c(void* s, const void* send, void* recv, int64_t count, int dtype, double timeout,
                              const char* what, char* err, size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    auto call = sum_call(t, send, recv, count, dtype, what, err, err_len);
    if (!call) return static_cast<int>(fn::Code::InvalidArgument);
    return t->run(std::move(call), timeout, what, err, err_len);
  }

  static int all_reduce_start_c(void* s, const void* send, void* recv, int64_t count, int dtype, double timeout,
                                const char* what, int64_t* request, char* err, size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    auto call = sum_call(t, send, recv, count, dtype, what, err, err_len);
    if (!call) return static_cast<int>(fn::Code::InvalidArgument);
    return t->start(std::move(call), timeout, what, request, err, err_len);
  }

  static int wait_c(void* s, int64_t request, char* err, size_t err_len) {
    return static_cast<Transport*>(s)->wait_for(request, err, err_len);
  }

  static int all_gatherv_c(void* s, const void* send, int64_t send_bytes, void* recv, const int64_t* recv_bytes,
                           double timeout, const char* what, char* err, size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    // Owned by the job (it may outlive this call if the collective times out).
    struct Gather {
      std::vector<int> counts, displs;
      std::vector<char> in, out;  // staging for small gathers (sizes, plan digests)
    };
    auto g = std::make_shared<Gather>();
    g->counts.resize(static_cast<size_t>(t->size_));
    g->displs.resize(static_cast<size_t>(t->size_));
    int64_t at = 0;
    for (int r = 0; r < t->size_; ++r) {
      auto i = static_cast<size_t>(r);
      if (recv_bytes[i] > INT_MAX || at > INT_MAX) {
        std::snprintf(err, err_len, "%s: gathers above 2 GiB are not supported", what);
        return static_cast<int>(fn::Code::InvalidArgument);
      }
      g->counts[i] = static_cast<int>(recv_bytes[i]);
      g->displs[i] = static_cast<int>(at);
      at += recv_bytes[i];
    }
    MPI_Comm comm = t->data();
    int n = static_cast<int>(send_bytes);
    // Large gathers write into the caller's buffers (kept alive by the caller after a timeout);
    // small ones are staged here, so MPI never writes into freed memory.
    bool staged = at <= (1 << 20);
    if (staged) {
      g->in.assign(static_cast<const char*>(send), static_cast<const char*>(send) + n);
      g->out.resize(static_cast<size_t>(at));
    }
    const void* src = staged ? g->in.data() : send;
    void* dst = staged ? g->out.data() : recv;
    int rc = t->run(
        [=] { return MPI_Allgatherv(src, n, MPI_BYTE, dst, g->counts.data(), g->displs.data(), MPI_BYTE, comm); },
        timeout, what, err, err_len);
    if (rc == 0 && staged && at > 0) std::memcpy(recv, g->out.data(), static_cast<size_t>(at));
    return rc;
  }

  static int broadcast_c(void* s, void* buf, int64_t bytes, int root, double timeout, const char* what, char* err,
                         size_t err_len) {
    auto* t = static_cast<Transport*>(s);
    MPI_Comm comm = t->data();
    return t->run(
        [=] {
          const int64_t chunk = INT_MAX / 2;
          for (int64_t begin = 0; begin < bytes; begin += chunk) {
            int rc = MPI_Bcast(static_cast<char*>(buf) + begin, static_cast<int>(std::min(bytes - begin, chunk)),
                               MPI_BYTE, root, comm);
            if (rc != MPI_SUCCESS) return rc;
          }
          return MPI_SUCCESS;
        },
        timeout, what, err, err_len);
  }

  double default_timeout_;

  MPI_Comm data_ = MPI_COMM_NULL, ctrl_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  // mu_ guards the queue, the started split collectives, the counters and the status the
  // watchdog reports.
  std::mutex mu_;
  std::condition_variable work_cv_;  // the communication thread waits for work
  std::condition_variable done_cv_;  // callers wait for their collective
  std::deque<JobPtr> queue_;
  JobPtr running_;
  std::map<int64_t, JobPtr> started_jobs_;
  int64_t next_request_ = 0;
  bool stop_ = false, comm_exited_ = false, clean_ = true;
  bool inline_ = false;  // a caller runs a collective itself
  std::atomic<bool> stopped_{false};
  std::atomic<bool> watchdog_stop_{false};
  std::atomic<bool> broken_{false};
  std::string broken_msg_;
  int64_t started_ = 0, completed_ = 0;
  Status status_;
  std::thread watchdog_;
  std::thread comm_;
  FnCollectiveBackend table_{};
};

std::unique_ptr<Transport> g_transport;

// Stops the transport; one whose communication thread may still be inside MPI is leaked (its
// thread uses it) and the job must be aborted. Returns whether it stopped cleanly.
bool stop_transport() {
  if (!g_transport) return true;
  bool clean = g_transport->shutdown();
  if (clean)
    g_transport.reset();
  else
    (void)g_transport.release();  // still used by the detached communication thread
  return clean;
}

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
    {
      py::gil_scoped_release nogil;
      fnmpi::stop_transport();
    }
    fnmpi::g_transport =
        std::make_unique<fnmpi::Transport>(MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_comm)), default_timeout);
    return py::capsule(fnmpi::g_transport->table(), "fn.collective_backend");
  });
  // False when a collective may still be pending inside MPI: the caller then aborts the job.
  m.def("shutdown", [] {
    py::gil_scoped_release nogil;
    return fnmpi::stop_transport();
  });
  m.def("broken", [] { return fnmpi::g_transport && fnmpi::g_transport->broken(); });
  m.def("completed", [] { return fnmpi::g_transport ? fnmpi::g_transport->completed() : 0; });
  m.def("abort", [](int code) { MPI_Abort(MPI_COMM_WORLD, code); });
  // The collective-output pool's counters (tests and benchmarks).
  m.def("output_pool_stats", [] {
    auto st = fnmpi::process_pool()->stats();
    py::dict d;
    d["maps"] = st.maps;
    d["unmaps"] = st.unmaps;
    d["reuses"] = st.reuses;
    d["leased"] = st.leased;
    d["idle"] = st.idle;
    d["idle_bytes"] = st.idle_bytes;
    d["min_bytes"] = fnmpi::MappedPool::kMin;
    d["align"] = fnmpi::MappedPool::kAlign;
    d["max_idle_bytes"] = fnmpi::MappedPool::kMaxIdleBytes;
    d["max_idle_blocks"] = fnmpi::MappedPool::kMaxIdleBlocks;
    return d;
  });
  // Leases and returns blocks of the given sizes from `threads` threads at once, `rounds` times
  // each, writing and checking a per-thread pattern in every block: false if a block was handed
  // to two holders, misaligned or short (tests of the pool's thread safety).
  m.def("_output_pool_stress", [](int threads, int rounds, std::vector<size_t> sizes) {
    py::gil_scoped_release nogil;
    return fnmpi::stress_pool(threads, rounds, sizes);
  });
  m.def("library_version", [] {
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    return std::string(v, static_cast<size_t>(len));
  });
}
