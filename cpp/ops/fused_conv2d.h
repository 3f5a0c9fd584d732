// _FusedConv2D's shape rule and kernel (the op is defined in ops/fused_contraction.cpp): a
// Conv2D with its bias / residual / Relu(6) as oneDNN post-ops, an elementwise epilogue program
// (passes/fuse_epilogue.cpp), and a MaxPool or AvgPool of the result (passes/fuse_conv_pool.cpp:
// attr "pool_op", the pool's own attrs prefixed "pool:"; with attr "epilogue_after_pool" the
// program reads the pooled result: a Relu sunk below the pool by passes/sink_max_pool.cpp),
// computed per batch slice while the slice's activations are in cache (kernels/onednn/conv.h).
#pragma once
#include <vector>

#include "ops/op.h"

namespace fn {

std::vector<TensorSpec> fused_conv2d_infer(const InferContext& c);
std::vector<EagerPtr> fused_conv2d_kernel(KernelContext& k, const std::vector<EagerPtr>& in);

}  // namespace fn
