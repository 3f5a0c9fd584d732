// TensorList ops: the values behind fn.TensorArray. A list is an immutable value held by a
// scalar Variant tensor (TensorFlow's TensorList), so it flows through While loops and If
// branches like any tensor; "writing" makes a new list sharing the unchanged elements.
#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "ops/families.h"
#include "ops/helpers.h"
#include "ops/op.h"
#include "ops/shape_util.h"
#include "ops/tensor_list.h"
#include "trace/context.h"

namespace fn {

EagerPtr make_list_tensor(std::shared_ptr<TensorList> list) {
  TensorList* raw = list.get();
  // The buffer views the list object; its owner keeps the list alive.
  return std::make_shared<EagerTensor>(DType::Variant, Shape{},
                                       Buffer::wrap(raw, 0, std::shared_ptr<void>(std::move(list), raw)));
}

const TensorList& list_of(const EagerTensor& t) {
  const auto* l =
      t.dtype() == DType::Variant && t.shape().rank() == 0 ? static_cast<const TensorList*>(t.raw()) : nullptr;
  if (!l || l->magic != TensorList::kMagic)
    throw_error(Code::InvalidArgument, "Input handle is not a TensorList (a ", dtype_name(t.dtype()),
                " tensor of shape ", t.shape().to_string(), ")");
  return *l;
}

namespace {

// Past this many elements a list's slot vector alone would take gigabytes: refuse (as an OOM)
// before the allocation is attempted.
constexpr int64_t kMaxListSize = int64_t{1} << 27;

int64_t scalar_index(const EagerTensor& t, const char* what) {
  if (!is_integer(t.dtype()) || t.shape().rank() != 0)
    throw_error(Code::InvalidArgument, what, " must be an integer scalar, got a ", dtype_name(t.dtype()),
                " tensor of shape ", t.shape().to_string());
  return t.scalar_as_int();
}

void check_dtype(const TensorList& l, DType d, const char* verb) {
  if (l.dtype != d)
    throw_error(Code::InvalidArgument, "Invalid data types; list elements ", tf_type_string(l.dtype), " but tried to ",
                verb, " ", tf_type_string(d));
}

void check_item_shape(const TensorList& l, const Shape& s) {
  if (!s.is_compatible_with(l.element_shape))
    throw_error(Code::InvalidArgument,
                "Tried to set a tensor with incompatible shape at a list index. "
                "Item element shape: ",
                s.to_string(), " list shape: ", l.element_shape.to_string());
}

EagerPtr copy_tensor(const EagerTensor& src, const Shape& shape, int64_t offset) {
  auto out = make_tensor(src.dtype(), shape);
  int64_t n = out->num_elements();
  if (src.dtype() == DType::String) {
    for (int64_t i = 0; i < n; ++i) out->strings()[i] = src.strings()[offset + i];
  } else if (n > 0) {
    size_t es = dtype_size(src.dtype());
    std::memcpy(out->raw(), static_cast<const char*>(src.raw()) + offset * es, n * es);
  }
  return out;
}

void copy_into(EagerTensor& dst, int64_t offset, const EagerTensor& src) {
  int64_t n = src.num_elements();
  if (dst.dtype() == DType::String) {
    for (int64_t i = 0; i < n; ++i) dst.strings()[offset + i] = src.strings()[i];
  } else if (n > 0) {
    size_t es = dtype_size(dst.dtype());
    std::memcpy(static_cast<char*>(dst.raw()) + offset * es, src.raw(), n * es);
  }
}

EagerPtr zeros(DType d, const Shape& s) {
  auto t = make_tensor(d, s);
  if (d != DType::String && t->num_elements() > 0) std::memset(t->raw(), 0, t->buffer()->nbytes());
  return t;
}

// The shape every element of `items` has (for stacking): the list's element shape when fully
// defined, else that of the written elements, which must all agree.
Shape common_element_shape(const TensorList& l, const std::vector<int64_t>& indices, const Shape& hint) {
  // The caller's static element shape (e.g. learned from writes while tracing) fills in.
  Shape shape = l.element_shape.is_fully_defined() || !hint.is_fully_defined() ? l.element_shape : hint;
  bool have = shape.is_fully_defined();
  for (int64_t i : indices) {
    const EagerPtr& t = l.items[i];
    if (!t) continue;
    if (!have) {
      shape = t->shape();
      have = true;
      continue;
    }
    if (t->shape() != shape)
      throw_error(Code::InvalidArgument, "Incompatible shapes during merge: ", shape.to_string(), " vs. ",
                  t->shape().to_string());
  }
  if (!have)
    throw_error(Code::InvalidArgument, "Tried to stack elements of a", indices.empty() ? "n empty" : "",
                " list with non-fully-defined element_shape: ", l.element_shape.to_string(),
                indices.empty() ? "" : " and no element written");
  return shape;
}

Shape prepend(int64_t d, const Shape& s) {
  if (!s.has_rank()) return Shape::unknown_rank();
  std::vector<int64_t> dims{d};
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  return Shape(dims);
}

// Bytes of one arena row of elements shaped `es` (0: no arena for such elements).
size_t arena_row_bytes(DType d, const Shape& es) {
  if (!is_pod(d) || !es.is_fully_defined()) return 0;
  return static_cast<size_t>(es.num_elements()) * dtype_size(d);
}

// The list's elements 0..n-1 are rows 0..n-1 of its arena, in order: stacking them is a view.
bool stacked_in_arena(const TensorList& l, const std::vector<int64_t>& indices, const Shape& es) {
  const EagerPtr& rows = l.arena.rows;
  const size_t per = arena_row_bytes(l.dtype, es);
  if (!rows || per == 0 || indices.empty() || rows->shape().rank() != es.rank() + 1 ||
      static_cast<size_t>(rows->shape()[0]) < indices.size())
    return false;
  for (int d = 0; d < es.rank(); ++d)
    if (rows->shape()[d + 1] != es[d]) return false;
  const char* base = static_cast<const char*>(rows->raw());
  for (size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] != static_cast<int64_t>(k)) return false;
    const EagerPtr& t = l.items[k];
    if (!t || t->raw() != base + k * per || t->shape() != es) return false;
  }
  return true;
}

EagerPtr stack_items(const TensorList& l, const std::vector<int64_t>& indices, const Shape& hint) {
  Shape es = common_element_shape(l, indices, hint);
  if (stacked_in_arena(l, indices, es))
    return view_of(l.arena.rows, 0, prepend(static_cast<int64_t>(indices.size()), es));
  std::vector<int64_t> dims{static_cast<int64_t>(indices.size())};
  dims.insert(dims.end(), es.dims().begin(), es.dims().end());
  auto out = make_tensor(l.dtype, Shape(dims));
  int64_t per = es.num_elements();
  EagerPtr zero;
  for (size_t k = 0; k < indices.size(); ++k) {
    const EagerPtr& t = l.items[indices[k]];
    if (!t && !zero) zero = zeros(l.dtype, es);
    copy_into(*out, static_cast<int64_t>(k) * per, t ? *t : *zero);
  }
  return out;
}

std::vector<int64_t> read_indices(const EagerTensor& t, size_t size) {
  auto idx = read_int_list(t);
  for (int64_t i : idx)
    if (i < 0 || static_cast<size_t>(i) >= size)
      throw_error(Code::InvalidArgument, "Trying to gather element ", i, " in a list with ", size, " elements.");
  return idx;
}

Shape element_shape_attr(const Attrs& a) { return a.get_or<Shape>("element_shape", Shape::unknown_rank()); }

std::vector<TensorSpec> handle_spec(const InferContext&) { return one(DType::Variant, Shape{}); }

std::shared_ptr<TensorList> copy_list(const TensorList& l) { return std::make_shared<TensorList>(l); }

// True if the kernel's input `t` is referenced by nothing else (the executor handed over its
// last reference): its list may then be updated in place, as no one can observe the change.
bool sole_owner(const EagerPtr& t) { return t.use_count() == 1 && t->buffer().use_count() == 1; }

// Past this size a list's elements are kept as they are (an arena is allocated for all the
// list's rows at once, written or not).
constexpr size_t kMaxArenaBytes = size_t{256} << 20;

// Row i of an arena (i below its capacity).
char* row_data(const ListArena& a, size_t i) {
  const size_t per = static_cast<size_t>(a.rows->num_elements() / a.rows->shape()[0]) * dtype_size(a.rows->dtype());
  return static_cast<char*>(a.rows->raw()) + i * per;
}

// The arena's rows are shaped `s`.
bool row_shape_is(const ListArena& a, const Shape& s) {
  const Shape& rs = a.rows->shape();
  if (!s.has_rank() || rs.rank() != s.rank() + 1) return false;
  for (int d = 0; d < s.rank(); ++d)
    if (rs[d + 1] != s[d]) return false;
  return true;
}

// `t`'s data lies in the arena's rows.
bool in_arena(const ListArena& a, const EagerTensor& t) {
  if (!a.rows || !is_pod(t.dtype())) return false;
  const char* p = static_cast<const char*>(t.raw());
  const char* base = static_cast<const char*>(a.rows->raw());
  return p >= base && p < base + a.rows->buffer()->nbytes();
}

// Copies `item` into row i of the arena of list `l` (which the caller owns alone), growing the
// arena to the list's length (doubling past it); the element becomes a view of the row. False
// (the caller keeps the item itself) when the element has no fixed POD layout, does not match
// the arena's rows, the row was written before, or the arena would be too large.
bool write_to_arena(TensorList& l, size_t i, const EagerPtr& item_ptr) {
  const EagerTensor& item = *item_ptr;
  ListArena& a = l.arena;
  size_t have = a.rows ? static_cast<size_t>(a.rows->shape()[0]) : 0;
  if (i < have && item.raw() == row_data(a, i)) {
    // The item is in row i already: its producer made it there (arena_row_placement), or it is
    // a view of the row written before (kept as it is, as any item of a written row).
    if (a.used[i]) return false;
    a.used[i] = 1;  // written now; never again (a same-sized item of another shape stays too)
    if (item.dtype() != a.rows->dtype() || !row_shape_is(a, item.shape())) return false;
    l.items[i] = item_ptr;
    return true;
  }
  const size_t per = arena_row_bytes(item.dtype(), item.shape());
  if (!a.wanted || per == 0 || item.dtype() != l.dtype) return false;
  if (a.rows) {
    const Shape& rs = a.rows->shape();
    if (rs.rank() != item.shape().rank() + 1) return false;
    for (int d = 0; d < item.shape().rank(); ++d)
      if (rs[d + 1] != item.shape()[d]) return false;
  }
  if (i >= have) {
    size_t want = std::max({i + 1, l.items.size(), 2 * have});
    if (want > kMaxArenaBytes / per) return false;
    EagerPtr grown = make_tensor(item.dtype(), prepend(static_cast<int64_t>(want), item.shape()));
    if (a.rows) {
      // Written rows move over and the list's views follow them (views held elsewhere keep the
      // old rows alive).
      const char* old = static_cast<const char*>(a.rows->raw());
      char* now = static_cast<char*>(grown->raw());
      const int64_t per_elems = item.shape().num_elements();
      for (size_t k = 0; k < have; ++k) {
        if (!a.used[k]) continue;
        std::memcpy(now + k * per, old + k * per, per);
        if (k < l.items.size() && l.items[k] && l.items[k]->raw() == old + k * per)
          l.items[k] = view_of(grown, static_cast<int64_t>(k) * per_elems, item.shape());
      }
    }
    a.rows = std::move(grown);
    a.used.resize(want, 0);
  }
  if (a.used[i]) return false;
  std::memcpy(static_cast<char*>(a.rows->raw()) + i * per, item.raw(), per);
  a.used[i] = 1;
  l.items[i] = view_of(a.rows, static_cast<int64_t>(i) * item.shape().num_elements(), item.shape());
  return true;
}

std::vector<EagerPtr> set_item(const EagerPtr& handle, int64_t i, const EagerPtr& item, bool resize) {
  const TensorList& src = list_of(*handle);
  check_dtype(src, item->dtype(), "write");
  check_item_shape(src, item->shape());
  if (i < 0 || (!resize && static_cast<size_t>(i) >= src.items.size()))
    throw_error(Code::InvalidArgument, "Trying to modify element ", i, " in a list with ", src.items.size(),
                " elements.");
  if (i >= kMaxListSize) throw_error(Code::ResourceExhausted, "OOM when growing a TensorArray to ", i + 1, " elements");
  if (sole_owner(handle)) {
    auto& l = const_cast<TensorList&>(src);
    if (static_cast<size_t>(i) >= l.items.size()) l.items.resize(i + 1);
    if (!write_to_arena(l, static_cast<size_t>(i), item)) l.items[i] = item;
    return {handle};
  }
  // A new list (starting with no rows of its own), which only this call holds yet.
  auto l = copy_list(src);
  if (static_cast<size_t>(i) >= l->items.size()) l->items.resize(i + 1);
  // An item placed in a row of the source's arena (its SetItem no longer held the list alone)
  // must not stay a view of that row: the source's holder may still write it.
  if (!write_to_arena(*l, static_cast<size_t>(i), item))
    l->items[i] = in_arena(src.arena, *item) ? copy_tensor(*item, item->shape(), 0) : item;
  return {make_list_tensor(std::move(l))};
}

// Gradients (TensorFlow's list_ops gradients): a list's gradient is a list of its elements'
// gradients; unwritten elements read as zeros.
Attrs elem_attrs(DType d, const Shape& s) { return Attrs{{"element_dtype", d}, {"element_shape", s}}; }

Shape drop_first(const Shape& s) {
  if (!s.has_rank() || s.rank() < 1) return Shape::unknown_rank();
  return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
}

std::vector<TensorPtr> set_item_grad(const GradContext& g) {
  std::vector<TensorPtr> r(3);
  const TensorPtr& dl = g.out_grads[0];
  if (!dl) return r;
  const TensorPtr& item = g.inputs[2];
  Attrs a = elem_attrs(item->dtype(), item->shape());
  r[2] = dispatch1("TensorListGetItem", {dl, g.inputs[1]}, a);
  r[0] = dispatch1("TensorListSetItem", {dl, g.inputs[1], dispatch1("ZerosLike", {item})}, a);
  return r;
}

std::vector<TensorPtr> get_item_grad(const GradContext& g) {
  std::vector<TensorPtr> r(2);
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return r;
  r[0] = dispatch1("TensorListSetItem", {dispatch1("ZerosLike", {g.inputs[0]}), g.inputs[1], dy},
                   elem_attrs(dy->dtype(), g.outputs[0]->shape()));
  return r;
}

std::vector<TensorPtr> stack_grad(const GradContext& g) {
  std::vector<TensorPtr> r(1);
  if (g.out_grads[0]) r[0] = dispatch1("TensorListFromTensor", {g.out_grads[0]});
  return r;
}

std::vector<TensorPtr> from_tensor_grad(const GradContext& g) {
  std::vector<TensorPtr> r(1);
  const TensorPtr& dl = g.out_grads[0];
  if (!dl) return r;
  const Shape& s = g.inputs[0]->shape();
  Attrs a = elem_attrs(g.inputs[0]->dtype(), drop_first(s));
  a.set("num_elements", s.has_rank() && s.rank() >= 1 ? s[0] : int64_t{-1});
  r[0] = dispatch1("TensorListStack", {dl}, std::move(a));
  return r;
}

std::vector<TensorPtr> gather_grad(const GradContext& g) {
  std::vector<TensorPtr> r(2);
  const TensorPtr& dy = g.out_grads[0];
  if (!dy) return r;
  r[0] = dispatch1("TensorListScatterIntoExistingList", {dispatch1("ZerosLike", {g.inputs[0]}), dy, g.inputs[1]});
  return r;
}

std::vector<TensorPtr> scatter_grad(const GradContext& g) {
  std::vector<TensorPtr> r(3);
  const TensorPtr& dl = g.out_grads[0];
  if (!dl) return r;
  const TensorPtr& value = g.inputs[1];
  r[1] = dispatch1("TensorListGather", {dl, g.inputs[2]}, elem_attrs(value->dtype(), drop_first(value->shape())));
  r[0] = dispatch1("TensorListScatterIntoExistingList", {dl, dispatch1("ZerosLike", {value}), g.inputs[2]});
  return r;
}

// A list's gradient may keep extra trailing zero elements (here: the pushed one), which
// readers of the earlier elements never see.
std::vector<TensorPtr> push_back_grad(const GradContext& g) {
  std::vector<TensorPtr> r(2);
  const TensorPtr& dl = g.out_grads[0];
  if (!dl) return r;
  const TensorPtr& item = g.inputs[1];
  Attrs a = elem_attrs(item->dtype(), item->shape());
  TensorPtr at = dispatch1("TensorListLength", {g.inputs[0]});
  r[1] = dispatch1("TensorListGetItem", {dl, at}, a);
  r[0] = dispatch1("TensorListSetItem", {dl, at, dispatch1("ZerosLike", {item})}, a);
  return r;
}

std::vector<TensorPtr> concat_grad(const GradContext& g) {
  std::vector<TensorPtr> r(1);
  if (g.out_grads.empty() || !g.out_grads[0]) return r;
  r[0] = dispatch1("TensorListSplit", {g.out_grads[0], g.outputs[1]});
  return r;
}

std::vector<TensorPtr> split_grad(const GradContext& g) {
  std::vector<TensorPtr> r(2);
  const TensorPtr& dl = g.out_grads[0];
  if (!dl) return r;
  const TensorPtr& t = g.inputs[0];
  r[0] = dispatch("TensorListConcatV2", {dl}, elem_attrs(t->dtype(), t->shape()))[0];
  return r;
}

// TensorListReserve, TensorListFromTensor.
void add_list_makers(OpRegistry& r) {
  r.add(OpDef{
      "TensorListReserve",
      "TensorListReserve",
      1,
      handle_spec,
      [](KernelContext& k, const std::vector<EagerPtr>& in) {
        int64_t n = scalar_index(*in[0], "num_elements");
        if (n < 0) throw_error(Code::InvalidArgument, "The size of a TensorArray must be >= 0, got ", n);
        if (n > kMaxListSize)
          throw_error(Code::ResourceExhausted, "OOM when allocating a TensorArray of ", n, " elements");
        auto l = std::make_shared<TensorList>();
        l->dtype = k.attrs.get<DType>("element_dtype");
        l->element_shape = element_shape_attr(k.attrs);
        l->items.resize(static_cast<size_t>(n));
        l->arena.wanted = n > 0;
        return std::vector<EagerPtr>{make_list_tensor(std::move(l))};
      },
      {}}.with_output_args({"handle"}));
  r.add(OpDef{"TensorListFromTensor", "TensorListFromTensor", 1, handle_spec,
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                const EagerTensor& t = *in[0];
                if (t.shape().rank() < 1)
                  throw_error(Code::InvalidArgument,
                              "Tensor must be at least a vector, but saw shape: ", t.shape().to_string());
                auto l = std::make_shared<TensorList>();
                l->dtype = t.dtype();
                l->element_shape = Shape(std::vector<int64_t>(t.shape().dims().begin() + 1, t.shape().dims().end()));
                int64_t n = t.shape()[0], per = l->element_shape.num_elements();
                for (int64_t i = 0; i < n; ++i) l->items.push_back(copy_tensor(t, l->element_shape, i * per));
                return std::vector<EagerPtr>{make_list_tensor(std::move(l))};
              },
              from_tensor_grad}
            .with_output_args({"output_handle"}));
}

// TensorListSetItem, TensorListPushBack, TensorListGetItem.
void add_item_ops(OpRegistry& r) {
  r.add(OpDef{"TensorListSetItem", "TensorListSetItem", 3, handle_spec,
              [](KernelContext& k, const std::vector<EagerPtr>& in) {
                return set_item(in[0], scalar_index(*in[1], "index"), in[2],
                                k.attrs.get_or<bool>("resize_if_index_out_of_bounds", false));
              },
              set_item_grad}
            .with_input_types({{1, "index", "index", {DType::Int32}}})
            .with_output_args({"output_handle"}));
  r.add(OpDef{"TensorListPushBack", "TensorListPushBack", 2, handle_spec,
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                return set_item(in[0], static_cast<int64_t>(list_of(*in[0]).items.size()), in[1], true);
              },
              push_back_grad}
            .with_output_args({"output_handle"}));
  r.add(
      OpDef{"TensorListGetItem", "TensorListGetItem", 2,
            [](const InferContext& c) { return one(c.attrs.get<DType>("element_dtype"), element_shape_attr(c.attrs)); },
            [](KernelContext& k, const std::vector<EagerPtr>& in) {
              const TensorList& l = list_of(*in[0]);
              check_dtype(l, k.attrs.get<DType>("element_dtype"), "read");
              int64_t i = scalar_index(*in[1], "index");
              if (i < 0 || static_cast<size_t>(i) >= l.items.size())
                throw_error(Code::InvalidArgument, "Trying to access element ", i, " in a list with ", l.items.size(),
                            " elements.");
              if (l.items[i]) return std::vector<EagerPtr>{l.items[i]};
              Shape s = l.element_shape;
              if (!s.is_fully_defined() && element_shape_attr(k.attrs).is_fully_defined())
                s = element_shape_attr(k.attrs);
              if (!s.is_fully_defined()) {
                for (auto& t : l.items)
                  if (t) {
                    s = t->shape();
                    break;
                  }
              }
              if (!s.is_fully_defined())
                throw_error(Code::InvalidArgument,
                            "Trying to read an uninitialized tensor but "
                            "element_shape is not fully defined: ",
                            s.to_string(), " and no list element is set.");
              return std::vector<EagerPtr>{zeros(l.dtype, s)};
            },
            get_item_grad}
          .with_input_types({{1, "index", "index", {DType::Int32}}})
          .with_output_args({"item"}));
}

// TensorListStack, TensorListGather, TensorListScatterIntoExistingList.
void add_whole_list_ops(OpRegistry& r) {
  r.add(OpDef{"TensorListStack", "TensorListStack", 1,
              [](const InferContext& c) {
                return one(c.attrs.get<DType>("element_dtype"),
                           prepend(c.attrs.get_or<int64_t>("num_elements", -1), element_shape_attr(c.attrs)));
              },
              [](KernelContext& k, const std::vector<EagerPtr>& in) {
                const TensorList& l = list_of(*in[0]);
                check_dtype(l, k.attrs.get<DType>("element_dtype"), "read");
                std::vector<int64_t> all(l.items.size());
                for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
                return std::vector<EagerPtr>{stack_items(l, all, element_shape_attr(k.attrs))};
              },
              stack_grad}
            .with_output_args({"tensor"}));
  r.add(OpDef{"TensorListGather", "TensorListGather", 2,
              [](const InferContext& c) {
                const Shape& is = c.inputs[1].shape;
                int64_t n = is.rank() == 1 ? is[0] : Shape::kUnknown;
                return one(c.attrs.get<DType>("element_dtype"), prepend(n, element_shape_attr(c.attrs)));
              },
              [](KernelContext& k, const std::vector<EagerPtr>& in) {
                const TensorList& l = list_of(*in[0]);
                check_dtype(l, k.attrs.get<DType>("element_dtype"), "read");
                return std::vector<EagerPtr>{
                    stack_items(l, read_indices(*in[1], l.items.size()), element_shape_attr(k.attrs))};
              },
              gather_grad}
            .with_input_types({{1, "indices", "indices", {DType::Int32}}})
            .with_output_args({"values"}));
  r.add(OpDef{"TensorListScatterIntoExistingList", "TensorListScatterIntoExistingList", 3, handle_spec,
              [](KernelContext& k, const std::vector<EagerPtr>& in) {
                const TensorList& src = list_of(*in[0]);
                const EagerTensor& t = *in[1];
                check_dtype(src, t.dtype(), "write");
                auto idx = read_int_list(*in[2]);
                if (t.shape().rank() < 1 || t.shape()[0] != static_cast<int64_t>(idx.size()))
                  throw_error(Code::InvalidArgument, "Scatter needs one row per index: ", idx.size(),
                              " indices but the value has shape ", t.shape().to_string());
                Shape es(std::vector<int64_t>(t.shape().dims().begin() + 1, t.shape().dims().end()));
                check_item_shape(src, es);
                bool resize = k.attrs.get_or<bool>("resize_if_index_out_of_bounds", false);
                auto l = copy_list(src);
                int64_t per = es.num_elements();
                for (size_t j = 0; j < idx.size(); ++j) {
                  int64_t i = idx[j];
                  if (i < 0 || (!resize && static_cast<size_t>(i) >= l->items.size()))
                    throw_error(Code::InvalidArgument, "Trying to modify element ", i, " in a list with ",
                                l->items.size(), " elements.");
                  if (static_cast<size_t>(i) >= l->items.size()) l->items.resize(i + 1);
                  l->items[i] = copy_tensor(t, es, static_cast<int64_t>(j) * per);
                }
                return std::vector<EagerPtr>{make_list_tensor(std::move(l))};
              },
              scatter_grad}
            .with_input_types({{2, "indices", "indices", {DType::Int32}}})
            .with_output_args({"output_handle"}));
}

// TensorListConcatV2, TensorListSplit, TensorListLength.
void add_concat_split_ops(OpRegistry& r) {
  r.add(OpDef{"TensorListConcatV2", "TensorListConcatV2", 1,
              [](const InferContext& c) {
                Shape es = element_shape_attr(c.attrs);
                Shape out = Shape::unknown_rank();
                if (es.has_rank() && es.rank() >= 1) {
                  std::vector<int64_t> d = es.dims();
                  d[0] = Shape::kUnknown;
                  out = Shape(d);
                }
                return std::vector<TensorSpec>{{c.attrs.get<DType>("element_dtype"), out},
                                               {DType::Int64, Shape{Shape::kUnknown}}};
              },
              [](KernelContext& k, const std::vector<EagerPtr>& in) {
                const TensorList& l = list_of(*in[0]);
                check_dtype(l, k.attrs.get<DType>("element_dtype"), "read");
                std::vector<int64_t> rest;
                int64_t total = 0;
                bool first = true;
                // Unwritten elements are zeros of the element shape, when it is fully defined.
                EagerPtr zero;
                std::vector<EagerPtr> items = l.items;
                for (auto& t : items) {
                  if (t) continue;
                  if (!l.element_shape.is_fully_defined())
                    throw_error(Code::InvalidArgument,
                                "Concat: an element of the list was never written "
                                "and the element shape ",
                                l.element_shape.to_string(), " is not fully defined");
                  if (!zero) zero = zeros(l.dtype, l.element_shape);
                  t = zero;
                }
                for (size_t i = 0; i < items.size(); ++i) {
                  const EagerPtr& t = items[i];
                  if (t->shape().rank() < 1)
                    throw_error(Code::InvalidArgument, "Concat saw a scalar shape at index ", i,
                                " but requires at least vectors.");
                  std::vector<int64_t> r(t->shape().dims().begin() + 1, t->shape().dims().end());
                  if (first) {
                    rest = r;
                    first = false;
                  } else if (r != rest)
                    throw_error(Code::InvalidArgument, "Concat: incompatible shapes ", t->shape().to_string(),
                                " at index ", i);
                  total += t->shape()[0];
                }
                if (first) {
                  Shape es = l.element_shape;
                  if (!es.is_fully_defined() || es.rank() < 1)
                    throw_error(Code::InvalidArgument,
                                "Concat of an empty list needs a fully defined element "
                                "shape of rank >= 1, got ",
                                es.to_string());
                  rest.assign(es.dims().begin() + 1, es.dims().end());
                }
                std::vector<int64_t> dims{total};
                dims.insert(dims.end(), rest.begin(), rest.end());
                auto out = make_tensor(l.dtype, Shape(dims));
                auto lengths = make_tensor(DType::Int64, Shape{static_cast<int64_t>(l.items.size())});
                int64_t off = 0;
                for (size_t i = 0; i < items.size(); ++i) {
                  copy_into(*out, off, *items[i]);
                  off += items[i]->num_elements();
                  lengths->data<int64_t>()[i] = items[i]->shape()[0];
                }
                return std::vector<EagerPtr>{out, lengths};
              },
              concat_grad}
            .with_output_args({"tensor", "lengths"}));
  r.add(OpDef{"TensorListSplit", "TensorListSplit", 2, handle_spec,
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                // The rows of a tensor cut into consecutive pieces of the given lengths (the
                // gradient of TensorArray.concat).
                const EagerTensor& t = *in[0];
                if (t.shape().rank() < 1)
                  throw_error(Code::InvalidArgument,
                              "Tensor must be at least a vector, but saw shape: ", t.shape().to_string());
                auto lengths = read_int_list(*in[1]);
                std::vector<int64_t> rest(t.shape().dims().begin() + 1, t.shape().dims().end());
                int64_t per = 1;
                for (int64_t d : rest) per *= d;
                int64_t total = 0;
                for (int64_t n : lengths) {
                  if (n < 0) throw_error(Code::InvalidArgument, "Negative length in TensorListSplit: ", n);
                  total += n;
                }
                if (total != t.shape()[0])
                  throw_error(Code::InvalidArgument, "The lengths (sum ", total,
                              ") must add up to the first "
                              "dimension of the tensor (",
                              t.shape()[0], ")");
                auto l = std::make_shared<TensorList>();
                l->dtype = t.dtype();
                std::vector<int64_t> es{Shape::kUnknown};
                es.insert(es.end(), rest.begin(), rest.end());
                l->element_shape = Shape(es);
                int64_t off = 0;
                for (int64_t n : lengths) {
                  std::vector<int64_t> d{n};
                  d.insert(d.end(), rest.begin(), rest.end());
                  l->items.push_back(copy_tensor(t, Shape(d), off * per));
                  off += n;
                }
                return std::vector<EagerPtr>{make_list_tensor(std::move(l))};
              },
              split_grad}
            .with_output_args({"output_handle"}));
  r.add(OpDef{
      "TensorListLength",
      "TensorListLength",
      1,
      [](const InferContext&) { return one(DType::Int32, Shape{}); },
      [](KernelContext&, const std::vector<EagerPtr>& in) {
        return std::vector<EagerPtr>{make_scalar(DType::Int32, static_cast<double>(list_of(*in[0]).items.size()))};
      },
      {}}.with_output_args({"length"}));
}

// The list a handle holds (when `sole`: only if the caller holds the handle alone), else null (no throw: the
// executor asks before the SetItem that checks its inputs runs).
TensorList* held_list(const EagerPtr& handle, bool sole) {
  if (!handle || handle->dtype() != DType::Variant || handle->shape().rank() != 0 || (sole && !sole_owner(handle)))
    return nullptr;
  auto* l = static_cast<TensorList*>(handle->raw());
  return l && l->magic == TensorList::kMagic ? l : nullptr;
}

}  // namespace

bool arena_row_placement(const EagerPtr& handle, const EagerPtr& index, const TensorSpec& spec, OutputPlacement& p) {
  TensorList* l = held_list(handle, true);
  if (!l || !index || !is_integer(index->dtype()) || index->shape().rank() != 0) return false;
  const ListArena& a = l->arena;
  if (!a.rows || spec.dtype != a.rows->dtype() || l->dtype != spec.dtype) return false;
  const int64_t i = index->scalar_as_int();
  if (i < 0 || i >= a.rows->shape()[0] || a.used[static_cast<size_t>(i)]) return false;
  const Shape& rs = a.rows->shape();
  if (!spec.shape.is_compatible_with(Shape(std::vector<int64_t>(rs.dims().begin() + 1, rs.dims().end())))) return false;
  char* row = row_data(a, static_cast<size_t>(i));
  if (reinterpret_cast<uintptr_t>(row) % 64 != 0) return false;  // kernels may count on aligned outputs
  p.data = row;
  p.bytes = static_cast<size_t>(rs.num_elements() / rs[0]) * dtype_size(spec.dtype);
  p.owner = a.rows;  // keeps the rows alive for as long as the placed buffer lives
  p.taken = false;
  p.made.reset();
  return true;
}

void settle_arena_placement(const EagerPtr& handle, const OutputPlacement& p, const EagerPtr& item) {
  if (!p.taken) return;
  std::shared_ptr<Buffer> made = p.made.lock();
  if (!made || (item && item->buffer() == made)) return;  // freed again, or the item itself
  // Marked even if the list is shared by now: a row marked written only makes writes keep
  // their items as they are.
  TensorList* l = held_list(handle, false);
  if (!l || !l->arena.rows) return;
  ListArena& a = l->arena;
  const char* base = static_cast<const char*>(a.rows->raw());
  const size_t per = static_cast<size_t>(a.rows->num_elements() / a.rows->shape()[0]) * dtype_size(a.rows->dtype());
  const auto k = static_cast<size_t>(static_cast<const char*>(p.data) - base) / per;
  if (k < a.used.size()) a.used[k] = 1;
}

void register_tensor_list_ops(OpRegistry& r) {
  add_list_makers(r);
  add_item_ops(r);
  add_whole_list_ops(r);
  add_concat_split_ops(r);
}

}  // namespace fn
