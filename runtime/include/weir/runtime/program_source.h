// Program references as the command line names them: an SDFG file, or (with the gt4py
// frontend) a field-view program in a Python file.
#pragma once

#include <string>

#include "weir/runtime/backend.h"

namespace weir::runtime {

/// Loads "FILE.sdfg" / "FILE.sdfgz" into a CompilableProgram (default codegen options).
/// "FILE.py::PROGRAM" throws BackendError (field-view programs are not supported yet); a file
/// that is not a loadable SDFG throws SdfgLoadError.
CompilableProgram load_program_source(const std::string& reference);

}  // namespace weir::runtime
