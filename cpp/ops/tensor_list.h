// TensorList: an immutable list of tensors held by a scalar Variant tensor (fn.TensorArray's
// value). See ops/tensor_list.cpp for the ops.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/buffer_pool.h"
#include "core/tensor.h"

namespace fn {

// Contiguous storage of a list's elements (row i holds element i), so that stacking the list is
// a view instead of a copy of every element (a While gradient's stacked operands, a TensorArray
// of a known size stacked after its loop). Only lists reserved at a size > 0 keep one (a list
// grown one element at a time, a While gradient's accumulator read back element by element,
// keeps its elements as they are: copying them into rows would cost more than it saves). A row
// is written once: its element is handed out as a view, and nothing that holds the view may see
// it change. A copied list starts with no rows (two lists writing one row would see each
// other's writes), keeping views of the source's rows as its elements.
struct ListArena {
  bool wanted = false;     // the list was reserved at a size > 0
  EagerPtr rows;           // [capacity, element...], or null
  std::vector<char> used;  // per row: written (never written again)
  ListArena() = default;
  ListArena(const ListArena& o) : wanted(o.wanted) {}
  ListArena& operator=(const ListArena& o) {
    wanted = o.wanted;
    rows.reset();
    used.clear();
    return *this;
  }
  ListArena(ListArena&&) = default;
  ListArena& operator=(ListArena&&) = default;
};

struct TensorList {
  static constexpr uint64_t kMagic = 0x666e5f746c697374ull;  // tells a list from other variants
  uint64_t magic = kMagic;
  DType dtype = DType::Float32;
  Shape element_shape = Shape::unknown_rank();  // the shape every element must be compatible with
  std::vector<EagerPtr> items;                  // nullptr: not written yet (reads give zeros)
  ListArena arena;                              // written elements of a sole-owned list: views of its rows
};

// A scalar Variant tensor holding `list`.
EagerPtr make_list_tensor(std::shared_ptr<TensorList> list);
// The list a Variant tensor holds (InvalidArgument if it holds none).
const TensorList& list_of(const EagerTensor& t);

// The executor's output placement (plan.cpp) for the producer of the item that a
// TensorListSetItem will write at `index` into the list `handle`: row `index` of the list's
// arena, when the caller holds the list alone, the row exists, is unwritten, 64-byte aligned,
// and holds elements of `spec` (dtype equal, shape compatible). False: no placement. The
// SetItem then finds its item already in the row and copies nothing (write_to_arena).
bool arena_row_placement(const EagerPtr& handle, const EagerPtr& index, const TensorSpec& spec, OutputPlacement& p);
// After the producer ran under `p`: if the row went to a buffer other than `item`'s (a kernel's
// temporary, another output) that is still alive, the row is marked written, so the list never
// writes over memory something else can see.
void settle_arena_placement(const EagerPtr& handle, const OutputPlacement& p, const EagerPtr& item);

}  // namespace fn
