// Helpers for the module loader and type checker tests.
#pragma once

#include <filesystem>

#include "frontend_test_util.h"
#include "gt4py_prelude.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"

namespace weir::frontend::test {

/// Declarations every type-checking snippet starts with (10 lines).
inline const std::string kPrelude = std::string(
                                        "import gt4py.next as gtx\n"
                                        "from gt4py.next import Field, float64, float32, int32, int64, "
                                        "neighbor_sum, where, broadcast, astype\n") +
                                    weir::test::kGt4pyDimensions;

/// Loads `text` as module "test.py" and checks every definition; returns the signatures, one
/// per line.
inline std::string check_text(const std::string& text) {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_source(SourceFile("test.py", text));
  TypeChecker checker;
  std::string out;
  for (const TypedDefinition* d : checker.check_module(m)) out += signature(*d) + "\n";
  return out;
}

inline std::string example_path(const std::string& rel) {
  return std::string(WEIR_SOURCE_DIR) + "/examples/" + rel;
}

/// A fresh temporary directory (removed by the destructor).
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    path = std::filesystem::temp_directory_path() /
           ("weir_fe_" + tag + "_" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::path p = path / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  std::string str(const std::string& rel = {}) const { return (path / rel).string(); }
};

}  // namespace weir::frontend::test
