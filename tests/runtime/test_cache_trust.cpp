// The program cache trusts nothing another user could have written (docs/security.md): a root
// or entry writable by group or others, or owned by another user, is refused with what to do;
// what weir creates is private; a library whose SHA-256 differs from its manifest's is rebuilt
// and said to be; a truncated or changed precompiled prelude header is rebuilt instead of breaking
// compiles.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "../../runtime/src/prelude_pch.h"  // internal: precompiled with a small header
#include "runtime_test_util.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_cache.h"

namespace fs = std::filesystem;
using namespace weir::runtime;

namespace {

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::unique_ptr<CompiledBackend> quick_backend(bool pch = false) {
  CompilerSettings s;
  s.flags = {"-std=c++17", "-O0"};
  s.precompiled_header = pch;
  return std::make_unique<CompiledBackend>("cpu-quick", Allocator{}, make_cpu_compiler(s));
}

std::string write_library(const ProgramCache::Build& b) {
  std::ofstream(b.library) << "library bytes";
  return {};
}

}  // namespace

TEST_CASE("cache: a root or entry writable by group or others is refused with what to do",
          "[runtime][cache]") {
  auto root = weir::test::fresh_cache("trust-mode");
  const std::string key(64, 'a');
  for (unsigned mode : {0777u, 0770u, 0757u}) {
    REQUIRE(::chmod(root.c_str(), mode) == 0);
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", mode);
    const std::string message = "program cache: refusing to use " + root.string() +
                                ": it is writable by its group or by others (mode " + octal +
                                "); whoever can write there could plant code that weir would run. Run "
                                "'chmod go-w " +
                                root.string() + "'";
    CHECK_THROWS_WITH(ProgramCache(root).lookup(key), message);
    CHECK_THROWS_WITH(ProgramCache(root).get_or_build(key, write_library), message);
    CHECK_THROWS_AS(compile(*quick_backend(), weir::test::corpus_program("hdiff", "simplified")), CacheError);
  }
  REQUIRE(::chmod(root.c_str(), 0700) == 0);
  ProgramCache cache(root);
  auto e = cache.get_or_build(key, write_library);
  REQUIRE(cache.lookup(key));
  // A file or directory of an entry: refused as well (never loaded).
  REQUIRE(::chmod(e.library.c_str(), 0722) == 0);
  CHECK_THROWS_WITH(cache.lookup(key),
                    Catch::StartsWith("program cache: refusing to use " + e.library.string() +
                                      ": it is writable by its group or by others (mode 0722)"));
  REQUIRE(::chmod(e.library.c_str(), 0700) == 0);
  REQUIRE(::chmod(e.directory.c_str(), 0775) == 0);
  CHECK_THROWS_WITH(cache.lookup(key), Catch::Contains("refusing to use " + e.directory.string()));
  REQUIRE(::chmod(e.directory.c_str(), 0700) == 0);
  // A symbolic link planted as an entry's file.
  fs::remove(e.library);
  fs::create_symlink("/bin/true", e.library);
  CHECK_THROWS_WITH(cache.lookup(key), Catch::Contains("it is a symbolic link"));
}

TEST_CASE("cache: a cache that belongs to another user is refused", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("trust-owner");
  const uid_t me = ::geteuid(), other = me + 4242;
  const std::string key(64, 'b');
  ProgramCache(root).get_or_build(key, write_library);
  // The same directory seen by another user (the owner check takes the uid to compare with).
  const std::string why =
      "program cache: refusing to use " + root.string() + ": it belongs to uid " + std::to_string(me) +
      ", not to you (uid " + std::to_string(other) +
      "); whoever can write there could plant code that weir would run. Remove it, or set "
      "WEIR_CACHE_DIR to a directory of your own";
  CHECK_THROWS_WITH(ProgramCache(root, other).lookup(key), why);
  CHECK_THROWS_WITH(ProgramCache(root, other).get_or_build(key, write_library), why);
  // A directory root owns is another user's for everyone else.
  if (me != 0) CHECK_THROWS_WITH(ProgramCache("/").lookup(key), Catch::Contains("it belongs to uid 0"));
  CHECK(ProgramCache(root, me).lookup(key));
  // The root may be a link of the user's own to the cache, not another user's (who could point
  // it elsewhere); only root can make a link another user's.
  const fs::path link = root.parent_path() / "runtime-cache-trust-owner-link";
  fs::remove(link);
  fs::create_symlink(root, link);
  CHECK(ProgramCache(link).lookup(key));
  if (me == 0) {
    REQUIRE(::lchown(link.c_str(), 4242, static_cast<gid_t>(-1)) == 0);
    CHECK_THROWS_WITH(
        ProgramCache(link).lookup(key),
        Catch::StartsWith("program cache: refusing to use " + link.string() +
                          ": it is a symbolic link that belongs to uid 4242, not to you (uid 0)"));
  }
}

TEST_CASE("cache: a root whose parent someone else can change is refused", "[runtime][cache]") {
  // Whoever can rename entries of a directory above the cache can put a cache of their own in its
  // place between weir's checks and its loads.
  auto base = weir::test::fresh_cache("trust-parent");
  const fs::path parent = base / "shared", root = parent / "cache";
  fs::create_directories(root);
  const uid_t me = ::geteuid();
  const std::string key(64, 'e');
  ::chmod(root.c_str(), 0700);
  auto refusal = [&](const std::string& why) {
    return "program cache: refusing to use " + root.string() + ": the directory above it " + parent.string() +
           " " + why +
           ", so someone else could replace the cache with one of their own. Set WEIR_CACHE_DIR to a "
           "directory "
           "that only you (and root) can change the parents of, such as the default ~/.cache/weir";
  };
  REQUIRE(::chmod(parent.c_str(), 0777) == 0);
  CHECK_THROWS_WITH(ProgramCache(root).lookup(key),
                    refusal("is writable by its group or by others without the sticky bit (mode 0777)"));
  CHECK_THROWS_WITH(ProgramCache(root).get_or_build(key, write_library),
                    refusal("is writable by its group or by others without the sticky bit (mode 0777)"));
  // Through a link to the root, the directory it resolves to is checked as well.
  const fs::path link = base / "link-to-cache";
  fs::remove(link);
  fs::create_symlink(root, link);
  CHECK_THROWS_WITH(ProgramCache(link).lookup(key),
                    Catch::Contains("the directory above it " + parent.string()));
  // The sticky bit (as /tmp has) keeps others from renaming the user's directory.
  REQUIRE(::chmod(parent.c_str(), 01777) == 0);
  bool built = false;
  ProgramCache(root).get_or_build(key, write_library, "{}", &built);
  CHECK(built);
  CHECK(ProgramCache(root).lookup(key));
  REQUIRE(::chmod(parent.c_str(), 0755) == 0);
  CHECK(ProgramCache(root).lookup(key));
  // A parent that belongs to another user: refused for a user (uid 4242 owning the cache; only
  // root can chown here). Root itself may run in a tree another uid owns (a container's volume).
  if (me == 0) {
    REQUIRE(::chown(parent.c_str(), 4243, static_cast<gid_t>(-1)) == 0);
    CHECK(ProgramCache(root).lookup(key));
    for (const fs::path& p : {root, root / "v1"})
      REQUIRE(::chown(p.c_str(), 4242, static_cast<gid_t>(-1)) == 0);
    CHECK_THROWS_WITH(ProgramCache(root, 4242).lookup(key),
                      refusal("belongs to uid 4243, not to you (uid 4242) or root"));
    for (const fs::path& p : {parent, root, root / "v1"})
      REQUIRE(::chown(p.c_str(), 0, static_cast<gid_t>(-1)) == 0);
  }
}

TEST_CASE("cache: what the cache creates is private to the user", "[runtime][cache]") {
  auto root = weir::test::scratch_dir("runtime-cache-private") / "new" / "cache";
  const std::string key(64, 'c');
  const mode_t old_mask = ::umask(002);  // a umask that makes group-writable files
  ProgramCache cache(root);
  auto e = cache.get_or_build(key, [](const ProgramCache::Build& b) {
    std::ofstream(b.source) << "int f() { return 1; }";
    std::ofstream(b.library) << "library bytes";
    fs::permissions(b.library, fs::perms::all);  // as a linker may leave it (0777 less the umask)
  });
  ::umask(old_mask);
  CHECK(mode_of(root.parent_path()) == 0700);
  CHECK(mode_of(root) == 0700);
  CHECK(mode_of(root / "v1") == 0700);
  CHECK(mode_of(e.directory.parent_path()) == 0700);
  CHECK(mode_of(e.directory) == 0700);
  CHECK(mode_of(e.library) == 0700);
  CHECK(mode_of(e.directory / "manifest.json") == 0600);
  CHECK(mode_of(e.source) == 0600);
  CHECK(mode_of(root / "v1" / "locks" / (key + ".lock")) == 0600);
  CHECK(cache.lookup(key));
}

TEST_CASE("cache: a library whose SHA-256 differs from its manifest is rebuilt and said to be",
          "[runtime][cache]") {
  auto root = weir::test::fresh_cache("trust-hash");
  const std::string key(64, 'd');
  ProgramCache cache(root);
  std::string problem = "unchanged";
  bool built = false;
  auto e = cache.get_or_build(key, write_library, "{}", &built, &problem);
  CHECK(built);
  CHECK(problem.empty());                                         // nothing was there
  std::ofstream(e.library, std::ios::binary) << "LIBRARY BYTES";  // same size, other bytes
  CHECK_FALSE(cache.lookup(key, &problem));
  const std::string why =
      "the cached entry " + e.directory.string() +
      " was not used: its library's SHA-256 differs from its manifest's (changed after it was "
      "built)";
  CHECK(problem == why);
  problem.clear();
  cache.get_or_build(key, write_library, "{}", &built, &problem);
  CHECK(built);
  CHECK(problem == why);
  CHECK(weir::test::read_text(e.library) == "library bytes");
  std::ofstream(e.library, std::ios::binary) << "short";
  CHECK_FALSE(cache.lookup(key, &problem));
  CHECK_THAT(problem,
             Catch::EndsWith("its library's size differs from its manifest's (truncated or overwritten)"));
  // CompilationArtifact::cache_problem carries it to `weir run` (cli/test_output_links).
}

TEST_CASE("cache: a truncated or changed precompiled prelude header is rebuilt", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("trust-pch");
  CompilerSettings s;
  s.flags = {"-std=c++17", "-O0"};
  const std::string headers = "#include <cstddef>\n";  // small: quick to precompile
  const fs::path header = detail::prelude_pch(s, root, headers);
  if (header.empty()) return;  // not GCC: no precompiled header
  const fs::path gch = header.string() + ".gch";
  REQUIRE(fs::file_size(gch) > 4096);
  // The size recorded beside it (GCC's output differs by some bytes from build to build).
  auto recorded = [&] {
    std::istringstream in(weir::test::read_text(header.string() + ".gch.sha256"));
    std::uintmax_t size = 0;
    in >> size;
    return size;
  };
  CHECK(recorded() == fs::file_size(gch));
  fs::resize_file(gch, 4096);  // a full disk or a crash while it was written
  CHECK(detail::prelude_pch(s, root, headers) == header);
  CHECK(fs::file_size(gch) > 4096);
  CHECK(recorded() == fs::file_size(gch));
  // Other text in the header (every program would include it): rebuilt as well.
  std::ofstream(header) << "#include <cstddef>\nint planted = 1;\n";
  CHECK(detail::prelude_pch(s, root, headers) == header);
  CHECK(weir::test::read_text(header) == headers);
  // A whole, unchanged one is used as it is.
  const auto before = fs::last_write_time(gch);
  CHECK(detail::prelude_pch(s, root, headers) == header);
  CHECK(fs::last_write_time(gch) == before);
}
