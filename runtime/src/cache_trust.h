// Whether a program-cache path may be trusted: what weir loads from its cache (shared libraries,
// precompiled headers) runs as the user, so every directory and file of the cache must belong to
// the user and be writable by nobody else, as ssh, ccache and pip require of theirs
// (docs/security.md, docs/adr/0038-private-cache-and-atomic-outputs.md).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace weir::runtime::detail {

/// Why a cache path whose status is `st` must not be used by the user `uid`, or "" when it may:
/// it belongs to another user, is writable by its group or by others, or is a symbolic link
/// (`st` from lstat) or neither a directory nor a regular file.
std::string distrust_reason(const struct stat& st, uid_t uid);

/// Whether `path` exists; throws CacheError (saying why and what to do) when it exists but
/// distrust_reason() refuses it. `follow`: the path may be a symbolic link to what is checked
/// (the cache root, e.g. a link to a scratch disk) if the link is the user's own or root's; inside
/// the cache links are refused.
bool check_trusted(const std::filesystem::path& path, uid_t uid, bool follow = false);

/// Throws CacheError when a directory above the cache root `root` (of its path as given, made
/// absolute, and of the path it resolves to) lets someone else replace the root: one that is
/// writable by its group or by others without the sticky bit (as /tmp has, which keeps others
/// from renaming what is yours), or, for a `uid` other than root, one that belongs to a user
/// other than `uid` and root, as ssh requires of the directories above its keys. Directories
/// that do not exist yet are skipped (weir creates them private).
void check_ancestors(const std::filesystem::path& root, uid_t uid);

/// Creates `dir` and its missing parents with mode 0700, then check_trusted(dir, uid, follow).
/// Throws CacheError when it cannot.
void make_private_directories(const std::filesystem::path& dir, uid_t uid, bool follow = false);

/// Makes the files and directories under `dir` private: directories and `executable` 0700,
/// other files 0600 (a build's compiler writes them with the umask's modes).
void make_private_tree(const std::filesystem::path& dir, const std::filesystem::path& executable);

}  // namespace weir::runtime::detail
