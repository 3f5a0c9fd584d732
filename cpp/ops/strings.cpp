// String ops: StringJoin (scalars broadcast), StringLength (BYTE / UTF8_CHAR), StringLower /
// StringUpper (ASCII), StringToNumber (strict parse, TF's error), AsString (printf formats as
// TF's kernel builds them), StringToHashBucketFast (FarmHash's Fingerprint64 modulo the bucket
// count, TF's ids). Regex and split run in Python (fn.strings) through host calls.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "kernels/reference/farmhash.h"
#include "ops/elementwise_impl.h"
#include "ops/families.h"
#include "ops/shape_util.h"
#include "trace/context.h"

namespace fn {

namespace {

void check_string(const std::string& op, DType d) {
  if (d != DType::String)
    throw_error(Code::InvalidArgument, "cannot compute ", op,
                " as input #0(zero-based) was expected to be a string "
                "tensor but is a ",
                tf_type_string(d), " tensor");
}

InferFn string_unary_infer(std::string op, DType out) {
  return [op, out](const InferContext& c) {
    if (c.inputs[0].dtype != DType::String)
      throw_error(Code::TypeError, "Input 'input' of '", op, "' Op has type ", dtype_name(c.inputs[0].dtype),
                  " that does not match expected type of string.");
    return one(out, c.inputs[0].shape);
  };
}

// ---- StringJoin ----

std::vector<TensorSpec> join_infer(const InferContext& c) {
  Shape out{};
  for (const auto& s : c.inputs) {
    if (s.dtype != DType::String)
      throw_error(Code::TypeError, "Input 'inputs' of 'StringJoin' Op has type ", dtype_name(s.dtype),
                  " that does not match expected type of string.");
    if (s.shape.rank() == 0) continue;
    if (!out.has_rank() || out.rank() == 0) {
      out = s.shape;
      continue;
    }
    if (s.shape.has_rank() && !out.is_compatible_with(s.shape))
      throw_error(Code::ValueError, "Input shapes do not match: ", tf_shape(out), " vs. ", tf_shape(s.shape),
                  " for '{{node StringJoin}} = StringJoin[]' with input shapes: ", tf_shapes(c.inputs), ".");
  }
  return one(DType::String, out);
}

std::vector<EagerPtr> join_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  std::string sep = k.attrs.get_or("separator", std::string());
  Shape shape{};
  for (const auto& t : in) {
    check_string("StringJoin", t->dtype());
    if (t->shape().rank() == 0) continue;
    if (shape.rank() == 0)
      shape = t->shape();
    else if (shape != t->shape())
      throw_error(Code::InvalidArgument, "Input shapes do not match: ", tf_shape(shape), " vs. ", tf_shape(t->shape()));
  }
  auto out = make_tensor(DType::String, shape);
  int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    std::string s;
    for (size_t j = 0; j < in.size(); ++j) {
      if (j) s += sep;
      s += in[j]->strings()[in[j]->shape().rank() == 0 ? 0 : i];
    }
    out->strings()[i] = std::move(s);
  }
  return {out};
}

// ---- StringLength / StringLower / StringUpper ----

std::vector<EagerPtr> length_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  check_string("StringLength", in[0]->dtype());
  std::string unit = k.attrs.get_or("unit", std::string("BYTE"));
  if (unit != "BYTE" && unit != "UTF8_CHAR")
    throw_error(Code::InvalidArgument, "Value for attr 'unit' of \"", unit,
                "\" is not in the list of allowed values: \"BYTE\", \"UTF8_CHAR\"");
  auto out = make_tensor(DType::Int32, in[0]->shape());
  const auto& s = in[0]->strings();
  for (size_t i = 0; i < s.size(); ++i) {
    int64_t n = static_cast<int64_t>(s[i].size());
    if (unit == "UTF8_CHAR") {
      n = 0;
      for (unsigned char ch : s[i]) n += (ch & 0xC0) != 0x80;
    }
    out->data<int32_t>()[i] = static_cast<int32_t>(n);
  }
  return {out};
}

template <bool Upper>
std::vector<EagerPtr> case_kernel(KernelContext&, const std::vector<EagerPtr>& in) {
  check_string(Upper ? "StringUpper" : "StringLower", in[0]->dtype());
  auto out = make_tensor(DType::String, in[0]->shape());
  const auto& s = in[0]->strings();
  for (size_t i = 0; i < s.size(); ++i) {
    std::string r = s[i];
    for (char& ch : r) {
      unsigned char u = static_cast<unsigned char>(ch);
      if (u < 0x80) ch = static_cast<char>(Upper ? std::toupper(u) : std::tolower(u));
    }
    out->strings()[i] = std::move(r);
  }
  return {out};
}

// ---- StringToNumber ----

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

[[noreturn]] void bad_number(const std::string& s) {
  throw_error(Code::InvalidArgument, "StringToNumberOp could not correctly convert string: ", s);
}

std::vector<EagerPtr> to_number_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  check_string("StringToNumber", in[0]->dtype());
  DType out_t = k.attrs.get_or("out_type", DType::Float32);
  if (out_t != DType::Float32 && out_t != DType::Float64 && out_t != DType::Int32 && out_t != DType::Int64)
    throw_unsupported_dtype("StringToNumber", out_t);
  auto out = make_tensor(out_t, in[0]->shape());
  const auto& strs = in[0]->strings();
  for (size_t i = 0; i < strs.size(); ++i) {
    std::string t = trim(strs[i]);
    if (t.empty()) bad_number(strs[i]);
    char* end = nullptr;
    errno = 0;
    if (out_t == DType::Float32 || out_t == DType::Float64) {
      double v =
          out_t == DType::Float32 ? static_cast<double>(std::strtof(t.c_str(), &end)) : std::strtod(t.c_str(), &end);
      if (*end != '\0') bad_number(strs[i]);
      if (out_t == DType::Float32)
        out->data<float>()[i] = static_cast<float>(v);
      else
        out->data<double>()[i] = v;
    } else {
      long long v = std::strtoll(t.c_str(), &end, 10);
      if (*end != '\0' || errno == ERANGE) bad_number(strs[i]);
      if (out_t == DType::Int32) {
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) bad_number(strs[i]);
        out->data<int32_t>()[i] = static_cast<int32_t>(v);
      } else {
        out->data<int64_t>()[i] = static_cast<int64_t>(v);
      }
    }
  }
  return {out};
}

// ---- AsString ----

std::vector<TensorSpec> as_string_infer(const InferContext& c) { return one(DType::String, c.inputs[0].shape); }

std::vector<EagerPtr> as_string_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  const EagerTensor& x = *in[0];
  int64_t precision = k.attrs.get_or("precision", int64_t{-1}), width = k.attrs.get_or("width", int64_t{-1});
  bool scientific = k.attrs.get_or("scientific", false), shortest = k.attrs.get_or("shortest", false);
  std::string fill = k.attrs.get_or("fill", std::string());
  DType d = x.dtype();
  bool is_float = is_floating(d);
  if (!is_float) {
    if (shortest) throw_error(Code::InvalidArgument, "shortest not supported for datatype ", dtype_name(d));
    if (scientific) throw_error(Code::InvalidArgument, "scientific not supported for datatype ", dtype_name(d));
    if (precision > -1) throw_error(Code::InvalidArgument, "precision not supported for datatype ", dtype_name(d));
  }
  if (scientific && shortest) throw_error(Code::InvalidArgument, "Cannot select both scientific and shortest notation");
  if (fill.size() > 1) throw_error(Code::InvalidArgument, "Fill string must be one or fewer characters");
  if (!fill.empty() && fill != " " && fill != "0" && fill != "-" && fill != "+" && fill != "#")
    throw_error(Code::InvalidArgument, "Fill argument not supported: \"", fill, "\"");
  std::string fmt = "%";
  if (width > -1) fmt += fill + std::to_string(width);
  if (precision > -1) fmt += "." + std::to_string(precision);
  auto out = make_tensor(DType::String, x.shape());
  int64_t n = x.num_elements();
  char buf[512];
  auto put = [&](int64_t i, const std::string& f, auto v) {
    std::snprintf(buf, sizeof buf, f.c_str(), v);
    out->strings()[i] = buf;
  };
  if (d == DType::String) {
    for (int64_t i = 0; i < n; ++i) put(i, fmt + "s", x.strings()[i].c_str());
  } else if (d == DType::Bool) {
    for (int64_t i = 0; i < n; ++i) put(i, fmt + "s", x.data<bool>()[i] ? "true" : "false");
  } else if (is_float) {
    std::string f = fmt + (shortest ? "g" : scientific ? "e" : "f");
    visit_pod(d, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < n; ++i) put(i, f, to_double(x.data<T>()[i]));
      return 0;
    });
  } else if (is_integer(d)) {
    visit_pod(d, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same<T, uint64_t>::value)
        for (int64_t i = 0; i < n; ++i) put(i, fmt + "llu", static_cast<unsigned long long>(x.data<T>()[i]));
      else if constexpr (std::is_integral<T>::value)
        for (int64_t i = 0; i < n; ++i) put(i, fmt + "lld", static_cast<long long>(x.data<T>()[i]));
      return 0;
    });
  } else {
    throw_unsupported_dtype("AsString", d);
  }
  return {out};
}

std::vector<EagerPtr> hash_bucket_fast_kernel(KernelContext& k, const std::vector<EagerPtr>& in) {
  check_string("StringToHashBucketFast", in[0]->dtype());
  const int64_t buckets = k.attrs.get_or("num_buckets", int64_t{0});
  if (buckets < 1)
    throw_error(Code::InvalidArgument, "Value for attr 'num_buckets' of ", buckets,
                " must be at least minimum 1\n\t; NodeDef: {{node StringToHashBucketFast}}");
  auto out = make_tensor(DType::Int64, in[0]->shape());
  const std::string* src = in[0]->strings().data();
  int64_t* dst = out->data<int64_t>();
  for (int64_t i = 0; i < in[0]->num_elements(); ++i)
    dst[i] =
        static_cast<int64_t>(farmhash::fingerprint64(src[i].data(), src[i].size()) % static_cast<uint64_t>(buckets));
  return {out};
}

}  // namespace

void register_string_ops(OpRegistry& r) {
  r.add(OpDef{"StringJoin", "StringJoin", -1, join_infer, join_kernel, {}});
  // String and type attrs' allowed values (TF's op definitions): checked with the inputs.
  r.add(OpDef{"StringLength", "StringLength", 1, string_unary_infer("StringLength", DType::Int32), length_kernel, {}}
            .with_attr_allowed({{"unit", {"BYTE", "UTF8_CHAR"}, {}, {}}}));
  r.add(
      OpDef{"StringLower", "StringLower", 1, string_unary_infer("StringLower", DType::String), case_kernel<false>, {}});
  r.add(
      OpDef{"StringUpper", "StringUpper", 1, string_unary_infer("StringUpper", DType::String), case_kernel<true>, {}});
  r.add(
      OpDef{"StringToNumber",
            "StringToNumber",
            1,
            [](const InferContext& c) {
              if (c.inputs[0].dtype != DType::String)
                throw_error(Code::TypeError, "Input 'string_tensor' of 'StringToNumber' Op has type ",
                            dtype_name(c.inputs[0].dtype), " that does not match expected type of string.");
              return one(c.attrs.get_or("out_type", DType::Float32), c.inputs[0].shape);
            },
            to_number_kernel,
            {}}
          .with_attr_allowed(
              {{"out_type", {}, {DType::Float32, DType::Float64, DType::Int32, DType::Int64}, {"uint32", "uint64"}}}));
  r.add(OpDef{"AsString", "AsString", 1, as_string_infer, as_string_kernel, {}});
  r.add(OpDef{
      "StringToHashBucketFast",
      "StringToHashBucketFast",
      1,
      string_unary_infer("StringToHashBucketFast", DType::Int64),
      hash_bucket_fast_kernel,
      {}}.with_attr_mins({{"num_buckets", 1}}));
}

}  // namespace fn
