// Each op family file defines one register function; registry.cpp calls them all.
#pragma once

namespace fn {
class OpRegistry;
void register_all_ops(OpRegistry& r);
void register_array_ops(OpRegistry& r);        // Const, Placeholder, Identity, Fill, ...
void register_elementwise_ops(OpRegistry& r);  // AddV2, ...
void register_matmul_ops(OpRegistry& r);       // MatMul, BatchMatMulV2
void register_host_ops(OpRegistry& r);         // PyCall (kernel set by the bindings)
void register_control_flow_ops(OpRegistry& r); // If, While (kernels set by exec/)
void register_tensor_list_ops(OpRegistry& r);  // TensorList* (TensorArray's values)
}  // namespace fn
