// Transposes folded into matmuls, as XLA and Inductor do: attention's heads(t) =
// transpose(reshape(t), [0, 2, 1, 3]) before a batched matmul and the transpose back after it
// were copies of the whole activation. A Transpose with a constant perm, one reader and not
// pinned (a graph output or control dependency) that feeds a matmul operand:
//  - a perm that swaps the last two dims only flips transpose_a/b (adj_x/adj_y), for every real
//    dtype (adj on complex would conjugate: declined), as TF's grappler does whatever else reads
//    the Transpose (it stays for those). This runs before fuse_contractions, as grappler's
//    arithmetic optimizer runs before its remapper: relu(matmul(transpose(x), w) + b) becomes a
//    MatMul with transpose_a, which neither fuses, so a NaN stays NaN as in TF;
//  - another perm on a batched matmul becomes attr perm_a/perm_b (ops/matmul.h): the oneDNN
//    kernel reads the untransposed buffer through permuted strides. float32/bfloat16 only (the
//    dtypes oneDNN runs), and only where oneDNN keeps its brgemm kernel (operand_fast).
// A batched matmul whose only reader is such a Transpose writes its result through permuted
// strides (attr perm_out) where that stays fast (result_fast). Where the kernel still meets a
// layout oneDNN runs only in its reference kernel, it copies (ops/matmul.cpp).
// fuse_contractions then fuses a folded BatchMatMulV2 * scale (its kernel takes the attrs).
#include <algorithm>

#include "ops/fused_contraction.h"
#include "ops/helpers.h"
#include "ops/matmul.h"
#include "ops/shape_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace fn {

namespace {

bool is_batched(const std::string& op) { return op == kBatchMatMulV2Op || op == fused_batch_matmul_op().name; }
bool is_matmul(const std::string& op) { return op == kMatMulOp || op == fused_matmul_op().name || is_batched(op); }

// The constant perm of Transpose node t when it is a valid permutation of rank(t's input).
bool const_perm(const Graph& g, const Node& t, std::vector<int64_t>* perm) {
  if (t.op != kTransposeOp || t.inputs.size() != 2 || t.outputs.size() != 1) return false;
  const EagerTensor* val = constant_value(g.node(t.inputs[1].node));
  if (!val || !is_integer(val->dtype()) || val->shape().rank() != 1) return false;
  *perm = read_int_list(*val);
  const Shape& in = g.node(t.inputs[0].node).outputs.at(t.inputs[0].index).shape;
  int r = static_cast<int>(perm->size());
  if (!in.has_rank() || in.rank() != r || r < 2) return false;
  std::vector<char> seen(r, 0);
  for (int64_t x : *perm) {
    if (x < 0 || x >= r || seen[x]) return false;
    seen[x] = 1;
  }
  return true;
}

bool swaps_last_two(const std::vector<int64_t>& p) {
  int r = static_cast<int>(p.size());
  for (int i = 0; i + 2 < r; ++i)
    if (p[i] != i) return false;
  return p[r - 2] == r - 1 && p[r - 1] == r - 2;
}

bool strided_ok(DType d) { return d == DType::Float32 || d == DType::BFloat16; }

// Operand transpose(x, p) keeps oneDNN's brgemm kernel (measured on oneDNN 3.2): x's innermost
// dim is one of the matrix dims (unit stride), and the batch dims keep their order (reordered
// ones run gemm:jit, ~10% slower).
bool operand_fast(const std::vector<int64_t>& p) {
  int r = static_cast<int>(p.size());
  for (int i = 0; i + 3 < r; ++i)
    if (p[i] > p[i + 1]) return false;
  return p[r - 1] == r - 1 || p[r - 2] == r - 1;
}

// Result Z written as transpose(Z, p): Z's rows stay rows (a transposed dst runs oneDNN's
// reference kernel, hundreds of times slower) and its batch dims keep their order.
bool result_fast(const std::vector<int64_t>& p) {
  int r = static_cast<int>(p.size());
  int64_t last = -1;
  for (int64_t x : p)
    if (x < r - 2) {
      if (x < last) return false;
      last = x;
    }
  return p[r - 1] == r - 1;
}

// What happens to one matmul node.
struct Fold {
  int in_t[2] = {-1, -1};        // the Transpose folded into operand k
  std::vector<int64_t> perm[2];  // perm attr for operand k (empty: flip transpose attr)
  int out_t = -1;                // the Transpose after it, folded as perm_out
  std::vector<int64_t> out_perm;
};

const char* flip_attr(const std::string& op, int k) {
  bool mm = op == kMatMulOp || op == fused_matmul_op().name;
  return k == 0 ? (mm ? "transpose_a" : "adj_x") : (mm ? "transpose_b" : "adj_y");
}

}  // namespace

std::shared_ptr<Graph> fold_transposes(const Graph& g) {
  auto r = fold_transposes_or_null(g);
  return r ? r : copy_graph(g);
}

std::shared_ptr<Graph> fold_transposes_or_null(const Graph& g) {
  const int n = g.num_nodes();
  bool any = false;
  for (int i = 0; i < n && !any; ++i) any = g.node(i).op == kTransposeOp;
  if (!any) return nullptr;
  // Live readers only: passes leave the nodes they replaced in the graph, still reading.
  const Readers readers(g);
  const std::vector<char>& live = readers.live;
  const std::vector<char>& control_target = readers.control_target;  // must stay
  // A Transpose that only feeds its reader and may disappear.
  auto single_use = [&](int t) {
    return readers.uses[t] == 1 && !readers.pinned[t] && g.node(t).control_inputs.empty();
  };
  std::vector<Fold> folds(n);
  std::vector<int> claimed(n, -1);  // Transpose -> the matmul folding it
  bool folded = false;
  for (int i = 0; i < n; ++i) {
    const Node& m = g.node(i);
    if (!live[i] || !is_matmul(m.op) || !m.def || m.inputs.size() < 2 || m.outputs.size() != 1 ||
        m.attrs.has("perm_a") || m.attrs.has("perm_b") || m.attrs.has("perm_out"))
      continue;
    DType d = m.outputs[0].dtype;
    if (is_complex(d)) continue;
    bool batched = is_batched(m.op);
    Fold& f = folds[i];
    for (int k = 0; k < 2; ++k) {
      int t = m.inputs[k].node;
      std::vector<int64_t> p;
      if (claimed[t] >= 0 || !const_perm(g, g.node(t), &p)) continue;
      if (swaps_last_two(p)) {  // as TF's grappler: whatever else reads the Transpose
        f.perm[k].clear();
      } else if (batched && strided_ok(d) && operand_fast(p) && single_use(t)) {
        f.perm[k] = p;
      } else {
        continue;
      }
      f.in_t[k] = t;
      if (single_use(t)) claimed[t] = i;  // else it stays for its other readers
      folded = true;
    }
    // The Transpose after a batched matmul (it may be a graph output: its outputs are remapped).
    int t = readers.consumer[i];
    std::vector<int64_t> p;
    if (batched && strided_ok(d) && readers.uses[i] == 1 && !readers.pinned[i] && t >= 0 && claimed[t] < 0 &&
        !control_target[t] && g.node(t).inputs[0].node == i && g.node(t).control_inputs.empty() &&
        const_perm(g, g.node(t), &p)) {
      if (result_fast(p)) {
        f.out_t = t;
        f.out_perm = p;
        claimed[t] = i;
        folded = true;
      }
    }
  }
  if (!folded) return nullptr;
  std::vector<std::vector<NodeOutput>> remapped(n);
  std::vector<Node> pending(n);  // a matmul whose output Transpose is folded, built at the Transpose
  Rewriter rw(g);
  std::vector<char> dropped(n, 0);  // left out without a replacement
  return rw.run([&](int i, const Node& copy, Rewriter& r) {
    remapped[i] = copy.inputs;
    if (!live[i]) {  // a dead node reading a dropped one goes too
      for (const NodeOutput& in : g.node(i).inputs)
        if (dropped[in.node]) return dropped[i] = 1, true;
      return false;
    }
    int owner = claimed[i];
    if (owner >= 0 && folds[owner].out_t != i) return dropped[i] = 1, true;  // an operand's Transpose
    if (owner >= 0) {  // the output's Transpose: the matmul writing its layout takes its place
      Node m = std::move(pending[owner]);
      m.attrs.set("perm_out", folds[owner].out_perm);
      m.outputs = copy.outputs;
      r.replace_outputs(i, {NodeOutput{r.target().add_node(std::move(m)), 0}});
      return true;
    }
    const Fold& f = folds[i];
    if (f.in_t[0] < 0 && f.in_t[1] < 0 && f.out_t < 0) return false;
    Node m = copy;
    for (int k = 0; k < 2; ++k) {
      if (f.in_t[k] < 0) continue;
      m.inputs[k] = remapped[f.in_t[k]][0];
      if (f.perm[k].empty()) {
        const char* a = flip_attr(m.op, k);
        m.attrs.set(a, !m.attrs.get_or(a, false));
      } else {
        m.attrs.set(k == 0 ? "perm_a" : "perm_b", f.perm[k]);
      }
    }
    if (f.out_t >= 0) {  // read only by its Transpose, which is replaced by this node
      pending[i] = std::move(m);
      return dropped[i] = 1, true;
    }
    r.replace_outputs(i, {NodeOutput{r.target().add_node(std::move(m)), 0}});
    return true;
  });
}

}  // namespace fn
