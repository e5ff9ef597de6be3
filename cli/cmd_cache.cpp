// `weir cache info|clear`: the persistent program cache ($WEIR_CACHE_DIR, else
// $XDG_CACHE_HOME/weir, else ~/.cache/weir).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "weir/runtime/program_cache.h"

namespace weir::cli {
namespace {

std::string human_bytes(std::uintmax_t b) {
  char buf[32];
  if (b < 1024)
    std::snprintf(buf, sizeof buf, "%ju B", b);
  else if (b < 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024));
  return buf;
}

}  // namespace

Action add_cache_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("cache", "Show or clear the compiled-program cache");
  cmd->require_subcommand(1);
  auto* info = cmd->add_subcommand("info", "Location, number of entries and total size");
  auto* clear = cmd->add_subcommand("clear", "Remove every cached program");
  return [info, clear]() {
    runtime::ProgramCache cache(runtime::ProgramCache::default_root());
    if (info->parsed()) {
      auto s = cache.stats();
      std::cout << "location: " << s.root.string() << "\nentries: " << s.entries
                << "\nsize: " << human_bytes(s.bytes) << " (" << s.bytes << " bytes)\n";
      if (s.stale_temporaries > 0)
        std::cout << "stale temporaries: " << s.stale_temporaries << " (" << human_bytes(s.stale_bytes)
                  << ", counted in size: left by builds whose process is gone, e.g. killed with kill -9; "
                     "the next compile or `weir cache clear` removes them)\n";
    } else if (clear->parsed()) {
      auto n = cache.clear();
      std::cout << "removed " << n << " entr" << (n == 1 ? "y" : "ies") << " from " << cache.root().string()
                << "\n";
    }
    return kExitOk;
  };
}

}  // namespace weir::cli
