// Writing the files weir outputs (`-o`, `--html`, `--out`/`--out-dir` tables, `--emit-cpp`)
// without ever leaving a user's file half written (docs/adr/0038-private-cache-and-atomic-outputs.md).
//
// A regular file is replaced atomically: the bytes go to a temporary file beside the file that
// is finally written, then that temporary is renamed over it. When the path is a symbolic link
// (or a chain of them) the temporary is made beside the link's *target* and renamed there, so
// the link stays a link and its target is replaced whole or not at all, also on a full disk or
// when weir is killed. Devices, FIFOs, sockets and everything under /dev and /proc
// (`-o /dev/stdout`, `/dev/null`) are opened and written through instead.
//
// Temporaries are named `.<NAME>.weir-tmp.<pid>.<n>` and locked (flock) while their writer
// lives; one that a killed writer left behind (its lock free, its process gone) is removed by the
// next write of the same NAME in that directory.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "weir/pycode/error.h"

namespace weir {

/// An output file could not be written: "cannot write 'PATH': REASON".
class OutputFileError : public Error {
 public:
  OutputFileError(const std::filesystem::path& path, std::string reason)
      : Error("cannot write '" + path.string() + "': " + reason), reason_(std::move(reason)) {}
  /// Why, without the path: the system's reason (strerror) or "it is a directory", ...
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

/// One output file being written. Errors throw OutputFileError "cannot write 'PATH': WHY" with the
/// system's reason (strerror: "No space left on device", "Permission denied", ...); PATH is the
/// path as given. Until commit() nothing visible changes (except through a device or FIFO);
/// destroying an uncommitted AtomicOutput removes its temporary file.
class AtomicOutput {
 public:
  /// Resolves `path` (symbolic links followed to their final target, at most 40), removes stale
  /// temporaries of that target and creates a new one, or opens a device/FIFO for writing.
  /// Throws when the path is a directory, a link chain loops, or the directory of the final
  /// target is missing or not writable.
  explicit AtomicOutput(std::filesystem::path path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  AtomicOutput(AtomicOutput&& other) noexcept;
  AtomicOutput& operator=(AtomicOutput&&) = delete;

  /// Appends `bytes` (all of them, or throws).
  void write(std::string_view bytes);
  /// Flushes the file to disk and renames the temporary over the final target (or closes the
  /// device). Throws on failure, leaving the target as it was.
  void commit();

  /// The path as given.
  const std::filesystem::path& path() const { return path_; }
  /// The file that is finally replaced (`path` with its symbolic links resolved).
  const std::filesystem::path& final_target() const { return final_; }
  /// Whether the output is written through (a device, FIFO, socket, /dev or /proc path).
  bool written_through() const { return through_; }

 private:
  [[noreturn]] void fail(const std::string& why);
  std::filesystem::path path_, final_, temp_;
  int fd_ = -1;
  bool through_ = false, committed_ = false;
};

/// Writes `bytes` to `path` with an AtomicOutput (see there; throws OutputFileError).
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

namespace detail {
/// For tests: replaces ::write for AtomicOutput::write (nullptr restores it), so that a test can
/// make a write into a temporary file fail (ENOSPC) or stop its process half way.
using OutputWriteHook = ssize_t (*)(int fd, const void* data, std::size_t size);
void set_output_write_hook(OutputWriteHook hook);
}  // namespace detail

}  // namespace weir
