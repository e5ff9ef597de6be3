#include "cached_build.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "weir/runtime/compile_interrupt.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_cache.h"

namespace weir::runtime::detail {
namespace fs = std::filesystem;

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

}  // namespace

CompilationArtifact build_cached(const CachedBuild& b, Signature signature) {
  fs::path root = b.cache_dir ? *b.cache_dir : ProgramCache::default_root();
  ProgramCache cache(root);
  bool built = false;
  std::string problem;
  CacheEntry entry;
  fs::path build_dir;
  // SIGINT/SIGTERM during the build: the compilers stopped, the temporaries removed, then the
  // signal raised again (compile_interrupt.h).
  CompileSignalScope interruptible;
  try {
    entry = cache.get_or_build(
        b.key,
        [&](const ProgramCache::Build& build) {
          build_dir = build.directory;
          auto write = [](const fs::path& path, const std::string& text) {
            errno = 0;
            std::ofstream out(path, std::ios::binary);
            out << text;
            out.close();
            // The system's reason ("No space left on device"), not only that it failed.
            if (!out)
              throw CacheError("cannot write " + path.string() +
                               (errno ? ": " + std::string(std::strerror(errno)) : ""));
          };
          write(build.source, b.source);
          std::vector<fs::path> units;
          for (std::size_t k = 0; k < b.units.size(); ++k) {
            units.push_back(build.directory / ("unit" + std::to_string(k) + ".cpp"));
            write(units.back(), b.units[k]);
          }
          try {
            if (units.empty())
              b.compile(build.source, build.library);
            else
              b.compile_units(units, build.library);
          } catch (const CompileError& e) {
            std::ofstream log(build.directory / "compiler.log", std::ios::binary);
            log << e.command() << "\n" << e.compiler_output();
            throw;
          }
        },
        b.description, &built, &problem);
  } catch (const CompileError& e) {
    // The failed build was kept under failed/<key>/: point the message there.
    fs::path failed = cache.failed_directory(b.key);
    std::string out = replace_all(e.compiler_output(), build_dir.string(), failed.string());
    std::string cmd = replace_all(e.command(), build_dir.string(), failed.string());
    throw CompileError(e.program(), cmd, e.exit_code(), out,
                       (failed / e.source_path().substr(e.source_path().rfind('/') + 1)).string());
  }
  CompilationArtifact a;
  a.library = entry.library;
  a.fingerprint = b.key;
  a.source = entry.source;
  a.signature = std::move(signature);
  a.cache_hit = !built;
  a.cache_problem = std::move(problem);
  a.evict = [root, key = b.key] { ProgramCache(root).evict(key); };
  return a;
}

}  // namespace weir::runtime::detail
