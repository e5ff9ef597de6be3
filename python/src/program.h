// weir.Program's state, shared by program.cpp (loading, the checked call) and call_cache.cpp
// (the fast path of repeated calls, call_cache.h). Internal to python/.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bindings.h"
#include "call_cache.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/loader.h"
#include "weir/runtime/program.h"

namespace weir::python {

struct PyProgram;

/// What a program made ready for one set of table widths, the calls it remembers, and the lock
/// of its runs (runtime::Program is not thread-safe; calls run with the GIL released).
struct ProgramState {
  std::mutex mutex;
  std::map<std::map<std::string, std::int64_t>, std::shared_ptr<runtime::Program>> prepared;
  std::vector<CachedCall> calls;  // the most recent last; at most kMaxCachedCalls
  /// A @field_operator's calls with domain=: runtime::with_output_domain for the dimensions
  /// named, in the order given.
  std::map<std::vector<std::string>, std::shared_ptr<PyProgram>> with_domain;
};

struct PyProgram {
  std::string reference;
  std::vector<std::string> include;
  std::shared_ptr<const runtime::Backend> backend;
  py::object backend_object;  // the Python object `backend` came from (program.backend)
  runtime::FieldViewProgram fv;
  runtime::Signature sig;  // field_view_signature(fv)
  std::vector<runtime::ConnectivityParameter> conns;
  /// The Cartesian offsets it uses and the dimension each moves along (cartesian_offsets_of):
  /// offset_provider= may map them to that Dimension, as gt4py requires ({"Koff": KDim}).
  std::map<std::string, std::string> cartesian;
  std::vector<CallSlot> slots;  // call_slots(sig, conns)
  std::shared_ptr<ProgramState> state = std::make_shared<ProgramState>();

  /// "" when `value`, offset_provider's entry for `name`, is fine to ignore: `name` is not a
  /// Cartesian offset the program uses (an entry of a grid-wide provider that another program
  /// needs), or `value` is a Dimension named as the dimension it moves along; else why not.
  std::string cartesian_entry_problem(const std::string& name, py::handle value) const;

  bool is_table(const std::string& name) const {
    for (const auto& c : conns)
      if (c.name == name) return true;
    return false;
  }
  static bool is_result(const std::string& name) { return name.rfind("__out", 0) == 0; }
  // The parameters a caller passes by position or name (fields and scalars, in order).
  std::vector<const runtime::Parameter*> user_params() const {
    std::vector<const runtime::Parameter*> out;
    for (const auto& p : sig.params)
      if (!is_table(p.name) && !is_result(p.name)) out.push_back(&p);
    return out;
  }
  // The results of a @field_operator run directly (`__out` or `__out_0`, ...): given as out=.
  std::vector<const runtime::Parameter*> result_params() const {
    std::vector<const runtime::Parameter*> out;
    for (const auto& p : sig.params)
      if (is_result(p.name)) out.push_back(&p);
    return out;
  }
  std::string user_names() const {
    std::string s;
    for (const runtime::Parameter* p : user_params()) s += (s.empty() ? "" : ", ") + p->name;
    if (!result_params().empty()) s += std::string(s.empty() ? "" : ", ") + "out=";
    return s;
  }
  bool compiled() const { return dynamic_cast<const runtime::CompiledBackend*>(backend.get()) != nullptr; }
  /// The fast path's view of this program (its slots, calls and lock).
  CallSite call_site() const;
};

/// A call's arguments with each argument of a tuple parameter (a Python tuple, NamedTuple or
/// dataclass instance, passed by position or by name) replaced by its elements, one per flat
/// parameter (`x_0`, `x_1_0`, ...); the arguments unchanged when the program has no tuple
/// parameter. ArgumentTypeError for an argument that is not a tuple of the parameter's shape.
struct FlatArguments {
  py::args args;
  py::kwargs kwargs;
};
FlatArguments flat_arguments(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs);

/// The slots of a program's calls (CallSlot), from its field-view signature.
std::vector<CallSlot> call_slots(const PyProgram& prog);

}  // namespace weir::python
