#include <algorithm>
#include <mutex>

#include "core/error.h"
#include "ops/families.h"
#include "ops/helpers.h"
#include "ops/op.h"

namespace fn {

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
  register_complex_ops(r);
}

}  // namespace fn
