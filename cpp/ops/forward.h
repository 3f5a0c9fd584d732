// Input forwarding (TF's forward_input): a kernel may write its output into an input's storage
// when nothing else can see that input. The executor (exec/plan.cpp) hands a value over at its
// last use (Step::move_in), so the kernel's reference is then the only one; eagerly, and when the
// value is a function output, a constant, a variable's buffer or a view, someone else holds the
// tensor or its buffer and the test fails. The buffer must own its storage (capacity 0: a wrapped
// array, memory others still see).
#pragma once
#include "core/tensor.h"

namespace fn {

inline bool forwardable(const EagerPtr& t) {
  return t && t.use_count() == 1 && t->buffer() && t->buffer().use_count() == 1 && t->buffer()->capacity() > 0;
}

}  // namespace fn
