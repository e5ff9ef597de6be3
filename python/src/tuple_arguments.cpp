// Arguments for a program's tuple parameters: a Python tuple, NamedTuple or dataclass instance
// passed whole, given to the program as one argument per element (`x_0`, `x_1_0`, ...), the
// names the frontend flattens such a parameter to (frontend::flat_parameter_names).
#include <string>
#include <vector>

#include "program.h"
#include "weir/frontend/typed_ir.h"

namespace weir::python {

namespace {

// Appends the elements of `obj` (for the parameter part `path` of type `t`: "x", "x[1]",
// "out.low") to `out`, leaf by leaf: a tuple (a NamedTuple is one) of as many elements, or a dataclass
// instance whose fields are taken in the order of the type's element names.
void flatten(py::handle obj, const frontend::Type& t, const std::string& path, std::vector<py::object>& out) {
  const std::string what = "argument '" + path + "'";
  if (!t.is_tuple()) {
    out.push_back(py::reinterpret_borrow<py::object>(obj));
    return;
  }
  const std::size_t n = t.elements.size();
  // dataclasses.is_dataclass(obj) for an instance, without importing on every call (the
  // repeated-call path is a few microseconds).
  const bool dataclass = !py::isinstance<py::tuple>(obj) && !py::isinstance<py::type>(obj) &&
                         py::hasattr(py::type::of(obj), "__dataclass_fields__");
  if (dataclass && t.names.size() == n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (!py::hasattr(obj, t.names[i].c_str()))
        throw ArgumentTypeError(what + ": expected " + frontend::to_string(t) + ", got a " + type_name(obj) +
                                " without the field '" + t.names[i] + "'");
      flatten(obj.attr(t.names[i].c_str()), t.elements[i], path + "." + t.names[i], out);
    }
    return;
  }
  if (!py::isinstance<py::tuple>(obj) || py::len(obj) != n)
    throw ArgumentTypeError(
        what + ": expected " + frontend::to_string(t) + " (a tuple of " + std::to_string(n) + " elements" +
        (t.names.empty() ? "" : ", a NamedTuple or a dataclass instance") + "), got " +
        (py::isinstance<py::tuple>(obj) ? "a tuple of " + std::to_string(py::len(obj)) + " elements"
                                        : type_name(obj)));
  auto tu = py::reinterpret_borrow<py::tuple>(obj);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string part =
        t.names.size() == n ? path + "." + t.names[i] : path + "[" + std::to_string(i) + "]";
    flatten(tu[i], t.elements[i], part, out);
  }
}

}  // namespace

FlatArguments flat_arguments(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs) {
  FlatArguments r{args, kwargs};
  if (!prog.fv.definition) return r;
  const std::vector<frontend::TParam>& declared = prog.fv.definition->declared_params;
  bool any = false;
  for (const auto& p : declared) any = any || p.type.is_tuple();
  if (!any) return r;
  const std::string& pname = prog.sig.program_name;
  std::vector<py::object> positional;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i >= declared.size()) {
      std::string names;
      for (const auto& p : declared) names += (names.empty() ? "" : ", ") + p.name;
      throw ArgumentTypeError(pname + "() takes " + std::to_string(declared.size()) + " positional argument" +
                              (declared.size() == 1 ? "" : "s") + " (" + names + ") but " +
                              std::to_string(args.size()) + " were given");
    }
    flatten(args[i], declared[i].type, declared[i].name, positional);
  }
  py::kwargs named;
  for (auto [key, value] : kwargs) {
    const std::string k = py::str(key);
    const frontend::TParam* p = nullptr;
    for (const auto& q : declared)
      if (q.name == k && q.type.is_tuple()) p = &q;
    if (!p) {
      named[key] = value;
      continue;
    }
    std::vector<py::object> leaves;
    flatten(value, p->type, k, leaves);
    const auto names = frontend::flat_parameter_names(p->name, p->type);
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      if (kwargs.contains(names[i].first))
        throw ArgumentTypeError(pname + "() got values for '" + k + "' and its element '" + names[i].first +
                                "'");
      named[py::str(names[i].first)] = leaves[i];
    }
  }
  py::tuple flat(positional.size());
  for (std::size_t i = 0; i < positional.size(); ++i) flat[i] = positional[i];
  return FlatArguments{py::reinterpret_borrow<py::args>(flat), named};
}

}  // namespace weir::python
