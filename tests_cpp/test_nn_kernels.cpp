// cpp/kernels: the oneDNN convolution, pooling and softmax kernels against their reference loops
// (forward and backward), over strides, dilations and SAME/VALID padding.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/error.h"
#include "kernels/direct/softmax.h"
#include "kernels/onednn/conv.h"
#include "kernels/onednn/pool.h"
#include "kernels/onednn/softmax.h"
#include "kernels/reference/conv.h"
#include "kernels/reference/philox.h"
#include "kernels/reference/pool.h"
#include "kernels/reference/softmax.h"
#include "ops/nn_util.h"

using namespace fn;

namespace {

std::vector<float> random_vec(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

void require_close(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    REQUIRE(got[i] == Approx(want[i]).margin(tol).epsilon(1e-4));
  }
}

WindowAttrs conv_attrs(int64_t s, int64_t d, Padding p) {
  WindowAttrs w;
  w.strides = {1, s, s, 1};
  w.dilations = {1, d, d, 1};
  w.padding = p;
  return w;
}

struct ConvCase {
  Shape x, w;
  int64_t stride, dilation;
  Padding pad;
};

}  // namespace

TEST_CASE("TF padding arithmetic: SAME pads the extra row at the bottom, VALID floors") {
  int64_t out, before, after;
  window_dim(5, 3, 2, 1, Padding::Same, 0, 0, &out, &before, &after);
  CHECK(out == 3);
  CHECK(before == 1);
  CHECK(after == 1);
  window_dim(6, 3, 2, 1, Padding::Same, 0, 0, &out, &before, &after);
  CHECK(out == 3);
  CHECK(before == 0);
  CHECK(after == 1);
  window_dim(7, 3, 2, 2, Padding::Valid, 0, 0, &out, &before, &after);  // effective filter 5
  CHECK(out == 2);
  CHECK(before == 0);
  window_dim(-1, 3, 1, 1, Padding::Same, 0, 0, &out, &before, &after);
  CHECK(out == -1);
  CHECK_THROWS_AS(window_dim(1, 3, 1, 1, Padding::Valid, 0, 0, &out, &before, &after), Error);
}

TEST_CASE("oneDNN convolution matches the reference loops (forward, backward data, backward filter)") {
  std::mt19937 rng(7);
  std::vector<ConvCase> cases = {
      {Shape{1, 9, 9, 8}, Shape{3, 3, 8, 16}, 1, 1, Padding::Same},
      {Shape{2, 10, 11, 8}, Shape{3, 3, 8, 16}, 2, 1, Padding::Same},
      {Shape{2, 10, 11, 8}, Shape{3, 2, 8, 12}, 2, 1, Padding::Valid},
      {Shape{1, 12, 12, 4}, Shape{3, 3, 4, 8}, 1, 2, Padding::Same},
      {Shape{1, 13, 12, 6}, Shape{5, 5, 6, 8}, 3, 1, Padding::Same},
      {Shape{3, 8, 8, 16}, Shape{1, 1, 16, 32}, 1, 1, Padding::Valid},
  };
  for (auto& c : cases) {
    Conv2DGeom g = conv_geom(c.x, c.w, conv_attrs(c.stride, c.dilation, c.pad));
    INFO("conv " << c.x.to_string() << " * " << c.w.to_string() << " stride " << c.stride << " dilation "
                 << c.dilation);
    REQUIRE(onednn::conv_worthwhile(g));
    auto x = random_vec(g.input_size(), rng), w = random_vec(g.filter_size(), rng);
    auto dy = random_vec(g.output_size(), rng);
    std::vector<float> got(g.output_size()), want(g.output_size());
    onednn::conv2d_forward(x.data(), w.data(), got.data(), g);
    ref::conv2d_forward(x.data(), w.data(), want.data(), g);
    require_close(got, want, 1e-4f);
    std::vector<float> gdx(g.input_size()), wdx(g.input_size());
    onednn::conv2d_backward_data(dy.data(), w.data(), gdx.data(), g);
    ref::conv2d_backward_data(dy.data(), w.data(), wdx.data(), g);
    require_close(gdx, wdx, 1e-4f);
    std::vector<float> gdw(g.filter_size()), wdw(g.filter_size());
    onednn::conv2d_backward_weights(x.data(), dy.data(), gdw.data(), g);
    ref::conv2d_backward_filter(x.data(), dy.data(), wdw.data(), g);
    require_close(gdw, wdw, 1e-3f);
    // A second run reuses the cached primitives.
    onednn::conv2d_forward(x.data(), w.data(), got.data(), g);
    require_close(got, want, 1e-4f);
  }
}

TEST_CASE("reference convolution: a 1x1 filter is a per-pixel matmul") {
  Conv2DGeom g = conv_geom(Shape{1, 2, 2, 2}, Shape{1, 1, 2, 1}, conv_attrs(1, 1, Padding::Valid));
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8}, w{10, 1}, y(4);
  ref::conv2d_forward(x.data(), w.data(), y.data(), g);
  CHECK(y == std::vector<float>{12, 34, 56, 78});
}

TEST_CASE("oneDNN pooling matches the reference loops (max/avg, forward/backward)") {
  std::mt19937 rng(11);
  struct Case {
    Shape x;
    int64_t k, s;
    Padding p;
  };
  for (auto& c : std::vector<Case>{{Shape{2, 16, 16, 32}, 2, 2, Padding::Valid},
                                   {Shape{1, 17, 15, 40}, 3, 2, Padding::Same},
                                   {Shape{2, 20, 20, 16}, 3, 1, Padding::Same},
                                   {Shape{2, 25, 25, 32}, 4, 3, Padding::Valid}}) {
    WindowAttrs w;
    w.ksize = {1, c.k, c.k, 1};
    w.strides = {1, c.s, c.s, 1};
    w.padding = c.p;
    Pool2DGeom g = pool_geom(c.x, w);
    INFO("pool " << c.x.to_string() << " k " << c.k << " s " << c.s);
    REQUIRE(onednn::pool_worthwhile(g));
    auto x = random_vec(g.input_size(), rng), dy = random_vec(g.output_size(), rng);
    for (bool max : {true, false}) {
      std::vector<float> got(g.output_size()), want(g.output_size());
      if (max) {
        onednn::max_pool_forward(x.data(), got.data(), g);
        ref::max_pool_forward(x.data(), want.data(), g);
      } else {
        onednn::avg_pool_forward(x.data(), got.data(), g);
        ref::avg_pool_forward(x.data(), want.data(), g);
      }
      require_close(got, want, 1e-5f);
      std::vector<float> gdx(g.input_size()), wdx(g.input_size());
      if (max) {
        onednn::max_pool_backward(x.data(), dy.data(), gdx.data(), g);
        ref::max_pool_backward(x.data(), dy.data(), wdx.data(), g);
      } else {
        onednn::avg_pool_backward(dy.data(), gdx.data(), g);
        ref::avg_pool_backward(dy.data(), wdx.data(), g);
      }
      require_close(gdx, wdx, 1e-5f);
    }
  }
}

TEST_CASE("reference average pooling excludes SAME padding from the count") {
  WindowAttrs w;
  w.ksize = {1, 2, 2, 1};
  w.strides = {1, 2, 2, 1};
  w.padding = Padding::Same;
  Pool2DGeom g = pool_geom(Shape{1, 3, 3, 1}, w);
  REQUIRE(g.oh == 2);
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, y(4);
  ref::avg_pool_forward(x.data(), y.data(), g);
  CHECK(y == std::vector<float>{3, 4.5f, 7.5f, 9});
}

TEST_CASE("oneDNN softmax and the direct softmax backward match the reference loops") {
  std::mt19937 rng(3);
  for (auto rc : std::vector<std::pair<int64_t, int64_t>>{{256, 100}, {64, 1000}, {20000, 3}, {3, 7}, {5, 64}}) {
    int64_t n = rc.first * rc.second;
    const bool dnn = onednn::softmax_worthwhile(rc.first, rc.second);
    auto x = random_vec(n, rng), dy = random_vec(n, rng);
    for (bool log : {false, true}) {
      std::vector<float> got(n), want(n), gdx(n), wdx(n);
      ref::softmax(x.data(), want.data(), rc.first, rc.second, log);
      if (dnn) {
        onednn::softmax_forward(x.data(), got.data(), rc.first, rc.second, log);
        require_close(got, want, 1e-5f);
      }
      direct::softmax_backward_f32(want.data(), dy.data(), gdx.data(), rc.first, rc.second, log);
      ref::softmax_backward(want.data(), dy.data(), wdx.data(), rc.first, rc.second, log);
      require_close(gdx, wdx, 1e-5f);
    }
  }
}

TEST_CASE("Philox4x32-10 known answers (Random123) and TensorFlow's stream for seeds (1, 2)") {
  philox::Philox4x32 zero(0, 0);
  philox::Block b = zero.next();
  CHECK(b == philox::Block{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  // tf.random.set_seed(1); tf.random.uniform([5], seed=2)
  philox::Philox4x32 gen(1, 2);
  float want[5] = {0.40639675f, 0.8575996f, 0.05539584f, 0.08587229f, 0.4121536f};
  philox::Block b0 = gen.next(), b1 = gen.next();
  for (int i = 0; i < 4; ++i) CHECK(philox::uniform_float(b0[i]) == want[i]);
  CHECK(philox::uniform_float(b1[0]) == want[4]);
  // skip() is the same as drawing: counters carry across the 32-bit words.
  philox::Philox4x32 a(5, 6), d(5, 6);
  a.skip(uint64_t{1} << 32);
  d.skip(uint64_t{1} << 31);
  d.skip(uint64_t{1} << 31);
  CHECK(a.next() == d.next());
}
