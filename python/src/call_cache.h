// The fast path of repeated calls from Python (docs/adr/0042-python-api.md, "Fast path"): a
// call whose arrays are laid out as in an earlier call that passed every check runs on that
// call's binding. Shared by weir.Program (program.cpp) and weir.CompiledSDFG (sdfg.cpp).
// Internal to python/.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bindings.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/loader.h"
#include "weir/runtime/program.h"

namespace weir::python {

struct PyProgram;

/// One argument of a call as the cache sees it: the parameters in order (fields and scalars),
/// then the results given as out=, then the connectivity tables of offset_provider=. A Symbol
/// (an SDFG's symbol, weir.CompiledSDFG) may be left out of a call (then its value comes from
/// the arrays' shapes) and is part of the key, given or not: array shapes depend on it, so a
/// call with another value is checked again, never run on bindings checked for another.
struct CallSlot {
  enum class Kind { Array, Scalar, Table, Symbol };
  std::string name;
  Kind kind = Kind::Array;
  ScalarType dtype = ScalarType::Float64;
  std::size_t ndim = 0;
  bool written = false;
};

/// A call that passed every check: what the next call with arrays alike (the same `key`:
/// dtype, byte order and shape of every array, docs/adr/0042-python-api.md "Fast path") runs
/// without checking them again.
struct CachedCall {
  std::vector<std::int64_t> key;
  std::shared_ptr<runtime::Program> program;
  /// Set when `program` is one compiled library (no table checks, no orchestration): then
  /// `bound` is the last call's binding and `abi` each slot's index in its signature, and a
  /// call only replaces pointers and scalar values.
  runtime::CompiledProgram* compiled = nullptr;
  runtime::BoundArguments bound;
  std::vector<std::size_t> abi;
};

/// How many argument layouts a program remembers (a model calls a program with a few).
constexpr std::size_t kMaxCachedCalls = 8;

/// What the fast path needs of a callable (weir.Program, weir.CompiledSDFG): its slots, of
/// which the first `users` are passed by position or name and the next `results` as out=
/// (the rest: offset_provider='s tables); the calls it remembers and the lock of its runs.
/// `program`: the weir.Program whose Cartesian offsets offset_provider= may name, or nullptr
/// where offset_provider= is no keyword of the call.
struct CallSite {
  const std::vector<CallSlot>* slots = nullptr;
  std::size_t users = 0;
  std::size_t results = 0;
  std::mutex* mutex = nullptr;
  std::vector<CachedCall>* calls = nullptr;
  const PyProgram* program = nullptr;
  /// Where set, called after each run on a remembered binding (the lock held) with the
  /// binding's symbol values and the run's wall time in seconds, and a remembered call that is
  /// not one compiled library runs checked (weir.CompiledSDFG compiled with timers: its profile).
  std::function<void(const std::map<std::string, std::int64_t>& symbols, double seconds)> after_run;
};

/// The call's arrays described for the cache: one Python object per slot and the key. Empty
/// `objects` when the call is not in a form the cache takes (an unknown or repeated keyword,
/// domain=, a missing argument, something not an array where one goes, an array the checks
/// would refuse: not C-contiguous, unaligned, read-only where written): the checked call then
/// runs and gives the error, if any.
struct CallLayout {
  std::vector<PyObject*> objects;
  std::vector<std::int64_t> key;
};
CallLayout call_layout(const CallSite& site, const py::args& args, const py::kwargs& kwargs);

/// Runs the call through the cache (the GIL released while it runs) when an earlier call with
/// the same layout passed every check; false when there is none, or when an argument fails a
/// check that is made on every call (arrays sharing memory with a written one, a number that
/// does not fit its parameter): the checked call then runs and gives the error.
bool run_cached(const CallSite& site, const CallLayout& layout);

/// Remembers a call that passed every check and ran (`program` with `args`): called with the
/// program's lock held.
void remember_call(const CallSite& site, const CallLayout& layout,
                   const std::shared_ptr<runtime::Program>& program, runtime::Arguments& args);

}  // namespace weir::python
