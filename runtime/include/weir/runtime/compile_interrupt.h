// Interrupting a compile (SIGINT, SIGTERM): the compiler processes weir started are stopped,
// the build's temporary files removed, and the signal then does what it did before (the CLI
// dies of it; Python raises KeyboardInterrupt). docs/adr/0038-private-cache-and-atomic-outputs.md
// ("Interrupted compiles").
#pragma once

#include <sys/types.h>

#include <string>

#include "weir/runtime/errors.h"

namespace weir::runtime {

/// Thrown out of run_process (and so out of a compile) when SIGINT or SIGTERM arrived while a
/// CompileSignalScope was open: the compiler's process group was killed and waited for.
/// Builds remove their temporary files on it (no failed/ entry: nothing failed).
class CompileInterrupted : public RuntimeError {
 public:
  CompileInterrupted(int signo, const std::string& message) : RuntimeError(message), signal_(signo) {}
  /// SIGINT or SIGTERM.
  int signal_number() const { return signal_; }

 private:
  int signal_;
};

/// While one is open (on any thread; they nest and overlap), SIGINT and SIGTERM do not stop
/// the process at once: a handler records the signal and kills the process groups of the
/// compilers run_process started (each runs in a group of its own, so a signal sent to weir's
/// PID alone reaches them too), and run_process, polling, throws CompileInterrupted. A signal
/// whose disposition was SIG_IGN stays ignored. When the last scope closes, the handlers the
/// process had are put back and a signal that arrived is raised again with them: the CLI then
/// dies of it as before (after the builds removed their temporaries), Python's handler records
/// it for PyErr_CheckSignals (KeyboardInterrupt).
class CompileSignalScope {
 public:
  CompileSignalScope();
  ~CompileSignalScope();
  CompileSignalScope(const CompileSignalScope&) = delete;
  CompileSignalScope& operator=(const CompileSignalScope&) = delete;
};

/// The signal a CompileSignalScope recorded (0: none). Async-signal-safe.
int compile_interrupt_signal();

namespace detail {
/// Whether a CompileSignalScope is open: run_process then starts the child in a process group
/// of its own and registers it.
bool compile_signal_scope_open();
/// Registers (or, with `add` false, forgets) a compiler's process group for the handler to kill.
void track_compiler_group(pid_t pgid, bool add);
}  // namespace detail

/// Whether `pid` names no process any more (kill(pid, 0) fails with ESRCH): the temporaries a
/// process of that id left (named `.tmp.<pid>.`) are stale.
bool process_is_gone(long pid);

}  // namespace weir::runtime
