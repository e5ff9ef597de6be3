// Outputs through symbolic links and on full disks (weir/sdfg/output_file.h), and what `weir run`
// says about a corrupt program-cache entry: the link stays a link and its target is replaced
// whole, a full disk is named, a rebuilt entry is never "loaded from cache".
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::read_text;
using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
std::string lap() { return q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py") + "::laplacian"; }

ino_t inode(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_ino;
}

std::string sha256sum(const fs::path& p) {
  FILE* f = popen(("sha256sum " + q(p)).c_str(), "r");
  REQUIRE(f);
  char buf[65] = {};
  REQUIRE(std::fread(buf, 1, 64, f) == 64);
  pclose(f);
  return std::string(buf, 64);
}

}  // namespace

TEST_CASE("weir: -o and --out through a symbolic link replace its target and keep the link",
          "[cli][output]") {
  auto dir = weir::test::scratch_dir("cli-output-links");
  std::ofstream(dir / "real.sdfg") << "old";
  fs::create_symlink("real.sdfg", dir / "link.sdfg");
  const ino_t before = inode(dir / "real.sdfg");
  auto r = run_weir("sdfg " + lap() + " -o " + q(dir / "link.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(fs::is_symlink(dir / "link.sdfg"));
  CHECK(read_text(dir / "real.sdfg").rfind("{", 0) == 0);
  CHECK(inode(dir / "real.sdfg") != before);  // a new file renamed into place, not rewritten

  // An --out table that is a link into another directory.
  fs::create_directories(dir / "res");
  fs::create_directories(dir / "kept");
  std::ofstream(dir / "kept" / "out.npy") << "old";
  fs::create_symlink("../kept/out.npy", dir / "res" / "out.npy");
  r = run_weir("run " + q(dir / "link.sdfg") + " --random-inputs --set I=4 --set J=4 --set K=1 --out " +
                   q(dir / "res"),
               "WEIR_CACHE_DIR=" + q(weir::test::shared_cache_dir("cli-output-links")));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(fs::is_symlink(dir / "res" / "out.npy"));
  CHECK(read_text(dir / "kept" / "out.npy").rfind("\x93NUMPY", 0) == 0);
  CHECK(fs::file_size(dir / "kept" / "out.npy") > 128);
}

TEST_CASE("weir: an output on a full disk says No space left on device", "[cli][output]") {
  auto r = run_weir("sdfg " + lap() + " -o /dev/full");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::EndsWith("\nweir: error: cannot write '/dev/full': No space left on device\n"));
}

TEST_CASE("weir run: a corrupt cached library is said to be and compiled again, never loaded from cache",
          "[cli][cache]") {
  auto dir = weir::test::scratch_dir("cli-cache-corrupt");
  const std::string env = "WEIR_CACHE_DIR=" + q(dir / "cache");
  const std::string args = "run " + lap() + " --random-inputs --set I=4 --set J=4 --set K=1 --backend cpu";
  auto r = run_weir(args, env);
  INFO(r.out);
  REQUIRE(r.code == 0);
  const std::string marker = "(cached for the next run: ";
  const auto at = r.out.find(marker);
  REQUIRE(at != std::string::npos);
  const fs::path library = r.out.substr(at + marker.size(), r.out.find(")\n", at) - at - marker.size());
  REQUIRE(fs::is_regular_file(library));

  // Other bytes of the same size: the manifest's SHA-256 tells.
  const auto size = fs::file_size(library);
  std::ofstream(library, std::ios::binary) << std::string(size, 'x');
  r = run_weir(args, env);
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains(
                        "weir: warning: program cache: the cached entry " + library.parent_path().string() +
                        " was not used: its library's SHA-256 differs from its manifest's (changed "
                        "after it was built); compiled it again\n"));
  CHECK_THAT(r.out, Catch::Contains("\ncompiled in ") && !Catch::Contains("loaded from cache"));

  // A library that matches its manifest but does not load: evicted, compiled again, and said so.
  std::ofstream(library, std::ios::binary) << "not an ELF file";
  auto manifest = nlohmann::json::parse(read_text(library.parent_path() / "manifest.json"));
  manifest["library_size"] = fs::file_size(library);
  manifest["library_sha256"] = sha256sum(library);
  std::ofstream(library.parent_path() / "manifest.json") << manifest.dump();
  r = run_weir(args, env);
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("weir: warning: program cache: the cached library " + library.string() +
                                    " was not used: it failed to load (cannot load "));
  CHECK_THAT(r.out, Catch::Contains("\ncompiled in ") && !Catch::Contains("loaded from cache"));
  r = run_weir(args, env);
  CHECK_THAT(r.out, Catch::Contains("\nloaded from cache in ") && !Catch::Contains("warning"));
}
