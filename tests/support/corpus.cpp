#include "corpus.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

namespace weir::test {

std::filesystem::path dace_corpus_dir() {
  auto dir = std::filesystem::path(WEIR_SOURCE_DIR) / ".." / "shared" / "corpus" / "dace";
  if (!std::filesystem::is_directory(dir))
    FAIL("the DaCe corpus is missing: expected it at " << dir.string()
                                                        << " (../shared/corpus/dace beside the repository)");
  return std::filesystem::canonical(dir);
}

std::vector<std::filesystem::path> dace_corpus_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dace_corpus_dir()))
    if (e.is_regular_file() && e.path().extension() == ".sdfg") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) FAIL("no .sdfg files in " << dace_corpus_dir().string());
  return files;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) FAIL("cannot read " << p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::path(WEIR_BINARY_DIR) / "test-scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace weir::test
