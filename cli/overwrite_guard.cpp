#include "overwrite_guard.h"

#include <sys/stat.h>

#include "targets.h"

namespace weir::cli {

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  struct stat sa = {}, sb = {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void refuse_overwriting_input(const std::string& given, const std::filesystem::path& written,
                              const std::vector<std::filesystem::path>& inputs, const std::string& noun) {
  for (const auto& in : inputs)
    if (same_file(written, in))
      throw UsageError(given + ": would overwrite the input file " + in.string() +
                       "; choose another output " + noun);
}

void refuse_python_source_output(const std::string& given, const std::filesystem::path& written,
                                 const std::string& what) {
  if (written.extension() == ".py")
    throw UsageError(given + ": a .py file holds Python source; write the " + what + " to another file");
}

void refuse_unwritable_output(const std::string& given, const std::filesystem::path& written) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(written, ec))
    throw UsageError(given + ": is a directory; give a file name (" + (written / "NAME").string() + ")");
  const fs::path dir = written.has_parent_path() ? written.parent_path() : fs::path(".");
  if (!fs::exists(dir, ec))
    throw UsageError(given + ": no such directory '" + dir.string() + "' (weir creates no folders for it)");
  if (!fs::is_directory(dir, ec)) throw UsageError(given + ": '" + dir.string() + "' is not a directory");
}

}  // namespace weir::cli
