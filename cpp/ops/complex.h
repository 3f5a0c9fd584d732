// Complex support of ops whose families are defined elsewhere (AddV2, Sub, Mul, RealDiv, Abs,
// Cast, ZerosLike, OnesLike): their families register `with_complex(def, ComplexPath::...)`, so
// each op is whole when it is registered, states its complex path as a fact of its OpDef
// (OpDef::complex) and nothing depends on the order families register in.
#pragma once
#include "graph/op_def.h"

namespace fn {

// `def` with the complex64/complex128 `path` in its kernel and shape rule (and, for Mul and Div,
// TF's conjugate gradients), recorded as def.complex. Internal error for ComplexPath::None.
OpDef with_complex(OpDef def, ComplexPath path);

}  // namespace fn
