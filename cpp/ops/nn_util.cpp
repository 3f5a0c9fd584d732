#include "ops/nn_util.h"

#include <algorithm>
#include <cstdint>

namespace fn {

namespace {

std::vector<int64_t> list4(const Attrs& a, const std::string& name, const std::string& what) {
  auto v = a.get_or(name, std::vector<int64_t>{1, 1, 1, 1});
  if (v.size() != 4) throw_error(Code::InvalidArgument, "Sliding window ", what, " field must specify 4 dimensions");
  return v;
}

}  // namespace

WindowAttrs read_window_attrs(const std::string& op, const Attrs& a, bool conv) {
  WindowAttrs w;
  w.data_format = a.get_or("data_format", std::string("NHWC"));
  if (w.data_format != "NHWC")
    throw_error(Code::InvalidArgument, "The ", op,
                " op currently only supports the NHWC tensor format on the "
                "CPU. The op was given the format: ",
                w.data_format);
  w.strides = list4(a, "strides", "strides");
  if (w.strides[0] != 1 || w.strides[3] != 1)
    throw_error(Code::InvalidArgument, conv ? "Current implementation does not yet support strides in the batch "
                                              "and depth dimensions."
                                            : "Pooling is not yet supported on the batch dimension.");
  for (int64_t s : w.strides)
    if (s <= 0) throw_error(Code::InvalidArgument, "Sliding window strides must be positive, got ", s);
  if (conv) {
    w.dilations = list4(a, "dilations", "dilations");
    if (w.dilations[0] != 1 || w.dilations[3] != 1)
      throw_error(Code::InvalidArgument,
                  "Current implementation does not yet support dilations in the batch and "
                  "depth dimensions.");
    if (w.dilations[1] <= 0 || w.dilations[2] <= 0)
      throw_error(Code::InvalidArgument, "Dilated rates should be larger than 0.");
  } else {
    w.ksize = list4(a, "ksize", "ksize");
    if (w.ksize[0] != 1 || w.ksize[3] != 1)
      throw_error(Code::InvalidArgument, "Pooling is not yet supported on the batch dimension.");
    for (int64_t k : w.ksize)
      if (k <= 0) throw_error(Code::InvalidArgument, "Sliding window ksize for dimension must be positive, got ", k);
  }
  std::string pad = a.get_or("padding", std::string("VALID"));
  if (pad == "SAME")
    w.padding = Padding::Same;
  else if (pad == "VALID")
    w.padding = Padding::Valid;
  else if (pad == "EXPLICIT")
    w.padding = Padding::Explicit;
  else
    throw_error(Code::InvalidArgument, "Unknown padding '", pad, "': expected SAME, VALID or EXPLICIT");
  if (w.padding == Padding::Explicit) {
    w.explicit_paddings = a.get_or("explicit_paddings", std::vector<int64_t>{});
    if (w.explicit_paddings.size() != 8)
      throw_error(Code::InvalidArgument,
                  "explicit_paddings attribute must contain 8 values, but got: ", w.explicit_paddings.size());
    for (int64_t p : w.explicit_paddings)
      if (p < 0) throw_error(Code::InvalidArgument, "All elements of explicit_paddings must be nonnegative");
    if (w.explicit_paddings[0] || w.explicit_paddings[1] || w.explicit_paddings[6] || w.explicit_paddings[7])
      throw_error(Code::InvalidArgument, "Nonzero explicit padding in the batch or depth dimensions is not supported");
  }
  return w;
}

void window_dim(int64_t in, int64_t k, int64_t stride, int64_t dilation, Padding p, int64_t ex_before, int64_t ex_after,
                int64_t* out, int64_t* before, int64_t* after) {
  // 128-bit arithmetic: window sizes, strides and paddings come from the user unbounded.
  using W = __int128;
  W eff = (W(k) - 1) * dilation + 1, o = 0, b = 0, e = 0;
  *before = *after = 0;
  if (in < 0) {
    *out = -1;
    return;
  }
  switch (p) {
    case Padding::Valid: o = (W(in) - eff + stride) / stride; break;
    case Padding::Same: {
      o = (W(in) + stride - 1) / stride;
      W needed = std::max<W>(0, (o - 1) * stride + eff - in);
      b = needed / 2;
      e = needed - b;
      break;
    }
    case Padding::Explicit:
      o = (W(in) + ex_before + ex_after - eff + stride) / stride;
      b = ex_before;
      e = ex_after;
      break;
  }
  if (o < 0 || eff > INT64_MAX || b > INT64_MAX || e > INT64_MAX)
    throw_error(Code::InvalidArgument, "Computed output size would be negative: ", static_cast<int64_t>(o < 0 ? o : -1),
                " [input_size: ", in, ", effective_filter_size: ", eff > INT64_MAX ? -1 : static_cast<int64_t>(eff),
                ", stride: ", stride, "]");
  *out = static_cast<int64_t>(o);
  *before = static_cast<int64_t>(b);
  *after = static_cast<int64_t>(e);
}

Conv2DGeom conv_geom(const Shape& input, const Shape& filter, const WindowAttrs& w) {
  Conv2DGeom g;
  auto dim = [](const Shape& s, int i) { return s.has_rank() ? s[i] : int64_t{-1}; };
  g.n = dim(input, 0);
  g.ih = dim(input, 1);
  g.iw = dim(input, 2);
  g.ic = dim(input, 3);
  g.kh = dim(filter, 0);
  g.kw = dim(filter, 1);
  g.oc = dim(filter, 3);
  int64_t fic = dim(filter, 2);
  if (g.ic >= 0 && fic >= 0 && g.ic != fic) {
    if (fic > 0 && g.ic % fic == 0)
      throw_error(Code::Unimplemented, "Grouped convolutions (input depth ", g.ic, ", filter depth ", fic,
                  ") are not supported");
    throw_error(Code::InvalidArgument, "input depth must be evenly divisible by filter depth: ", g.ic, " vs ", fic);
  }
  if (g.ic < 0) g.ic = fic;
  g.sh = w.strides[1];
  g.sw = w.strides[2];
  g.dh = w.dilations[1];
  g.dw = w.dilations[2];
  const auto& ep = w.explicit_paddings;
  bool ex = w.padding == Padding::Explicit;
  if (g.kh >= 0)
    window_dim(g.ih, g.kh, g.sh, g.dh, w.padding, ex ? ep[2] : 0, ex ? ep[3] : 0, &g.oh, &g.pt, &g.pb);
  else
    g.oh = -1;
  if (g.kw >= 0)
    window_dim(g.iw, g.kw, g.sw, g.dw, w.padding, ex ? ep[4] : 0, ex ? ep[5] : 0, &g.ow, &g.pl, &g.pr);
  else
    g.ow = -1;
  return g;
}

Pool2DGeom pool_geom(const Shape& input, const WindowAttrs& w) {
  Pool2DGeom g;
  auto dim = [&](int i) { return input.has_rank() ? input[i] : int64_t{-1}; };
  g.n = dim(0);
  g.ih = dim(1);
  g.iw = dim(2);
  g.c = dim(3);
  g.kh = w.ksize[1];
  g.kw = w.ksize[2];
  g.sh = w.strides[1];
  g.sw = w.strides[2];
  const auto& ep = w.explicit_paddings;
  bool ex = w.padding == Padding::Explicit;
  window_dim(g.ih, g.kh, g.sh, 1, w.padding, ex ? ep[2] : 0, ex ? ep[3] : 0, &g.oh, &g.pt, &g.pb);
  window_dim(g.iw, g.kw, g.sw, 1, w.padding, ex ? ep[4] : 0, ex ? ep[5] : 0, &g.ow, &g.pl, &g.pr);
  return g;
}

}  // namespace fn
