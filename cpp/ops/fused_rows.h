// _FusedRows: a row program (kernels/fused/rows.h): fused elementwise programs chained through
// last-axis Sum/Mean/Max/Min reductions and their per-row results, run block of rows by block of
// rows. Made by passes/fuse_rows.cpp in optimised graphs users never see, so not registered (as
// _FusedElementwise). Attrs: "rows" (rows, row length), "stages" (encode_row_stages), "out_dims"
// (per output: its rank, then its dims).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/fused/rows.h"
#include "ops/op.h"

namespace fn {

const OpDef& fused_rows_op();

// The stages as one int vector (an attr) and back; decode throws Internal on a malformed one.
std::vector<int64_t> encode_row_stages(const std::vector<fused::RowStage>& stages);
std::vector<fused::RowStage> decode_row_stages(const std::vector<int64_t>& code);

}  // namespace fn
