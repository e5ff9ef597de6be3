#include "weir/runtime/program_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "cache_trust.h"
#include "prelude_pch.h"
#include "sha256.h"
#include "weir/codegen/program_abi.h"
#include "weir/runtime/compile_interrupt.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/notices.h"
#include "weir/sdfg/json_limits.h"

namespace weir::runtime {
namespace fs = std::filesystem;

namespace {

constexpr const char* kLibraryName = "program.so";
constexpr const char* kSourceName = "program.cpp";
constexpr const char* kManifestName = "manifest.json";
constexpr int kManifestFormat = 1;

// An exclusive flock on a lock file, released on destruction (or when the process dies). The
// holder writes its process id into the file, so that a process that waits for it longer than a
// second can say whom it waits for (a build of the same program can take minutes).
class FileLock {
 public:
  FileLock(const fs::path& path, bool wait) {
    fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_ < 0)
      throw CacheError("program cache: cannot open lock file " + path.string() + ": " + std::strerror(errno));
    int err = try_lock(LOCK_NB);
    if (err == EWOULDBLOCK && wait) {
      // Held: poll for a second, then tell the user what it waits for and block.
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      while (err == EWOULDBLOCK && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        err = try_lock(LOCK_NB);
      }
      if (err == EWOULDBLOCK) {
        notice("waiting for " + holder() + ", which holds the program cache's lock " + path.string() +
               " (it is building or removing the same program)");
        err = try_lock(0);
      }
    }
    if (err != 0) {
      ::close(fd_);
      fd_ = -1;
      if (!wait && err == EWOULDBLOCK) return;
      throw CacheError("program cache: cannot lock " + path.string() + ": " + std::strerror(err));
    }
    locked_ = true;
    // Who holds it, for the message above; best effort (a lock without it still locks).
    const std::string pid = std::to_string(::getpid()) + "\n";
    [[maybe_unused]] const bool recorded =
        ::ftruncate(fd_, 0) == 0 &&
        ::pwrite(fd_, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return locked_; }

 private:
  int fd_ = -1;
  bool locked_ = false;

  // 0 when locked, else the errno of flock (EWOULDBLOCK: held elsewhere, with LOCK_NB).
  int try_lock(int flags) const {
    int rc;
    while ((rc = ::flock(fd_, LOCK_EX | flags)) != 0 && errno == EINTR) {
    }
    return rc == 0 ? 0 : errno;
  }
  // "process 1234" from the file the holder wrote, or "another weir process".
  std::string holder() const {
    char buf[32] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    std::string text(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    return digits ? "process " + text : "another weir process";
  }
};

// A name unique among this process's threads and other processes.
std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  return std::to_string(::getpid()) + "." + std::to_string(counter++);
}

bool valid_key(const std::string& key) {
  if (key.size() < 8) return false;
  for (char c : key)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Below a trusted base(): created 0700 and checked (a directory another user made is refused).
void make_dirs(const fs::path& p, uid_t owner = ::geteuid()) { detail::make_private_directories(p, owner); }

// Removes a directory tree by renaming it away first, so that nobody sees it half removed.
void remove_tree(const fs::path& dir, const fs::path& tmp) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  make_dirs(tmp);
  fs::path aside = tmp / (dir.filename().string() + ".stale." + unique_suffix());
  fs::rename(dir, aside, ec);
  fs::remove_all(ec ? dir : aside, ec);
}

// The process id in a build directory's name (`<key>.<pid>.<n>`, unique_suffix()); 0 when none.
long build_pid(const std::string& name) {
  const std::size_t start = name.find('.');
  if (start == std::string::npos) return 0;
  std::size_t end = start + 1;
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end == start + 1 || end - start > 10 || name.find(".stale.") != std::string::npos) return 0;
  return std::stol(name.substr(start + 1, end - start - 1));
}

// Build directories a killed build (kill -9, a crash, a power cut) left in tmp/: those of
// `own_key`, whose lock the caller holds (so no build of it runs), and those older than an hour
// or of a process that is gone whose key's lock is free. Builds in progress hold their key's lock and are
// never touched.
void reclaim_stale_builds(const fs::path& tmp, const fs::path& locks, const std::string& own_key) {
  constexpr auto kStaleAge = std::chrono::hours(1);
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(tmp, ec)) entries.push_back(e.path());
  auto now = fs::file_time_type::clock::now();
  for (const auto& p : entries) {
    std::string name = p.filename().string();
    std::string key = name.substr(0, name.find('.'));
    if (key != own_key) {
      auto t = fs::last_write_time(p, ec);
      if ((ec || now - t < kStaleAge) && !process_is_gone(build_pid(name))) continue;
      if (valid_key(key) && name.find(".stale.") == std::string::npos) {
        FileLock lock(locks / (key + ".lock"), /*wait=*/false);
        if (!lock.locked()) continue;
        fs::remove_all(p, ec);
        continue;
      }
    }
    fs::remove_all(p, ec);
  }
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ProgramCache::ProgramCache(fs::path root, uid_t owner) : root_(std::move(root)), owner_(owner) {}

bool ProgramCache::trusted_base(bool create) const {
  if (create) {
    detail::make_private_directories(root_, owner_, /*follow=*/true);
    detail::check_ancestors(root_, owner_);
    detail::make_private_directories(base(), owner_);
    return true;
  }
  if (!detail::check_trusted(root_, owner_, /*follow=*/true)) return false;
  detail::check_ancestors(root_, owner_);
  return detail::check_trusted(base(), owner_);
}

fs::path ProgramCache::default_root() {
  auto env = [](const char* n) -> std::string {
    const char* v = std::getenv(n);
    return v ? v : "";
  };
  if (auto d = env("WEIR_CACHE_DIR"); !d.empty()) return d;
  if (auto d = env("XDG_CACHE_HOME"); !d.empty()) return fs::path(d) / "weir";
  if (auto d = env("HOME"); !d.empty()) return fs::path(d) / ".cache" / "weir";
  throw CacheError(
      "program cache: none of WEIR_CACHE_DIR, XDG_CACHE_HOME or HOME is set; set WEIR_CACHE_DIR");
}

fs::path ProgramCache::base() const { return root_ / "v1"; }

fs::path ProgramCache::entry_directory(const std::string& key) const {
  return base() / key.substr(0, 2) / key;
}

fs::path ProgramCache::failed_directory(const std::string& key) const { return base() / "failed" / key; }

std::optional<CacheEntry> ProgramCache::lookup(const std::string& key, std::string* problem) const {
  if (!valid_key(key)) throw CacheError("program cache: invalid key '" + key + "'");
  CacheEntry e{key, entry_directory(key), entry_directory(key) / kLibraryName,
               entry_directory(key) / kSourceName};
  auto refuse = [&](const std::string& why) -> std::optional<CacheEntry> {
    if (problem) *problem = "the cached entry " + e.directory.string() + " was not used: " + why;
    return std::nullopt;
  };
  // Every directory and file on the way to the library must be the user's alone.
  if (!trusted_base(false) || !detail::check_trusted(e.directory.parent_path(), owner_) ||
      !detail::check_trusted(e.directory, owner_))
    return std::nullopt;
  for (const char* name : {kManifestName, kLibraryName}) detail::check_trusted(e.directory / name, owner_);
  auto text = read_file(e.directory / kManifestName);
  if (!text) return refuse("it has no readable manifest");
  if (json_limit_problem(*text)) return refuse("its manifest is corrupt");
  try {
    auto m = nlohmann::json::parse(*text);
    if (m.at("format").get<int>() != kManifestFormat) return refuse("its manifest has another format");
    if (m.at("abi").get<std::string>() != codegen::kAbiVersion) return refuse("it was built for another ABI");
    if (m.at("key").get<std::string>() != key) return refuse("its manifest names another key");
    std::error_code ec;
    auto size = fs::file_size(e.library, ec);
    if (ec) return refuse("its library is missing");
    if (size != m.at("library_size").get<std::uintmax_t>())
      return refuse("its library's size differs from its manifest's (truncated or overwritten)");
    if (detail::sha256_file_hex(e.library) != m.at("library_sha256").get<std::string>())
      return refuse("its library's SHA-256 differs from its manifest's (changed after it was built)");
  } catch (const std::exception&) {
    return refuse("its manifest or library cannot be read");
  }
  return e;
}

CacheEntry ProgramCache::get_or_build(const std::string& key, const std::function<void(const Build&)>& build,
                                      const std::string& description, bool* built,
                                      std::string* rebuilt_because) {
  if (built) *built = false;
  if (rebuilt_because) rebuilt_because->clear();
  if (auto e = lookup(key)) return *e;
  trusted_base(/*create=*/true);
  fs::path locks = base() / "locks", tmp = base() / "tmp";
  make_dirs(locks, owner_);
  make_dirs(tmp, owner_);
  FileLock lock(locks / (key + ".lock"), /*wait=*/true);
  if (auto e = lookup(key, rebuilt_because)) return *e;  // built by another thread or process meanwhile

  reclaim_stale_builds(tmp, locks, key);
  fs::path dir = entry_directory(key);
  remove_tree(dir, tmp);  // a corrupt entry
  Build b;
  b.directory = tmp / (key + "." + unique_suffix());
  make_dirs(b.directory, owner_);
  b.library = b.directory / kLibraryName;
  b.source = b.directory / kSourceName;
  try {
    build(b);
  } catch (const CompileInterrupted&) {
    // Nothing failed: no failed/ entry, and none of the build's files stay.
    std::error_code ec;
    fs::remove_all(b.directory, ec);
    throw;
  } catch (...) {
    fs::path failed = failed_directory(key);
    remove_tree(failed, tmp);
    make_dirs(failed.parent_path(), owner_);
    std::error_code ec;
    fs::rename(b.directory, failed, ec);
    if (ec) fs::remove_all(b.directory, ec);
    throw;
  }
  std::error_code ec;
  if (!fs::is_regular_file(b.library, ec)) {
    fs::remove_all(b.directory, ec);
    throw CacheError("program cache: the build of " + key + " wrote no library");
  }
  nlohmann::json m;
  m["format"] = kManifestFormat;
  m["key"] = key;
  m["abi"] = codegen::kAbiVersion;
  m["weir_version"] = WEIR_VERSION;
  m["library"] = kLibraryName;
  m["library_size"] = fs::file_size(b.library);
  m["library_sha256"] = detail::sha256_file_hex(b.library);
  try {
    m["description"] = nlohmann::json::parse(description);
  } catch (const nlohmann::json::exception&) {
    m["description"] = description;
  }
  {
    errno = 0;
    std::ofstream out(b.directory / kManifestName, std::ios::binary);
    out << m.dump(1) << "\n";
    out.close();
    if (!out)
      throw CacheError("program cache: cannot write the manifest in " + b.directory.string() +
                       (errno ? ": " + std::string(std::strerror(errno)) : ""));
  }
  // The compiler wrote with the umask's modes (0775 under umask 002): the user's alone.
  detail::make_private_tree(b.directory, b.library);
  make_dirs(dir.parent_path(), owner_);
  fs::rename(b.directory, dir, ec);
  if (ec) {
    std::error_code ec2;
    fs::remove_all(b.directory, ec2);
    throw CacheError("program cache: cannot install " + dir.string() + ": " + ec.message());
  }
  if (built) *built = true;
  return CacheEntry{key, dir, dir / kLibraryName, dir / kSourceName};
}

void ProgramCache::evict(const std::string& key) {
  if (!valid_key(key)) throw CacheError("program cache: invalid key '" + key + "'");
  fs::path locks = base() / "locks";
  make_dirs(locks, owner_);
  FileLock lock(locks / (key + ".lock"), true);
  remove_tree(entry_directory(key), base() / "tmp");
}

CacheStats ProgramCache::stats() const {
  CacheStats s;
  s.root = root_;
  std::error_code ec;
  if (!fs::is_directory(base(), ec)) return s;
  for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it.depth() == 2 &&
        (it->path().parent_path().filename() == "tmp" || it->path().parent_path().filename() == "pch")) {
      const std::string name = it->path().filename().string();
      const long pid =
          it->path().parent_path().filename() == "tmp" ? build_pid(name) : detail::stale_temporary_pid(name);
      if (process_is_gone(pid)) {
        ++s.stale_temporaries;
        for (auto f = fs::recursive_directory_iterator(it->path(), ec);
             !ec && f != fs::recursive_directory_iterator(); f.increment(ec))
          if (f->is_regular_file(ec)) s.stale_bytes += f->file_size(ec);
      }
    }
    if (it->is_regular_file(ec)) {
      s.bytes += it->file_size(ec);
      if (it->path().filename() == kManifestName &&
          it->path().parent_path().parent_path().parent_path() == base())
        ++s.entries;
    }
  }
  return s;
}

std::size_t ProgramCache::clear() {
  std::size_t n = 0;
  std::error_code ec;
  if (!fs::is_directory(base(), ec)) return 0;
  fs::path tmp = base() / "tmp", locks = base() / "locks";
  make_dirs(locks, owner_);
  for (const auto& shard : fs::directory_iterator(base(), ec)) {
    auto name = shard.path().filename().string();
    if (name.size() != 2 || !shard.is_directory()) continue;
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(shard.path(), ec)) entries.push_back(e.path());
    for (const auto& e : entries) {
      FileLock lock(locks / (e.filename().string() + ".lock"), true);
      remove_tree(e, tmp);
      ++n;
    }
    fs::remove(shard.path(), ec);  // only if empty
  }
  remove_tree(base() / "failed", tmp);
  remove_tree(base() / "pch", tmp);  // precompiled headers (prelude_pch.cpp): rebuilt on demand
  // Leftover temporaries: skip builds in progress (their key's lock is held).
  if (fs::is_directory(tmp, ec)) {
    std::vector<fs::path> left;
    for (const auto& e : fs::directory_iterator(tmp, ec)) left.push_back(e.path());
    for (const auto& p : left) {
      std::string key = p.filename().string().substr(0, p.filename().string().find('.'));
      if (p.filename().string().find(".stale.") == std::string::npos && valid_key(key)) {
        FileLock lock(locks / (key + ".lock"), /*wait=*/false);
        if (!lock.locked()) continue;
        fs::remove_all(p, ec);
      } else {
        fs::remove_all(p, ec);
      }
    }
  }
  return n;
}

}  // namespace weir::runtime
