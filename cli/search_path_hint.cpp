// Missing modules in `weir`'s messages (search_path_hint.h).
#include "search_path_hint.h"

#include <cctype>
#include <filesystem>

#include "targets.h"

namespace weir::cli {

namespace fs = std::filesystem;

namespace {

// The file of a located message "FILE.py:LINE:COL: ...", or "".
fs::path located_file(const std::string& message) {
  auto py = message.find(".py:");
  if (py == std::string::npos || py + 4 >= message.size() ||
      !std::isdigit(static_cast<unsigned char>(message[py + 4])))
    return {};
  return message.substr(0, py + 3);
}

// `dir` as the user would type it: relative to the working directory when below it (and the
// working directory is not the root, from where a relative path only reads oddly).
std::string shown(const fs::path& dir) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (ec || cwd == cwd.root_path()) return dir.string();
  fs::path rel = dir.lexically_relative(cwd);
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return dir.string();
}

// The folder above `file` that holds the package or module `top` (the import root to add).
std::string import_root(const std::string& top, const fs::path& file) {
  std::error_code ec, probe;  // (a probe of a path that does not exist sets its error code)
  fs::path dir = fs::weakly_canonical(fs::absolute(file, ec), ec).parent_path();
  for (int up = 0; up < 32 && !ec && !dir.empty(); ++up) {
    if (fs::is_directory(dir / top, probe) || fs::is_regular_file(dir / (top + ".py"), probe))
      return shown(dir);
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return "";
}

}  // namespace

std::string missing_module(const std::string& message) {
  const std::string key = "no module '";
  auto at = message.find(key);
  if (at == std::string::npos) return "";
  auto end = message.find('\'', at + key.size());
  if (end == std::string::npos) return "";
  return message.substr(at + key.size(), end - at - key.size());
}

std::string with_search_path_hint(const std::string& message, std::size_t errors) {
  std::string module = missing_module(message);
  if (module.empty() && message.find("not on the search path") == std::string::npos) return message;
  std::string text = message;
  if (!module.empty())
    text = "module '" + module + "' not found" +
           (errors > 1 ? " (" + std::to_string(errors) + " errors come from it; the first:)" : "") + "\n  " +
           message;
  // A top-level package missing from every root: a folder above the importing file may hold
  // it (a file run from inside its own package). A missing submodule is not a -I problem.
  std::string root;
  if (!module.empty() && module.find('.') == std::string::npos &&
      message.find("no module '" + module + "' in ") != std::string::npos)
    root = import_root(module, located_file(message));
  if (!root.empty())
    return text + "\n  hint: add -I " + root + " (it holds '" + module + "'), or list " + root +
           " in WEIR_PATH";
  return text +
         "\n  hint: add the directory that holds the module (the folder above its top package) with -I DIR, "
         "or list it in WEIR_PATH";
}

std::string with_search_path_hint(const std::string& message) { return with_search_path_hint(message, 1); }

}  // namespace weir::cli
