#include "exec/start_up.h"

#include "exec/control_flow.h"
#include "ops/families.h"

namespace fn {

void start_up(const std::function<void(OpRegistry&)>& extra) {
  OpRegistry::start_up([&](OpRegistry& r) {
    register_all_ops(r);
    add_control_flow_kernels(r);
    if (extra) extra(r);
  });
}

}  // namespace fn
