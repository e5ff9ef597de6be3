// A fault that a tasklet's code can report, declared in the SDFG (issue 33, docs/adr/0033): the
// code sets an integer output connector to a message number (0: no fault), optionally another
// integer output connector to a value the message shows, and the attribute `weir_fault` lists
// the messages. The code generator reads the declaration and, after the tasklet's code, records
// the fault (the first one of the run) and raises it after the state, as it raises its own
// (out-of-bounds accesses, a negative exponent); the library-expansion pass declares the faults
// of the LAPACK calls it writes (info != 0: a singular or not positive definite matrix). The
// attribute is an ordinary key of the tasklet's JSON: written to files and read back, and DaCe,
// which does not know it, loads the file and ignores it (its code still sets the connectors,
// which go to transients nothing reads).
//   "weir_fault": {"code": "__fault", "argument": "__fault_arg",
//                  "messages": ["Solve 'solve' (node 3): the matrix is singular (U({}, {}) ...", ...]}
// Message k (1-based) is raised when the code connector is k; each "{}" in it is the argument
// connector's value (a decimal integer). Any other non-zero code raises
// "tasklet '<label>' reported fault <code>".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "weir/sdfg/nodes.h"

namespace weir {

/// The attribute key of the declaration.
inline constexpr const char* kTaskletFaultAttribute = "weir_fault";

/// A tasklet's declared fault.
struct TaskletFault {
  /// The output connector (an integer) holding the message number; 0: no fault.
  std::string code;
  /// The output connector (an integer) whose value replaces each "{}" of the message; empty:
  /// none (the messages then have no "{}").
  std::string argument;
  /// The messages, message k for code k (1-based).
  std::vector<std::string> messages;
};

/// Declares `f` on `t` (sets the attribute; replaces an earlier declaration).
void declare_fault(Tasklet& t, const TaskletFault& f);

/// The fault `t` declares, nullopt when it declares none. Throws std::invalid_argument, with
/// what is wrong, for an attribute that is not such an object: not an object, `code` missing or
/// not a non-empty string, `argument` not a string, `messages` not a non-empty list of strings,
/// a "{}" in a message without an `argument`.
std::optional<TaskletFault> declared_fault(const Tasklet& t);

}  // namespace weir
