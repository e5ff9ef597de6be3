#include "corpus.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace weir::test {

namespace {

// ../shared beside the checkout; a git worktree one level deeper (wt/<name>) finds it one
// folder further up; WEIR_SHARED_DIR overrides both.
std::filesystem::path corpus_dir(const std::string& name) {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("WEIR_SHARED_DIR")) candidates.emplace_back(env);
  auto src = std::filesystem::path(WEIR_SOURCE_DIR);
  candidates.push_back(src / ".." / "shared");
  candidates.push_back(src / ".." / ".." / "shared");
  for (const auto& c : candidates)
    if (std::filesystem::is_directory(c / "corpus" / name))
      return std::filesystem::canonical(c / "corpus" / name);
  FAIL("the corpus '" << name << "' is missing: expected it at "
                      << (candidates.front() / "corpus" / name).string() << " (../shared/corpus/" << name
                      << " beside the repository, or $WEIR_SHARED_DIR/corpus/" << name << ")");
  return {};
}

}  // namespace

std::filesystem::path dace_corpus_dir() { return corpus_dir("dace"); }

std::filesystem::path npbench_corpus_dir() { return corpus_dir("npbench"); }

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

std::filesystem::path shared_cache_dir(const std::string& name) {
  auto dir = std::filesystem::path(WEIR_BINARY_DIR) / "test-scratch" / "shared-caches" / name;
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace weir::test
