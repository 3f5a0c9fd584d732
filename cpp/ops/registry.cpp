#include <algorithm>
#include <mutex>

#include "core/error.h"
#include "ops/families.h"
#include "ops/helpers.h"
#include "ops/op.h"

namespace fn {

namespace {

const std::vector<DType> kI32{DType::Int32};
const std::vector<DType> kIdx{DType::Int32, DType::Int64};
const std::vector<DType> kIdx16{DType::Int16, DType::Int32, DType::Int64};

// TF's op definitions: which inputs are index-like and the dtypes they allow.
void add_input_types(OpRegistry& r) {
  auto set = [&](const char* op, std::vector<InputType> t) {
    if (OpDef* d = const_cast<OpDef*>(r.find(op))) d->input_types = std::move(t);
  };
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod", "Any", "All"})
    set(op, {{1, "reduction_indices", "Tidx", kIdx}});
  for (const char* op : {"ArgMax", "ArgMin"})
    set(op, {{1, "dimension", "Tidx", {DType::Int16, DType::Int32, DType::Int64}}});
  set("Transpose", {{1, "perm", "Tperm", kIdx}});
  for (const char* op : {"Softmax", "LogSoftmax"})
    set(op, {{0, "logits", "T", {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}}});
  set("InvertPermutation", {{0, "x", "T", kIdx}});
  set("ConcatV2", {{-1, "axis", "Tidx", kIdx}});
  set("Split", {{0, "split_dim", "split_dim", kI32}});
  set("SplitV",
      {{1, "size_splits", "Tlen", {DType::Int8, DType::Int32, DType::Int64}}, {2, "split_dim", "split_dim", kI32}});
  set("GatherV2", {{1, "indices", "Tindices", kIdx16}, {2, "axis", "Taxis", kIdx}});
  set("GatherNd", {{1, "indices", "Tindices", kIdx16}});
  set("ScatterNd", {{0, "indices", "Tindices", kIdx16}, {2, "shape", "Tindices", kIdx16}});
  set("UnsortedSegmentSum", {{1, "segment_ids", "Tindices", kIdx16}, {2, "num_segments", "Tnumsegments", kIdx}});
  set("Reshape", {{1, "shape", "Tshape", kIdx}});
  set("ExpandDims", {{1, "axis", "Tdim", kIdx}});
  set("Tile", {{1, "multiples", "Tmultiples", kIdx}});
  set("Pad", {{1, "paddings", "Tpaddings", kIdx}});
  set("PadV2", {{1, "paddings", "Tpaddings", kIdx}});
  set("Fill", {{0, "dims", "index_type", kIdx}});
  set("Slice", {{1, "begin", "Index", kIdx}, {2, "size", "Index", kIdx}});
  set("StridedSlice", {{1, "begin", "Index", kIdx}, {2, "end", "Index", kIdx}, {3, "strides", "Index", kIdx}});
  set("OneHot",
      {{0, "indices", "TI", {DType::UInt8, DType::Int8, DType::Int32, DType::Int64}}, {1, "depth", "depth", kI32}});
  set("LinSpace", {{2, "num", "Tidx", kIdx}});
  set("Range", {{0,
                 "start",
                 "Tidx",
                 {DType::BFloat16, DType::Float16, DType::Float32, DType::Float64, DType::Int8, DType::Int16,
                  DType::Int32, DType::Int64}},
                {1,
                 "limit",
                 "Tidx",
                 {DType::BFloat16, DType::Float16, DType::Float32, DType::Float64, DType::Int8, DType::Int16,
                  DType::Int32, DType::Int64}},
                {2,
                 "delta",
                 "Tidx",
                 {DType::BFloat16, DType::Float16, DType::Float32, DType::Float64, DType::Int8, DType::Int16,
                  DType::Int32, DType::Int64}}});
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "RandomUniformInt", "TruncatedNormal"})
    set(op, {{0, "shape", "T", kIdx}});
  set("Conv2DBackpropInput", {{0, "input_sizes", "input_sizes", kI32}});
  set("Conv2DBackpropFilter", {{1, "filter_sizes", "filter_sizes", kI32}});
  set("TensorListGetItem", {{1, "index", "index", kI32}});
  set("TensorListSetItem", {{1, "index", "index", kI32}});
  set("TensorListGather", {{1, "indices", "indices", kI32}});
  set("TensorListScatterIntoExistingList", {{2, "indices", "indices", kI32}});
  for (const char* op : {"ConcatV2", "AddN"}) const_cast<OpDef*>(r.find(op))->min_inputs = op[0] == 'C' ? 3 : 1;
  const_cast<OpDef*>(r.find("Pack"))->min_inputs = 1;
  for (const char* op : {"Split", "SplitV"}) const_cast<OpDef*>(r.find(op))->attr_mins = {{"num_split", 1}};
  const_cast<OpDef*>(r.find("Unpack"))->attr_mins = {{"num", 0}};
  // String and type attrs' allowed values (TF's op definitions).
  auto allow = [&](const char* op, std::vector<AttrAllowed> a) {
    if (OpDef* d = const_cast<OpDef*>(r.find(op))) d->attr_allowed = std::move(a);
  };
  allow("StringLength", {{"unit", {"BYTE", "UTF8_CHAR"}, {}, {}}});
  allow("StringToNumber",
        {{"out_type", {}, {DType::Float32, DType::Float64, DType::Int32, DType::Int64}, {"uint32", "uint64"}}});
}

}  // namespace

void register_all_ops(OpRegistry& r) {
  register_array_ops(r);
  register_elementwise_ops(r);
  register_binary_ops(r);
  register_compare_ops(r);
  register_unary_ops(r);
  register_cast_ops(r);
  register_reduce_ops(r);
  register_matmul_ops(r);
  register_state_ops(r);
  register_host_ops(r);
  register_collective_ops(r);
  register_control_flow_ops(r);
  register_tensor_list_ops(r);
  register_shape_ops(r);
  register_concat_split_ops(r);
  register_gather_ops(r);
  register_slice_ops(r);
  register_sequence_ops(r);
  register_conv_ops(r);
  register_nn_ops(r);
  register_random_ops(r);
  register_random_counter_ops(r);
  register_scan_ops(r);
  register_sort_ops(r);
  register_permute_ops(r);
  register_special_ops(r);
  register_scatter_ops(r);
  register_linalg_ops(r);
  register_linalg_decomp_ops(r);
  register_linalg_eig_ops(r);
  register_loss_ops(r);
  register_string_ops(r);
  register_complex_ops(r);  // last: extends AddV2, Sub, Mul, RealDiv, Abs
  add_input_types(r);
}

}  // namespace fn
