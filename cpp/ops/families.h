// Each op family file defines one register function; registry.cpp calls them all.
#pragma once

namespace fn {
class OpRegistry;
void register_all_ops(OpRegistry& r);
void register_array_ops(OpRegistry& r);        // Const, Placeholder, Identity, Fill, ...
void register_elementwise_ops(OpRegistry& r);  // AddV2
void register_binary_ops(OpRegistry& r);       // Sub, Mul, RealDiv, FloorDiv, FloorMod, Pow, Maximum, ...
void register_compare_ops(OpRegistry& r);      // Equal, Less, ..., LogicalAnd/Or/Not, Bitwise*
void register_unary_ops(OpRegistry& r);        // Neg, Abs, Sqrt, Exp, Tanh, Relu, IsNan, ...
void register_cast_ops(OpRegistry& r);         // Cast, ZerosLike, OnesLike, AddN
void register_reduce_ops(OpRegistry& r);       // Sum, Mean, Max, Min, Prod, Any, All, ArgMax, ArgMin
void register_matmul_ops(OpRegistry& r);       // MatMul, BatchMatMulV2
}  // namespace fn
