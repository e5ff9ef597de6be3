#include "cache_trust.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "weir/runtime/errors.h"

namespace weir::runtime::detail {
namespace fs = std::filesystem;

namespace {

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace

std::string distrust_reason(const struct stat& st, uid_t uid) {
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link (weir makes none inside its cache)";
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) return "it is neither a directory nor a regular file";
  if (st.st_uid != uid)
    return "it belongs to uid " + std::to_string(st.st_uid) + ", not to you (uid " + std::to_string(uid) +
           ")";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "it is writable by its group or by others (mode " + octal_mode(st.st_mode) + ")";
  return "";
}

bool check_trusted(const fs::path& path, uid_t uid, bool follow) {
  struct stat st {};
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) {
    if (errno == ENOENT) return false;
    throw CacheError("program cache: cannot use " + path.string() + ": " + std::strerror(errno));
  }
  std::string why = distrust_reason(st, uid);
  // A link to the cache (`follow`) is the user's own or root's: whoever owns it can point it
  // elsewhere between a check and a load.
  struct stat link {};
  if (why.empty() && follow && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode) &&
      link.st_uid != uid && link.st_uid != 0)
    why = "it is a symbolic link that belongs to uid " + std::to_string(link.st_uid) + ", not to you (uid " +
          std::to_string(uid) + ")";
  if (why.empty()) return true;
  const bool mode_only =
      st.st_uid == uid && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) && why.rfind("it is writable", 0) == 0;
  throw CacheError("program cache: refusing to use " + path.string() + ": " + why +
                   "; whoever can write there could plant code that weir would run. " +
                   (mode_only ? "Run 'chmod go-w " + path.string() + "'"
                              : std::string("Remove it, or set WEIR_CACHE_DIR to a directory of your own")));
}

void check_ancestors(const fs::path& root, uid_t uid) {
  std::error_code ec;
  std::vector<fs::path> paths = {fs::absolute(root, ec).lexically_normal()};
  if (fs::path real = fs::weakly_canonical(root, ec); !ec && real != paths[0]) paths.push_back(real);
  for (const fs::path& path : paths)
    for (fs::path a = path.parent_path(); !a.empty(); a = a.parent_path()) {
      struct stat st {};
      if (::stat(a.c_str(), &st) == 0) {
        std::string why;
        // Root running in a tree another uid owns (a container's mounted volume) runs that
        // user's programs anyway: ownership is required of a non-root user's parents only.
        if (uid != 0 && st.st_uid != uid && st.st_uid != 0)
          why = "belongs to uid " + std::to_string(st.st_uid) + ", not to you (uid " + std::to_string(uid) +
                ") or root";
        else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
          why = "is writable by its group or by others without the sticky bit (mode " +
                octal_mode(st.st_mode) + ")";
        if (!why.empty())
          throw CacheError(
              "program cache: refusing to use " + root.string() + ": the directory above it " + a.string() +
              " " + why +
              ", so someone else could replace the cache with one of their own. Set WEIR_CACHE_DIR "
              "to a directory that only you (and root) can change the parents of, such as the "
              "default ~/.cache/weir");
      }
      if (a == a.parent_path()) break;
    }
}

void make_private_directories(const fs::path& dir, uid_t uid, bool follow) {
  // The missing parents, outermost first.
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = dir; !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it)
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST)
      throw CacheError("program cache: cannot create " + it->string() + ": " + std::strerror(errno));
  if (!check_trusted(dir, uid, follow))
    throw CacheError("program cache: cannot create " + dir.string() + ": it vanished");
}

void make_private_tree(const fs::path& dir, const fs::path& executable) {
  std::error_code ec;
  ::chmod(dir.c_str(), 0700);
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path& p = it->path();
    if (it->is_symlink(ec)) continue;  // chmod would change what it points to
    ::chmod(p.c_str(), it->is_directory(ec) || p == executable ? 0700 : 0600);
  }
}

}  // namespace weir::runtime::detail
