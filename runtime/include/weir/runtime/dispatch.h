// Dispatch: what running a program on a backend means for each kind of backend, and the
// backends the command line knows by name.
#pragma once

#include <memory>
#include <string>

#include "weir/runtime/arguments.h"
#include "weir/runtime/backend.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program.h"

namespace weir::runtime {

/// Makes `program` runnable on `backend`, by the backend's kind (never its name):
///  - CompiledBackend: `compiler`, then `loader`. If a library from the cache fails to load it
///    is evicted and compiled once more.
///  - EmbeddedBackend: interprets field-view programs (with the frontend); an SDFG throws
///    BackendError "the embedded backend runs field-view programs; an SDFG file needs a
///    compiled backend such as 'cpu'".
///  - any other Backend: BackendError naming the backend and its C++ class.
/// Also throws what the steps throw (CompileError, LoadError, CacheError). `*artifact`, when
/// given and the backend compiles, gets what the compiler step made of the program loaded
/// (cache_hit false and cache_problem set when a cached library had to be rebuilt).
std::shared_ptr<Program> prepare(const Backend& backend, const CompilableProgram& program,
                                 CompilationArtifact* artifact = nullptr);

/// Throws the BackendError prepare() would throw for this backend and program (wrong kind of
/// backend), without compiling anything; returns normally when prepare() may succeed.
void check_backend(const Backend& backend, const CompilableProgram& program);

/// prepare(), then one run with `args` (see Program::run).
void run(const Backend& backend, const CompilableProgram& program, Arguments& args);

/// Only compiles (`weir compile`): the CompiledBackend's `compiler` step. Any other kind of
/// backend throws BackendError.
CompilationArtifact compile(const Backend& backend, const CompilableProgram& program);

/// Makes a field-view program runnable on `backend`, by the backend's kind:
///  - EmbeddedBackend: make_embedded_program() (the interpreter; nothing is compiled).
///  - CompiledBackend: lower() to an SDFG, then as prepare() for that SDFG.
///  - any other Backend: BackendError naming the backend and its C++ class.
/// Also throws what the steps throw (frontend::FrontendError for what the lowering does not
/// support, CompileError, LoadError, CacheError).
std::shared_ptr<Program> prepare(const Backend& backend, const FieldViewProgram& program);

/// Throws the BackendError prepare() would throw for this backend kind; returns normally for
/// compiled and embedded backends.
void check_backend(const Backend& backend, const FieldViewProgram& program);

/// prepare(), then one run with `args`.
void run(const Backend& backend, const FieldViewProgram& program, Arguments& args);

/// Lowers a field-view program to SDFG (frontend::lower_to_sdfg, a fresh SDFG on every call),
/// validates it and applies the optimization pipeline compiled backends use
/// (transforms::auto_optimize for the CPU), giving what the
/// backend's `compiler` step takes (options and origin from `program`). This is the one place
/// where field-view programs get optimized before code generation.
CompilableProgram lower(const FieldViewProgram& program);

/// Only compiles: lower(), then the CompiledBackend's `compiler` step. Any other kind of backend
/// throws BackendError.
CompilationArtifact compile(const Backend& backend, const FieldViewProgram& program);

/// An orchestration function (FieldViewProgram::orchestration) run statement by statement with
/// each callee program prepared on `backend` separately: the stencils called one by one, as
/// from Python, for comparing with the single SDFG prepare() compiles. Throws BackendError for
/// a program that is not an orchestration function.
std::shared_ptr<Program> prepare_call_by_call(const Backend& backend, const FieldViewProgram& program);

/// Time spent inside the callee programs of a call-by-call Program: the wall seconds of every
/// callee's run() summed (the stencils' kernels with each program's own argument checks; not the
/// walk of the function's statements nor the allocation of its local fields), and how many runs.
struct CalleeTimes {
  double seconds = 0.0;
  std::int64_t runs = 0;
};

/// prepare_call_by_call() whose callee runs add to `*times` (kept alive by the Program; reset it
/// between runs to time one run). Throws as prepare_call_by_call().
std::shared_ptr<Program> prepare_call_by_call(const Backend& backend, const FieldViewProgram& program,
                                              std::shared_ptr<CalleeTimes> times);

/// `compiled`, the SDFG of the orchestration function `program` (FieldViewProgram::orchestration)
/// compiled, run after a walk of the function's statements without their calls that refuses
/// with the embedded backend's ProgramError (FILE:LINE:COL: ...) what the SDFG cannot see: a
/// gtx.zeros/empty whose size is negative or differs from the shared size of its dimension (the
/// SDFG gives the local field that size), an integer division or modulo by zero. prepare() adds
/// it; for a program compiled from lower(). `compiled` itself when `program` is not an
/// orchestration function.
std::shared_ptr<Program> with_orchestration_checks(std::shared_ptr<Program> compiled,
                                                   const FieldViewProgram& program);

/// The backends `weir run --backend` knows: "embedded", "cpu" and "gpu" (make_gpu_backend with
/// its defaults). Throws BackendError "unknown backend 'x' (known: cpu, embedded, gpu)".
std::unique_ptr<Backend> make_backend(const std::string& name);

}  // namespace weir::runtime
