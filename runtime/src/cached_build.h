// The program-cache half of a compiler step, shared by the cpu and gpu backends: the cached
// library for a key, building it on a miss, with a failed build's source and log kept under the
// cache's failed/ directory and named in the CompileError.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "weir/runtime/backend.h"

namespace weir::runtime::detail {

struct CachedBuild {
  std::string key;          ///< the program-cache key (everything that determines the library)
  std::string source;       ///< the generated source, written before `compile` runs
  std::string description;  ///< the manifest's JSON text
  /// Compiles `source` into `library` (throws CompileError on failure).
  std::function<void(const std::filesystem::path& source, const std::filesystem::path& library)> compile;
  /// Several translation units of the program (GeneratedCode::units), written beside `source`
  /// as unit<k>.cpp; with them `compile_units` builds the library instead of `compile` (the
  /// whole `source` stays in the entry for reading).
  std::vector<std::string> units;
  std::function<void(const std::vector<std::filesystem::path>& units, const std::filesystem::path& library)>
      compile_units;
  /// Cache root; empty: ProgramCache::default_root().
  std::optional<std::filesystem::path> cache_dir;
};

/// The artifact for `b.key` (library, fingerprint, source path, cache_hit, evict), building it
/// on a miss; `signature` is stored in it. Throws CompileError (paths under failed/) or
/// CacheError.
CompilationArtifact build_cached(const CachedBuild& b, Signature signature);

}  // namespace weir::runtime::detail
