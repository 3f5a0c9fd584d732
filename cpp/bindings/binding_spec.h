// One binding of a call's arguments to a Python function's parameters (TF's
// FunctionType.bind_inputs). The spec is computed once in Python from the function's signature
// (fn/_function/function_args.py, binding_spec) and executed here: by Function.__call__'s fast
// path (bind_function.cpp), by the Python slow path (_Signature.bind) and by ConcreteFunction's
// structured binding. Python's inspect binding is left only for the TypeError text of a call that
// does not bind.
#pragma once
#include <pybind11/pybind11.h>

#include <cstddef>

#include <string>
#include <vector>

namespace fn {
namespace py = pybind11;

struct BindingSpec {
  std::vector<std::string> positional;      // positional parameters' names, in order
  size_t positional_only = 0;               // the first this many take no keyword (PEP 570)
  py::tuple defaults;                       // defaults of the trailing positional parameters
  bool var_positional = false;              // *args: extra positional values are its items
  std::vector<std::string> kwonly;          // keyword-only parameters' names, in order
  std::vector<py::object> kwonly_defaults;  // null: required
  std::vector<py::object> kwonly_keys;      // the names as Python str (the keyword dict's keys)
  bool var_keyword = false;                 // **kwargs: other keywords are its items

  // The canonical form has a keyword part (keyword-only parameters or **kwargs).
  bool has_keywords() const { return !kwonly.empty() || var_keyword; }
  // Binds a call as Python's inspect.Signature.bind + apply_defaults would: `*pos` gets the
  // positional parameters' values (keywords placed, defaults filled) then the *args items; `*kw`
  // a dict of the keyword-only values (defaults filled) then the **kwargs items as passed (left
  // null without keyword-only parameters or **kwargs: the common call allocates nothing). False where Python raises TypeError (too many
  // positional values, a value given twice, an unknown keyword, a missing value) and for a
  // positional-only name passed as a keyword (3.11's inspect refuses it even with **kwargs): the
  // caller binds those with inspect, for Python's message or result.
  bool bind(const py::tuple& args, const py::dict& kwargs, py::object* pos, py::object* kw) const {
    const size_t nargs = PyTuple_GET_SIZE(args.ptr());
    if (PyDict_GET_SIZE(kwargs.ptr()) == 0 && nargs >= positional.size() &&
        (var_positional || nargs == positional.size()) &&
        !has_keywords()) {  // the common call: its values as given (inline: the fast path's hot case)
      *pos = args;
      return true;
    }
    return bind_keywords(args, kwargs, pos, kw);
  }

 private:
  // The rest of bind: keywords placed, defaults filled, the keyword part built.
  bool bind_keywords(const py::tuple& args, const py::dict& kwargs, py::object* pos, py::object* kw) const;
};

// _core.BindingSpec (constructed by fn._function.function_args.binding_spec; .bind(args, kwargs)
// returns (positional values, keyword values) or None).
void init_binding_spec(py::module_& m);

}  // namespace fn
