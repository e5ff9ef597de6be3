// Reading field-view source files: regular files only (never blocks on a FIFO, never reads a
// device forever) and no larger than the limit, checked before reading (docs/security.md).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "module_loader_internal.h"
#include "weir/sdfg/input_file.h"

namespace weir::frontend {

std::size_t max_source_bytes() { return byte_limit("WEIR_MAX_SOURCE_BYTES", kDefaultMaxSourceBytes); }

pycode::SourceFile read_source_file(const std::string& path) {
  InputFile in = open_input_file(path);
  if (in.directory) throw weir::Error(path + ": is a directory, not a .py file");
  if (in.fd < 0) throw weir::Error(path + ": cannot open: " + in.error);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{in.fd};
  const std::size_t limit = max_source_bytes();
  if (in.size > limit)
    throw weir::Error(path + ": size " + std::to_string(in.size) + " bytes exceeds the limit of " +
                      std::to_string(limit) +
                      " bytes for a source file (set WEIR_MAX_SOURCE_BYTES to raise it)");
  std::string text(in.size, '\0');
  std::size_t have = 0;
  while (have < text.size()) {
    const ssize_t n = ::read(in.fd, text.data() + have, text.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw weir::Error(path + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;  // shrank while read: what is there
    have += static_cast<std::size_t>(n);
  }
  text.resize(have);
  return pycode::SourceFile(path, text);
}

}  // namespace weir::frontend
