#include "weir/runtime/dispatch.h"

#include <cxxabi.h>

#include <cstdlib>
#include <typeinfo>

#include "embedded_orchestration.h"
#include "timed_program.h"
#include "toolchain.h"
#include "weir/runtime/call_domain_check.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/embedded.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/runtime/indexed_connectivity_check.h"
#include "weir/sdfg/suggest.h"

namespace weir::runtime {
namespace {

std::string class_name(const Backend& b) {
  const char* mangled = typeid(b).name();
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : mangled;
  std::free(d);
  return s;
}

[[noreturn]] void unknown_kind(const Backend& b) {
  throw BackendError(
      "backend '" + b.name() + "' is a " + class_name(b) +
      ", which weir cannot run programs on: a backend must be a CompiledBackend (compile and run) or "
      "an EmbeddedBackend (interpret)");
}

[[noreturn]] void embedded_sdfg(const Backend& b, const CompilableProgram& p) {
  std::string what =
      p.origin.empty() ? "SDFG '" + (p.sdfg ? p.sdfg->name : std::string("?")) + "'" : p.origin;
  throw BackendError(
      what + ": the embedded backend" + (b.name() == "embedded" ? "" : " '" + b.name() + "'") +
      " runs field-view programs; an SDFG file needs a compiled backend such as 'cpu' (--backend cpu)");
}

}  // namespace

std::shared_ptr<Program> prepare(const Backend& backend, const CompilableProgram& program,
                                 CompilationArtifact* artifact) {
  // A lowered field-view program's tables (recorded in the SDFG) are checked as on that path.
  if (auto* c = dynamic_cast<const CompiledBackend*>(&backend))
    return with_connectivity_checks(
        detail::Toolchain(*c).build(program, artifact),
        program.sdfg ? recorded_connectivities(*program.sdfg) : std::vector<ConnectivityParameter>{},
        program.sdfg ? recorded_indexed_fields(*program.sdfg) : IndexedFields{});
  if (dynamic_cast<const EmbeddedBackend*>(&backend)) embedded_sdfg(backend, program);
  unknown_kind(backend);
}

void check_backend(const Backend& backend, const CompilableProgram& program) {
  if (dynamic_cast<const CompiledBackend*>(&backend)) return;
  if (dynamic_cast<const EmbeddedBackend*>(&backend)) embedded_sdfg(backend, program);
  unknown_kind(backend);
}

void run(const Backend& backend, const CompilableProgram& program, Arguments& args) {
  prepare(backend, program)->run(args);
}

CompilationArtifact compile(const Backend& backend, const CompilableProgram& program) {
  if (auto* c = dynamic_cast<const CompiledBackend*>(&backend)) return detail::Toolchain(*c).compile(program);
  if (dynamic_cast<const EmbeddedBackend*>(&backend))
    throw BackendError(
        "backend '" + backend.name() +
        "' is an embedded (interpreting) backend and compiles nothing; use a compiled backend such as 'cpu'");
  unknown_kind(backend);
}

std::shared_ptr<Program> prepare(const Backend& backend, const FieldViewProgram& program) {
  // Compiled code reads through connectivity tables unchecked: check their entries per call.
  // An orchestration function's statements are walked first for what its SDFG cannot refuse.
  if (auto* c = dynamic_cast<const CompiledBackend*>(&backend))
    // The domain check sits inside the table check: without_connectivity_checks still finds it.
    return with_orchestration_checks(
        with_connectivity_checks(with_call_domain_checks(detail::Toolchain(*c).build(program), program),
                                 connectivities_of(program), indexed_fields_of(program)),
        program);
  if (dynamic_cast<const EmbeddedBackend*>(&backend)) return make_embedded_program(program);
  unknown_kind(backend);
}

void check_backend(const Backend& backend, const FieldViewProgram&) {
  if (dynamic_cast<const CompiledBackend*>(&backend) || dynamic_cast<const EmbeddedBackend*>(&backend))
    return;
  unknown_kind(backend);
}

void run(const Backend& backend, const FieldViewProgram& program, Arguments& args) {
  prepare(backend, program)->run(args);
}

CompilableProgram lower(const FieldViewProgram& program) { return detail::Toolchain::lower(program); }

CompilationArtifact compile(const Backend& backend, const FieldViewProgram& program) {
  if (auto* c = dynamic_cast<const CompiledBackend*>(&backend))
    return detail::Toolchain(*c).compile(
        detail::Toolchain::lower(program, detail::Toolchain::target_device(*c)));
  if (dynamic_cast<const EmbeddedBackend*>(&backend))
    throw BackendError(
        "backend '" + backend.name() +
        "' is an embedded (interpreting) backend and compiles nothing; use a compiled backend such as 'cpu'");
  unknown_kind(backend);
}

std::shared_ptr<Program> prepare_call_by_call(const Backend& backend, const FieldViewProgram& program) {
  if (!program.orchestration) throw BackendError(program.origin + ": not an orchestration function");
  return make_call_by_call(program, [&backend](const FieldViewProgram& p) { return prepare(backend, p); });
}

std::shared_ptr<Program> prepare_call_by_call(const Backend& backend, const FieldViewProgram& program,
                                              std::shared_ptr<CalleeTimes> times) {
  if (!program.orchestration) throw BackendError(program.origin + ": not an orchestration function");
  if (!times) times = std::make_shared<CalleeTimes>();
  return make_call_by_call(program, [&backend, times](const FieldViewProgram& p) -> std::shared_ptr<Program> {
    return std::make_shared<TimedProgram>(prepare(backend, p), times);
  });
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  if (name == "cpu") return make_cpu_backend();
  if (name == "embedded") return make_embedded_backend();
  if (name == "gpu") return make_gpu_backend();
  throw BackendError("unknown backend '" + name + "'" + did_you_mean(name, {"cpu", "embedded", "gpu"}) +
                     " (known: cpu, embedded, gpu)");
}

}  // namespace weir::runtime
