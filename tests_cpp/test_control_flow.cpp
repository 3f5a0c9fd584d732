// cpp/ops/control_flow + cpp/exec/control_flow: If and While nodes built from traced sub-graphs
// and run by compiled plans; TensorList values; If's gradient against finite differences.
#include <catch2/catch.hpp>

#include <cmath>
#include <mutex>

#include "core/error.h"
#include "exec/control_flow.h"
#include "exec/plan.h"
#include "ops/control_flow.h"
#include "ops/tensor_list.h"
#include "passes/passes.h"
#include "trace/context.h"
#include "test_ops.h"

using namespace fn;

namespace {

// Test-only ops (the math ops live in other files; these keep the test self-contained).
std::vector<int64_t>& side_effects() {
  static std::vector<int64_t> log;
  return log;
}

void add_test_ops(OpRegistry& r) {
  r.add(OpDef{"TestLess",
              "less",
              2,
              [](const InferContext& c) { return one(DType::Bool, c.inputs[0].shape); },
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                return std::vector<EagerPtr>{
                    make_scalar(DType::Bool, in[0]->scalar_as_double() < in[1]->scalar_as_double())};
              },
              {}});
  // x * y for float32 scalars, differentiable.
  r.add(OpDef{"TestMul", "mul", 2, [](const InferContext& c) { return std::vector<TensorSpec>{c.inputs[0]}; },
              [](KernelContext&, const std::vector<EagerPtr>& in) {
                auto out = make_tensor(in[0]->dtype(), in[0]->shape());
                for (int64_t i = 0; i < out->num_elements(); ++i)
                  out->data<float>()[i] = in[0]->data<float>()[i] * in[1]->data<float>()[i];
                return std::vector<EagerPtr>{out};
              },
              [](const GradContext& g) {
                return std::vector<TensorPtr>{dispatch1("TestMul", {g.out_grads[0], g.inputs[1]}),
                                              dispatch1("TestMul", {g.out_grads[0], g.inputs[0]})};
              }});
  // Records its input's value on every execution (a stand-in for fn.print).
  OpDef rec{"TestRecord",
            "record",
            1,
            [](const InferContext&) { return std::vector<TensorSpec>{}; },
            [](KernelContext&, const std::vector<EagerPtr>& in) {
              side_effects().push_back(in[0]->scalar_as_int());
              return std::vector<EagerPtr>{};
            },
            {}};
  rec.stateful = true;
  r.add(std::move(rec));
}
const fn::testing::TestOps test_ops(add_test_ops);

EagerPtr i32(int v) { return make_scalar(DType::Int32, v); }
EagerPtr f32(float v) { return make_scalar(DType::Float32, v); }
TensorSpec scalar(DType d) { return TensorSpec{d, Shape{}}; }

void set_outputs(GraphBuilder& b, const std::vector<TensorPtr>& outs) {
  b.graph()->outputs.clear();
  for (auto& t : outs) {
    TensorPtr o = t->graph_id == b.graph()->id() ? t : dispatch1("Identity", {t});
    b.graph()->outputs.push_back(NodeOutput{o->node, o->index});
  }
}

// A traced sub-graph: `args` placeholders, body `fn` returning the outputs.
template <typename F>
std::unique_ptr<GraphBuilder> trace(const std::string& name, const std::vector<TensorSpec>& args, F fn) {
  auto b = std::make_unique<GraphBuilder>(std::make_shared<Graph>(name));
  ContextScope scope(b.get());
  std::vector<TensorPtr> ph;
  for (size_t i = 0; i < args.size(); ++i) ph.push_back(b->add_placeholder("v" + std::to_string(i), args[i]));
  set_outputs(*b, fn(ph));
  return b;
}

// A compiled function graph and the values it captured (passed after the arguments).
struct Function {
  std::shared_ptr<const Plan> plan;
  std::vector<TensorPtr> captures;
  std::vector<EagerPtr> run(std::vector<EagerPtr> args) const {
    for (auto& c : captures) args.push_back(as_eager(c));
    return plan->run(args);
  }
  const Graph& graph() const { return plan->graph(); }
  const Function* operator->() const { return this; }
};

// Function graph f(args...) built by `fn`, compiled.
template <typename F>
Function function(const std::vector<TensorSpec>& args, F fn) {
  auto b = trace("f", args, fn);
  return Function{Plan::compile(b->graph()), b->captured_values()};
}

// while i < n: acc = acc + x; i = i + 1   (captures n and x from the function graph)
Function counting_loop(int64_t max_iter = -1) {
  return function({scalar(DType::Int32), scalar(DType::Float32)}, [&](const std::vector<TensorPtr>& a) {
    TensorPtr n = a[0], x = a[1];
    auto cond = trace("cond", {scalar(DType::Int32), scalar(DType::Float32)}, [&](const std::vector<TensorPtr>& v) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {v[0], n})};
    });
    auto body = trace("body", {scalar(DType::Int32), scalar(DType::Float32)}, [&](const std::vector<TensorPtr>& v) {
      return std::vector<TensorPtr>{dispatch1("AddV2", {v[0], i32(1)}), dispatch1("AddV2", {v[1], x})};
    });
    return build_while({i32(0), f32(0)}, *cond, *body, max_iter);
  });
}

}  // namespace

TEST_CASE("If runs the taken branch with captures of both branches") {
  auto plan = function({scalar(DType::Bool), scalar(DType::Float32), scalar(DType::Float32)},
                       [](const std::vector<TensorPtr>& a) {
                         auto t = trace("then", {}, [&](const std::vector<TensorPtr>&) {
                           return std::vector<TensorPtr>{dispatch1("AddV2", {a[1], a[1]})};
                         });
                         auto e = trace("else", {}, [&](const std::vector<TensorPtr>&) {
                           return std::vector<TensorPtr>{dispatch1("TestMul", {a[2], a[1]})};
                         });
                         auto out = build_if(a[0], *t, *e);
                         CHECK(out.size() == 1);
                         CHECK(out[0]->shape() == Shape{});
                         return out;
                       });
  const Node& node = plan->graph().node(plan->graph().num_nodes() - 1);
  CHECK(node.op == "StatelessIf");
  CHECK(node.name == "cond");
  CHECK(node.inputs.size() == 3);  // pred + the two captured args (one shared)
  auto bt = make_scalar(DType::Bool, 1), bf = make_scalar(DType::Bool, 0);
  CHECK(plan->run({bt, f32(3), f32(5)})[0]->scalar_as_double() == 6);
  CHECK(plan->run({bf, f32(3), f32(5)})[0]->scalar_as_double() == 15);
}

TEST_CASE("If merges branch shapes and rejects mismatched dtypes, naming both outputs") {
  auto g = std::make_shared<Graph>("f");
  GraphBuilder b(g);
  ContextScope scope(&b);
  auto p = b.add_placeholder("p", scalar(DType::Bool));
  auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{2, 3}});
  auto y = b.add_placeholder("y", TensorSpec{DType::Float32, Shape{4, 3}});
  auto t = trace("then", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{x}; });
  auto e = trace("else", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{y}; });
  auto out = build_if(p, *t, *e);
  CHECK(out[0]->shape() == Shape{Shape::kUnknown, 3});

  auto n = b.add_placeholder("n", scalar(DType::Int32));
  auto t2 = trace("then", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{x}; });
  auto e2 = trace("else", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{n}; });
  try {
    build_if(p, *t2, *e2);
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(err.code() == Code::TypeError);
    std::string m = err.what();
    CHECK(m.find("true_fn output:") != std::string::npos);
    CHECK(m.find("dtype=float32") != std::string::npos);
    CHECK(m.find("dtype=int32") != std::string::npos);
  }
  auto t3 = trace("then", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{x}; });
  auto e3 = trace("else", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{n}; });
  try {
    build_if(p, *t3, *e3, "cond", {"y"});
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(std::string(err.what()) == "'y' has dtype float32 in the main branch, but dtype int32 in the else branch");
  }
  auto t4 = trace("then", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{x}; });
  auto e4 = trace("else", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{x}; });
  CHECK_THROWS_AS(build_if(x, *t4, *e4), Error);  // pred must be a bool scalar
}

TEST_CASE("While counts with captures, once compiled per node") {
  auto plan = counting_loop();
  auto out = plan->run({i32(5), f32(1.5f)});
  REQUIRE(out.size() == 2);
  CHECK(out[0]->scalar_as_int() == 5);
  CHECK(out[1]->scalar_as_double() == 7.5);
  CHECK(plan->run({i32(0), f32(1.5f)})[0]->scalar_as_int() == 0);
  CHECK(plan->run({i32(10000), f32(1)})[1]->scalar_as_double() == 10000);
}

TEST_CASE("While honours maximum_iterations") {
  auto plan = counting_loop(3);
  auto out = plan->run({i32(100), f32(1)});
  CHECK(out[0]->scalar_as_int() == 3);
  CHECK(plan->run({i32(2), f32(1)})[0]->scalar_as_int() == 2);
}

TEST_CASE("While errors name the loop variable") {
  auto g = std::make_shared<Graph>("f");
  GraphBuilder b(g);
  ContextScope scope(&b);
  auto x = b.add_placeholder("x", TensorSpec{DType::Float32, Shape{1}});
  auto y = b.add_placeholder("y", TensorSpec{DType::Float32, Shape{2}});
  auto cond = [&] {
    return trace("cond", {TensorSpec{DType::Float32, Shape{1}}}, [&](const std::vector<TensorPtr>&) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {i32(0), i32(1)})};
    });
  };
  auto c1 = cond();
  auto body = trace("body", {TensorSpec{DType::Float32, Shape{1}}},
                    [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{y}; });
  try {
    build_while({x}, *c1, *body, -1, "while", {"x"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == Code::ValueError);
    std::string m = e.what();
    CHECK(m.find("'x' has shape (1,) before the loop, but shape (2,) after one iteration") == 0);
    CHECK(m.find("set_loop_options to set shape invariants") != std::string::npos);
  }
  auto c2 = cond();
  auto body2 = trace("body", {TensorSpec{DType::Float32, Shape{1}}},
                     [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{y}; });
  try {
    build_while({x}, *c2, *body2);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("Input tensor `x:0` enters the loop with shape (1,), but has shape (2,)") == 0);
  }
  auto c3 = cond();
  auto body3 = trace("body", {TensorSpec{DType::Float32, Shape{1}}},
                     [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{i32(1)}; });
  try {
    build_while({x}, *c3, *body3, -1, "while", {"x"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == Code::TypeError);
    CHECK(std::string(e.what()) == "'x' has dtype float32 before the loop, but dtype int32 after one iteration");
  }
  // A relaxed invariant (None) admits the changing shape.
  auto c4 = trace("cond", {TensorSpec{DType::Float32, Shape{Shape::kUnknown}}}, [&](const std::vector<TensorPtr>&) {
    return std::vector<TensorPtr>{dispatch1("TestLess", {i32(0), i32(1)})};
  });
  auto body4 = trace("body", {TensorSpec{DType::Float32, Shape{Shape::kUnknown}}},
                     [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{y}; });
  auto out = build_while({x}, *c4, *body4);
  CHECK(out[0]->shape() == Shape{Shape::kUnknown});
}

TEST_CASE("stateful ops in a loop body make the loop stateful; they run every iteration in order") {
  side_effects().clear();
  auto plan = function({scalar(DType::Int32)}, [](const std::vector<TensorPtr>& a) {
    TensorPtr n = a[0];
    auto cond = trace("cond", {scalar(DType::Int32)}, [&](const std::vector<TensorPtr>& v) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {v[0], n})};
    });
    auto body = trace("body", {scalar(DType::Int32)}, [&](const std::vector<TensorPtr>& v) {
      dispatch("TestRecord", {v[0]});
      auto p = dispatch1("TestLess", {v[0], i32(2)});
      auto t = trace("then", {}, [&](const std::vector<TensorPtr>&) {
        dispatch("TestRecord", {i32(100)});
        return std::vector<TensorPtr>{};
      });
      auto e = trace("else", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{}; });
      auto r = build_if(p, *t, *e);
      CHECK(r.empty());
      return std::vector<TensorPtr>{dispatch1("AddV2", {v[0], i32(1)})};
    });
    build_while({i32(0)}, *cond, *body);  // outputs unused: kept because it is stateful
    return std::vector<TensorPtr>{};
  });
  const Graph& g = plan->graph();
  CHECK(g.node(g.num_nodes() - 1).op == "While");
  plan->run({i32(4)});
  CHECK(side_effects() == std::vector<int64_t>{0, 100, 1, 100, 2, 3});
}

TEST_CASE("nested loops and a loop inside a cond") {
  // sum over i < n of (sum over j < i of 1)  = n(n-1)/2, only when flag.
  auto plan = function({scalar(DType::Bool), scalar(DType::Int32)}, [](const std::vector<TensorPtr>& a) {
    TensorPtr n = a[1];
    auto then_b = trace("then", {}, [&](const std::vector<TensorPtr>&) {
      auto cond = trace("cond", {scalar(DType::Int32), scalar(DType::Int32)}, [&](const std::vector<TensorPtr>& v) {
        return std::vector<TensorPtr>{dispatch1("TestLess", {v[0], n})};
      });
      auto body = trace("body", {scalar(DType::Int32), scalar(DType::Int32)}, [&](const std::vector<TensorPtr>& v) {
        TensorPtr i = v[0];
        auto c2 = trace("cond2", {scalar(DType::Int32), scalar(DType::Int32)}, [&](const std::vector<TensorPtr>& w) {
          return std::vector<TensorPtr>{dispatch1("TestLess", {w[0], i})};
        });
        auto b2 = trace("body2", {scalar(DType::Int32), scalar(DType::Int32)}, [&](const std::vector<TensorPtr>& w) {
          return std::vector<TensorPtr>{dispatch1("AddV2", {w[0], i32(1)}), dispatch1("AddV2", {w[1], i32(1)})};
        });
        auto inner = build_while({i32(0), v[1]}, *c2, *b2);
        return std::vector<TensorPtr>{dispatch1("AddV2", {i, i32(1)}), inner[1]};
      });
      return std::vector<TensorPtr>{build_while({i32(0), i32(0)}, *cond, *body)[1]};
    });
    auto else_b = trace("else", {}, [&](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{i32(-1)}; });
    return build_if(a[0], *then_b, *else_b);
  });
  CHECK(plan->run({make_scalar(DType::Bool, 1), i32(6)})[0]->scalar_as_int() == 15);
  CHECK(plan->run({make_scalar(DType::Bool, 0), i32(6)})[0]->scalar_as_int() == -1);
}

TEST_CASE("control flow nodes run eagerly through dispatch too") {
  auto t = trace("then", {}, [](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{f32(1)}; });
  auto e = trace("else", {}, [](const std::vector<TensorPtr>&) { return std::vector<TensorPtr>{f32(2)}; });
  auto out = build_if(make_scalar(DType::Bool, 0), *t, *e);  // no graph being built: runs now
  REQUIRE(out[0]->is_eager());
  CHECK(as_eager(out[0])->scalar_as_double() == 2);
}

TEST_CASE("If gradient matches finite differences") {
  // f(p, x, y) = p ? x*x*y : x + y
  auto make_branches = [](const TensorPtr& x, const TensorPtr& y) {
    auto t = trace("then", {}, [&](const std::vector<TensorPtr>&) {
      return std::vector<TensorPtr>{dispatch1("TestMul", {dispatch1("TestMul", {x, x}), y})};
    });
    auto e = trace("else", {}, [&](const std::vector<TensorPtr>&) {
      return std::vector<TensorPtr>{dispatch1("AddV2", {x, y})};
    });
    return std::make_pair(std::move(t), std::move(e));
  };
  for (bool p : {true, false}) {
    float xv = 1.7f, yv = -0.6f;
    auto eval = [&](float xx, float yy) {
      auto br = make_branches(f32(xx), f32(yy));
      return as_eager(build_if(make_scalar(DType::Bool, p), *br.first, *br.second)[0])->scalar_as_double();
    };
    // The graph of the forward If, then its gradient If (eager dispatch of the grad rule).
    auto x = f32(xv), y = f32(yv);
    auto br = make_branches(x, y);
    auto pred = make_scalar(DType::Bool, p);
    auto fwd = build_if(pred, *br.first, *br.second);
    const OpDef& def = OpRegistry::global().get("StatelessIf");
    Attrs attrs;
    attrs.set("then_branch", br.first->graph());
    attrs.set("else_branch", br.second->graph());
    std::vector<TensorPtr> ins{pred};
    for (auto& c : br.first->captured_values()) ins.push_back(c);
    std::vector<TensorPtr> og{f32(1)};
    auto grads = def.grad(GradContext{ins, fwd, og, attrs});
    REQUIRE(grads.size() == ins.size());
    CHECK(grads[0] == nullptr);
    const double h = 1e-2;
    double dx = (eval(xv + h, yv) - eval(xv - h, yv)) / (2 * h);
    double dy = (eval(xv, yv + h) - eval(xv, yv - h)) / (2 * h);
    for (size_t k = 1; k < ins.size(); ++k) {
      REQUIRE(grads[k]);
      double g = as_eager(grads[k])->scalar_as_double();
      double expect = ins[k].get() == x.get() ? dx : dy;
      CHECK(std::abs(g - expect) < 1e-2);
    }
  }
}

TEST_CASE("TensorList values: reserve, set, get, stack, gather, scatter, concat, length") {
  auto list =
      dispatch1("TensorListReserve", {i32(3)}, Attrs{{"element_dtype", DType::Float32}, {"element_shape", Shape{2}}});
  auto row = [](float a, float b) {
    auto t = make_tensor(DType::Float32, Shape{2});
    t->data<float>()[0] = a;
    t->data<float>()[1] = b;
    return t;
  };
  auto l1 = dispatch1("TensorListSetItem", {list, i32(0), row(1, 2)});
  auto l2 = dispatch1("TensorListSetItem", {l1, i32(2), row(5, 6)});
  auto stacked = as_eager(dispatch1("TensorListStack", {l2}, Attrs{{"element_dtype", DType::Float32}}));
  CHECK(stacked->shape() == Shape{3, 2});
  std::vector<float> got(stacked->data<float>(), stacked->data<float>() + 6);
  CHECK(got == std::vector<float>{1, 2, 0, 0, 5, 6});
  CHECK(as_eager(dispatch1("TensorListLength", {l2}))->scalar_as_int() == 3);
  // l1 is unchanged by the later write (values are immutable).
  auto s1 = as_eager(dispatch1("TensorListStack", {l1}, Attrs{{"element_dtype", DType::Float32}}));
  CHECK(s1->data<float>()[4] == 0);
  auto item = as_eager(dispatch1("TensorListGetItem", {l2, i32(2)}, Attrs{{"element_dtype", DType::Float32}}));
  CHECK(item->data<float>()[1] == 6);
  auto idx = make_tensor(DType::Int32, Shape{2});
  idx->data<int32_t>()[0] = 2;
  idx->data<int32_t>()[1] = 0;
  auto gathered = as_eager(dispatch1("TensorListGather", {l2, idx}, Attrs{{"element_dtype", DType::Float32}}));
  CHECK(gathered->shape() == Shape{2, 2});
  CHECK(gathered->data<float>()[0] == 5);
  auto l3 = dispatch1("TensorListScatterIntoExistingList", {l2, gathered, idx});
  auto s3 = as_eager(dispatch1("TensorListStack", {l3}, Attrs{{"element_dtype", DType::Float32}}));
  std::vector<float> got3(s3->data<float>(), s3->data<float>() + 6);
  CHECK(got3 == std::vector<float>{1, 2, 0, 0, 5, 6});
  auto cat = dispatch("TensorListConcatV2", {l3}, Attrs{{"element_dtype", DType::Float32}});
  CHECK(cat[0]->shape() == Shape{6});
  CHECK(as_eager(cat[1])->data<int64_t>()[1] == 2);
  CHECK_THROWS_AS(dispatch1("TensorListSetItem", {l2, i32(3), row(0, 0)}), Error);
  CHECK_THROWS_AS(dispatch1("TensorListSetItem", {l2, i32(0), i32(1)}), Error);
  auto grown = dispatch1("TensorListSetItem", {l2, i32(4), row(7, 8)}, Attrs{{"resize_if_index_out_of_bounds", true}});
  CHECK(as_eager(dispatch1("TensorListLength", {grown}))->scalar_as_int() == 5);
  auto from = dispatch1("TensorListFromTensor", {s3});
  CHECK(as_eager(dispatch1("TensorListGetItem", {from, i32(1)}, Attrs{{"element_dtype", DType::Float32}}))
            ->data<float>()[0] == 0);
  CHECK_THROWS_AS(list_of(*i32(1)), Error);
}

TEST_CASE("a TensorList only one holder writes keeps its elements in rows of one buffer") {
  // What a While body does: the list handle is handed to TensorListSetItem as its only reference,
  // so the write is in place, and the element is copied into the list's row buffer.
  const OpDef& set = OpRegistry::global().get("TensorListSetItem");
  const Attrs grow{{"resize_if_index_out_of_bounds", true}};
  const Attrs f32{{"element_dtype", DType::Float32}};
  auto row = [](float a) {
    auto t = make_tensor(DType::Float32, Shape{2});
    t->data<float>()[0] = a;
    t->data<float>()[1] = -a;
    return t;
  };
  auto write = [&](EagerPtr list, int i, EagerPtr item) {
    std::vector<EagerPtr> in{std::move(list), as_eager(i32(i)), std::move(item)};
    return run_kernel(set, in, grow, "set")[0];
  };
  // A list grown from nothing keeps its elements as they are: stacking copies them.
  EagerPtr grown = as_eager(dispatch1("TensorListReserve", {i32(0)}, f32));
  for (int i = 0; i < 3; ++i) grown = write(std::move(grown), i, row(static_cast<float>(i)));
  CHECK(as_eager(dispatch1("TensorListStack", {grown}, f32))->raw() !=
        as_eager(dispatch1("TensorListStack", {grown}, f32))->raw());
  // A list reserved at a size keeps rows, and grows them (4 -> 8 -> 16) past that size.
  EagerPtr list = as_eager(dispatch1("TensorListReserve", {i32(4)}, f32));
  EagerPtr early;
  for (int i = 0; i < 10; ++i) {
    list = write(std::move(list), i, row(static_cast<float>(i)));
    if (i == 3) early = as_eager(dispatch1("TensorListGetItem", {list, i32(1)}, f32));
  }
  CHECK(early->data<float>()[0] == 1);  // a read before the rows moved keeps its value
  auto stacked = as_eager(dispatch1("TensorListStack", {list}, f32));
  auto again = as_eager(dispatch1("TensorListStack", {list}, f32));
  CHECK(stacked->shape() == Shape{10, 2});
  CHECK(stacked->raw() == again->raw());  // a view of the rows: no copy
  for (int i = 0; i < 10; ++i) CHECK(stacked->data<float>()[2 * i + 1] == -static_cast<float>(i));
  // Writing a written row again (the list still held only by the loop) must not change the
  // stacked view or a read element: the new element is kept on its own.
  auto item3 = as_eager(dispatch1("TensorListGetItem", {list, i32(3)}, f32));
  list = write(std::move(list), 3, row(100));
  CHECK(stacked->data<float>()[6] == 3);
  CHECK(item3->data<float>()[0] == 3);
  auto restacked = as_eager(dispatch1("TensorListStack", {list}, f32));
  CHECK(restacked->raw() != stacked->raw());
  CHECK(restacked->data<float>()[6] == 100);
  CHECK(restacked->data<float>()[8] == 4);
  // Two loops' lists from one reservation (CSE merges equal TensorListReserve nodes): the first
  // write copies the list, and the copy keeps rows of its own.
  EagerPtr shared = as_eager(dispatch1("TensorListReserve", {i32(3)}, f32));
  EagerPtr other = shared;
  for (int i = 2; i >= 0; --i) shared = write(std::move(shared), i, row(static_cast<float>(i)));
  auto shared_stacked = as_eager(dispatch1("TensorListStack", {shared}, f32));
  CHECK(shared_stacked->raw() == as_eager(dispatch1("TensorListStack", {shared}, f32))->raw());
  CHECK(shared_stacked->data<float>()[4] == 2);
  const Attrs f32_2{{"element_dtype", DType::Float32}, {"element_shape", Shape{2}}};
  CHECK(as_eager(dispatch1("TensorListGetItem", {other, i32(2)}, f32_2))->data<float>()[0] == 0);  // unwritten
  // A copied list (the handle held twice) writes nothing into the source's rows.
  EagerPtr keep = list;
  auto copy = write(keep, 12, row(12));
  CHECK(as_eager(dispatch1("TensorListLength", {list}))->scalar_as_int() == 10);
  CHECK(as_eager(dispatch1("TensorListLength", {copy}))->scalar_as_int() == 13);
  auto copy_stacked = as_eager(dispatch1("TensorListStack", {copy}, f32));
  CHECK(copy_stacked->data<float>()[24] == 12);
  CHECK(copy_stacked->data<float>()[20] == 0);  // unwritten
  CHECK(as_eager(dispatch1("TensorListStack", {list}, f32))->data<float>()[6] == 100);
  // Elements of another shape than the rows' are kept as they are.
  auto wide = make_tensor(DType::Float32, Shape{3});
  for (int k = 0; k < 3; ++k) wide->data<float>()[k] = 7;
  list = write(std::move(list), 11, wide);
  CHECK(as_eager(dispatch1("TensorListGetItem", {list, i32(11)}, f32))->shape() == Shape{3});
}

TEST_CASE("a TensorList is carried through a While loop") {
  // for i < n: list[i] = float(i)... (here: list = set(list, i, x)); return stack(list)
  auto plan = function({scalar(DType::Int32), scalar(DType::Float32)}, [](const std::vector<TensorPtr>& a) {
    TensorPtr n = a[0], x = a[1];
    auto list =
        dispatch1("TensorListReserve", {n}, Attrs{{"element_dtype", DType::Float32}, {"element_shape", Shape{}}});
    std::vector<TensorSpec> vars{scalar(DType::Int32), scalar(DType::Variant), scalar(DType::Float32)};
    auto cond = trace("cond", vars, [&](const std::vector<TensorPtr>& v) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {v[0], n})};
    });
    auto body = trace("body", vars, [&](const std::vector<TensorPtr>& v) {
      auto acc = dispatch1("AddV2", {v[2], x});
      return std::vector<TensorPtr>{dispatch1("AddV2", {v[0], i32(1)}),
                                    dispatch1("TensorListSetItem", {v[1], v[0], acc}), acc};
    });
    auto out = build_while({i32(0), list, f32(0)}, *cond, *body);
    return std::vector<TensorPtr>{
        dispatch1("TensorListStack", {out[1]}, Attrs{{"element_dtype", DType::Float32}, {"element_shape", Shape{}}})};
  });
  auto out = plan->run({i32(4), f32(2)});
  REQUIRE(out[0]->shape() == Shape{4});
  CHECK(out[0]->data<float>()[3] == 8);
}

TEST_CASE("a TensorList written in a loop is updated in place only when nothing else sees it") {
  // vars: i, list, snapshot (the list before the last write)
  auto plan = function({scalar(DType::Int32)}, [](const std::vector<TensorPtr>& a) {
    TensorPtr n = a[0];
    auto list = dispatch1("TensorListReserve", {n}, Attrs{{"element_dtype", DType::Int32}, {"element_shape", Shape{}}});
    std::vector<TensorSpec> vars{scalar(DType::Int32), scalar(DType::Variant), scalar(DType::Variant)};
    auto cond = trace("cond", vars, [&](const std::vector<TensorPtr>& v) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {v[0], n})};
    });
    auto body = trace("body", vars, [&](const std::vector<TensorPtr>& v) {
      return std::vector<TensorPtr>{dispatch1("AddV2", {v[0], i32(1)}),
                                    dispatch1("TensorListSetItem", {v[1], v[0], v[0]}), v[1]};
    });
    auto out = build_while({i32(0), list, list}, *cond, *body);
    Attrs st{{"element_dtype", DType::Int32}, {"element_shape", Shape{}}};
    return std::vector<TensorPtr>{dispatch1("TensorListStack", {out[1]}, st),
                                  dispatch1("TensorListStack", {out[2]}, st)};
  });
  auto out = plan.run({i32(20000)});
  REQUIRE(out[0]->shape() == Shape{20000});
  for (int i = 0; i < 20000; ++i) REQUIRE(out[0]->data<int32_t>()[i] == i);
  // The snapshot misses the last write: the in-place update did not leak into it.
  CHECK(out[1]->data<int32_t>()[19998] == 19998);
  CHECK(out[1]->data<int32_t>()[19999] == 0);
}

// while i < n: a = a + x; b = b + a; i = i + 1, returning the first `keep` loop vars.
std::unique_ptr<GraphBuilder> three_var_loop(size_t keep) {
  return trace("f", {scalar(DType::Int32), scalar(DType::Float32)}, [&](const std::vector<TensorPtr>& a) {
    TensorPtr n = a[0], x = a[1];
    std::vector<TensorSpec> vars{scalar(DType::Int32), scalar(DType::Float32), scalar(DType::Float32)};
    auto cond = trace("cond", vars, [&](const std::vector<TensorPtr>& v) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {v[0], n})};
    });
    auto body = trace("body", vars, [&](const std::vector<TensorPtr>& v) {
      return std::vector<TensorPtr>{dispatch1("AddV2", {v[0], i32(1)}), dispatch1("AddV2", {v[1], x}),
                                    dispatch1("AddV2", {v[2], v[1]})};
    });
    auto out = build_while({i32(0), f32(0), f32(0)}, *cond, *body, -1);
    out.resize(keep);
    return out;
  });
}

std::vector<EagerPtr> run_with_captures(std::shared_ptr<const Graph> g, const GraphBuilder& b,
                                        std::vector<EagerPtr> args) {
  for (auto& c : b.captured_values()) args.push_back(as_eager(c));
  return Plan::compile(std::move(g))->run(args);
}

size_t while_outputs(const Graph& g) {
  for (const Node& n : g.nodes())
    if (n.op == "While" || n.op == "StatelessWhile") return n.outputs.size();
  return 0;
}

TEST_CASE("prune_while_loop_vars drops loop vars nobody reads") {
  // b is read by nobody: dropped. a feeds b but is returned: kept.
  auto b2 = three_var_loop(2);
  auto p2 = prune_while_loop_vars(*b2->graph());
  CHECK(while_outputs(*b2->graph()) == 3);
  CHECK(while_outputs(*p2) == 2);
  auto ref = run_with_captures(b2->graph(), *b2, {i32(4), f32(1.5f)});
  auto got = run_with_captures(p2, *b2, {i32(4), f32(1.5f)});
  CHECK(got[0]->scalar_as_int() == ref[0]->scalar_as_int());
  CHECK(got[1]->scalar_as_double() == ref[1]->scalar_as_double());
  CHECK(got[1]->scalar_as_double() == 6.0);
  // Only i is returned: a feeds only the dead b, so both go; i feeds the condition: kept.
  auto b1 = three_var_loop(1);
  auto p1 = prune_while_loop_vars(*b1->graph());
  CHECK(while_outputs(*p1) == 1);
  CHECK(run_with_captures(optimize(*b1->graph()), *b1, {i32(7), f32(1)})[0]->scalar_as_int() == 7);
  // All three returned: nothing changes.
  CHECK(while_outputs(*prune_while_loop_vars(*three_var_loop(3)->graph())) == 3);
}

size_t count_whiles(const Graph& g) {
  size_t c = 0;
  for (const Node& n : g.nodes()) c += n.op == "While" || n.op == "StatelessWhile";
  return c;
}

TEST_CASE("merge_forward_while runs a gradient's forward loop once") {
  // f(n, x) = (a, da/dx) for: i = 0, a = 1; while i < n: a = a * x; i = i + 1
  auto f = trace("f", {scalar(DType::Int32), scalar(DType::Float32)}, [&](const std::vector<TensorPtr>& v) {
    TensorPtr n = v[0], x = v[1];
    std::vector<TensorSpec> vars{scalar(DType::Int32), scalar(DType::Float32)};
    auto cond = trace("cond", vars, [&](const std::vector<TensorPtr>& l) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {l[0], n})};
    });
    auto body = trace("body", vars, [&](const std::vector<TensorPtr>& l) {
      return std::vector<TensorPtr>{dispatch1("AddV2", {l[0], i32(1)}), dispatch1("Mul", {l[1], x})};
    });
    auto out = build_while({i32(0), f32(1)}, *cond, *body, -1);
    const Node& w = current_builder()->graph()->node(out[0]->node);
    std::vector<TensorPtr> ins;
    for (const NodeOutput& o : w.inputs) ins.push_back(current_builder()->symbolic(o.node, o.index));
    std::vector<TensorPtr> og{nullptr, dispatch1("OnesLike", {out[1]})};
    Attrs attrs = w.attrs;
    auto grads = w.def->grad(GradContext{ins, out, og, attrs});
    TensorPtr dx;
    for (size_t k = 0; k < ins.size(); ++k)
      if (ins[k]->graph_id == x->graph_id && ins[k]->node == x->node) dx = grads[k];
    REQUIRE(dx);
    return std::vector<TensorPtr>{out[1], dx};
  });
  auto g = f->graph();
  CHECK(count_whiles(*g) == 3);  // forward, accumulating forward, backward
  auto merged = merge_forward_while(*g);
  CHECK(count_whiles(*merged) == 2);
  auto ref = run_with_captures(g, *f, {i32(3), f32(2)});
  auto got = run_with_captures(optimize(*g), *f, {i32(3), f32(2)});
  CHECK(got[0]->scalar_as_double() == 8.0);   // 2^3
  CHECK(got[1]->scalar_as_double() == 12.0);  // 3 * 2^2
  CHECK(ref[0]->scalar_as_double() == got[0]->scalar_as_double());
  CHECK(ref[1]->scalar_as_double() == got[1]->scalar_as_double());
}

TEST_CASE("prune_while_loop_vars renumbers a later While's inputs") {
  // Loop 1 (b, i, a): b = b + a (read by nobody), i = i + 1, a = a + x while i < n; loop 2
  // continues from loop 1's (i, a) until i < n + 2. Dropping b renumbers loop 1's outputs.
  auto f = trace("f", {scalar(DType::Int32), scalar(DType::Float32)}, [&](const std::vector<TensorPtr>& v) {
    TensorPtr n = v[0], x = v[1];
    std::vector<TensorSpec> three{scalar(DType::Float32), scalar(DType::Int32), scalar(DType::Float32)};
    auto c1 = trace("cond1", three, [&](const std::vector<TensorPtr>& l) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {l[1], n})};
    });
    auto b1 = trace("body1", three, [&](const std::vector<TensorPtr>& l) {
      return std::vector<TensorPtr>{dispatch1("AddV2", {l[0], l[2]}), dispatch1("AddV2", {l[1], i32(1)}),
                                    dispatch1("AddV2", {l[2], x})};
    });
    auto out1 = build_while({f32(0), i32(0), f32(0)}, *c1, *b1, -1);
    TensorPtr n2 = dispatch1("AddV2", {n, i32(2)});
    std::vector<TensorSpec> two{scalar(DType::Int32), scalar(DType::Float32)};
    auto c2 = trace("cond2", two, [&](const std::vector<TensorPtr>& l) {
      return std::vector<TensorPtr>{dispatch1("TestLess", {l[0], n2})};
    });
    auto b2 = trace("body2", two, [&](const std::vector<TensorPtr>& l) {
      return std::vector<TensorPtr>{dispatch1("AddV2", {l[0], i32(1)}), dispatch1("AddV2", {l[1], x})};
    });
    return std::vector<TensorPtr>{build_while({out1[1], out1[2]}, *c2, *b2, -1)[1]};
  });
  auto pruned = prune_while_loop_vars(*f->graph());
  auto got = run_with_captures(pruned, *f, {i32(3), f32(1.5f)});
  CHECK(got[0]->scalar_as_double() == 7.5);  // 5 iterations in all
  CHECK(run_with_captures(f->graph(), *f, {i32(3), f32(1.5f)})[0]->scalar_as_double() == 7.5);
}
