// Output files (weir/sdfg/output_file.h): a symbolic link stays a link and its target is
// replaced whole (a new inode) or not at all; devices and FIFOs are written through; errors say
// the system's reason; a temporary left by a killed writer is removed by the next write.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "corpus.h"
#include "weir/sdfg/output_file.h"

namespace fs = std::filesystem;
using weir::test::read_text;

namespace {

ino_t inode(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_ino;
}

// The names in `dir` (dot files included).
std::vector<std::string> names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Writes half of what it is given, then fails as a full disk does.
ssize_t half_then_enospc(int fd, const void* data, std::size_t size) {
  static bool wrote = false;
  if (!wrote && size > 1) {
    wrote = true;
    return ::write(fd, data, size / 2);
  }
  wrote = false;
  errno = ENOSPC;
  return -1;
}

// Writes half of what it is given, then dies as under kill -9.
ssize_t half_then_killed(int fd, const void* data, std::size_t size) {
  if (::write(fd, data, size / 2) < 0) _exit(3);
  ::raise(SIGKILL);
  return -1;
}

struct HookGuard {
  explicit HookGuard(weir::detail::OutputWriteHook h) { weir::detail::set_output_write_hook(h); }
  ~HookGuard() { weir::detail::set_output_write_hook(nullptr); }
  HookGuard(const HookGuard&) = delete;
  HookGuard& operator=(const HookGuard&) = delete;
};

}  // namespace

TEST_CASE("output files: a symbolic link stays a link and its target is replaced whole", "[output]") {
  auto dir = weir::test::scratch_dir("output-file-link");
  std::ofstream(dir / "real.txt") << "old content";
  fs::create_symlink("real.txt", dir / "link.txt");
  fs::create_symlink("link.txt", dir / "chain.txt");
  const ino_t before = inode(dir / "real.txt");
  ::chmod((dir / "real.txt").c_str(), 0640);
  weir::write_file_atomically(dir / "chain.txt", "new");
  CHECK(fs::is_symlink(dir / "chain.txt"));
  CHECK(fs::is_symlink(dir / "link.txt"));
  CHECK(fs::read_symlink(dir / "link.txt") == "real.txt");
  CHECK(read_text(dir / "real.txt") == "new");
  // Renamed over the target (a new file), not rewritten in place; its permissions kept.
  CHECK(inode(dir / "real.txt") != before);
  CHECK((fs::status(dir / "real.txt").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  CHECK(names(dir) == std::vector<std::string>{"chain.txt", "link.txt", "real.txt"});
}

TEST_CASE("output files: a dangling link and a link into another directory", "[output]") {
  auto dir = weir::test::scratch_dir("output-file-other-dir");
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  // Dangling: the target is created, the link kept.
  fs::create_symlink("../b/new.txt", dir / "a" / "dangling.txt");
  weir::write_file_atomically(dir / "a" / "dangling.txt", "made");
  CHECK(fs::is_symlink(dir / "a" / "dangling.txt"));
  CHECK(read_text(dir / "b" / "new.txt") == "made");
  // An absolute link into another directory: the temporary is made (and renamed) there.
  std::ofstream(dir / "b" / "t.txt") << "old";
  fs::create_symlink(dir / "b" / "t.txt", dir / "a" / "abs.txt");
  weir::write_file_atomically(dir / "a" / "abs.txt", "replaced");
  CHECK(read_text(dir / "b" / "t.txt") == "replaced");
  CHECK(names(dir / "a") == std::vector<std::string>{"abs.txt", "dangling.txt"});
  CHECK(names(dir / "b") == std::vector<std::string>{"new.txt", "t.txt"});
  // A directory and a loop are refused with the reason.
  CHECK_THROWS_WITH(weir::write_file_atomically(dir / "b", "x"),
                    "cannot write '" + (dir / "b").string() + "': it is a directory");
  fs::create_symlink("loop2", dir / "loop1");
  fs::create_symlink("loop1", dir / "loop2");
  CHECK_THROWS_WITH(weir::write_file_atomically(dir / "loop1", "x"),
                    Catch::EndsWith("Too many levels of symbolic links"));
}

TEST_CASE("output files: FIFOs and devices are written through", "[output]") {
  auto dir = weir::test::scratch_dir("output-file-fifo");
  REQUIRE(::mkfifo((dir / "pipe").c_str(), 0600) == 0);
  fs::create_symlink("pipe", dir / "to-pipe");
  std::string got;
  std::thread reader([&] {
    std::ifstream in(dir / "pipe");
    std::getline(in, got, '\0');
  });
  weir::write_file_atomically(dir / "to-pipe", "through the pipe");
  reader.join();
  CHECK(got == "through the pipe");
  CHECK(fs::is_fifo(fs::symlink_status(dir / "pipe")));
  CHECK(names(dir) == std::vector<std::string>{"pipe", "to-pipe"});
  weir::write_file_atomically("/dev/null", "discarded");
  CHECK(fs::is_character_file("/dev/null"));
  // A full device says why, in the system's words.
  CHECK_THROWS_WITH(weir::write_file_atomically("/dev/full", "x"),
                    "cannot write '/dev/full': No space left on device");
}

TEST_CASE("output files: a failed write leaves the target as it was and no temporary", "[output]") {
  auto dir = weir::test::scratch_dir("output-file-enospc");
  std::ofstream(dir / "real.sdfg") << "ORIGINAL";
  fs::create_symlink("real.sdfg", dir / "link.sdfg");
  {
    HookGuard hook(half_then_enospc);
    CHECK_THROWS_WITH(weir::write_file_atomically(dir / "link.sdfg", std::string(1000, 'n')),
                      "cannot write '" + (dir / "link.sdfg").string() + "': No space left on device");
  }
  CHECK(read_text(dir / "real.sdfg") == "ORIGINAL");
  CHECK(fs::is_symlink(dir / "link.sdfg"));
  CHECK(names(dir) == std::vector<std::string>{"link.sdfg", "real.sdfg"});
  // An output that is never committed changes nothing either.
  {
    weir::AtomicOutput out(dir / "link.sdfg");
    out.write("abandoned");
  }
  CHECK(read_text(dir / "real.sdfg") == "ORIGINAL");
  CHECK(names(dir) == std::vector<std::string>{"link.sdfg", "real.sdfg"});
}

TEST_CASE(
    "output files: a writer killed half way leaves the target intact and the next write removes its "
    "temporary",
    "[output]") {
  auto dir = weir::test::scratch_dir("output-file-killed");
  std::ofstream(dir / "real.npy") << "ORIGINAL";
  fs::create_symlink("real.npy", dir / "link.npy");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    weir::detail::set_output_write_hook(half_then_killed);
    try {
      weir::write_file_atomically(dir / "link.npy", std::string(4096, 'k'));
    } catch (...) {
    }
    _exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK(read_text(dir / "real.npy") == "ORIGINAL");
  // The killed writer's temporary: .real.npy.weir-tmp.<its pid>.<n>, half written.
  auto left = names(dir);
  REQUIRE(left.size() == 3);
  const std::string stale = left[0];
  CHECK(stale.rfind(".real.npy.weir-tmp." + std::to_string(child) + ".", 0) == 0);
  CHECK(std::vector<std::string>(left.begin() + 1, left.end()) ==
        std::vector<std::string>{"link.npy", "real.npy"});
  CHECK(fs::file_size(dir / stale) == 2048);
  // Another file's temporaries and a living writer's are left alone.
  std::ofstream(dir / ".other.npy.weir-tmp.1.0") << "x";
  weir::AtomicOutput alive(dir / "real.npy");
  weir::write_file_atomically(dir / "link.npy", "new");
  CHECK(read_text(dir / "real.npy") == "new");
  CHECK(fs::is_symlink(dir / "link.npy"));
  left = names(dir);
  CHECK(std::find(left.begin(), left.end(), stale) == left.end());
  CHECK(std::find(left.begin(), left.end(), ".other.npy.weir-tmp.1.0") != left.end());
  CHECK(left.size() == 4);  // .other..., the living writer's temporary, link.npy, real.npy
}
