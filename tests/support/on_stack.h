// Running a test body on a thread with a stack of a given size (issue 17: every nesting limit
// must hold on Linux's default 8 MiB stack in every build, whatever `ulimit -s` the test runs
// under). A stack overflow kills the test process, so a test using this fails in any build
// (Debug + ASan included) whose frames are too large for its limit.
#pragma once

#include <pthread.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <exception>
#include <functional>

namespace weir::test {

/// Linux's default RLIMIT_STACK. clang 14's -O0 AddressSanitizer build (CI's sanitizer job) has
/// the largest frames; the limits are chosen, and the recursive paths kept lean, so that they fit.
inline constexpr std::size_t kDefaultStack = std::size_t(8) << 20;

/// Runs `fn` on a new thread with a stack of `bytes` and waits; rethrows what it threw.
inline void on_stack_of(std::size_t bytes, const std::function<void()>& fn) {
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } job{&fn, nullptr};
  pthread_attr_t attr;
  REQUIRE(pthread_attr_init(&attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&attr, bytes) == 0);
  pthread_t thread;
  auto body = [](void* p) -> void* {
    auto* j = static_cast<Job*>(p);
    try {
      (*j->fn)();
    } catch (...) {
      j->error = std::current_exception();
    }
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attr, body, &job) == 0);
  pthread_attr_destroy(&attr);
  REQUIRE(pthread_join(thread, nullptr) == 0);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace weir::test
