// Each op family file defines one register function; registry.cpp calls them all.
#pragma once

namespace fn {
class OpRegistry;
void register_all_ops(OpRegistry& r);
void register_array_ops(OpRegistry& r);           // Const, Placeholder, Identity, Fill, ...
void register_elementwise_ops(OpRegistry& r);     // AddV2
void register_binary_ops(OpRegistry& r);          // Sub, Mul, RealDiv, FloorDiv, FloorMod, Pow, Maximum, ...
void register_compare_ops(OpRegistry& r);         // Equal, Less, ..., LogicalAnd/Or/Not, Bitwise*
void register_unary_ops(OpRegistry& r);           // Neg, Abs, Sqrt, Exp, Tanh, Relu, IsNan, ...
void register_cast_ops(OpRegistry& r);            // Cast, ZerosLike, OnesLike, AddN
void register_reduce_ops(OpRegistry& r);          // Sum, Mean, Max, Min, Prod, Any, All, ArgMax, ArgMin
void register_matmul_ops(OpRegistry& r);          // MatMul, BatchMatMulV2
void register_state_ops(OpRegistry& r);           // ReadVariableOp, Assign*VariableOp
void register_collective_ops(OpRegistry& r);      // CollectiveAllReduce/AllGather/Broadcast (transport: fn._mpi)
void register_host_ops(OpRegistry& r);            // PyCall (kernel set by the bindings)
void register_control_flow_ops(OpRegistry& r);    // If, While (kernels set by exec/)
void register_tensor_list_ops(OpRegistry& r);     // TensorList* (TensorArray's values)
void register_shape_ops(OpRegistry& r);           // Reshape, Transpose, ExpandDims, Squeeze, Shape, Tile, Pad, ...
void register_concat_split_ops(OpRegistry& r);    // ConcatV2, Pack, Unpack, Split, SplitV
void register_gather_ops(OpRegistry& r);          // GatherV2, GatherNd, ScatterNd, UnsortedSegmentSum, SelectV2, Where
void register_slice_ops(OpRegistry& r);           // Slice, StridedSlice, StridedSliceGrad
void register_sequence_ops(OpRegistry& r);        // Range, LinSpace, OneHot
void register_conv_ops(OpRegistry& r);            // Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter
void register_nn_ops(OpRegistry& r);              // BiasAdd, Softmax, LogSoftmax, MaxPool, AvgPool (+ grads)
void register_random_counter_ops(OpRegistry& r);  // RngReadAndSkip, Stateless*V2, StatefulRandomBinomial
void register_random_ops(OpRegistry& r);          // RandomUniform, RandomStandardNormal, RandomUniformInt
void register_scan_ops(OpRegistry& r);            // Cumsum, Cumprod
void register_sort_ops(OpRegistry& r);            // TopKV2, Unique
void register_permute_ops(OpRegistry& r);         // ReverseV2, Roll, BroadcastTo
void register_special_ops(OpRegistry& r);         // Erf, Atan2
void register_scatter_ops(OpRegistry& r);         // TensorScatter{Update,Add,Sub,Min,Max}, SegmentSum
void register_linalg_ops(OpRegistry& r);          // MatrixInverse, MatrixDeterminant, MatrixSolve
void register_linalg_decomp_ops(OpRegistry& r);  // Cholesky, MatrixTriangularSolve, Lu, LogMatrixDeterminant, band/diag
void register_linalg_eig_ops(OpRegistry& r);     // Qr, SelfAdjointEigV2, Svd
void register_loss_ops(OpRegistry& r);           // (Sparse)SoftmaxCrossEntropyWithLogits
void register_complex_ops(OpRegistry& r);  // Complex, Real, Imag, Conj, ComplexAbs (ops/complex.h: complex AddV2, ...)
void register_string_ops(OpRegistry& r);   // StringJoin, StringLength, StringLower/Upper, StringToNumber, AsString
}  // namespace fn
