// Errors carry the TensorFlow exception class they map to in Python (fn.errors.* or builtins).
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace fn {

enum class Code {
  // fn.errors.OpError subclasses (TensorFlow status codes)
  Cancelled,
  Unknown,
  InvalidArgument,
  DeadlineExceeded,
  NotFound,
  AlreadyExists,
  PermissionDenied,
  ResourceExhausted,
  FailedPrecondition,
  Aborted,
  OutOfRange,
  Unimplemented,
  Internal,
  Unavailable,
  DataLoss,
  Unauthenticated,
  // Python builtin exceptions raised where TensorFlow raises them
  ValueError,
  TypeError,
  IndexError,
  AttributeError,
  NotImplementedError,
  RuntimeError,
  LookupError,  // "gradient registry has no entry for: <op>"
};

class Error : public std::runtime_error {
 public:
  Error(Code code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  // A graph node's run-time error: `node_stack` is where the node was traced (Node::defined_at),
  // which a Function call reports as TF's "Detected at node ... defined at".
  Error(Code code, const std::string& msg, std::string node_stack)
      : std::runtime_error(msg), code_(code), node_stack_(std::move(node_stack)) {}
  Code code() const { return code_; }
  const std::string& node_stack() const { return node_stack_; }

 private:
  Code code_;
  std::string node_stack_;
};

namespace detail {
inline void concat(std::ostringstream&) {}
template <typename T, typename... R>
void concat(std::ostringstream& os, const T& v, const R&... rest) {
  os << v;
  concat(os, rest...);
}
}  // namespace detail

// throw_error(Code::InvalidArgument, "x has shape ", shape, " ...")
template <typename... A>
[[noreturn]] void throw_error(Code code, const A&... parts) {
  std::ostringstream os;
  detail::concat(os, parts...);
  throw Error(code, os.str());
}

}  // namespace fn
