// The weir steps the benchmarks measure, each in one place: loading and type-checking a
// field-view module, lowering a program, the optimization pipeline every benchmark applies,
// and compiling an SDFG for the CPU backend.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/program.h"
#include "weir/sdfg/sdfg.h"

namespace weir::bench {

/// The name of the optimization pipeline the benchmarks apply to weir's SDFGs:
/// "auto-optimize-cpu" when the transformation registry has it, else "simplify".
const std::string& optimization_pipeline_name();
/// Runs that pipeline on `sdfg` (fresh pass and analysis cache each call); returns the number
/// of changes. Throws what the pipeline throws.
std::size_t optimize(SDFG& sdfg);

/// Like optimize(), and adds the time of every pass of the pipeline (nested pipelines' passes
/// as "outer/inner") to `seconds_by_pass`, by wrapping each pass in a timer: what runs is
/// exactly the pipeline optimize() runs.
std::size_t optimize_profiled(SDFG& sdfg, std::map<std::string, double>& seconds_by_pass);

/// A loaded field-view module with its type checker (the typed IR lives in the checker).
struct FieldViewModule {
  std::unique_ptr<frontend::ModuleLoader> loader;
  std::unique_ptr<frontend::TypeChecker> checker;
  const frontend::LoadedModule* module = nullptr;

  /// The definition called `name`; throws std::runtime_error naming the file if there is none.
  const frontend::Definition& definition(const std::string& name) const;
  /// Names of the module's @program definitions, in source order.
  std::vector<std::string> programs() const;
};

/// Loads `file` (imports from `search_path`, not WEIR_PATH). Throws FrontendError / weir::Error.
FieldViewModule load_field_view(const std::string& file, const std::vector<std::string>& search_path = {});
/// Loads a module from source text under the display name `name`.
FieldViewModule load_field_view_source(const std::string& name, const std::string& text);
/// Type-checks and lowers the definition `program` of `m` to a new SDFG.
std::unique_ptr<SDFG> lower(FieldViewModule& m, const std::string& program);

/// Whether an exception from lowering says the construct is not lowered yet (scans,
/// unstructured shifts, ...): such benchmark entries are skipped, not failed.
bool is_not_supported_yet(const std::exception& e);

/// Compiles `sdfg` with the default CPU backend (program cache as configured by
/// WEIR_CACHE_DIR) and loads it; `streaming_stores`, `gather_prefetch` and `full_width_simd` are
/// CodegenOptions'. Throws CompileError/LoadError/...
std::shared_ptr<runtime::Program> compile_cpu(std::shared_ptr<const SDFG> sdfg, const std::string& origin,
                                              bool streaming_stores = true, bool gather_prefetch = true,
                                              bool full_width_simd = true);

}  // namespace weir::bench
