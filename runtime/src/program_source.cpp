#include "weir/runtime/program_source.h"

#include "weir/runtime/errors.h"
#include "weir/sdfg/serialize.h"

namespace weir::runtime {

CompilableProgram load_program_source(const std::string& reference) {
  auto sep = reference.find("::");
  std::string file = reference.substr(0, sep);
  bool python = file.size() >= 3 && file.compare(file.size() - 3, 3, ".py") == 0;
  if (sep != std::string::npos || python)
    throw BackendError(reference +
                       ": field-view programs (FILE.py::PROGRAM) are not supported yet; they come with the gt4py "
                       "frontend's lowering to SDFG. Run an SDFG file (.sdfg, .sdfgz) with --backend cpu");
  CompilableProgram p;
  p.sdfg = std::shared_ptr<const SDFG>(load_sdfg(file));
  p.origin = file;
  return p;
}

}  // namespace weir::runtime
