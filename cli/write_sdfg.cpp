#include "write_sdfg.h"

#include <iostream>
#include <set>

#include "output_name.h"
#include "overwrite_guard.h"

namespace weir::cli {

void write_sdfg(const SDFG& sdfg, const std::string& path, const SaveOptions& opts,
                const std::vector<Diagnostic>& input_problems) {
  refuse_python_source_output("-o " + path, path, "SDFG");
  warn_sdfg_output_name(path);
  std::vector<Diagnostic> problems = validate(sdfg);
  if (!problems.empty()) {
    std::set<std::string> known;
    for (const Diagnostic& d : input_problems) known.insert(d.code);
    bool inherited = true;
    for (const Diagnostic& d : problems) inherited = inherited && known.count(d.code) > 0;
    if (!inherited) throw Error(path + ": not written: " + InvalidSDFGError(std::move(problems)).what());
    std::cerr << "weir: warning: " << path << ": written with the " << problems.size()
              << " validation problem" << (problems.size() == 1 ? "" : "s")
              << " its input has already ('weir validate " << path << "' lists them)\n";
  }
  save_sdfg(sdfg, path, opts);
}

}  // namespace weir::cli
