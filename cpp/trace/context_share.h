// Sharing a thread's tracing context with helper threads (tf.distribute's local replicas: TF
// traces each replica of strategy.run on its own thread, into the graph the caller is building).
// The helper runs only while the caller waits for it, so the caller's builders outlive its use.
#pragma once

#include <vector>

#include "trace/context.h"

namespace fn {

// A copy of this thread's frame stack.
std::vector<Frame> current_frames();

// RAII: pushes `frames` on this thread's (empty or eager) stack and pops them at exit.
class SharedContextScope {
 public:
  explicit SharedContextScope(std::vector<Frame> frames);
  ~SharedContextScope();
  SharedContextScope(const SharedContextScope&) = delete;
  SharedContextScope& operator=(const SharedContextScope&) = delete;

 private:
  size_t count_;
};

}  // namespace fn
