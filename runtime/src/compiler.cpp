#include "weir/runtime/compiler.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "weir/runtime/compile_interrupt.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/text.h"

extern char** environ;

namespace weir::runtime {
namespace fs = std::filesystem;

fs::path find_program(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 ? fs::path(name) : fs::path();
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    fs::path cand = fs::path(dir.empty() ? "." : dir) / name;
    if (access(cand.c_str(), X_OK) == 0 && fs::is_regular_file(cand)) return cand;
    start = end + 1;
  }
  return {};
}

namespace {

bool tunes_for_host(const std::vector<std::string>& flags) {
  for (const auto& f : flags)
    if (f == "-march=native" || f == "-mcpu=native" || f == "-mtune=native") return true;
  return false;
}

// The CPU model and feature flags (code built with -march=native runs only on such CPUs).
std::string host_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)) flags = line;
  }
  return model + "\n" + flags;
}

}  // namespace

std::vector<std::string> CompilerSettings::all_flags() const {
  std::vector<std::string> f = flags;
  if (openmp) f.push_back("-fopenmp");
  f.push_back("-shared");
  f.push_back("-fPIC");
  static const bool gold = !find_program("ld.gold").empty();
  if (fast_linker && gold) f.push_back("-fuse-ld=gold");
  return f;
}

std::vector<std::string> CompilerSettings::command(const fs::path& source, const fs::path& output) const {
  std::vector<std::string> argv{compiler};
  for (auto& f : all_flags()) argv.push_back(f);
  argv.push_back("-o");
  argv.push_back(output.string());
  argv.push_back(source.string());
  for (const auto& l : libraries) argv.push_back("-l" + l);
  return argv;
}

namespace {

// Reads the child's output until it closes it. Inside a CompileSignalScope it polls: when a
// signal arrived, the child's process group is killed (again: the handler did already) and
// the reading goes on until the killed processes close the pipe. Returns the signal (0: none).
int read_output(int fd, pid_t group, std::string& output) {
  char buf[8192];
  int interrupted = 0, polls_since = 0;
  for (;;) {
    if (group > 0) {
      if (const int s = compile_interrupt_signal(); s && !interrupted) {
        interrupted = s;
        ::kill(-group, SIGTERM);
      }
      // A process of the group that outlives SIGTERM by 2 s gets SIGKILL.
      if (interrupted && ++polls_since == 20) ::kill(-group, SIGKILL);
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;  // timeout or EINTR: check again
    }
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      output.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  return interrupted ? interrupted : (group > 0 ? compile_interrupt_signal() : 0);
}

}  // namespace

ProcessOutput run_process(const std::vector<std::string>& argv) {
  if (argv.empty()) throw RuntimeError("run_process: empty command");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw RuntimeError(std::string("cannot create a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  // During a compile the child leads a process group of its own: an interrupt kills the
  // compiler and everything it started (cc1plus, as, ld), also when the signal reached weir's
  // PID alone; its signal mask and dispositions are the defaults, whatever weir's are.
  const bool grouped = detail::compile_signal_scope_open();
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (grouped) {
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGTERM);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw RuntimeError("cannot run '" + argv[0] + "': " + std::strerror(rc));
  }
  if (grouped) detail::track_compiler_group(pid, true);
  ProcessOutput out;
  const int interrupted = read_output(fds[0], grouped ? pid : 0, out.output);
  close(fds[0]);
  if (interrupted) ::kill(-pid, SIGTERM);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      if (grouped) detail::track_compiler_group(pid, false);
      throw RuntimeError("waiting for '" + argv[0] + "' failed: " + std::strerror(errno));
    }
  if (grouped) detail::track_compiler_group(pid, false);
  if (interrupted)
    throw CompileInterrupted(interrupted, "interrupted (" +
                                              std::string(interrupted == SIGINT ? "SIGINT" : "SIGTERM") +
                                              "): stopped '" + argv[0] + "' and the processes it started");
  out.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return out;
}

void compile_shared_library(const CompilerSettings& settings, const fs::path& source, const fs::path& output,
                            const std::string& program, const CompilerInvocation& invoke) {
  run_compiler(settings.command(source, output), source, output, program, invoke);
}

void compile_units(const CompilerSettings& settings, const std::vector<fs::path>& sources,
                   const fs::path& output, const std::string& program, const CompilerInvocation& invoke) {
  if (sources.empty()) throw RuntimeError("compile_units: no translation unit for " + program);
  std::vector<std::string> compile_flags = settings.flags;
  if (settings.openmp) compile_flags.push_back("-fopenmp");
  compile_flags.push_back("-fPIC");
  compile_flags.push_back("-c");
  std::vector<fs::path> objects;
  std::vector<std::vector<std::string>> commands;
  for (const auto& src : sources) {
    objects.push_back(fs::path(src.string() + ".o"));
    std::vector<std::string> argv{settings.compiler};
    argv.insert(argv.end(), compile_flags.begin(), compile_flags.end());
    argv.push_back("-o");
    argv.push_back(objects.back().string());
    argv.push_back(src.string());
    commands.push_back(std::move(argv));
  }
  // A shared queue of units; after a failure no further unit starts (its error is reported).
  std::vector<std::optional<ProcessOutput>> results(sources.size());
  std::vector<std::exception_ptr> errors(sources.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto worker = [&] {
    while (!failed) {
      std::size_t i = next++;
      if (i >= commands.size()) break;
      try {
        results[i] = invoke(commands[i]);
        if (results[i]->exit_code != 0) failed = true;
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  unsigned jobs = settings.jobs ? settings.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, commands.size()));
  std::vector<std::thread> threads;
  for (unsigned k = 1; k < jobs; ++k) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < commands.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    if (!results[i]) continue;  // not started after an earlier failure
    std::error_code ec;
    if (results[i]->exit_code != 0 || !fs::is_regular_file(objects[i], ec))
      run_compiler(commands[i], sources[i], objects[i], program,
                   [&](const std::vector<std::string>&) { return *results[i]; });
  }
  std::vector<std::string> link{settings.compiler};
  for (auto& f : settings.all_flags()) link.push_back(f);
  link.push_back("-o");
  link.push_back(output.string());
  for (const auto& o : objects) link.push_back(o.string());
  for (const auto& l : settings.libraries) link.push_back("-l" + l);
  run_compiler(link, sources.front(), output, program, invoke);
  for (const auto& o : objects) {
    std::error_code ec;
    fs::remove(o, ec);
  }
}

void run_compiler(const std::vector<std::string>& argv, const fs::path& source, const fs::path& output,
                  const std::string& program, const CompilerInvocation& invoke) {
  ProcessOutput r = invoke(argv);
  std::error_code ec;
  if (r.exit_code != 0 || !fs::is_regular_file(output, ec)) {
    std::string out = r.output;
    if (r.exit_code == 0)
      out += "\n(the compiler exited with code 0 but wrote no library " + output.string() + ")";
    throw CompileError(program, join(argv, " "), r.exit_code, out, source.string());
  }
}

std::string compiler_identity(const std::string& compiler, const std::vector<std::string>& flags) {
  static std::mutex mu;
  static std::map<std::string, std::string> memo;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = memo.find(compiler);
    if (it != memo.end()) return it->second + (tunes_for_host(flags) ? "\n" + host_cpu() : "");
  }
  fs::path exe = find_program(compiler);
  if (exe.empty())
    throw RuntimeError("C++ compiler '" + compiler + "' not found" +
                       (compiler.find('/') == std::string::npos ? " in PATH" : "") +
                       " (install build-essential, or choose another compiler)");
  std::error_code ec;
  fs::path real = fs::canonical(exe, ec);
  ProcessOutput v = run_process({exe.string(), "--version"});
  if (v.exit_code != 0)
    throw RuntimeError("C++ compiler '" + compiler + "' failed on --version (exit code " +
                       std::to_string(v.exit_code) + "): " + v.output.substr(0, 500));
  std::string id = (ec ? exe : real).string() + "\n" + v.output;
  {
    std::lock_guard<std::mutex> lock(mu);
    memo[compiler] = id;
  }
  return id + (tunes_for_host(flags) ? "\n" + host_cpu() : "");
}

}  // namespace weir::runtime
