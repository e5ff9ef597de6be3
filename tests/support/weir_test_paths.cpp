#include "weir_test_paths.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace weir::test {

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "weir tests: %s\n", message.c_str());
  std::exit(2);
}

// The first weir_test_paths.txt in the test executable's directory or one above it (the build
// tree's top: build/tests/weir_*_tests, build/bench/weir_bench_tests).
std::filesystem::path paths_file() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) die("cannot locate the test executable (/proc/self/exe): " + ec.message());
  for (auto dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / "weir_test_paths.txt")) return dir / "weir_test_paths.txt";
    if (dir == dir.parent_path()) break;
  }
  die("no weir_test_paths.txt beside " + exe.string() +
      " or in a folder above it (cmake's configure step writes it into the build tree)");
}

const std::map<std::string, std::string>& paths() {
  static const std::map<std::string, std::string> table = [] {
    auto file = paths_file();
    std::ifstream in(file);
    if (!in) die("cannot read " + file.string());
    std::map<std::string, std::string> t;
    std::string line;
    while (std::getline(in, line)) {
      auto eq = line.find('=');
      if (eq != std::string::npos) t[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return t;
  }();
  return table;
}

}  // namespace

const char* test_path(const char* key) {
  const auto& t = paths();
  auto it = t.find(key);
  if (it == t.end()) die(std::string("no '") + key + "' in " + paths_file().string());
  return it->second.c_str();
}

}  // namespace weir::test
