#include "weir/sdfg/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "weir/sdfg/input_file.h"

namespace weir {
namespace fs = std::filesystem;

namespace {

std::atomic<detail::OutputWriteHook> g_write_hook{nullptr};

constexpr int kMaxLinks = 40;  // as the kernel's limit on a path's symbolic links (ELOOP)

// Whether `p` names an open file of the process: /dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N (a terminal, a pipe, or a file the shell opened, whose other writers keep
// their descriptors). They are written through; so is everything under /proc. Regular files
// elsewhere under /dev (/dev/shm) are replaced like any other.
bool special_path(const fs::path& p) {
  const std::string s = p.lexically_normal().string();
  return s == "/dev/stdout" || s == "/dev/stderr" || s.rfind("/dev/fd/", 0) == 0 || s.rfind("/proc/", 0) == 0;
}

// The temporaries of `name` are ".<name>.weir-tmp.<pid>.<n>".
std::string temp_prefix(const std::string& name) { return "." + name + ".weir-tmp."; }

// Removes temporaries of `name` in `dir` whose writer is gone: their flock is free (a living
// writer holds it until it renames or removes the file) and their process does not exist.
void remove_stale_temporaries(const fs::path& dir, const std::string& name) {
  const std::string prefix = temp_prefix(name);
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!d) return;
  std::vector<std::string> found;
  while (const dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > prefix.size() && n.compare(0, prefix.size(), prefix) == 0) found.push_back(n);
  }
  ::closedir(d);
  for (const std::string& n : found) {
    const std::string rest = n.substr(prefix.size());
    const long pid = std::strtol(rest.c_str(), nullptr, 10);
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)) continue;  // alive
    const fs::path p = dir / n;
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0)
      ::unlink(p.c_str());
    ::close(fd);
  }
}

}  // namespace

void detail::set_output_write_hook(OutputWriteHook hook) { g_write_hook.store(hook); }

AtomicOutput::AtomicOutput(fs::path path) : path_(std::move(path)), final_(path_) {
  // Follow the chain of symbolic links to the file finally written.
  bool through = special_path(path_);
  struct stat st {};
  bool exists = false;
  for (int hops = 0; !through; ++hops) {
    if (::lstat(final_.c_str(), &st) != 0) {
      if (errno != ENOENT) fail(std::strerror(errno));
      break;  // a new file (or a dangling link's target)
    }
    if (!S_ISLNK(st.st_mode)) {
      exists = true;
      break;
    }
    if (hops == kMaxLinks) fail(std::strerror(ELOOP));
    std::error_code ec;
    fs::path next = fs::read_symlink(final_, ec);
    if (ec) fail(ec.message());
    final_ = next.is_absolute() ? next : final_.parent_path() / next;
    through = special_path(final_);
  }
  if (exists && S_ISDIR(st.st_mode)) fail("it is a directory");
  // Never over a file the command read (its source, the SDFG's source, an argument).
  if (exists && S_ISREG(st.st_mode))
    if (const std::string in = protected_input(final_); !in.empty())
      fail("it is the input file " + in + " this command read; choose another output file");
  through_ = through || (exists && !S_ISREG(st.st_mode));
  if (through_) {
    const std::string s = final_.lexically_normal().string();
    if (s == "/dev/stdout" || s == "/dev/stderr") {
      // The process's own stream (a file the shell opened keeps its offset and earlier text).
      fd_ = ::fcntl(s == "/dev/stdout" ? 1 : 2, F_DUPFD_CLOEXEC, 3);
    } else {
      fd_ = ::open(path_.c_str(),
                   O_WRONLY | O_CLOEXEC | O_NOCTTY | O_CREAT | (exists && S_ISREG(st.st_mode) ? O_TRUNC : 0),
                   0666);
    }
    if (fd_ < 0) fail(std::strerror(errno));
    return;
  }
  const fs::path dir = final_.parent_path();
  const std::string name = final_.filename().string();
  remove_stale_temporaries(dir, name);
  static std::atomic<unsigned> counter{0};
  temp_ = dir / (temp_prefix(name) + std::to_string(::getpid()) + "." + std::to_string(counter++));
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd_ < 0) {
    const int err = errno;
    temp_.clear();
    fail(err == ENOENT ? std::string("no such directory") : std::strerror(err));
  }
  // Locked while this process lives: a later writer removes the file only once the lock is free.
  ::flock(fd_, LOCK_EX | LOCK_NB);
  // The replaced file keeps its permissions (a new one gets 0666 less the umask).
  if (exists) ::fchmod(fd_, st.st_mode & 07777);
}

AtomicOutput::AtomicOutput(AtomicOutput&& other) noexcept
    : path_(std::move(other.path_)),
      final_(std::move(other.final_)),
      temp_(std::move(other.temp_)),
      fd_(std::exchange(other.fd_, -1)),
      through_(other.through_),
      committed_(std::exchange(other.committed_, true)) {
  other.temp_.clear();
}

AtomicOutput::~AtomicOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicOutput::fail(const std::string& why) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  committed_ = true;  // nothing left to clean up
  throw OutputFileError(path_, why);
}

void AtomicOutput::write(std::string_view bytes) {
  if (fd_ < 0) fail("the file is closed");
  detail::OutputWriteHook hook = g_write_hook.load();
  while (!bytes.empty()) {
    const ssize_t n = hook ? hook(fd_, bytes.data(), bytes.size()) : ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(std::strerror(errno));
    }
    if (n == 0) fail(std::strerror(ENOSPC));  // a write of nothing: no room for more
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicOutput::commit() {
  if (fd_ < 0) fail("the file is closed");
  if (!through_ && ::fsync(fd_) != 0) fail(std::strerror(errno));
  const int fd = std::exchange(fd_, -1);
  // Errors of delayed writes (NFS, a full disk) can show up only at close.
  if (::close(fd) != 0 && errno != EINTR) fail(std::strerror(errno));
  if (!through_ && ::rename(temp_.c_str(), final_.c_str()) != 0) fail(std::strerror(errno));
  temp_.clear();
  committed_ = true;
}

void write_file_atomically(const fs::path& path, std::string_view bytes) {
  AtomicOutput out(path);
  out.write(bytes);
  out.commit();
}

}  // namespace weir
