#include "bindings/binding_spec.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <utility>

#include "core/error.h"

namespace fn {

namespace {

// `key` as UTF-8 (no copy); false for a non-str key (only ** of a non-str dict passes one).
bool key_view(py::handle key, std::string_view* out) {
  if (!PyUnicode_Check(key.ptr())) return false;
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(key.ptr(), &n);
  if (!s) {
    PyErr_Clear();
    return false;
  }
  *out = std::string_view(s, static_cast<size_t>(n));
  return true;
}

int index_of(const std::vector<std::string>& names, size_t from, std::string_view key) {
  for (size_t i = from; i < names.size(); ++i)
    if (names[i] == key) return static_cast<int>(i);
  return -1;
}

}  // namespace

bool BindingSpec::bind_keywords(const py::tuple& args, const py::dict& kwargs, py::object* pos, py::object* kw) const {
  const size_t n = positional.size(), nargs = args.size();
  if (nargs > n && !var_positional) return false;
  std::vector<py::object> slots(n), kwvals(kwonly.size());
  for (size_t i = 0; i < std::min(n, nargs); ++i) slots[i] = args[i];
  std::vector<std::pair<py::handle, py::handle>> extra;  // **kwargs items (borrowed from kwargs)
  for (auto item : kwargs) {
    std::string_view key;
    if (!key_view(item.first, &key)) return false;
    int i = index_of(positional, 0, key);
    // A positional-only name as a keyword: inspect.Signature.bind (so TF's FunctionType) refuses it
    // even with **kwargs (Python 3.11); the slow path binds it with inspect as the running Python does.
    if (i >= 0 && static_cast<size_t>(i) < positional_only) return false;
    if (i >= 0) {
      if (static_cast<size_t>(i) < nargs || slots[static_cast<size_t>(i)]) return false;  // given twice
      slots[static_cast<size_t>(i)] = py::reinterpret_borrow<py::object>(item.second);
      continue;
    }
    i = index_of(kwonly, 0, key);
    if (i >= 0) {
      kwvals[static_cast<size_t>(i)] = py::reinterpret_borrow<py::object>(item.second);
    } else if (var_keyword) {
      extra.emplace_back(item.first, item.second);
    } else {
      return false;  // unknown keyword
    }
  }
  const size_t nd = defaults.size();
  py::tuple full(std::max(n, nargs));
  for (size_t i = 0; i < n; ++i) {
    if (slots[i]) {
      full[i] = std::move(slots[i]);
    } else if (n - i <= nd) {
      full[i] = defaults[nd - (n - i)];
    } else {
      return false;  // missing
    }
  }
  for (size_t i = n; i < nargs; ++i) full[i] = args[i];
  if (has_keywords()) {
    py::dict d;
    for (size_t j = 0; j < kwonly.size(); ++j) {
      if (!kwvals[j] && !kwonly_defaults[j]) return false;  // missing
      d[kwonly_keys[j]] = kwvals[j] ? kwvals[j] : kwonly_defaults[j];
    }
    for (const auto& item : extra) d[item.first] = item.second;
    *kw = std::move(d);
  }
  *pos = std::move(full);
  return true;
}

void init_binding_spec(py::module_& m) {
  py::class_<BindingSpec, std::shared_ptr<BindingSpec>>(
      m, "BindingSpec", "How calls bind to a Python signature (fn._function.function_args.binding_spec).")
      .def(py::init([](std::vector<std::string> positional, size_t positional_only, py::tuple defaults,
                       bool var_positional, std::vector<std::string> kwonly, py::list kwonly_defaults,
                       std::vector<bool> kwonly_required, bool var_keyword) {
             if (positional_only > positional.size() || defaults.size() > positional.size() ||
                 kwonly_defaults.size() != kwonly.size() || kwonly_required.size() != kwonly.size())
               throw_error(Code::ValueError, "BindingSpec: inconsistent parameter lists");
             auto s = std::make_shared<BindingSpec>();
             s->positional = std::move(positional);
             s->positional_only = positional_only;
             s->defaults = std::move(defaults);
             s->var_positional = var_positional;
             s->kwonly = std::move(kwonly);
             for (const std::string& k : s->kwonly) s->kwonly_keys.push_back(py::str(k));
             for (size_t j = 0; j < s->kwonly.size(); ++j)
               s->kwonly_defaults.push_back(
                   kwonly_required[j] ? py::object() : py::reinterpret_borrow<py::object>(kwonly_defaults[j]));
             s->var_keyword = var_keyword;
             return s;
           }),
           py::arg("positional"), py::arg("positional_only"), py::arg("defaults"), py::arg("var_positional"),
           py::arg("kwonly"), py::arg("kwonly_defaults"), py::arg("kwonly_required"), py::arg("var_keyword"))
      .def(
          "bind",
          [](const BindingSpec& s, const py::tuple& args, const py::dict& kwargs) -> py::object {
            py::object pos, kw;
            if (!s.bind(args, kwargs, &pos, &kw)) return py::none();
            return py::make_tuple(pos, kw ? kw : py::dict());
          },
          py::arg("args"), py::arg("kwargs"),
          "(positional values, keyword values) of a call, as Python binds it; None where Python raises TypeError.")
      .def_property_readonly("positional", [](const BindingSpec& s) { return s.positional; })
      .def_property_readonly("has_keywords", &BindingSpec::has_keywords);
}

}  // namespace fn
