// Stateful random ops: RandomUniform, RandomStandardNormal, RandomUniformInt. Philox streams
// keyed by (seed, seed2) as TensorFlow's; each run reserves 256 blocks per output element
// (TensorFlow's conservative reservation), so fn draws TensorFlow's numbers for given seeds.
#include "ops/random.h"

#include <random>

#include "kernels/reference/philox.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/shape_util.h"

namespace fn {

RandomState::RandomState() {
  std::random_device rd;
  fresh_seed = (uint64_t{rd()} << 32) | rd();
  fresh_seed2 = (uint64_t{rd()} << 32) | rd();
}

std::shared_ptr<HostObject> make_random_state() { return std::make_shared<RandomState>(); }

namespace {

// The generator for this run: the op's stream, moved past what earlier runs used.
philox::Philox4x32 reserve(const Attrs& a, int64_t n) {
  uint64_t seed = static_cast<uint64_t>(a.get_or("seed", int64_t{0}));
  uint64_t seed2 = static_cast<uint64_t>(a.get_or("seed2", int64_t{0}));
  auto holder = a.get_or("_state", std::shared_ptr<HostObject>());
  auto* state = dynamic_cast<RandomState*>(holder.get());
  std::shared_ptr<RandomState> local;
  if (!state) {  // no state attr (a C++ caller): a fresh stream per run
    local = std::make_shared<RandomState>();
    state = local.get();
  }
  if (seed == 0 && seed2 == 0) {
    seed = state->fresh_seed;
    seed2 = state->fresh_seed2;
  }
  uint64_t start = state->offset.fetch_add(static_cast<uint64_t>(n) * 256);
  philox::Philox4x32 gen(seed, seed2);
  gen.skip(start);
  return gen;
}

Shape shape_arg(const EagerTensor& s) {
  check_index_type("Random", "T", s.dtype());
  if (s.shape().rank() > 1)
    throw_error(Code::InvalidArgument, "shape must be a vector of {int32,int64}, got shape ", tf_shape(s.shape()));
  auto dims = read_int_list(s);
  for (int64_t d : dims)
    if (d < 0) throw_error(Code::InvalidArgument, "Dimension ", d, " must be >= 0");
  return Shape(dims);
}

InferFn shape_infer(const std::string& dtype_attr) {
  return [dtype_attr](const InferContext& c) {
    return one(c.attrs.get_or(dtype_attr, DType::Float32), random_shape_input(c, 0));
  };
}

std::vector<EagerPtr> uniform_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Float32);
  auto out = make_tensor(d, shape_arg(*in[0]));
  int64_t n = out->num_elements();
  auto gen = reserve(k.attrs, n);
  switch (d) {
    case DType::Float32:
    case DType::Float64: fill_uniform_float(gen, *out); break;
    case DType::Float16:
      fill_blocks(gen, out->data<half_t>(), n, 4, [](const philox::Block& b, half_t* o, int c) {
        for (int j = 0; j < c; ++j) o[j] = half_t{float_to_half(half_to_float(philox::half_one_to_two(b[j])) - 1.0f)};
      });
      break;
    case DType::BFloat16:
      fill_blocks(gen, out->data<bfloat16_t>(), n, 4, [](const philox::Block& b, bfloat16_t* o, int c) {
        for (int j = 0; j < c; ++j)
          o[j] = bfloat16_t{float_to_bf16(bf16_to_float(philox::bf16_one_to_two(b[j])) - 1.0f)};
      });
      break;
    default:
      throw_error(Code::InvalidArgument, "Value for attr 'dtype' of ", dtype_name(d),
                  " is not in the list of allowed values: half, bfloat16, float, double");
  }
  return {out};
}

std::vector<EagerPtr> normal_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Float32);
  if (!is_floating(d))
    throw_error(Code::InvalidArgument, "Value for attr 'dtype' of ", dtype_name(d),
                " is not in the list of allowed values: half, bfloat16, float, double");
  auto out = make_tensor(d, shape_arg(*in[0]));
  int64_t n = out->num_elements();
  auto gen = reserve(k.attrs, n);
  if (d == DType::Float64) {
    fill_blocks(gen, out->data<double>(), n, 2, [](const philox::Block& b, double* o, int c) {
      double r[2];
      philox::box_muller(b[0], b[1], b[2], b[3], &r[0], &r[1]);
      for (int j = 0; j < c; ++j) o[j] = r[j];
    });
    return {out};
  }
  visit_pod(d, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same<typename Arith<T>::type, float>::value) {
      fill_blocks(gen, out->data<T>(), n, 4, [](const philox::Block& b, T* o, int c) {
        float r[4];
        philox::box_muller(b[0], b[1], &r[0], &r[1]);
        philox::box_muller(b[2], b[3], &r[2], &r[3]);
        for (int j = 0; j < c; ++j) o[j] = narrow<T>(r[j]);
      });
    }
    return 0;
  });
  return {out};
}

std::vector<EagerPtr> uniform_int_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerPtr &lo_t = in[1], &hi_t = in[2];
  check_same_dtype_eager("RandomUniformInt", {lo_t, hi_t});
  DType d = lo_t->dtype();
  check_index_type("RandomUniformInt", "Tout", d);
  if (lo_t->shape().rank() != 0)
    throw_error(Code::InvalidArgument, "minval must be 0-D, got shape ", tf_shape(lo_t->shape()));
  if (hi_t->shape().rank() != 0)
    throw_error(Code::InvalidArgument, "maxval must be 0-D, got shape ", tf_shape(hi_t->shape()));
  int64_t lo = lo_t->scalar_as_int(0), hi = hi_t->scalar_as_int(0);
  auto out = make_tensor(d, shape_arg(*in[0]));
  int64_t n = out->num_elements();
  if (n == 0) return {out};
  if (lo >= hi) throw_error(Code::InvalidArgument, "Need minval < maxval: ", lo, " >= ", hi);
  auto gen = reserve(k.attrs, n);
  if (d == DType::Int32) {
    uint32_t range = static_cast<uint32_t>(hi) - static_cast<uint32_t>(lo);
    fill_blocks(gen, out->data<int32_t>(), n, 4, [&](const philox::Block& b, int32_t* o, int c) {
      for (int j = 0; j < c; ++j) o[j] = static_cast<int32_t>(static_cast<uint32_t>(lo) + b[j] % range);
    });
  } else {
    uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    fill_blocks(gen, out->data<int64_t>(), n, 2, [&](const philox::Block& b, int64_t* o, int c) {
      for (int j = 0; j < c; ++j) {
        uint64_t bits = b[2 * j] | (uint64_t{b[2 * j + 1]} << 32);
        o[j] = static_cast<int64_t>(static_cast<uint64_t>(lo) + bits % range);
      }
    });
  }
  return {out};
}

// Normal samples redrawn until within 2 (TF's TruncatedNormal: variable samples per output).
std::vector<EagerPtr> truncated_normal_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Float32);
  if (d != DType::Float32 && d != DType::Float64)
    throw_error(Code::InvalidArgument, "Value for attr 'dtype' of ", dtype_name(d),
                " is not in the list of allowed values: half, bfloat16, float, double");
  auto out = make_tensor(d, shape_arg(*in[0]));
  int64_t n = out->num_elements();
  auto gen = reserve(k.attrs, n);
  if (d == DType::Float32)
    philox::fill_truncated(gen, out->data<float>(), n);
  else
    philox::fill_truncated(gen, out->data<double>(), n);
  return {out};
}

// ---- Stateless: StatelessRandomUniform / StatelessRandomNormal (shape, seed[2]) ----

// While tracing, a seed whose static shape is not [2] is TF's shape-function ValueError
// (eagerly the kernels' InvalidArgument below).
void check_seed_spec(const std::string& op, const TensorSpec& seed) {
  const Shape& s = seed.shape;
  if (!s.has_rank()) return;
  if (s.rank() != 1)
    throw_error(Code::ValueError, "Shape must be rank 1 but is rank ", s.rank(), " for '{{node ", op, "}} = ", op,
                "[]' with input shapes: ", s.debug_string(), ".");
  if (s[0] >= 0 && s[0] != 2)
    throw_error(Code::ValueError, "Dimension must be 2 but is ", s[0], " for '{{node ", op, "}} = ", op,
                "[]' with input shapes: ", s.debug_string(), ".");
}

InferFn stateless_infer(const std::string& op) {
  return [op](const InferContext& c) {
    check_seed_spec(op, c.inputs[1]);
    return shape_infer("dtype")(c);
  };
}

// TF's GenerateKey: the seed pair scrambled by one Philox round into a key and a counter.
philox::Philox4x32 stateless_generator(const EagerTensor& seed) {
  check_index_type("StatelessRandom", "Tseed", seed.dtype());
  if (seed.shape().rank() != 1 || seed.shape()[0] != 2)
    throw_error(Code::InvalidArgument, "seed must have shape [2], not ", tf_shape(seed.shape()));
  uint64_t s0 = static_cast<uint64_t>(seed.scalar_as_int(0)), s1 = static_cast<uint64_t>(seed.scalar_as_int(1));
  philox::Block counter{static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32), static_cast<uint32_t>(s1),
                        static_cast<uint32_t>(s1 >> 32)};
  philox::Philox4x32 scramble(counter, {0x3ec8f720u, 0x02461e29u});
  philox::Block mix = scramble.next();
  return philox::Philox4x32(philox::Block{0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
}

// StatelessRandomGetKeyCounter(seed) -> key [1], counter [2]: the scrambled seed as the V2
// ops' key and counter (int64 words holding TF's uint64 values).
std::vector<EagerPtr> get_key_counter_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  const EagerTensor& seed = *in[0];
  check_index_type("StatelessRandomGetKeyCounter", "Tseed", seed.dtype());
  if (seed.shape().rank() != 1 || seed.shape()[0] != 2)
    throw_error(Code::InvalidArgument, "seed must have shape [2], not ", tf_shape(seed.shape()));
  uint64_t s0 = static_cast<uint64_t>(seed.scalar_as_int(0)), s1 = static_cast<uint64_t>(seed.scalar_as_int(1));
  philox::Block counter{static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32), static_cast<uint32_t>(s1),
                        static_cast<uint32_t>(s1 >> 32)};
  philox::Block mix = philox::Philox4x32(counter, {0x3ec8f720u, 0x02461e29u}).next();
  auto key = make_tensor(DType::Int64, Shape{1});
  auto ctr = make_tensor(DType::Int64, Shape{2});
  key->data<int64_t>()[0] = static_cast<int64_t>(mix[0] | (uint64_t{mix[1]} << 32));
  ctr->data<int64_t>()[0] = 0;
  ctr->data<int64_t>()[1] = static_cast<int64_t>(mix[2] | (uint64_t{mix[3]} << 32));
  return {key, ctr};
}

std::vector<EagerPtr> stateless_uniform_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Float32);
  auto out = make_tensor(d, shape_arg(*in[0]));
  auto gen = stateless_generator(*in[1]);
  switch (d) {
    case DType::Float32:
    case DType::Float64: fill_uniform_float(gen, *out); break;
    default:
      throw_error(Code::InvalidArgument, "Value for attr 'dtype' of ", dtype_name(d),
                  " is not in the list of allowed values: half, bfloat16, float, double");
  }
  return {out};
}

std::vector<EagerPtr> stateless_normal_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  DType d = k.attrs.get_or("dtype", DType::Float32);
  if (d != DType::Float32 && d != DType::Float64)
    throw_error(Code::InvalidArgument, "Value for attr 'dtype' of ", dtype_name(d),
                " is not in the list of allowed values: half, bfloat16, float, double");
  auto out = make_tensor(d, shape_arg(*in[0]));
  auto gen = stateless_generator(*in[1]);
  fill_normal_float(gen, *out);
  return {out};
}

OpDef random_op(const std::string& name, const std::string& dtype_attr, KernelFn kernel, int inputs) {
  OpDef d{name, name, inputs, shape_infer(dtype_attr), std::move(kernel), {}};
  d.stateful = true;
  return d;
}

}  // namespace

// Uniform [0, 1) float32/float64 from `gen`, as TF's PhiloxRandom distributions draw them.
void fill_uniform_float(philox::Philox4x32& gen, EagerTensor& out) {
  int64_t n = out.num_elements();
  if (out.dtype() == DType::Float32) {
    fill_blocks(gen, out.data<float>(), n, 4, [](const philox::Block& b, float* o, int c) {
      for (int j = 0; j < c; ++j) o[j] = philox::uniform_float(b[j]);
    });
  } else {
    fill_blocks(gen, out.data<double>(), n, 2, [](const philox::Block& b, double* o, int c) {
      for (int j = 0; j < c; ++j) o[j] = philox::uniform_double(b[2 * j], b[2 * j + 1]);
    });
  }
}

// Standard normal float32/float64 from `gen`: Box-Muller on each block's words (TF's
// NormalDistribution: 4 floats or 2 doubles per block).
void fill_normal_float(philox::Philox4x32& gen, EagerTensor& out) {
  int64_t n = out.num_elements();
  if (out.dtype() == DType::Float64) {
    fill_blocks(gen, out.data<double>(), n, 2, [](const philox::Block& b, double* o, int c) {
      double r[2];
      philox::box_muller(b[0], b[1], b[2], b[3], &r[0], &r[1]);
      for (int j = 0; j < c; ++j) o[j] = r[j];
    });
    return;
  }
  fill_blocks(gen, out.data<float>(), n, 4, [](const philox::Block& b, float* o, int c) {
    float r[4];
    philox::box_muller(b[0], b[1], &r[0], &r[1]);
    philox::box_muller(b[2], b[3], &r[2], &r[3]);
    for (int j = 0; j < c; ++j) o[j] = r[j];
  });
}

Shape random_shape_arg(const EagerTensor& s) { return shape_arg(s); }

Shape random_shape_input(const InferContext& c, size_t i) {
  const Shape& s = c.inputs.at(i).shape;
  if (s.has_rank() && s.rank() != 1) throw_error(Code::InvalidArgument, "Shape must be rank 1 but is rank ", s.rank());
  return dims_input(c, i);
}

void register_random_ops(OpRegistry& r) {
  r.add(random_op("RandomUniform", "dtype", uniform_kernel, 1).with_input_types({{0, "shape", "T", kIndexDTypes}}));
  r.add(
      random_op("RandomStandardNormal", "dtype", normal_kernel, 1).with_input_types({{0, "shape", "T", kIndexDTypes}}));
  r.add(random_op("TruncatedNormal", "dtype", truncated_normal_kernel, 1)
            .with_input_types({{0, "shape", "T", kIndexDTypes}}));
  OpDef ui = random_op("RandomUniformInt", "Tout", uniform_int_kernel, 3);
  ui.infer = [](const InferContext& c) {
    DType d = c.inputs[1].dtype;
    std::vector<TensorSpec> out = shape_infer("Tout")(c);
    out[0].dtype = d;
    return out;
  };
  r.add(std::move(ui).with_input_types({{0, "shape", "T", kIndexDTypes}}));
  // Stateless: same seed, same numbers; pure functions of their inputs (CSE and folding apply).
  r.add(OpDef{"StatelessRandomUniform",
              "StatelessRandomUniform",
              2,
              stateless_infer("StatelessRandomUniform"),
              stateless_uniform_kernel,
              {}});
  r.add(OpDef{"StatelessRandomNormal",
              "StatelessRandomNormal",
              2,
              stateless_infer("StatelessRandomNormal"),
              stateless_normal_kernel,
              {}});
  r.add(OpDef{
      "StatelessRandomGetKeyCounter",
      "StatelessRandomGetKeyCounter",
      1,
      [](const InferContext& c) {
        check_seed_spec("StatelessRandomGetKeyCounter", c.inputs[0]);
        return std::vector<TensorSpec>{{DType::Int64, Shape{1}}, {DType::Int64, Shape{2}}};
      },
      get_key_counter_kernel,
      {}}.with_output_args({"key", "counter"}));
}

}  // namespace fn
