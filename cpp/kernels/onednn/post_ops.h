// An Epilogue (kernels/epilogue.h) as oneDNN primitive attributes: a binary mul post-op for
// the scale, a binary add for the residual, then an eltwise post-op for the activation. The
// bias is the primitive's own bias argument.
#pragma once
#include <string>
#include <unordered_map>
#include <utility>

#include <dnnl.hpp>

#include "kernels/epilogue.h"

namespace fn {
namespace onednn {

dnnl::primitive_attr post_op_attr(const Epilogue& e, const dnnl::memory::desc& dst);
// A cache-key suffix naming the post-ops (the bias is part of the primitive's key already).
std::string post_op_key(const Epilogue* e);
// The residual's execute argument, if any.
void add_post_op_args(const Epilogue& e, const dnnl::memory::desc& dst, std::unordered_map<int, dnnl::memory>& args);
// The same arguments' ids and data pointers, in the order add_post_op_args makes them (to re-point
// arguments made once: see cached_args in matmul.cpp).
int post_op_pointers(const Epilogue& e, std::pair<int, const void*>* out);

}  // namespace onednn
}  // namespace fn
