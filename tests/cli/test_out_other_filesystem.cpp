// `--out DIR` on another file system than the temporary directory (issue 17: a mount point
// failed after the run with "Invalid cross-device link"): the results are written through a
// temporary directory inside DIR's own file system and moved into place.
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;
using weir::test::run_weir;

TEST_CASE("weir run --out into a directory on another file system", "[cli][errors][security]") {
  // /dev/shm is a tmpfs on Linux; the check needs it on another device than the scratch and
  // temporary directories (else this environment cannot show the fault, which is said).
  fs::path scratch = weir::test::scratch_dir("cli-out-other-fs");
  struct stat shm {
  }, here{}, tmp{};
  if (::stat("/dev/shm", &shm) != 0 || ::stat(scratch.c_str(), &here) != 0 ||
      ::stat(fs::temp_directory_path().c_str(), &tmp) != 0 || shm.st_dev == here.st_dev ||
      shm.st_dev == tmp.st_dev) {
    WARN("/dev/shm is missing or on the same file system as the scratch directory: not checked here");
    return;
  }
  fs::path out = fs::path("/dev/shm") / ("weir-out-test-" + std::to_string(::getpid()));
  fs::remove_all(out);
  std::string lap =
      "'" + (fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py").string() + "::laplacian'";
  auto r =
      run_weir("run " + lap + " --random-inputs --set I=5 --set J=4 --set K=1 --out '" + out.string() + "'");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, !Catch::Contains("cross-device"));
  CHECK(fs::is_regular_file(out / "out.npy"));
  // Only the results: the temporary directory was moved away, nothing else is left.
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(out)) entries += e.path().filename() == "out.npy" ? 0 : 1;
  CHECK(entries == 0);
  fs::remove_all(out);
}
