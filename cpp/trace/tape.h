// Gradient tapes record the ops whose inputs they watch (eagerly and while tracing).
// Recording lives here, beside dispatch; the backward pass is in autodiff/.
#pragma once
#include <memory>
#include <unordered_map>
#include <vector>

#include "graph/op_def.h"

namespace fn {

struct TapeEntry {
  const OpDef* op;
  std::vector<TensorPtr> inputs;
  std::vector<TensorPtr> outputs;
  Attrs attrs;
};

class Tape {
 public:
  Tape(bool persistent, bool watch_accessed_variables)
      : persistent(persistent), watch_accessed_variables(watch_accessed_variables) {}
  void watch(const TensorPtr& t);
  bool is_watched(const Tensor* t) const { return watched_.count(t) != 0; }
  void record(const OpDef& op, const std::vector<TensorPtr>& in, const std::vector<TensorPtr>& out, const Attrs& attrs);
  const std::vector<TapeEntry>& entries() const { return entries_; }
  const std::vector<TensorPtr>& watched_tensors() const { return watched_list_; }
  void clear() { entries_.clear(); }

  const bool persistent;
  const bool watch_accessed_variables;
  bool recording = true;
  bool used = false;  // a non-persistent tape's gradient() may run once

 private:
  std::unordered_map<const Tensor*, TensorPtr> watched_;  // value keeps the key alive
  std::vector<TensorPtr> watched_list_;
  std::vector<TapeEntry> entries_;
};

// This thread's active tapes (innermost last). Push/pop is RAII through TapeScope.
std::vector<std::shared_ptr<Tape>>& active_tapes();
bool any_tape_recording();
void record_on_tapes(const OpDef& op, const std::vector<TensorPtr>& in, const std::vector<TensorPtr>& out,
                     const Attrs& attrs);
// Variables call this when read so tapes with watch_accessed_variables watch them.
void notify_variable_accessed(const TensorPtr& handle);

}  // namespace fn
