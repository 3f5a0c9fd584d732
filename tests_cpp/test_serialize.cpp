// cpp/graph/serialize: a graph with every attr kind round-trips byte for byte; damaged
// buffers are DataLoss errors, never a crash.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "graph/serialize.h"
#include "ops/op.h"

using namespace fn;

namespace {

struct Host : HostObject {};

std::shared_ptr<Graph> sample(int depth = 0) {
  auto g = std::make_shared<Graph>("sample");
  auto& reg = OpRegistry::global();
  Node p;
  p.op = "Placeholder";
  p.def = reg.find("Placeholder");
  p.name = "x";
  p.attrs.set("dtype", DType::Float32);
  p.attrs.set("shape", Shape{Shape::kUnknown, 3});
  p.outputs = {TensorSpec{DType::Float32, Shape{Shape::kUnknown, 3}}};
  int x = g->add_node(p);
  Node c;
  c.op = "Const";
  c.def = reg.find("Const");
  c.name = "c";
  auto value = make_tensor(DType::Float32, Shape{3});
  for (int i = 0; i < 3; ++i) value->data<float>()[i] = 0.5f * i;
  c.attrs.set("value", value);
  c.attrs.set("dtype", DType::Float32);
  c.outputs = {TensorSpec{DType::Float32, Shape{3}}};
  int k = g->add_node(c);
  Node a;
  a.op = "AddV2";
  a.def = reg.find("AddV2");
  a.name = "add";
  a.inputs = {{x, 0}, {k, 0}};
  a.control_inputs = {k};
  a.attrs.set("i", int64_t{-7});
  a.attrs.set("f", 2.5);
  a.attrs.set("b", true);
  a.attrs.set("s", std::string("text"));
  a.attrs.set("ints", std::vector<int64_t>{1, -2, 3});
  a.attrs.set("dtypes", std::vector<DType>{DType::Int32, DType::Bool});
  a.attrs.set("shapes", std::vector<Shape>{Shape::unknown_rank(), Shape{}});
  a.attrs.set("none", std::monostate{});
  a.attrs.set("_compiled", std::shared_ptr<HostObject>(std::make_shared<Host>()));
  if (depth == 0) a.attrs.set("sub", sample(1));
  a.outputs = {TensorSpec{DType::Float32, Shape{Shape::kUnknown, 3}}};
  int s = g->add_node(a);
  g->arg_placeholders = {x};
  g->outputs = {{s, 0}};
  return g;
}

GraphReaderHooks hooks() {
  GraphReaderHooks h;
  h.resolve_op = [](const std::string& op) { return OpRegistry::global().find(op); };
  h.make_host = [](const std::string&, const std::string&) { return std::make_shared<Host>(); };
  return h;
}

}  // namespace

TEST_CASE("a graph with every attr kind round-trips") {
  auto g = sample();
  std::string bytes = serialize_graph(*g);
  auto back = deserialize_graph(bytes, hooks());
  CHECK(back->to_text() == g->to_text());
  CHECK(serialize_graph(*back) == bytes);
  const Node& add = back->node(2);
  CHECK(add.attrs.get<int64_t>("i") == -7);
  CHECK(add.attrs.get<std::vector<DType>>("dtypes")[1] == DType::Bool);
  CHECK_FALSE(add.attrs.get<std::vector<Shape>>("shapes")[0].has_rank());
  auto value = back->node(1).attrs.get<EagerPtr>("value");
  CHECK(value->data<float>()[2] == 1.0f);
  CHECK(add.attrs.get<std::shared_ptr<Graph>>("sub")->num_nodes() == 3);
}

TEST_CASE("damaged buffers are DataLoss, unknown ops NotFound") {
  std::string bytes = serialize_graph(*sample());
  for (size_t cut : {size_t{0}, size_t{5}, size_t{13}, bytes.size() / 2, bytes.size() - 1}) {
    try {
      deserialize_graph(bytes.substr(0, cut), hooks());
      FAIL("no error for a buffer cut at " << cut);
    } catch (const Error& e) { CHECK(e.code() == Code::DataLoss); }
  }
  GraphReaderHooks none = hooks();
  none.resolve_op = [](const std::string&) -> const OpDef* { return nullptr; };
  try {
    deserialize_graph(bytes, none);
    FAIL("no error for unknown ops");
  } catch (const Error& e) { CHECK(e.code() == Code::NotFound); }
  std::string newer = bytes;
  newer[8] = 9;
  try {
    deserialize_graph(newer, hooks());
    FAIL("no error for a newer version");
  } catch (const Error& e) { CHECK(e.code() == Code::Unimplemented); }
}
