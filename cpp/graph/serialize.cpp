#include "graph/serialize.h"

#include <cstring>
#include <limits>

#include "core/error.h"

namespace fn {

namespace {

constexpr char kMagic[8] = {'F', 'N', 'G', 'R', 'A', 'P', 'H', '\0'};

enum Tag : uint8_t {
  kNone,
  kInt,
  kFloat,
  kBool,
  kString,
  kDType,
  kShape,
  kInts,
  kDTypes,
  kShapes,
  kGraph,
  kTensor,
  kHost,
  kNullGraph,
  kNullTensor
};

class Writer {
 public:
  std::string out;
  template <typename T>
  void pod(T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void u32(uint64_t v) {
    if (v > std::numeric_limits<uint32_t>::max()) throw_error(Code::InvalidArgument, "graph too large to save");
    pod<uint32_t>(static_cast<uint32_t>(v));
  }
  void str(const std::string& s) {
    pod<uint64_t>(s.size());
    out.append(s);
  }
  void shape(const Shape& s) {
    pod<int32_t>(s.rank());
    if (s.has_rank())
      for (int64_t d : s.dims()) pod<int64_t>(d);
  }
  void tensor(const EagerTensor& t) {
    pod<uint8_t>(static_cast<uint8_t>(t.dtype()));
    shape(t.shape());
    if (t.dtype() == DType::String) {
      pod<uint64_t>(t.strings().size());
      for (auto& s : t.strings()) str(s);
    } else if (is_pod(t.dtype())) {
      size_t n = static_cast<size_t>(t.num_elements()) * dtype_size(t.dtype());
      pod<uint64_t>(n);
      out.append(static_cast<const char*>(t.raw()), n);
    } else {
      throw_error(Code::InvalidArgument, "cannot save a constant of dtype ", dtype_name(t.dtype()));
    }
  }
  void attr(const AttrValue& v) {
    std::visit([this](const auto& x) { this->value(x); }, v);
  }
  void value(const std::monostate&) { pod<uint8_t>(kNone); }
  void value(int64_t x) {
    pod<uint8_t>(kInt);
    pod(x);
  }
  void value(double x) {
    pod<uint8_t>(kFloat);
    pod(x);
  }
  void value(bool x) {
    pod<uint8_t>(kBool);
    pod<uint8_t>(x);
  }
  void value(const std::string& x) {
    pod<uint8_t>(kString);
    str(x);
  }
  void value(DType x) {
    pod<uint8_t>(kDType);
    pod<uint8_t>(static_cast<uint8_t>(x));
  }
  void value(const Shape& x) {
    pod<uint8_t>(kShape);
    shape(x);
  }
  void value(const std::vector<int64_t>& x) {
    pod<uint8_t>(kInts);
    u32(x.size());
    for (auto i : x) pod(i);
  }
  void value(const std::vector<DType>& x) {
    pod<uint8_t>(kDTypes);
    u32(x.size());
    for (auto d : x) pod<uint8_t>(static_cast<uint8_t>(d));
  }
  void value(const std::vector<Shape>& x) {
    pod<uint8_t>(kShapes);
    u32(x.size());
    for (auto& s : x) shape(s);
  }
  void value(const std::shared_ptr<Graph>& g) {
    if (!g) {
      pod<uint8_t>(kNullGraph);
      return;
    }
    pod<uint8_t>(kGraph);
    graph(*g);
  }
  void value(const EagerPtr& t) {
    if (!t) {
      pod<uint8_t>(kNullTensor);
      return;
    }
    pod<uint8_t>(kTensor);
    tensor(*t);
  }
  void value(const std::shared_ptr<HostObject>&) { pod<uint8_t>(kHost); }
  void outputs(const std::vector<NodeOutput>& v) {
    u32(v.size());
    for (auto& o : v) {
      pod<int32_t>(o.node);
      pod<int32_t>(o.index);
    }
  }
  void ints(const std::vector<int>& v) {
    u32(v.size());
    for (int i : v) pod<int32_t>(i);
  }
  void graph(const Graph& g) {
    str(g.name());
    u32(g.num_nodes());
    for (const Node& n : g.nodes()) {
      str(n.op);
      str(n.name);
      outputs(n.inputs);
      ints(n.control_inputs);
      u32(n.attrs.items().size());
      for (auto& kv : n.attrs.items()) {
        str(kv.first);
        attr(kv.second);
      }
      u32(n.outputs.size());
      for (auto& s : n.outputs) {
        pod<uint8_t>(static_cast<uint8_t>(s.dtype));
        shape(s.shape);
      }
      str(n.defined_at);
    }
    ints(g.arg_placeholders);
    ints(g.capture_placeholders);
    outputs(g.outputs);
    ints(g.stateful_nodes);
  }
};

class Reader {
 public:
  Reader(const std::string& b, const GraphReaderHooks& h) : buf(b), hooks(h) {}
  const std::string& buf;
  const GraphReaderHooks& hooks;
  size_t pos = 0;
  int depth = 0;

  void need(size_t n) {
    if (n > buf.size() - pos) throw_error(Code::DataLoss, "saved graph is truncated or corrupted");
  }
  template <typename T>
  T pod() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, buf.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  size_t count(size_t min_bytes_each) {
    uint32_t n = pod<uint32_t>();
    if (min_bytes_each && n > (buf.size() - pos) / min_bytes_each)
      throw_error(Code::DataLoss, "saved graph is truncated or corrupted (count ", n, ")");
    return n;
  }
  std::string str() {
    uint64_t n = pod<uint64_t>();
    need(n);
    std::string s = buf.substr(pos, n);
    pos += n;
    return s;
  }
  DType dtype() {
    uint8_t d = pod<uint8_t>();
    if (d >= kNumDTypes) throw_error(Code::DataLoss, "saved graph has an unknown dtype code ", int(d));
    return static_cast<DType>(d);
  }
  Shape shape() {
    int32_t rank = pod<int32_t>();
    if (rank < 0) return Shape::unknown_rank();
    if (static_cast<size_t>(rank) > (buf.size() - pos) / 8)
      throw_error(Code::DataLoss, "saved graph is corrupted (rank)");
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) {
      d = pod<int64_t>();
      if (d < -1) throw_error(Code::DataLoss, "saved graph is corrupted (dimension ", d, ")");
    }
    return Shape(std::move(dims));
  }
  EagerPtr tensor() {
    DType d = dtype();
    Shape s = shape();
    if (!s.is_fully_defined()) throw_error(Code::DataLoss, "saved constant has a partial shape");
    int64_t n = s.num_elements();
    if (d == DType::String) {
      uint64_t k = pod<uint64_t>();
      if (k != static_cast<uint64_t>(n)) throw_error(Code::DataLoss, "saved string constant is corrupted");
      auto t = make_tensor(d, s);
      t->strings().resize(k);
      for (auto& x : t->strings()) x = str();
      return t;
    }
    if (!is_pod(d)) throw_error(Code::DataLoss, "saved constant has dtype ", dtype_name(d));
    uint64_t nbytes = pod<uint64_t>();
    if (n < 0 || nbytes / dtype_size(d) != static_cast<uint64_t>(n) || nbytes % dtype_size(d))
      throw_error(Code::DataLoss, "saved constant's size does not match its shape");
    need(nbytes);
    auto t = make_tensor(d, s);
    std::memcpy(t->raw(), buf.data() + pos, nbytes);
    pos += nbytes;
    return t;
  }
  AttrValue attr(const std::string& op, const std::string& key) {
    uint8_t tag = pod<uint8_t>();
    switch (tag) {
      case kNone: return std::monostate{};
      case kInt: return pod<int64_t>();
      case kFloat: return pod<double>();
      case kBool: return pod<uint8_t>() != 0;
      case kString: return str();
      case kDType: return dtype();
      case kShape: return shape();
      case kInts: {
        std::vector<int64_t> v(count(8));
        for (auto& x : v) x = pod<int64_t>();
        return v;
      }
      case kDTypes: {
        std::vector<DType> v(count(1));
        for (auto& x : v) x = dtype();
        return v;
      }
      case kShapes: {
        std::vector<Shape> v(count(4));
        for (auto& x : v) x = shape();
        return v;
      }
      case kGraph: return graph();
      case kNullGraph: return std::shared_ptr<Graph>();
      case kTensor: return tensor();
      case kNullTensor: return EagerPtr();
      case kHost: {
        auto h = hooks.make_host ? hooks.make_host(op, key) : nullptr;
        if (!h) throw_error(Code::InvalidArgument, "cannot restore attr '", key, "' of a ", op, " node");
        return h;
      }
      default: throw_error(Code::DataLoss, "saved graph has an unknown attr tag ", int(tag));
    }
  }
  NodeOutput output(int limit) {
    NodeOutput o{pod<int32_t>(), pod<int32_t>()};
    if (o.node < 0 || o.node >= limit || o.index < 0)
      throw_error(Code::DataLoss, "saved graph has an input out of range");
    return o;
  }
  std::vector<int> ints(int limit) {
    std::vector<int> v(count(4));
    for (auto& i : v) {
      i = pod<int32_t>();
      if (i < 0 || i >= limit) throw_error(Code::DataLoss, "saved graph has a node index out of range");
    }
    return v;
  }
  std::shared_ptr<Graph> graph() {
    if (++depth > 64) throw_error(Code::DataLoss, "saved graph nests too deeply");
    auto g = std::make_shared<Graph>(str());
    size_t n = count(16);
    for (size_t i = 0; i < n; ++i) {
      Node node;
      node.op = str();
      node.name = str();
      node.def = hooks.resolve_op ? hooks.resolve_op(node.op) : nullptr;
      if (!node.def)
        throw_error(Code::NotFound, "Op type not registered '", node.op,
                    "' in the saved graph: it was saved by "
                    "a build of fn with this op, and this build does not have it.");
      size_t k = count(8);
      for (size_t j = 0; j < k; ++j) {
        NodeOutput o = output(static_cast<int>(i));
        if (o.index >= static_cast<int>(g->node(o.node).outputs.size()))
          throw_error(Code::DataLoss, "saved graph has an input out of range");
        node.inputs.push_back(o);
      }
      node.control_inputs = ints(static_cast<int>(i));
      size_t na = count(9);
      for (size_t j = 0; j < na; ++j) {
        std::string key = str();
        node.attrs.set(key, attr(node.op, key));
      }
      size_t no = count(5);
      for (size_t j = 0; j < no; ++j) {
        DType d = dtype();
        node.outputs.push_back(TensorSpec{d, shape()});
      }
      node.defined_at = str();
      std::string name = node.name;
      int idx = g->add_node(std::move(node));
      if (g->node(idx).name != name) throw_error(Code::DataLoss, "saved graph has a duplicate node name ", name);
    }
    int limit = g->num_nodes();
    g->arg_placeholders = ints(limit);
    g->capture_placeholders = ints(limit);
    size_t no = count(8);
    for (size_t j = 0; j < no; ++j) g->outputs.push_back(output(limit));
    g->stateful_nodes = ints(limit);
    g->verify();
    --depth;
    return g;
  }
};

}  // namespace

std::string serialize_graph(const Graph& g) {
  Writer w;
  w.out.append(kMagic, sizeof(kMagic));
  w.pod<uint32_t>(kGraphFormatVersion);
  w.graph(g);
  return std::move(w.out);
}

std::shared_ptr<Graph> deserialize_graph(const std::string& bytes, const GraphReaderHooks& hooks) {
  if (bytes.size() < sizeof(kMagic) + 4 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    throw_error(Code::DataLoss, "not a saved fn graph (bad magic number)");
  Reader r(bytes, hooks);
  r.pos = sizeof(kMagic);
  uint32_t version = r.pod<uint32_t>();
  if (version > kGraphFormatVersion)
    throw_error(Code::Unimplemented, "the saved graph has format version ", version, ", newer than this fn reads (",
                kGraphFormatVersion, "); upgrade fn");
  auto g = r.graph();
  if (r.pos != bytes.size()) throw_error(Code::DataLoss, "saved graph has trailing bytes");
  return g;
}

}  // namespace fn
