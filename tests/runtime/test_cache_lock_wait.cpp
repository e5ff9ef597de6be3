// A process that waits for another's program cache lock longer than a second says whom and what it
// waits for (issue 35, kind 6: a second build of the same program waited silently for minutes).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "runtime_test_util.h"
#include "weir/runtime/notices.h"
#include "weir/runtime/program_cache.h"

namespace fs = std::filesystem;
using namespace weir::runtime;

namespace {

// Another process takes the key's lock the way weir does (flock, its pid in the file), holds it
// for `hold_ms`, then exits; returns its pid once it holds the lock.
pid_t hold_lock(const fs::path& lock, int hold_ms) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(lock.c_str(), O_CREAT | O_RDWR, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) ::_exit(1);
    const std::string me = std::to_string(::getpid()) + "\n";
    if (::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) ::_exit(1);
    if (::write(ready[1], "x", 1) != 1) ::_exit(1);
    ::usleep(static_cast<useconds_t>(hold_ms) * 1000);
    ::_exit(0);
  }
  ::close(ready[1]);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  ::close(ready[0]);
  return pid;
}

}  // namespace

TEST_CASE("cache lock: a wait over a second names the process and the lock, a short one is silent",
          "[runtime][cache][errors]") {
  auto root = weir::test::fresh_cache("lock-wait");
  ProgramCache cache(root);
  // Private, as the cache makes its own directories (it refuses group- or world-writable ones).
  fs::create_directories(root / "v1" / "locks");
  for (const fs::path& d : {root, root / "v1", root / "v1" / "locks"})
    fs::permissions(d, fs::perms::owner_all, fs::perm_options::replace);
  std::vector<std::string> notices;
  NoticeHandler before = set_notice_handler([&](const std::string& t) { notices.push_back(t); });
  auto build = [](const ProgramCache::Build& b) { std::ofstream(b.library) << "x"; };
  const std::string slow(64, 'e'), quick(64, 'f');
  const fs::path slow_lock = root / "v1" / "locks" / (slow + ".lock");

  pid_t holder = hold_lock(slow_lock, 1800);
  const auto t0 = std::chrono::steady_clock::now();
  bool built = false;
  cache.get_or_build(slow, build, "{}", &built);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int status = 0;
  REQUIRE(::waitpid(holder, &status, 0) == holder);
  CHECK(built);
  CHECK(waited > 1.5);  // it did wait for the holder
  REQUIRE(notices.size() == 1);
  CHECK(notices[0] == "waiting for process " + std::to_string(holder) +
                          ", which holds the program cache's lock " + slow_lock.string() +
                          " (it is building or removing the same program)");
  // The lock file now names this process, for whoever waits for it next.
  CHECK(weir::test::read_text(slow_lock) == std::to_string(::getpid()) + "\n");

  // Released within the second: no notice.
  notices.clear();
  holder = hold_lock(root / "v1" / "locks" / (quick + ".lock"), 200);
  cache.get_or_build(quick, build);
  REQUIRE(::waitpid(holder, &status, 0) == holder);
  CHECK(notices.empty());
  set_notice_handler(before);
}
