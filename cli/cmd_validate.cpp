// `weir validate FILE...`: load and validate SDFG files, listing every problem found: what
// validate() finds and code the code generator could not parse (codegen/validate_code.h), the
// same check `weir run` / `weir compile` make before generating code.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "targets.h"
#include "weir/codegen/validate_code.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

namespace weir::cli {

Action add_validate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "Load SDFG files (.sdfg/.sdfgz) and validate them");
  auto files = std::make_shared<std::vector<std::string>>();
  auto quiet = std::make_shared<bool>(false);
  cmd->add_option("files", *files, "SDFG files to validate")->required();
  cmd->add_flag("-q,--quiet", *quiet, "Print only problems");
  return [files, quiet]() {
    for (const auto& f : *files) require_sdfg_file("validate", f);
    int rc = kExitOk;
    for (const auto& f : *files) {
      try {
        auto sdfg = load_sdfg(f);
        auto diags = codegen::validate_for_codegen(*sdfg);
        if (diags.empty()) {
          if (!*quiet) std::cout << f << ": valid (SDFG '" << sdfg->name << "')\n";
        } else {
          rc = kExitInvalidInput;
          std::cout << f << ": invalid, " << diags.size() << " problem" << (diags.size() == 1 ? "" : "s")
                    << "\n";
          for (const auto& d : diags) std::cout << "  " << d.str() << "\n";
        }
      } catch (const SdfgLoadError& e) {
        rc = kExitInvalidInput;
        print_error(e.what(), rc);
      }
    }
    return rc;
  };
}

}  // namespace weir::cli
