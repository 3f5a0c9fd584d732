// Per-step wall-time profile of the sequential plan executor (FN_PLAN_PROFILE=1): where a
// function's time goes, step by step. Off by default; when off a run pays one branch on a
// flag read once. When on, plans run their steps in order on the calling thread (no inter-op
// split, so each step's time is its own) and a table is printed to stderr at exit.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace fn::plan_profile {

using Clock = std::chrono::steady_clock;

// FN_PLAN_PROFILE is set and not "0" (read once).
bool enabled();
// Adds one call of a step (op, node name, its first output's shape as "[2,3]") that started at `start`.
void record(const std::string& op, const std::string& node, const std::vector<EagerPtr>& out, Clock::time_point start);

}  // namespace fn::plan_profile
