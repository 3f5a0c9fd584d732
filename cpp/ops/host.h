// Hooks through which the bindings (which own the interpreter) give host ops their Python
// behaviour, so that ops/ never includes bindings/.
#pragma once
#include "ops/op.h"

namespace fn {

// The gradient of CustomGradient (fn.custom_gradient): set by the Python bindings.
GradFn& custom_gradient_rule();

}  // namespace fn
