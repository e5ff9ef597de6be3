#include "progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace weir::cli {

bool progress_wanted(bool forced) { return forced || ::isatty(STDERR_FILENO); }

Progress::Progress(std::string label, bool enabled)
    : label_(std::move(label)), tty_(::isatty(STDERR_FILENO)) {
  if (enabled) thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (printed_ && tty_) std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

void Progress::loop() {
  auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  for (int s = 1;; ++s) {
    if (cv_.wait_until(lock, t0 + std::chrono::seconds(s), [this] { return stop_; })) return;
    if (!tty_ && s % 5 != 0) continue;
    std::fprintf(stderr, tty_ ? "\r%s ... %d s\033[K" : "%s ... %d s\n", label_.c_str(), s);
    std::fflush(stderr);
    printed_ = true;
  }
}

}  // namespace weir::cli
