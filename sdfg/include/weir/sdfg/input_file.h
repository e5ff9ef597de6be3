// Opening the files weir reads (SDFG files, .npy arguments): regular files only, found out
// without blocking. Opening a FIFO for reading waits for a writer (forever, with none), and a
// device such as /dev/zero never ends; weir refuses both before reading (docs/security.md).
#pragma once

#include <cstddef>
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

/// A size limit on what weir reads, in bytes: the environment variable `env_var` when it holds
/// a positive decimal integer (WEIR_MAX_SDFG_BYTES, WEIR_MAX_SOURCE_BYTES), else `fallback`.
std::size_t byte_limit(const char* env_var, std::size_t fallback);

}  // namespace weir
