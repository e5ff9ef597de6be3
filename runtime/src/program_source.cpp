#include "weir/runtime/program_source.h"

#include "weir/runtime/errors.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/dace_blas_calls.h"

namespace weir::runtime {

bool is_field_view_reference(const std::string& reference) {
  auto sep = reference.find("::");
  std::string file = reference.substr(0, sep);
  bool python = file.size() >= 3 && file.compare(file.size() - 3, 3, ".py") == 0;
  return sep != std::string::npos || python;
}

CompilableProgram load_program_source(const std::string& reference) {
  std::vector<std::string> notes;
  return load_program_source(reference, notes);
}

CompilableProgram load_program_source(const std::string& reference, std::vector<std::string>& notes) {
  if (is_field_view_reference(reference))
    throw BackendError(reference +
                       ": a field-view program (FILE.py::PROGRAM), not an SDFG file (.sdfg, .sdfgz)");
  CompilableProgram p;
  std::unique_ptr<SDFG> sdfg = load_sdfg(reference);
  // DaCe's CBLAS tasklets back to library nodes: such files run without --trust-code.
  transforms::BlasRecognition found = transforms::recognize_dace_blas_calls(*sdfg);
  for (const auto& r : found.recognized) notes.push_back("recognised " + r.str());
  for (const auto& k : found.kept) notes.push_back(k.str());
  p.sdfg = std::shared_ptr<const SDFG>(std::move(sdfg));
  p.origin = reference;
  return p;
}

FieldViewProgram load_field_view_reference(const std::string& reference,
                                           const std::vector<std::string>& search_path) {
  auto sep = reference.rfind("::");
  if (sep == std::string::npos || sep == 0 || sep + 2 == reference.size())
    throw BackendError(
        reference + ": name the program to run as FILE.py::NAME (a @program or @field_operator of the file)");
  return load_field_view_program(reference.substr(0, sep), reference.substr(sep + 2), search_path);
}

}  // namespace weir::runtime
