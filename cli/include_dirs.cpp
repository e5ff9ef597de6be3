// Checks of `-I DIR` (include_dirs.h).
#include "include_dirs.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>

#include "targets.h"

namespace weir::cli {

void check_include_dirs(CLI::App& cmd) {
  for (CLI::Option* o : cmd.get_options()) {
    const auto& names = o->get_lnames();
    if (std::find(names.begin(), names.end(), "include") == names.end()) continue;
    for (const std::string& dir : o->results()) {
      std::error_code ec;
      if (std::filesystem::is_directory(dir, ec)) continue;
      bool exists = std::filesystem::exists(dir, ec);
      throw UsageError("-I " + dir + ": " + (exists ? "not a directory" : "no such directory") +
                       " (-I names a folder searched for the modules a program imports)");
    }
  }
  for (CLI::App* sub : cmd.get_subcommands({}))
    if (sub->parsed()) check_include_dirs(*sub);
}

}  // namespace weir::cli
