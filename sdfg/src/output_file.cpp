#include "weir/sdfg/output_file.h"

namespace weir {

bool write_through(const std::filesystem::path& target) {
  std::error_code ec;
  auto s = std::filesystem::symlink_status(target, ec);
  return !ec && std::filesystem::exists(s) && !std::filesystem::is_regular_file(s) &&
         !std::filesystem::is_directory(s);
}

}  // namespace weir
