// Opening the files weir reads (SDFG files, .npy arguments): regular files only, found out
// without blocking. Opening a FIFO for reading waits for a writer (forever, with none), and a
// device such as /dev/zero never ends; weir refuses both before reading (docs/security.md).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace weir {

/// An input file opened for reading, or why not.
struct InputFile {
  /// The open file descriptor (blocking mode, close-on-exec), -1 on failure. The caller closes it.
  int fd = -1;
  /// The file's size in bytes (fstat's st_size) when it opened.
  std::size_t size = 0;
  /// The path names a directory (callers say what they expected instead).
  bool directory = false;
  /// Why it cannot be read, for "PATH: cannot open: WHY" (strerror's text, or "a FIFO (named
  /// pipe), not a regular file", ...); empty on success and for a directory.
  std::string error;
};

/// Opens `path` (a symbolic link to a regular file is one) as an input file. Never blocks: the
/// file is opened with O_NONBLOCK, its type checked with fstat, and only then put back into
/// blocking mode.
InputFile open_input_file(const std::string& path);

/// While one lives, the files a command reads are its inputs, and no output replaces them
/// (docs/adr/0038-private-cache-and-atomic-outputs.md, "session 30"): every file opened by
/// open_input_file() (SDFG files, `.py` sources and the modules they import, `.npy` arguments)
/// and every file given to protect_input_file() is remembered by device and inode, and
/// AtomicOutput refuses to replace one ("it is the input file X this command read"). `weir`'s
/// run_cli opens one scope per command; library use (Python) opens none, so a session may save
/// over a file it loaded, as DaCe's SDFG.save does. Scopes do not nest (an inner one is inert).
class ProtectedInputs {
 public:
  ProtectedInputs();
  ~ProtectedInputs();
  ProtectedInputs(const ProtectedInputs&) = delete;
  ProtectedInputs& operator=(const ProtectedInputs&) = delete;

 private:
  bool owner_ = false;
};

/// Whether a ProtectedInputs scope is open (callers skip collecting inputs when not).
bool inputs_protected();

/// Remembers `path` as an input of the command when a scope is open and it names an existing
/// file (links followed); otherwise does nothing. Never throws.
void protect_input_file(const std::filesystem::path& path);

/// The path under which the protected input that `path` is (same device and inode) was
/// remembered; empty when `path` is none of them or no scope is open.
std::string protected_input(const std::filesystem::path& path);

/// A size limit on what weir reads, in bytes: the environment variable `env_var` when it holds
/// a positive decimal integer (WEIR_MAX_SDFG_BYTES, WEIR_MAX_SOURCE_BYTES), else `fallback`.
std::size_t byte_limit(const char* env_var, std::size_t fallback);

}  // namespace weir
