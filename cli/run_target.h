// What `weir run` runs: a field-view program interpreted by the embedded backend, or an SDFG
// (from a file, or lowered from a field-view program) for a compiled backend.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "run_options.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/backend.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/signature.h"

namespace weir::cli {

/// The program to run with its signature and the connectivity tables it reads.
struct RunTarget {
  std::optional<runtime::FieldViewProgram> field_view;  // set when interpreted
  runtime::CompilableProgram sdfg;                      // set when compiled
  /// The orchestration function `sdfg` was lowered from (its statements are walked before each
  /// compiled run: runtime::with_orchestration_checks).
  std::optional<runtime::FieldViewProgram> orchestration;
  /// The @program `sdfg` was lowered from (the domain= of its calls is checked against its
  /// output fields before each compiled run: runtime::with_call_domain_checks).
  std::optional<runtime::FieldViewProgram> program;
  runtime::Signature sig;
  /// field_view_signature of a field-view program (also when lowered for a compiled backend);
  /// empty for an SDFG file.
  runtime::Signature field_view_sig;
  std::vector<runtime::ConnectivityParameter> connectivities;
  /// Parameters the program only writes, which weir allocates when not given
  /// (output_only_parameters; field-view programs only).
  std::set<std::string> outputs_only;
  /// The declared parameters of a field operator with tuple parameters, which run directly
  /// takes leaf by leaf (`t` for t_0, t_1_0); empty otherwise.
  std::vector<std::string> declared_params;
};

/// Loads `o.program` (FILE.py::NAME or an SDFG file) for `backend`: lowers field-view programs
/// for compiled backends. Throws UsageError for a .py file without ::NAME, weir::Error for
/// programs that do not load or that `backend` cannot run.
RunTarget load_target(const RunOptions& o, const runtime::Backend& backend);

/// Throws ArgumentError "missing connectivity table 'E2V' (an int32 or int64 array of shape
/// (n_Edge, 2))" for the first table of a compiled target that `args` lacks, as the embedded
/// backend says it (a compiled program's own check names the table's internal row symbol).
void require_tables(const RunTarget& t, const runtime::Arguments& args);

/// Throws ArgumentError "missing argument 'k1' (int32 scalar)" for the first scalar argument of a
/// field-view program lowered for a compiled backend that `args` lacks, as the embedded backend
/// says it (the lowered SDFG has it as a symbol, whose own message is about symbols).
void require_scalars(const RunTarget& t, const runtime::Arguments& args);

/// Throws ArgumentError "connectivity table 'E2V': expected an int32 or int64 array of shape
/// (n_Edge, max_neighbours), got float64 (72, 2)" for a table of another dtype or not 2-d, with
/// the same words on every backend (a compiled program's own check would say "int32" alone,
/// though int64 tables run through an int32 copy).
void check_table_kinds(const RunTarget& t, const runtime::Arguments& args);

}  // namespace weir::cli
