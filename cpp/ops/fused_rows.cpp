// _FusedRows's definition (ops/fused_rows.h).
#include "ops/fused_rows.h"

#include "core/error.h"

namespace fn {

namespace {

// Stage layout: row_level, reduce, #instructions, (op, a, b)..., #inputs, (stage, index, div,
// mod)..., #extra, extra..., #outputs, out...
struct Reader {
  const std::vector<int64_t>& v;
  size_t at = 0;
  int64_t next() {
    if (at >= v.size()) throw_error(Code::Internal, "malformed fused rows node");
    return v[at++];
  }
  size_t count() {
    const int64_t c = next();
    if (c < 0 || static_cast<size_t>(c) > v.size()) throw_error(Code::Internal, "malformed fused rows node");
    return static_cast<size_t>(c);
  }
};

std::vector<Shape> out_shapes(const Attrs& attrs) {
  const auto& d = attrs.get<std::vector<int64_t>>("out_dims");
  Reader r{d};
  std::vector<Shape> shapes;
  while (r.at < d.size()) {
    std::vector<int64_t> dims(r.count());
    for (int64_t& x : dims) x = r.next();
    shapes.emplace_back(dims);
  }
  return shapes;
}

std::vector<EagerPtr> fused_rows_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const auto& rl = k.attrs.get<std::vector<int64_t>>("rows");
  const std::vector<fused::RowStage> stages = decode_row_stages(k.attrs.get<std::vector<int64_t>>("stages"));
  const std::vector<Shape> shapes = out_shapes(k.attrs);
  if (rl.size() != 2) throw_error(Code::Internal, "malformed fused rows node");
  std::vector<const float*> ins;
  for (const EagerPtr& t : in) {
    if (t->dtype() != DType::Float32) throw_error(Code::Internal, "fused rows input is not float32");
    ins.push_back(t->data<float>());
  }
  // The plan was made for these shapes: a mismatch is a bug, never a wrong read.
  for (const fused::RowStage& s : stages)
    for (const fused::RowStage::Input& i : s.inputs)
      if (i.stage < 0 &&
          (static_cast<size_t>(i.index) >= in.size() || in[static_cast<size_t>(i.index)]->num_elements() != i.mod))
        throw_error(Code::Internal, "fused rows input ", i.index, " does not have the traced shape");
  std::vector<EagerPtr> result;
  std::vector<float*> outs;
  for (const Shape& s : shapes) {
    result.push_back(make_tensor(DType::Float32, s));
    outs.push_back(result.back()->data<float>());
  }
  for (const fused::RowStage& s : stages)
    for (size_t o = 0; o < s.out.size(); ++o) {
      if (s.out[o] < 0) continue;
      const bool per_row = o == 0 ? s.reduce != fused::RowStage::kNone || s.row_level : s.row_level;
      if (shapes.at(static_cast<size_t>(s.out[o])).num_elements() != (per_row ? rl[0] : rl[0] * rl[1]))
        throw_error(Code::Internal, "fused rows output ", s.out[o], " does not match its stage");
    }
  fused::run_rows(stages, ins, outs, rl[0], rl[1]);
  return result;
}

}  // namespace

std::vector<int64_t> encode_row_stages(const std::vector<fused::RowStage>& stages) {
  std::vector<int64_t> v;
  for (const fused::RowStage& s : stages) {
    v.insert(v.end(), {s.row_level ? 1 : 0, s.reduce, static_cast<int64_t>(s.prog.size())});
    for (const fused::Instr& i : s.prog) v.insert(v.end(), {i.op, i.a, i.b});
    v.push_back(static_cast<int64_t>(s.inputs.size()));
    for (const fused::RowStage::Input& i : s.inputs) v.insert(v.end(), {i.stage, i.index, i.div, i.mod});
    v.push_back(static_cast<int64_t>(s.extra.size()));
    v.insert(v.end(), s.extra.begin(), s.extra.end());
    v.push_back(static_cast<int64_t>(s.out.size()));
    v.insert(v.end(), s.out.begin(), s.out.end());
  }
  return v;
}

std::vector<fused::RowStage> decode_row_stages(const std::vector<int64_t>& code) {
  std::vector<fused::RowStage> stages;
  Reader r{code};
  auto i32 = [&] {
    const int64_t x = r.next();
    if (x < INT32_MIN || x > INT32_MAX) throw_error(Code::Internal, "malformed fused rows node");
    return static_cast<int>(x);
  };
  while (r.at < code.size()) {
    fused::RowStage s;
    s.row_level = r.next() != 0;
    s.reduce = i32();
    s.prog.resize(r.count());
    for (fused::Instr& i : s.prog) i = fused::Instr{i32(), i32(), i32()};
    s.inputs.resize(r.count());
    for (fused::RowStage::Input& i : s.inputs) {
      i.stage = i32();
      i.index = i32();
      i.div = r.next();
      i.mod = r.next();
    }
    s.extra.resize(r.count());
    for (int& e : s.extra) e = i32();
    s.out.resize(r.count());
    for (int& o : s.out) o = i32();
    stages.push_back(std::move(s));
  }
  return stages;
}

const OpDef& fused_rows_op() {
  static const OpDef def{"_FusedRows",
                         "fused_rows",
                         -1,
                         [](const InferContext& c) {
                           std::vector<TensorSpec> specs;
                           for (const Shape& s : out_shapes(c.attrs)) specs.push_back(TensorSpec{DType::Float32, s});
                           return specs;
                         },
                         fused_rows_kernel,
                         {}};
  return def;
}

}  // namespace fn
