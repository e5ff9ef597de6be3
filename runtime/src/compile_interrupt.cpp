#include "weir/runtime/compile_interrupt.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>

namespace weir::runtime {

namespace {

constexpr std::size_t kMaxGroups = 256;
std::array<std::atomic<pid_t>, kMaxGroups> g_groups{};
std::atomic<int> g_signal{0};
std::atomic<int> g_open{0};

std::mutex g_mutex;  // guards the count of scopes and the saved handlers
int g_scopes = 0;
struct sigaction g_old_int {
}, g_old_term{};
bool g_have_int = false, g_have_term = false;

extern "C" void on_compile_signal(int signo) {
  g_signal.store(signo);
  for (auto& g : g_groups) {
    const pid_t p = g.load();
    if (p > 0) ::kill(-p, SIGTERM);
  }
}

// Installs the handler for `signo` unless it is ignored; saves the old disposition in `old`.
bool install(int signo, struct sigaction& old) {
  if (::sigaction(signo, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) return false;
  struct sigaction sa {};
  sa.sa_handler = on_compile_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and the caller polls
  return ::sigaction(signo, &sa, nullptr) == 0;
}

}  // namespace

CompileSignalScope::CompileSignalScope() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_scopes++ > 0) return;
  g_signal.store(0);
  g_have_int = install(SIGINT, g_old_int);
  g_have_term = install(SIGTERM, g_old_term);
  g_open.store(1);
}

CompileSignalScope::~CompileSignalScope() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_scopes > 0) return;
  g_open.store(0);
  if (g_have_int) ::sigaction(SIGINT, &g_old_int, nullptr);
  if (g_have_term) ::sigaction(SIGTERM, &g_old_term, nullptr);
  g_have_int = g_have_term = false;
  if (const int s = g_signal.exchange(0)) ::raise(s);
}

int compile_interrupt_signal() { return g_signal.load(); }

namespace detail {

bool compile_signal_scope_open() { return g_open.load() != 0; }

void track_compiler_group(pid_t pgid, bool add) {
  for (auto& g : g_groups) {
    pid_t expected = add ? 0 : pgid;
    if (g.compare_exchange_strong(expected, add ? pgid : 0)) return;
  }
}

}  // namespace detail

bool process_is_gone(long pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace weir::runtime
