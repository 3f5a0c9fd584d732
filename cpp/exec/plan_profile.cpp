#include "exec/plan_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace fn::plan_profile {

namespace {
struct Entry {
  double seconds = 0;
  long calls = 0;
};
using Key = std::tuple<std::string, std::string, std::string>;  // op, node, output shape

// The table: a thread-safe accumulator (steps of different plans run on many threads).
struct Table {
  std::mutex mu;
  std::map<Key, Entry> rows;
};
Table& table() {
  static Table t;  // made before the atexit hook is registered, so destroyed after it ran
  return t;
}

// Sorted by total time: per step, then per op. A step's time includes the plans it runs
// (a While's body, a called function), whose steps are also listed on their own.
void print_table() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  std::vector<std::pair<Key, Entry>> rows(t.rows.begin(), t.rows.end());
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second.seconds > b.second.seconds; });
  std::map<std::string, Entry> by_op;
  double total = 0;
  for (auto& [k, e] : rows) {
    total += e.seconds;
    Entry& o = by_op[std::get<0>(k)];
    o.seconds += e.seconds;
    o.calls += e.calls;
  }
  std::fprintf(stderr, "FN_PLAN_PROFILE: %zu steps, %.3f ms in steps (nested plans counted twice)\n", rows.size(),
               total * 1e3);
  std::fprintf(stderr, "%12s %8s %10s %6s  %-28s %-20s %s\n", "total_ms", "calls", "us/call", "%", "op", "shape",
               "node");
  for (auto& [k, e] : rows)
    std::fprintf(stderr, "%12.3f %8ld %10.2f %6.2f  %-28s %-20s %s\n", e.seconds * 1e3, e.calls,
                 e.seconds * 1e6 / static_cast<double>(e.calls), total > 0 ? 100 * e.seconds / total : 0.0,
                 std::get<0>(k).c_str(), std::get<2>(k).c_str(), std::get<1>(k).c_str());
  std::vector<std::pair<std::string, Entry>> ops(by_op.begin(), by_op.end());
  std::sort(ops.begin(), ops.end(), [](auto& a, auto& b) { return a.second.seconds > b.second.seconds; });
  std::fprintf(stderr, "FN_PLAN_PROFILE by op:\n%12s %8s %6s  %s\n", "total_ms", "calls", "%", "op");
  for (auto& [op, e] : ops)
    std::fprintf(stderr, "%12.3f %8ld %6.2f  %s\n", e.seconds * 1e3, e.calls, total > 0 ? 100 * e.seconds / total : 0.0,
                 op.c_str());
}
}  // namespace

bool enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FN_PLAN_PROFILE");
    bool set = v && *v && std::string(v) != "0";
    if (set) {
      table();
      std::atexit(print_table);
    }
    return set;
  }();
  return on;
}

void record(const std::string& op, const std::string& node, const std::vector<EagerPtr>& out, Clock::time_point start) {
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::string shape = out.empty() || !out[0] ? "-" : out[0]->shape().debug_string();
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  Entry& e = t.rows[Key{op, node, std::move(shape)}];
  e.seconds += seconds;
  ++e.calls;
}

}  // namespace fn::plan_profile
