// The persistent program cache: compiled shared libraries keyed by a fingerprint of what
// determines them (generated source, compiler identity and flags, weir version), shared by
// every weir process of a user.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace weir::runtime {

/// One valid cache entry.
struct CacheEntry {
  std::string key;                  ///< the fingerprint (64 hex digits)
  std::filesystem::path directory;  ///< <root>/v1/<key[0:2]>/<key>/
  std::filesystem::path library;    ///< the shared library in it
  std::filesystem::path source;     ///< the generated source it was compiled from
};

/// Totals of a cache directory (`weir cache info`).
struct CacheStats {
  std::filesystem::path root;
  std::size_t entries = 0;
  std::uintmax_t bytes = 0;  ///< size of every file under the root
  /// Temporaries of builds whose process is gone (interrupted by kill -9, a crash): build
  /// directories in tmp/ and precompiled-header directories in pch/ named with a dead PID.
  /// Counted in `bytes` too; the next build (or clear()) removes them.
  std::size_t stale_temporaries = 0;
  std::uintmax_t stale_bytes = 0;
};

/// A directory of compiled programs. Layout: <root>/v1/<key[0:2]>/<key>/ holds the library,
/// its source and manifest.json (ABI version, library size and SHA-256, description);
/// <root>/v1/locks/<key>.lock serializes builds of one key; <root>/v1/tmp/ holds builds in
/// progress; <root>/v1/failed/<key>/ keeps the source and compiler log of a failed build;
/// <root>/v1/pch/<key>/ holds a precompiled header of generated programs' standard headers.
///
/// Entries are written atomically (built in a temporary directory, then renamed into place)
/// and never modified afterwards, so processes that loaded a library keep a valid mapping.
/// Builds of the same key by several threads or processes at once are serialized by flock on
/// the key's lock file: one builds, the others then find its entry. An entry whose manifest is
/// missing or unreadable, whose ABI version differs or whose library's size or hash differs
/// from the manifest (truncated, overwritten) is treated as absent and rebuilt.
///
/// Only the user may write the cache (docs/security.md): directories are created 0700, files
/// made 0600 (the library 0700), and lookup() and get_or_build() throw CacheError, saying why and
/// what to do, for a root, directory or file on the way to an entry that belongs to another user,
/// is writable by its group or others, or is a symbolic link (the root itself may be a link).
class ProgramCache {
 public:
  /// A cache at `root` (created on first write, mode 0700), used by the user `owner` (tests pass
  /// another uid to see what a cache of another user gives).
  explicit ProgramCache(std::filesystem::path root, uid_t owner = ::geteuid());
  /// $WEIR_CACHE_DIR if set and non-empty, else $XDG_CACHE_HOME/weir, else $HOME/.cache/weir.
  /// Throws CacheError if none of the variables is set.
  static std::filesystem::path default_root();

  const std::filesystem::path& root() const { return root_; }

  /// The valid entry for `key`, or nullopt (absent or corrupt; `*problem`, when given, gets why a
  /// present entry is not used, e.g. "its library's SHA-256 differs from its manifest's").
  /// Throws CacheError for a cache or entry the user must not trust (see the class).
  std::optional<CacheEntry> lookup(const std::string& key, std::string* problem = nullptr) const;

  /// What a build writes into its temporary directory.
  struct Build {
    std::filesystem::path directory;  ///< empty temporary directory, renamed into place after
    std::filesystem::path library;    ///< where the build must write the shared library
    std::filesystem::path source;     ///< where the build should write the source
  };
  /// The entry for `key`; if absent or corrupt, runs `build` under the key's lock and installs
  /// what it wrote (plus a manifest with `description`, free-form JSON text). `*built` tells
  /// whether `build` ran; `*rebuilt_because` gets why an entry that was there was not used
  /// (empty when there was none). If `build` throws, nothing is installed, the source and everything
  /// else it wrote are moved to <root>/v1/failed/<key>/ (replacing an older failure) and the
  /// exception is rethrown. Throws CacheError when the directory cannot be used.
  CacheEntry get_or_build(const std::string& key, const std::function<void(const Build&)>& build,
                          const std::string& description = "{}", bool* built = nullptr,
                          std::string* rebuilt_because = nullptr);

  /// Removes the entry for `key` if present (under its lock), e.g. after a library that passed
  /// the manifest check failed to load.
  void evict(const std::string& key);

  /// Counts entries and bytes. A missing root gives zero entries.
  CacheStats stats() const;
  /// Removes every entry, failed build, precompiled header and leftover temporary; returns the number of
  /// entries removed. Entries being built concurrently may survive.
  std::size_t clear();

  /// The failed-build directory of `key` (exists only after a failed build).
  std::filesystem::path failed_directory(const std::string& key) const;

 private:
  std::filesystem::path root_;
  uid_t owner_;
  std::filesystem::path base() const;
  /// Whether the root and base() exist (created first when `create`); throws CacheError when
  /// they must not be trusted.
  bool trusted_base(bool create) const;
  std::filesystem::path entry_directory(const std::string& key) const;
};

}  // namespace weir::runtime
