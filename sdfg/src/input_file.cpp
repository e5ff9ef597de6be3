#include "weir/sdfg/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace weir {
namespace {

// The inputs of the running command: (device, inode) -> the path it was read under.
struct Registry {
  std::mutex mutex;
  bool open = false;
  std::map<std::pair<dev_t, ino_t>, std::string> files;
};

Registry& registry() {
  static Registry r;
  return r;
}

void remember(const struct stat& st, const std::string& path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.open) r.files.emplace(std::make_pair(st.st_dev, st.st_ino), path);
}

}  // namespace

ProtectedInputs::ProtectedInputs() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  owner_ = !r.open;
  r.open = true;
}

ProtectedInputs::~ProtectedInputs() {
  if (!owner_) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.open = false;
  r.files.clear();
}

bool inputs_protected() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.open;
}

void protect_input_file(const std::filesystem::path& path) {
  struct stat st {};
  if (!path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) remember(st, path.string());
}

std::string protected_input(const std::filesystem::path& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return {};
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.files.find({st.st_dev, st.st_ino});
  return it == r.files.end() ? std::string() : it->second;
}

InputFile open_input_file(const std::string& path) {
  InputFile f;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    f.directory = errno == EISDIR;
    if (!f.directory) f.error = std::strerror(errno);
    return f;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    f.error = std::strerror(errno);
    ::close(fd);
    return f;
  }
  if (!S_ISREG(st.st_mode)) {
    f.directory = S_ISDIR(st.st_mode);
    if (!f.directory)
      f.error = std::string(S_ISFIFO(st.st_mode)   ? "a FIFO (named pipe)"
                            : S_ISCHR(st.st_mode)  ? "a character device"
                            : S_ISBLK(st.st_mode)  ? "a block device"
                            : S_ISSOCK(st.st_mode) ? "a socket"
                                                   : "a special file") +
                ", not a regular file";
    ::close(fd);
    return f;
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    f.error = std::strerror(errno);
    ::close(fd);
    return f;
  }
  f.fd = fd;
  f.size = static_cast<std::size_t>(st.st_size);
  remember(st, path);
  return f;
}

std::size_t byte_limit(const char* env_var, std::size_t fallback) {
  const char* env = std::getenv(env_var);
  if (env && *env) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (errno == 0 && end && *end == '\0' && v > 0) return static_cast<std::size_t>(v);
  }
  return fallback;
}

}  // namespace weir
