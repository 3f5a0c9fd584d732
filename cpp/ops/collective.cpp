// CollectiveAllReduce / CollectiveAllGather / CollectiveBroadcast (TF's CollectiveReduceV2,
// CollectiveGatherV2, CollectiveBcastSend/RecvV2). Stateful, so the executor runs them in trace
// order: every worker issues the same collectives in the same order without negotiating.
#include "ops/collective.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>

#include "core/error.h"
#include "ops/families.h"
#include "ops/forward.h"
#include "ops/op.h"

namespace fn {

namespace {

std::atomic<const FnCollectiveBackend*> g_backend{nullptr};

struct Plans {
  std::mutex mu;
  std::map<int64_t, std::vector<std::string>> plans;
  std::set<int64_t> validated;
};

Plans& plans() {
  static Plans p;
  return p;
}

const FnCollectiveBackend& backend_or_throw() {
  const FnCollectiveBackend* b = g_backend.load();
  if (!b)
    throw_error(Code::FailedPrecondition,
                "No collective transport is installed: multi-worker collectives run on MPI. Install Open MPI "
                "(apt-get install openmpi-bin libopenmpi-dev) and `pip install fn[mpi]`, build fn where MPI's "
                "headers are found (fn._mpi), and create a tf.distribute.MultiWorkerMirroredStrategy.");
  return *b;
}

// A collective that timed out may still be running inside MPI (its peers may arrive later): its
// buffers must outlive this call, so they are kept until the process ends (it is about to: the
// communicator is unusable and fn._distribute aborts the job at exit).
void keep_alive_after_timeout(int code, std::initializer_list<EagerPtr> buffers) {
  if (code != static_cast<int>(Code::DeadlineExceeded)) return;
  static std::mutex mu;
  static std::vector<EagerPtr>* kept = new std::vector<EagerPtr>();  // never freed on purpose
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& b : buffers) kept->push_back(b);
}

void check(int code, const char* err) {
  if (code != 0) {
    int max_code = static_cast<int>(Code::Unauthenticated);
    throw_error(code > 0 && code <= max_code ? static_cast<Code>(code) : Code::Internal, err);
  }
}

double timeout_of(const Attrs& a) { return a.get_or<double>("timeout_seconds", 0.0); }

std::string what_of(const KernelContext& k, const char* op) {
  std::string sig = k.attrs.get_or<std::string>("signature", "");
  return std::string(op) + " '" + k.node_name + "'" + (sig.empty() ? "" : " (" + sig + ")");
}

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// All workers' copies of `text`, through two all-gathers (lengths, then bytes).
std::vector<std::string> gather_texts(const FnCollectiveBackend& b, const std::string& text, double timeout,
                                      const char* what) {
  char err[2048] = {0};
  int n = b.size(b.state);
  std::vector<int64_t> eight(static_cast<size_t>(n), 8), lens(static_cast<size_t>(n));
  int64_t mine = static_cast<int64_t>(text.size());
  check(b.all_gatherv(b.state, &mine, 8, lens.data(), eight.data(), timeout, what, err, sizeof err), err);
  int64_t total = 0;
  for (int64_t l : lens) {
    if (l < 0 || total > std::numeric_limits<int64_t>::max() - l) throw_error(Code::Internal, "bad plan length");
    total += l;
  }
  std::string all(static_cast<size_t>(total), '\0');
  check(b.all_gatherv(b.state, text.data(), mine, all.data(), lens.data(), timeout, what, err, sizeof err), err);
  std::vector<std::string> out;
  size_t at = 0;
  for (int64_t l : lens) {
    out.push_back(all.substr(at, static_cast<size_t>(l)));
    at += static_cast<size_t>(l);
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    size_t nl = s.find('\n', at);
    if (nl == std::string::npos) nl = s.size();
    if (nl > at) out.push_back(s.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

// Compares `plan_text` (one collective per line) across workers; on a difference every worker
// raises the same InvalidArgument naming the first collective that differs and each rank's view.
void validate_plan(const FnCollectiveBackend& b, const std::string& plan_text, double timeout, const char* what) {
  char err[2048] = {0};
  int n = b.size(b.state);
  uint64_t digest = fnv1a(plan_text);
  std::vector<uint64_t> digests(static_cast<size_t>(n));
  std::vector<int64_t> eight(static_cast<size_t>(n), 8);
  check(b.all_gatherv(b.state, &digest, 8, digests.data(), eight.data(), timeout, what, err, sizeof err), err);
  if (std::all_of(digests.begin(), digests.end(), [&](uint64_t d) { return d == digests[0]; })) return;
  std::vector<std::string> texts = gather_texts(b, plan_text, timeout, what);
  std::vector<std::vector<std::string>> lines;
  size_t longest = 0;
  for (auto& t : texts) {
    lines.push_back(split_lines(t));
    longest = std::max(longest, lines.back().size());
  }
  size_t first = 0;
  for (; first < longest; ++first) {
    bool same = true;
    for (auto& l : lines) same = same && first < l.size() && l[first] == lines[0][first];
    if (!same) break;
  }
  std::string msg =
      "The workers' collective plans differ (every worker must run the same collectives in the "
      "same order with the same shapes and dtypes); first difference at collective #" +
      std::to_string(first) + ":";
  for (int r = 0; r < n; ++r) {
    const auto& l = lines[static_cast<size_t>(r)];
    msg += "\n  rank " + std::to_string(r) + ": " + (first < l.size() ? l[first] : std::string("(no collective)")) +
           "  [" + std::to_string(l.size()) + " collectives]";
  }
  throw_error(Code::InvalidArgument, msg);
}

// Runs once per plan (the first of its collectives to execute); eager collectives (plan 0)
// compare their own signature on every call.
void maybe_validate(const FnCollectiveBackend& b, const KernelContext& k, const char* what) {
  int64_t plan_id = k.attrs.get_or<int64_t>("plan_id", 0);
  double timeout = timeout_of(k.attrs);
  if (plan_id == 0) {
    validate_plan(b, k.attrs.get_or<std::string>("signature", ""), timeout, what);
    return;
  }
  std::string text;
  {
    std::lock_guard<std::mutex> lock(plans().mu);
    if (plans().validated.count(plan_id)) return;
    for (auto& s : plans().plans[plan_id]) text += s + "\n";
  }
  validate_plan(b, text, timeout, what);
  std::lock_guard<std::mutex> lock(plans().mu);
  plans().validated.insert(plan_id);
}

// A collective's fresh output: in the transport's storage when it has some for that size (fn._mpi:
// reused 2 MiB-aligned mappings, cpp/mpi/mapped_pool.h), else fn's allocator.
EagerPtr collective_output(const FnCollectiveBackend& b, DType dtype, const Shape& shape) {
  size_t bytes = 0;
  int64_t n = shape.num_elements();
  if (b.output_storage && b.release_storage && n > 0 &&
      !__builtin_mul_overflow(static_cast<size_t>(n), dtype_size(dtype), &bytes)) {
    size_t capacity = 0;
    void* handle = nullptr;
    if (void* p = b.output_storage(b.state, bytes, &capacity, &handle)) {
      auto release = b.release_storage;
      std::shared_ptr<void> owner(p, [release, handle](void*) { release(handle); });
      return std::make_shared<EagerTensor>(dtype, shape, Buffer::adopt(p, bytes, capacity, std::move(owner)));
    }
  }
  return make_tensor(dtype, shape);
}

// The output of an all-reduce or broadcast: its input itself when the executor handed over the
// last reference (ops/forward.h: a gradient pack, a loop variable), so the transport
// reduces in place (MPI_IN_PLACE: no copy of the input into a fresh output, as mpi4py's
// Allreduce(IN_PLACE, buf)); else a fresh output (the caller still sees the input).
EagerPtr output_of(const FnCollectiveBackend& b, const EagerPtr& x) {
  return forwardable(x) ? x : collective_output(b, x->dtype(), x->shape());
}

bool reducible(DType d) { return d == DType::Float32 || d == DType::Float64 || d == DType::Int32 || d == DType::Int64; }

void divide_by_workers(EagerTensor& out, int n) {
  int64_t count = out.num_elements();
  switch (out.dtype()) {
    case DType::Float32: {
      float* p = out.data<float>();
      for (int64_t i = 0; i < count; ++i) p[i] /= static_cast<float>(n);
      break;
    }
    case DType::Float64: {
      double* p = out.data<double>();
      for (int64_t i = 0; i < count; ++i) p[i] /= n;
      break;
    }
    case DType::Int32: {
      int32_t* p = out.data<int32_t>();
      for (int64_t i = 0; i < count; ++i) p[i] /= n;
      break;
    }
    default: {
      int64_t* p = out.data<int64_t>();
      for (int64_t i = 0; i < count; ++i) p[i] /= n;
      break;
    }
  }
}

std::vector<EagerPtr> all_reduce_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const FnCollectiveBackend& b = backend_or_throw();
  const EagerTensor& x = *in[0];
  if (!reducible(x.dtype()))
    throw_error(Code::InvalidArgument, "CollectiveAllReduce supports float32, float64, int32 and int64, got ",
                dtype_name(x.dtype()));
  std::string what = what_of(k, "CollectiveAllReduce");
  maybe_validate(b, k, what.c_str());
  EagerPtr out = output_of(b, in[0]);
  char err[2048] = {0};
  int rc = b.all_reduce_sum(b.state, x.raw(), out->raw(), x.num_elements(), static_cast<int>(x.dtype()),
                            timeout_of(k.attrs), what.c_str(), err, sizeof err);
  keep_alive_after_timeout(rc, {out, in[0]});
  check(rc, err);
  if (k.attrs.get_or<std::string>("reduction", "Add") == "Mean") divide_by_workers(*out, b.size(b.state));
  return {out};
}

// The split all-reduce: CollectiveAllReduceStart posts the sum and returns a token (int64 scalar)
// at once; the transport progresses it on its own thread while the executor runs other steps
// (the plan schedules starts early and dones late, exec/plan.cpp); CollectiveAllReduceDone waits
// for it. The buffers stay in `pending` between the two.
struct PendingReduce {
  EagerPtr in, out;
  bool mean = false;
};

struct PendingReduces {
  std::mutex mu;
  std::map<int64_t, PendingReduce> by_request;
};

PendingReduces& pending_reduces() {
  static PendingReduces* p = new PendingReduces();  // outlives pending requests at exit
  return *p;
}

std::vector<EagerPtr> all_reduce_start_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const FnCollectiveBackend& b = backend_or_throw();
  const EagerTensor& x = *in[0];
  if (!reducible(x.dtype()))
    throw_error(Code::InvalidArgument, "CollectiveAllReduceStart supports float32, float64, int32 and int64, got ",
                dtype_name(x.dtype()));
  if (!b.all_reduce_start || !b.wait)
    throw_error(Code::FailedPrecondition, "The installed collective transport has no split all-reduce");
  std::string what = what_of(k, "CollectiveAllReduceStart");
  maybe_validate(b, k, what.c_str());
  EagerPtr out = output_of(b, in[0]);
  char err[2048] = {0};
  int64_t request = -1;
  int rc = b.all_reduce_start(b.state, x.raw(), out->raw(), x.num_elements(), static_cast<int>(x.dtype()),
                              timeout_of(k.attrs), what.c_str(), &request, err, sizeof err);
  keep_alive_after_timeout(rc, {out, in[0]});
  check(rc, err);
  {
    std::lock_guard<std::mutex> lock(pending_reduces().mu);
    pending_reduces().by_request[request] =
        PendingReduce{in[0], out, k.attrs.get_or<std::string>("reduction", "Add") == "Mean"};
  }
  EagerPtr token = make_tensor(DType::Int64, Shape(std::vector<int64_t>{}));
  *token->data<int64_t>() = request;
  return {token};
}

std::vector<EagerPtr> all_reduce_done_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const FnCollectiveBackend& b = backend_or_throw();
  int64_t request = *in[0]->data<int64_t>();
  PendingReduce p;
  {
    std::lock_guard<std::mutex> lock(pending_reduces().mu);
    auto it = pending_reduces().by_request.find(request);
    if (it == pending_reduces().by_request.end())
      throw_error(Code::Internal, "CollectiveAllReduceDone '", k.node_name, "': no pending all-reduce #", request);
    p = it->second;
    pending_reduces().by_request.erase(it);
  }
  char err[2048] = {0};
  int rc = b.wait(b.state, request, err, sizeof err);
  keep_alive_after_timeout(rc, {p.out, p.in});
  check(rc, err);
  if (p.mean) divide_by_workers(*p.out, b.size(b.state));
  return {p.out};
}

// Concatenation along axis 0 of every worker's tensor (their first dimensions may differ).
std::vector<EagerPtr> all_gather_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const FnCollectiveBackend& b = backend_or_throw();
  const EagerTensor& x = *in[0];
  if (dtype_size(x.dtype()) == 0)
    throw_error(Code::InvalidArgument, "CollectiveAllGather does not support ", dtype_name(x.dtype()), " tensors");
  if (x.shape().rank() < 1) throw_error(Code::InvalidArgument, "CollectiveAllGather needs a tensor of rank >= 1");
  std::string what = what_of(k, "CollectiveAllGather");
  maybe_validate(b, k, what.c_str());
  int n = b.size(b.state);
  double timeout = timeout_of(k.attrs);
  char err[2048] = {0};
  std::vector<int64_t> eight(static_cast<size_t>(n), 8), rows(static_cast<size_t>(n));
  int64_t my_rows = x.shape()[0];
  check(b.all_gatherv(b.state, &my_rows, 8, rows.data(), eight.data(), timeout, what.c_str(), err, sizeof err), err);
  int64_t row_bytes = static_cast<int64_t>(dtype_size(x.dtype()));
  for (int i = 1; i < x.shape().rank(); ++i) {
    if (x.shape()[i] > 0 && row_bytes > std::numeric_limits<int64_t>::max() / x.shape()[i])
      throw_error(Code::InvalidArgument, "CollectiveAllGather: tensor too large");
    row_bytes *= x.shape()[i];
  }
  std::vector<int64_t> bytes(static_cast<size_t>(n));
  int64_t total_rows = 0;
  for (int r = 0; r < n; ++r) {
    int64_t rr = rows[static_cast<size_t>(r)];
    if (rr < 0 || (row_bytes > 0 && rr > std::numeric_limits<int64_t>::max() / row_bytes) ||
        total_rows > std::numeric_limits<int64_t>::max() - rr)
      throw_error(Code::InvalidArgument, "CollectiveAllGather: bad row count ", rr, " from rank ", r);
    bytes[static_cast<size_t>(r)] = rr * row_bytes;
    total_rows += rr;
  }
  std::vector<int64_t> dims = x.shape().dims();
  dims[0] = total_rows;
  EagerPtr out = collective_output(b, x.dtype(), Shape(dims));
  int rc = b.all_gatherv(b.state, x.raw(), my_rows * row_bytes, out->raw(), bytes.data(), timeout, what.c_str(), err,
                         sizeof err);
  keep_alive_after_timeout(rc, {out, in[0]});
  check(rc, err);
  return {out};
}

std::vector<EagerPtr> broadcast_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const FnCollectiveBackend& b = backend_or_throw();
  const EagerTensor& x = *in[0];
  if (dtype_size(x.dtype()) == 0)
    throw_error(Code::InvalidArgument, "CollectiveBroadcast does not support ", dtype_name(x.dtype()), " tensors");
  std::string what = what_of(k, "CollectiveBroadcast");
  maybe_validate(b, k, what.c_str());
  EagerPtr out = output_of(b, in[0]);
  size_t bytes = static_cast<size_t>(x.num_elements()) * dtype_size(x.dtype());
  if (bytes && out != in[0]) std::memcpy(out->raw(), x.raw(), bytes);
  char err[2048] = {0};
  int rc = b.broadcast(b.state, out->raw(), static_cast<int64_t>(bytes),
                       static_cast<int>(k.attrs.get_or<int64_t>("root", 0)), timeout_of(k.attrs), what.c_str(), err,
                       sizeof err);
  keep_alive_after_timeout(rc, {out});
  check(rc, err);
  return {out};
}

std::vector<TensorSpec> same_as_input(const InferContext& c) { return {c.inputs[0]}; }

}  // namespace

void set_collective_backend(const FnCollectiveBackend* backend) {
  if (backend && backend->abi_version != kFnCollectiveAbi)
    throw_error(Code::FailedPrecondition, "fn._mpi was built for collective ABI ", backend->abi_version,
                ", this fn._core expects ", kFnCollectiveAbi, ": rebuild fn");
  g_backend.store(backend);
  std::lock_guard<std::mutex> lock(plans().mu);
  plans().validated.clear();
}

const FnCollectiveBackend* collective_backend() { return g_backend.load(); }

int64_t collective_plan_add(int64_t plan_id, const std::string& signature) {
  std::lock_guard<std::mutex> lock(plans().mu);
  auto& p = plans().plans[plan_id];
  p.push_back(signature);
  plans().validated.erase(plan_id);
  return static_cast<int64_t>(p.size()) - 1;
}

std::vector<std::string> collective_plan(int64_t plan_id) {
  std::lock_guard<std::mutex> lock(plans().mu);
  auto it = plans().plans.find(plan_id);
  return it == plans().plans.end() ? std::vector<std::string>{} : it->second;
}

void register_collective_ops(OpRegistry& r) {
  // No gradient here: ReplicaContext.all_reduce differentiates with its own all-reduce (TF's rule).
  OpDef reduce{"CollectiveAllReduce", "CollectiveAllReduce", 1, same_as_input, all_reduce_kernel, {}};
  reduce.stateful = true;
  r.add(std::move(reduce));

  OpDef gather{"CollectiveAllGather",
               "CollectiveAllGather",
               1,
               [](const InferContext& c) {
                 Shape s = c.inputs[0].shape;
                 if (s.has_rank() && s.rank() >= 1) {
                   std::vector<int64_t> d = s.dims();
                   d[0] = Shape::kUnknown;
                   s = Shape(d);
                 }
                 return one(c.inputs[0].dtype, s);
               },
               all_gather_kernel,
               {}};
  gather.stateful = true;
  r.add(std::move(gather));

  OpDef bcast{"CollectiveBroadcast", "CollectiveBroadcast", 1, same_as_input, broadcast_kernel, {}};
  bcast.stateful = true;
  r.add(std::move(bcast));

  // The split all-reduce (overlap of gradient reduction with backprop); the token is an int64.
  OpDef start{"CollectiveAllReduceStart",
              "CollectiveAllReduceStart",
              1,
              [](const InferContext&) { return one(DType::Int64, Shape(std::vector<int64_t>{})); },
              all_reduce_start_kernel,
              {}};
  start.stateful = true;
  r.add(std::move(start).with_collective(Collective::Start));
  OpDef done{"CollectiveAllReduceDone",
             "CollectiveAllReduceDone",
             1,
             [](const InferContext& c) { return one(c.attrs.get<DType>("T"), c.attrs.get<Shape>("shape")); },
             all_reduce_done_kernel,
             {}};
  done.stateful = true;
  r.add(std::move(done).with_collective(Collective::Done));
}

}  // namespace fn
