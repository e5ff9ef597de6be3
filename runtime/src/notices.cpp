#include "weir/runtime/notices.h"

#include <cstdio>
#include <mutex>
#include <utility>

namespace weir::runtime {

namespace {

std::mutex& notice_mutex() {
  static std::mutex m;
  return m;
}

NoticeHandler& current_handler() {
  static NoticeHandler h = [](const std::string& text) { std::fprintf(stderr, "weir: %s\n", text.c_str()); };
  return h;
}

}  // namespace

NoticeHandler set_notice_handler(NoticeHandler handler) {
  std::lock_guard<std::mutex> lock(notice_mutex());
  return std::exchange(current_handler(), std::move(handler));
}

void notice(const std::string& text) {
  std::lock_guard<std::mutex> lock(notice_mutex());
  if (!current_handler()) return;
  try {
    current_handler()(text);
  } catch (...) {  // NOLINT(bugprone-empty-catch): a notice never fails the work it reports on
  }
}

}  // namespace weir::runtime
