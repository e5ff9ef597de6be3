// `weir check FILE.py [-I DIR]...`: load a field-view module, type-check every definition and
// list their signatures.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "targets.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"

namespace weir::cli {

Action add_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Load a gt4py field-view file and type-check its definitions");
  auto file = std::make_shared<std::string>();
  auto includes = std::make_shared<std::vector<std::string>>();
  cmd->add_option("file", *file, "Python file")->required();
  cmd->add_option("-I,--include", *includes, "Directory searched for imported modules (repeatable; "
                                             "WEIR_PATH is searched too)");
  return [file, includes]() {
    using namespace weir::frontend;
    require_python_file("check", *file);
    try {
      ModuleLoader loader(LoaderOptions{*includes, true});
      const LoadedModule& m = loader.load_file(*file);
      TypeChecker checker;
      auto defs = checker.check_module(m);
      for (const TypedDefinition* d : defs) std::cout << signature(*d) << "\n";
      std::cout << *file << ": " << defs.size() << " definition" << (defs.size() == 1 ? "" : "s")
                << " checked\n";
      return kExitOk;
    } catch (const FrontendError& e) {
      std::cerr << with_search_path_hint(e.what()) << "\n";
      return kExitInvalidInput;
    }
  };
}

}  // namespace weir::cli
