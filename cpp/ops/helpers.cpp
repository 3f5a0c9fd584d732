#include "ops/helpers.h"

namespace fn {

void check_same_dtype_eager(const std::string& op, const std::vector<EagerPtr>& in) {
  for (size_t i = 1; i < in.size(); ++i)
    if (in[i]->dtype() != in[0]->dtype())
      throw_error(Code::InvalidArgument, "cannot compute ", op, " as input #", i, "(zero-based) was expected to be a ",
                  tf_type_string(in[0]->dtype()), " tensor but is a ", tf_type_string(in[i]->dtype()), " tensor");
}

void check_same_dtype_graph(const std::string& op, const std::vector<TensorSpec>& in) {
  static const char* names[] = {"x", "y", "z"};
  for (size_t i = 1; i < in.size(); ++i)
    if (in[i].dtype != in[0].dtype)
      throw_error(Code::TypeError, "Input '", i < 3 ? names[i] : "input", "' of '", op, "' Op has type ",
                  dtype_name(in[i].dtype), " that does not match type ", dtype_name(in[0].dtype), " of argument '",
                  names[0], "'.");
}

std::vector<int64_t> read_int_list(const EagerTensor& t) {
  // Never read a string/resource buffer as numbers (dispatch checks index dtypes; this is the net).
  if (!is_integer(t.dtype()) && t.dtype() != DType::Bool)
    throw_error(Code::InvalidArgument, "Expected an int32 or int64 tensor of indices, got ", dtype_name(t.dtype()));
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = t.scalar_as_int(static_cast<int64_t>(i));
  return out;
}

}  // namespace fn
