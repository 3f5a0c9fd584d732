// Counter-based random ops, as tf.random.Generator uses them: RngReadAndSkip (read a Philox
// state variable [counter lo, counter hi, key] and move its counter past what the caller will
// draw), the stateless V2 ops that draw from an explicit key and counter
// (StatelessRandomUniformV2, ...NormalV2, StatelessTruncatedNormalV2, ...UniformIntV2,
// ...UniformFullIntV2) and StatefulRandomBinomial. Counters are skipped, blocks grouped and
// floats formed exactly as TensorFlow's CPU kernels do, so a seed gives TensorFlow's numbers.
// fn has no uint64 dtype: keys and counters are int64 tensors holding the same bits.
#include <cmath>

#include "kernels/reference/philox.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/helpers.h"
#include "ops/broadcast_index.h"
#include "ops/random.h"
#include "ops/shape_util.h"
#include "ops/state.h"

namespace fn {

namespace {

constexpr int64_t kAlgPhilox = 1, kAlgThreeFry = 2, kAlgAutoSelect = 3;
// TF reserves this many Philox blocks per output element when it moves a state's counter.
constexpr uint64_t kReservedBlocks = 256;

void check_alg(const EagerTensor& alg) {
  if (alg.shape().rank() != 0 && alg.num_elements() != 1)
    throw_error(Code::InvalidArgument, "algorithm must be of shape [], not ", tf_shape(alg.shape()));
  int64_t a = alg.scalar_as_int(0);
  if (a == kAlgThreeFry) throw_error(Code::Unimplemented, "Non-XLA devices don't support the ThreeFry algorithm.");
  if (a != kAlgPhilox && a != kAlgAutoSelect) throw_error(Code::InvalidArgument, "Unsupported algorithm id: ", a);
}

uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

philox::Philox4x32 from_words(uint64_t c0, uint64_t c1, uint64_t key) {
  return philox::Philox4x32(philox::Block{lo32(c0), hi32(c0), lo32(c1), hi32(c1)}, {lo32(key), hi32(key)});
}

// The generator of a V2 op: key [1] and counter [2] (int64 words of TF's uint64 inputs).
philox::Philox4x32 key_counter_generator(const EagerTensor& key, const EagerTensor& counter, const EagerTensor& alg) {
  check_alg(alg);
  if (key.dtype() != DType::Int64 || counter.dtype() != DType::Int64)
    throw_error(Code::InvalidArgument, "key and counter must be int64 (uint64 bits), got ", dtype_name(key.dtype()),
                " and ", dtype_name(counter.dtype()));
  if (key.shape().rank() != 1 || key.shape()[0] != 1)
    throw_error(Code::InvalidArgument, "key must have shape [1], not ", tf_shape(key.shape()),
                ". (Note that batched keys are not supported yet.)");
  if (counter.shape().rank() != 1 || counter.shape()[0] < 2)
    throw_error(Code::InvalidArgument, "For the Philox algorithm, the size of state must be at least 2; got ",
                counter.num_elements());
  const int64_t* c = counter.data<int64_t>();
  return from_words(static_cast<uint64_t>(c[0]), static_cast<uint64_t>(c[1]),
                    static_cast<uint64_t>(key.data<int64_t>()[0]));
}

Shape shape_arg(const EagerTensor& s) { return random_shape_arg(s); }

[[noreturn]] void bad_float_dtype(DType d) {
  throw_error(Code::InvalidArgument, "Value for attr 'dtype' of ", dtype_name(d),
              " is not in the list of allowed values: half, bfloat16, float, double");
}

// ---- RngReadAndSkip(resource, alg, delta) -> the old state as int64[3] ----

std::vector<EagerPtr> read_and_skip_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  VariableState& v = variable_state(*in[0]);
  check_alg(*in[1]);
  uint64_t delta = static_cast<uint64_t>(in[2]->scalar_as_int(0));
  std::lock_guard<std::mutex> update(v.update_mutex());
  EagerPtr cur = v.read();
  if (cur->dtype() != DType::Int64)
    throw_error(Code::InvalidArgument, "dtype of RNG state variable must be int64, not ", dtype_name(cur->dtype()));
  if (cur->shape().rank() != 1)
    throw_error(Code::InvalidArgument, "RNG state must have one and only one dimension, not ", cur->shape().rank());
  if (cur->num_elements() < 3)
    throw_error(Code::InvalidArgument, "The size of the state must be at least 3; got ", cur->num_elements());
  const int64_t* s = cur->data<int64_t>();
  auto old = make_tensor(DType::Int64, Shape{3});
  std::copy(s, s + 3, old->data<int64_t>());
  // The 128-bit counter moves on by delta * 256 blocks (wrapping as TF's uint64 arithmetic).
  uint64_t c0 = static_cast<uint64_t>(s[0]), c1 = static_cast<uint64_t>(s[1]), add = delta * kReservedBlocks;
  uint64_t n0 = c0 + add;
  uint64_t n1 = c1 + (n0 < c0 ? 1 : 0);
  auto next = make_tensor(DType::Int64, cur->shape());
  std::copy(s, s + cur->num_elements(), next->data<int64_t>());
  next->data<int64_t>()[0] = static_cast<int64_t>(n0);
  next->data<int64_t>()[1] = static_cast<int64_t>(n1);
  v.assign(next);
  return {old};
}

// ---- Stateless V2 draws: (shape, key, counter, alg[, minval, maxval]) ----

std::vector<EagerPtr> uniform_v2_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Float32);
  if (d != DType::Float32 && d != DType::Float64) bad_float_dtype(d);
  auto out = make_tensor(d, shape_arg(*in[0]));
  auto gen = key_counter_generator(*in[1], *in[2], *in[3]);
  fill_uniform_float(gen, *out);
  return {out};
}

std::vector<EagerPtr> normal_v2_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Float32);
  if (d != DType::Float32 && d != DType::Float64) bad_float_dtype(d);
  auto out = make_tensor(d, shape_arg(*in[0]));
  auto gen = key_counter_generator(*in[1], *in[2], *in[3]);
  fill_normal_float(gen, *out);
  return {out};
}

std::vector<EagerPtr> truncated_v2_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Float32);
  if (d != DType::Float32 && d != DType::Float64) bad_float_dtype(d);
  auto out = make_tensor(d, shape_arg(*in[0]));
  auto gen = key_counter_generator(*in[1], *in[2], *in[3]);
  if (d == DType::Float32)
    philox::fill_truncated(gen, out->data<float>(), out->num_elements());
  else
    philox::fill_truncated(gen, out->data<double>(), out->num_elements());
  return {out};
}

std::vector<EagerPtr> uniform_int_v2_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor &lo_t = *in[4], &hi_t = *in[5];
  if (lo_t.dtype() != hi_t.dtype()) throw_error(Code::InvalidArgument, "minval and maxval must have the same dtype");
  DType d = lo_t.dtype();
  if (d != DType::Int32 && d != DType::Int64)
    throw_error(Code::InvalidArgument, "Value for attr 'dtype' of ", dtype_name(d),
                " is not in the list of allowed values: int32, int64, uint32, uint64");
  if (lo_t.shape().rank() != 0)
    throw_error(Code::InvalidArgument, "minval must be 0-D, got shape ", tf_shape(lo_t.shape()));
  if (hi_t.shape().rank() != 0)
    throw_error(Code::InvalidArgument, "maxval must be 0-D, got shape ", tf_shape(hi_t.shape()));
  auto out = make_tensor(d, shape_arg(*in[0]));
  auto gen = key_counter_generator(*in[1], *in[2], *in[3]);
  int64_t n = out->num_elements();
  if (n == 0) return {out};
  int64_t lo = lo_t.scalar_as_int(0), hi = hi_t.scalar_as_int(0);
  if (lo >= hi) throw_error(Code::InvalidArgument, "Need minval < maxval, got ", lo, " >= ", hi);
  if (d == DType::Int32) {
    uint32_t range = static_cast<uint32_t>(hi) - static_cast<uint32_t>(lo);
    fill_blocks(gen, out->data<int32_t>(), n, 4, [&](const philox::Block& b, int32_t* o, int c) {
      for (int j = 0; j < c; ++j) o[j] = static_cast<int32_t>(static_cast<uint32_t>(lo) + b[j] % range);
    });
  } else {
    uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    fill_blocks(gen, out->data<int64_t>(), n, 2, [&](const philox::Block& b, int64_t* o, int c) {
      for (int j = 0; j < c; ++j)
        o[j] = static_cast<int64_t>(static_cast<uint64_t>(lo) + ((b[2 * j] | (uint64_t{b[2 * j + 1]} << 32)) % range));
    });
  }
  return {out};
}

std::vector<EagerPtr> full_int_v2_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Int64);
  if (d != DType::Int32 && d != DType::Int64)
    throw_error(Code::InvalidArgument, "Value for attr 'dtype' of ", dtype_name(d),
                " is not in the list of allowed values: int32, int64, uint32, uint64");
  auto out = make_tensor(d, shape_arg(*in[0]));
  auto gen = key_counter_generator(*in[1], *in[2], *in[3]);
  int64_t n = out->num_elements();
  if (d == DType::Int32) {
    fill_blocks(gen, out->data<int32_t>(), n, 4, [](const philox::Block& b, int32_t* o, int c) {
      for (int j = 0; j < c; ++j) o[j] = static_cast<int32_t>(b[j]);
    });
  } else {
    fill_blocks(gen, out->data<int64_t>(), n, 2, [](const philox::Block& b, int64_t* o, int c) {
      for (int j = 0; j < c; ++j) o[j] = static_cast<int64_t>(b[2 * j] | (uint64_t{b[2 * j + 1]} << 32));
    });
  }
  return {out};
}

// ---- StatefulRandomBinomial(resource, alg, shape, counts, probs) ----

// Uniform doubles two per block, taken from the block's end first (TF's UNIFORM macro).
class UniformDoubles {
 public:
  explicit UniformDoubles(philox::Philox4x32& gen) : gen_(gen) {}
  double operator()() {
    if (left_ == 0) {
      philox::Block b = gen_.next();
      v_[0] = philox::uniform_double(b[0], b[1]);
      v_[1] = philox::uniform_double(b[2], b[3]);
      left_ = 2;
    }
    return v_[--left_];
  }

 private:
  philox::Philox4x32& gen_;
  double v_[2] = {0, 0};
  int left_ = 0;
};

double binomial_inversion(double count, double prob, philox::Philox4x32& gen) {
  UniformDoubles uniform(gen);
  double geom_sum = 0;
  int num_geom = 0;
  while (true) {
    double u = uniform();
    geom_sum += std::ceil(std::log(u) / std::log1p(-prob));
    if (geom_sum > count) break;
    ++num_geom;
  }
  return num_geom;
}

double stirling_approx_tail(double k) {
  static const double kTail[] = {0.0810614667953272,  0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                                 0.0166446911898211,  0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                                 0.00925546218271273, 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<int>(k)];
  double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Hormann's transformed rejection with squeeze (BTRS), as TF's kernel computes it.
double btrs(double count, double prob, philox::Philox4x32& gen) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  UniformDoubles uniform(gen);
  while (true) {
    double u = uniform();
    double v = uniform();
    u = u - 0.5;
    double us = 0.5 - std::abs(u);
    double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    double upper = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                   (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                   (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + stirling_approx_tail(m) +
                   stirling_approx_tail(count - m) - stirling_approx_tail(k) - stirling_approx_tail(count - k);
    if (v <= upper) return k;
  }
}

// One sample for output index `idx` from the generator `base` (skipped to idx's region).
// `single`: counts and probs are float32/half, whose products TF forms in float.
double binomial_sample(double count, double prob, bool single, const philox::Philox4x32& base, int64_t idx) {
  if (count <= 0.0 || prob <= 0.0) return 0.0;
  if (prob >= 1.0) return count;
  if (std::isnan(prob)) return NAN;
  bool flip = prob > 0.5;
  double p = flip ? 1.0 - prob : prob;
  double mean = single ? static_cast<double>(static_cast<float>(count) * static_cast<float>(p)) : count * p;
  philox::Philox4x32 gen = base;
  double k;
  if (mean >= 10) {
    gen.skip(static_cast<uint64_t>(idx) * 256);
    k = btrs(count, p, gen);
  } else {
    gen.skip(static_cast<uint64_t>(idx) * 42);
    k = binomial_inversion(count, p, gen);
  }
  return flip ? count - k : k;
}

std::vector<double> as_doubles(const EagerTensor& t) {
  std::vector<double> v(static_cast<size_t>(t.num_elements()));
  visit_pod(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = to_double(p[i]);
    return 0;
  });
  return v;
}

Shape binomial_batch_shape(const Shape& a, const Shape& b) {
  int r = std::max(a.rank(), b.rank());
  std::vector<int64_t> d(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) {
    int ia = i - (r - a.rank()), ib = i - (r - b.rank());
    int64_t x = ia >= 0 ? a[ia] : 1, y = ib >= 0 ? b[ib] : 1;
    if (x != y && x != 1 && y != 1)
      throw_error(Code::InvalidArgument, "counts and probs must have compatible batch dimensions: ", tf_shape(a),
                  " vs. ", tf_shape(b));
    d[i] = x == 1 ? y : x;
  }
  return Shape(d);
}

std::vector<EagerPtr> binomial_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerTensor &counts = *in[3], &probs = *in[4];
  DType out_d = k.attrs.get_or("dtype", DType::Int32);
  Shape bshape = binomial_batch_shape(counts.shape(), probs.shape());
  if (in[2]->shape().rank() != 1)
    throw_error(Code::InvalidArgument, "Input shape should be a vector, got shape: ", tf_shape(in[2]->shape()));
  Shape out_shape = shape_arg(*in[2]);
  int sample_dims = out_shape.rank() - bshape.rank();
  bool ends_with = sample_dims >= 0;
  for (int i = 0; ends_with && i < bshape.rank(); ++i) ends_with = out_shape[sample_dims + i] == bshape[i];
  if (!ends_with) throw_error(Code::InvalidArgument, "Shape passed in must end with broadcasted shape.");
  if (in[1]->shape().rank() != 0)
    throw_error(Code::InvalidArgument, "algorithm must be of shape [], not ", tf_shape(in[1]->shape()));
  if (in[1]->scalar_as_int(0) != kAlgPhilox)
    throw_error(Code::InvalidArgument, "Unsupported algorithm id: ", in[1]->scalar_as_int(0));
  int64_t samples_per_batch = 1, num_batches = bshape.num_elements();
  for (int i = 0; i < sample_dims; ++i) samples_per_batch *= out_shape[i];
  auto out = make_tensor(out_d, out_shape);

  // Read the state and move it on by TF's reservation for this call.
  VariableState& v = variable_state(*in[0]);
  philox::Philox4x32 base(philox::Block{}, {0, 0});
  {
    std::lock_guard<std::mutex> update(v.update_mutex());
    EagerPtr cur = v.read();
    if (cur->dtype() != DType::Int64)
      throw_error(Code::InvalidArgument, "dtype of RNG state variable must be int64, not ", dtype_name(cur->dtype()));
    if (cur->shape().rank() != 1)
      throw_error(Code::InvalidArgument, "RNG state must have one and only one dimension, not ", cur->shape().rank());
    if (cur->num_elements() < 3)
      throw_error(Code::InvalidArgument, "For Philox algorithm, the size of state must be at least 3; got ",
                  cur->num_elements());
    const int64_t* s = cur->data<int64_t>();
    base = from_words(static_cast<uint64_t>(s[0]), static_cast<uint64_t>(s[1]), static_cast<uint64_t>(s[2]));
    uint64_t reserve = static_cast<uint64_t>(num_batches * 2 * 100 * (samples_per_batch + 3) / 4);
    uint64_t c0 = static_cast<uint64_t>(s[0]), add = reserve * kReservedBlocks, n0 = c0 + add;
    auto next = make_tensor(DType::Int64, cur->shape());
    std::copy(s, s + cur->num_elements(), next->data<int64_t>());
    next->data<int64_t>()[0] = static_cast<int64_t>(n0);
    next->data<int64_t>()[1] = static_cast<int64_t>(static_cast<uint64_t>(s[1]) + (n0 < c0 ? 1 : 0));
    v.assign(next);
  }
  auto cv = as_doubles(counts), pv = as_doubles(probs);
  auto ci = broadcast_flat_index(counts.shape(), bshape), pi = broadcast_flat_index(probs.shape(), bshape);
  int64_t n = num_batches * samples_per_batch;
  bool single = counts.dtype() != DType::Float64;
  std::vector<double> res(static_cast<size_t>(n));
  // Output index i is (sample, batch) = (i % samples_per_batch, i / samples_per_batch) and
  // lands at sample * num_batches + batch (the layout is [samples..., batch...]).
  for (int64_t i = 0; i < n; ++i) {
    int64_t batch = i / samples_per_batch, sample = i % samples_per_batch;
    res[static_cast<size_t>(sample * num_batches + batch)] =
        binomial_sample(cv[ci[batch]], pv[pi[batch]], single, base, i);
  }
  visit_pod(out_d, [&](auto tag) {
    using T = decltype(tag);
    T* o = out->data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = from_double<T>(res[i]);
    return 0;
  });
  return {out};
}

std::vector<TensorSpec> shape_infer(const InferContext& c, size_t shape_input_index, DType d) {
  return one(d, random_shape_input(c, shape_input_index));
}

OpDef v2_op(const std::string& name, KernelFn kernel, int inputs, DType default_dtype) {
  OpDef d{name,
          name,
          inputs,
          [default_dtype](const InferContext& c) { return shape_infer(c, 0, c.attrs.get_or("dtype", default_dtype)); },
          std::move(kernel),
          {}};
  return d;
}

}  // namespace

void register_random_counter_ops(OpRegistry& r) {
  OpDef skip{"RngReadAndSkip",
             "RngReadAndSkip",
             3,
             [](const InferContext&) { return one(DType::Int64, Shape{3}); },
             read_and_skip_kernel,
             {}};
  skip.stateful = true;
  skip.output_args = {"value"};
  r.add(std::move(skip));
  // Pure functions of (shape, key, counter): CSE and folding apply as to other stateless ops.
  r.add(v2_op("StatelessRandomUniformV2", uniform_v2_kernel, 4, DType::Float32));
  r.add(v2_op("StatelessRandomNormalV2", normal_v2_kernel, 4, DType::Float32));
  r.add(v2_op("StatelessTruncatedNormalV2", truncated_v2_kernel, 4, DType::Float32));
  r.add(v2_op("StatelessRandomUniformFullIntV2", full_int_v2_kernel, 4, DType::Int64));
  OpDef ui = v2_op("StatelessRandomUniformIntV2", uniform_int_v2_kernel, 6, DType::Int64);
  ui.infer = [](const InferContext& c) { return shape_infer(c, 0, c.inputs[4].dtype); };
  r.add(std::move(ui));
  OpDef bin{"StatefulRandomBinomial",
            "StatefulRandomBinomial",
            5,
            [](const InferContext& c) { return shape_infer(c, 2, c.attrs.get_or("dtype", DType::Int32)); },
            binomial_kernel,
            {}};
  bin.stateful = true;
  r.add(std::move(bin));
}

}  // namespace fn
