// Program references as the command line names them: an SDFG file, or a field-view program in
// a Python file ("FILE.py::PROGRAM").
#pragma once

#include <string>
#include <vector>

#include "weir/runtime/backend.h"
#include "weir/runtime/field_view_program.h"

namespace weir::runtime {

/// Whether `reference` names a field-view program: it contains "::" or names a .py file.
bool is_field_view_reference(const std::string& reference);

/// Loads "FILE.sdfg" / "FILE.sdfgz" into a CompilableProgram (default codegen options), with
/// DaCe's CBLAS tasklets replaced by library nodes (transforms::recognize_dace_blas_calls, ADR
/// 0033), so that DaCe's auto-optimized files need no trust_code.
/// A field-view reference throws BackendError (load it with load_field_view_reference); a file
/// that is not a loadable SDFG throws SdfgLoadError.
CompilableProgram load_program_source(const std::string& reference);

/// As load_program_source(reference); appends to `notes` one line per CBLAS tasklet recognised
/// as a library node or left as C++ (and why), for `--verbose`.
CompilableProgram load_program_source(const std::string& reference, std::vector<std::string>& notes);

/// Loads "FILE.py::NAME" with load_field_view_program(FILE, NAME, search_path). Throws
/// BackendError "FILE.py: name the program to run as FILE.py::NAME" without a name, and what
/// load_field_view_program throws.
FieldViewProgram load_field_view_reference(const std::string& reference,
                                           const std::vector<std::string>& search_path = {});

}  // namespace weir::runtime
