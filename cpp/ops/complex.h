// Complex support of ops whose families are defined elsewhere (AddV2, Sub, Mul, RealDiv, Abs,
// Cast, ZerosLike, OnesLike): their families register `with_complex(def)`, so each op is whole
// when it is registered and nothing depends on the order families register in.
#pragma once
#include "graph/op_def.h"

namespace fn {

// `def` with a complex64/complex128 path in its kernel and shape rule (and, for Mul and RealDiv,
// TF's conjugate gradients). Internal error for an op with no complex path.
OpDef with_complex(OpDef def);

}  // namespace fn
