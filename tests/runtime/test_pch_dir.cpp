// WEIR_PCH_DIR (prelude_pch_root, runtime/src/prelude_pch.h): the precompiled prelude header of
// every program cache in one directory, as scripts/test.sh runs the suites (each entry has a
// program cache of its own); without it, the header is in the program cache.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <string>

#include "../../runtime/src/prelude_pch.h"  // internal: where the header is kept
#include "runtime_test_util.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"

namespace fs = std::filesystem;
using namespace weir::runtime;

namespace {

// WEIR_PCH_DIR as this test sets it, restored afterwards (scripts/test.sh exports it).
class PchDir {
 public:
  PchDir() {
    if (const char* v = std::getenv("WEIR_PCH_DIR")) saved_ = v;
  }
  PchDir(const PchDir&) = delete;
  PchDir& operator=(const PchDir&) = delete;
  ~PchDir() {
    if (saved_)
      ::setenv("WEIR_PCH_DIR", saved_->c_str(), 1);
    else
      ::unsetenv("WEIR_PCH_DIR");
  }
  static void set(const fs::path& dir) { ::setenv("WEIR_PCH_DIR", dir.c_str(), 1); }
  static void unset() { ::unsetenv("WEIR_PCH_DIR"); }

 private:
  std::optional<std::string> saved_;
};

// The precompiled headers under `root` (<root>/v1/pch/<key>/ with its .gch), temporaries not
// counted.
int headers_under(const fs::path& root) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root / "v1" / "pch", ec))
    if (e.path().filename().string().find('.') == std::string::npos &&
        fs::is_regular_file(e.path() / "weir_prelude.h.gch"))
      ++n;
  return n;
}

CompilationArtifact compile_into(const fs::path& cache) {
  CompilerSettings s;
  s.flags = {"-std=c++17", "-O0"};
  s.precompiled_header = true;
  CompiledBackend backend("cpu-quick", Allocator{}, make_cpu_compiler(s, cache));
  return compile(backend, weir::test::corpus_program("hdiff", "simplified"));
}

}  // namespace

TEST_CASE("cache: WEIR_PCH_DIR keeps one precompiled prelude header for every program cache",
          "[runtime][cache]") {
  PchDir restore;
  PchDir::unset();  // scripts/test.sh sets it
  CHECK(detail::prelude_pch_root("/some/cache") == "/some/cache");
  PchDir::set("");  // empty: off, as unset
  CHECK(detail::prelude_pch_root("/some/cache") == "/some/cache");
  PchDir::set("/shared/pch");
  CHECK(detail::prelude_pch_root("/some/cache") == "/shared/pch");

  // Unset: the header is built into the program's own cache.
  PchDir::unset();
  const fs::path own = weir::test::fresh_cache("pch-dir-own");
  REQUIRE_FALSE(compile_into(own).cache_hit);
  if (headers_under(own) == 0) return;  // not GCC: no precompiled header (prelude_pch.h)
  CHECK(headers_under(own) == 1);

  // Set: two program caches, one header, built once in the shared directory and not in theirs.
  const fs::path shared = weir::test::scratch_dir("runtime-pch-dir-shared");
  PchDir::set(shared);
  const fs::path a = weir::test::fresh_cache("pch-dir-a"), b = weir::test::fresh_cache("pch-dir-b");
  CHECK_FALSE(compile_into(a).cache_hit);
  REQUIRE(headers_under(shared) == 1);
  fs::path gch;
  for (const auto& e : fs::directory_iterator(shared / "v1" / "pch"))
    if (fs::is_regular_file(e.path() / "weir_prelude.h.gch")) gch = e.path() / "weir_prelude.h.gch";
  const auto built = fs::last_write_time(gch);
  CHECK_FALSE(compile_into(b).cache_hit);  // b's own build, with a's header
  CHECK(fs::last_write_time(gch) == built);
  CHECK(headers_under(shared) == 1);
  CHECK(headers_under(a) == 0);
  CHECK(headers_under(b) == 0);
  CHECK_FALSE(fs::exists(a / "v1" / "pch"));
  CHECK_FALSE(fs::exists(b / "v1" / "pch"));
}
