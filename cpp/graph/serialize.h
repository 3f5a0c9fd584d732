// A compact binary form of a Graph (docs/FORMATS.md, "graph IR"): every node with its op,
// name, inputs, control inputs, attrs (every AttrValue alternative, sub-graphs recursively,
// tensor constants with their bytes) and output specs, plus the graph's argument/capture
// placeholders and outputs. Host objects (per-node caches, random state) are written by
// attribute name only and re-made by the reader's callback; a Python callable cannot be saved.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "graph/graph.h"

namespace fn {

constexpr uint32_t kGraphFormatVersion = 1;

std::string serialize_graph(const Graph& g);

struct GraphReaderHooks {
  // The OpDef of an op name (nullptr: unknown op -> NotFound error naming it).
  std::function<const OpDef*(const std::string& op)> resolve_op;
  // A fresh host object for attr `attr` of an `op` node (e.g. a new SubgraphCache).
  std::function<std::shared_ptr<HostObject>(const std::string& op, const std::string& attr)> make_host;
};

// Throws DataLoss on a malformed or truncated buffer, Unimplemented on a newer version.
std::shared_ptr<Graph> deserialize_graph(const std::string& bytes, const GraphReaderHooks& hooks);

}  // namespace fn
