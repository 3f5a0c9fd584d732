#include "trace/tape.h"

namespace fn {

void Tape::watch(const TensorPtr& t) {
  if (!t || watched_.count(t.get())) return;
  watched_.emplace(t.get(), t);
  watched_list_.push_back(t);
}

void Tape::record(const OpDef& op, const std::vector<TensorPtr>& in, const std::vector<TensorPtr>& out,
                  const Attrs& attrs) {
  bool any = false;
  for (auto& t : in)
    if (t && is_watched(t.get())) {
      any = true;
      break;
    }
  if (!any) return;
  entries_.push_back(TapeEntry{&op, in, out, attrs});
  for (auto& t : out)
    if (t && (is_differentiable(t->dtype()) || t->dtype() == DType::Resource || t->dtype() == DType::Variant)) {
      watched_.emplace(t.get(), t);
    }
}

std::vector<std::shared_ptr<Tape>>& active_tapes() {
  thread_local std::vector<std::shared_ptr<Tape>> tapes;
  return tapes;
}

bool any_tape_recording() {
  for (auto& t : active_tapes())
    if (t->recording) return true;
  return false;
}

void record_on_tapes(const OpDef& op, const std::vector<TensorPtr>& in, const std::vector<TensorPtr>& out,
                     const Attrs& attrs) {
  for (auto& t : active_tapes())
    if (t->recording) t->record(op, in, out, attrs);
}

void notify_variable_accessed(const TensorPtr& handle) {
  for (auto& t : active_tapes())
    if (t->recording && t->watch_accessed_variables) t->watch(handle);
}

}  // namespace fn
