// Where a command's output file goes when it is not a plain file: `-o /dev/stdout`,
// `-o /dev/null`, a FIFO. Output files are written atomically (a temporary file renamed over
// the target), which would replace such a target itself (the /dev/stdout symlink, the
// /dev/null device) with a regular file; these are written through instead.
#pragma once

#include <filesystem>

namespace weir {

/// Whether `target` exists and is not a regular file (a symbolic link, device, FIFO or socket):
/// writers open it and write through it rather than renaming a temporary file over it.
bool write_through(const std::filesystem::path& target);

}  // namespace weir
