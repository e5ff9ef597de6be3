// Locating ../shared/corpus for tests. A missing corpus is a test failure, never a silent pass.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace weir::test {

/// `<repo>/../shared/corpus/dace` (or `$WEIR_SHARED_DIR/corpus/dace`); FAILs the current test if it does not
/// exist.
std::filesystem::path dace_corpus_dir();
/// `<repo>/../shared/corpus/npbench` (npbench kernels as DaCe writes them, with NumPy's
/// results); FAILs the current test if it does not exist.
std::filesystem::path npbench_corpus_dir();
/// Every `.sdfg` file under the DaCe corpus, sorted; FAILs if none.
std::vector<std::filesystem::path> dace_corpus_files();
/// Reads a whole file; FAILs if it cannot.
std::string read_text(const std::filesystem::path& p);
/// A fresh empty directory under the build tree for a test's outputs. Wiped on each call: never
/// give two test cases the same name (ctest runs test cases as parallel processes).
std::filesystem::path scratch_dir(const std::string& name);
/// A program cache directory under the build tree that test processes running in parallel share
/// and that is never wiped (wiping it from one process removed another's build mid-link): the
/// cache locks its entries, and its keys are hashes of the generated code.
std::filesystem::path shared_cache_dir(const std::string& name);

}  // namespace weir::test
