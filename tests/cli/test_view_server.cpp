// `weir view`'s server against other local programs and web pages (docs/security.md): it answers
// only requests that name the loopback with its port (a DNS-rebinding page names its own host),
// and connections that send nothing cannot keep the browser waiting.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

// `weir view FILE --port 0` running in the background until destroyed; `port` is 0 when this
// weir has no server or no viewer bundle (the test then skips, or fails where they are required).
struct Served {
  pid_t pid = -1;
  int port = 0;
  std::string out;
  explicit Served(const fs::path& file) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::dup2(fds[1], 1);
      ::dup2(fds[1], 2);
      ::close(fds[0]);
      ::execl(WEIR_BIN, WEIR_BIN, "view", file.c_str(), "--port", "0", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    // Up to the line that names the port (or the end: an error).
    char c;
    while (::read(fds[0], &c, 1) == 1) {
      out += c;
      if (c != '\n') continue;
      auto at = out.find("at http://127.0.0.1:");
      if (at != std::string::npos) {
        port = std::atoi(out.c_str() + at + 20);
        break;
      }
    }
    ::close(fds[0]);
  }
  ~Served() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
  }
  Served(const Served&) = delete;
  Served& operator=(const Served&) = delete;
};

bool skipped(const Served& s) {
  if (s.port > 0) return false;
  bool missing = s.out.find("without the HTTP server") != std::string::npos ||
                 s.out.find("without the viewer bundle") != std::string::npos;
  const char* req = std::getenv("WEIR_REQUIRE_VIEWER_TESTS");
  if (!missing || (req && std::string(req) == "1")) FAIL("weir view did not start serving: " << s.out);
  WARN("skipped: " << s.out);
  return true;
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  return fd;
}

// The response to `request` (raw HTTP) on a fresh connection; a stalled server fails after 30 s
// instead of hanging the test.
std::string http_exchange(int port, const std::string& request) {
  int fd = connect_to(port);
  timeval tv{30, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

std::string get(int port, const std::string& host_line) {
  return http_exchange(port, "GET / HTTP/1.1\r\n" + host_line + "Connection: close\r\n\r\n");
}

std::string status_line(const std::string& response) { return response.substr(0, response.find("\r\n")); }

}  // namespace

TEST_CASE("weir view serves only requests for the loopback names with its port", "[cli][view]") {
  Served s(weir::test::dace_corpus_dir() / "laplace2d" / "laplace2d.simplified.sdfg");
  if (skipped(s)) return;
  const std::string p = std::to_string(s.port);
  for (const std::string& host :
       std::vector<std::string>{"127.0.0.1:" + p, "localhost:" + p, "[::1]:" + p, "LocalHost:" + p}) {
    CAPTURE(host);
    std::string r = get(s.port, "Host: " + host + "\r\n");
    CHECK(status_line(r) == "HTTP/1.1 200 OK");
    CHECK(r.find("id=\"weir-data\"") != std::string::npos);
  }
  // A page of another origin that resolves to 127.0.0.1 (DNS rebinding), another port, no port,
  // no Host at all: misdirected, and nothing of the SDFG in the answer.
  for (const std::string& line : std::vector<std::string>{
           "Host: attacker.example:" + p + "\r\n", "Host: attacker.example\r\n",
           "Host: 127.0.0.1:" + std::to_string(s.port + 1) + "\r\n", std::string("Host: 127.0.0.1\r\n"),
           "Host: localhost.attacker.example:" + p + "\r\n", std::string()}) {
    CAPTURE(line);
    std::string r = get(s.port, line);
    CHECK(status_line(r) == "HTTP/1.1 421 Misdirected Request");
    CHECK(r.find("weir-data") == std::string::npos);
    CHECK(r.find("laplace") == std::string::npos);
    CHECK(r.find("answers only requests for 127.0.0.1, localhost or [::1] with port " + p) !=
          std::string::npos);
  }
}

TEST_CASE("weir view: connections that send nothing do not keep the browser waiting", "[cli][view]") {
  Served s(weir::test::dace_corpus_dir() / "laplace2d" / "laplace2d.simplified.sdfg");
  if (skipped(s)) return;
  // 100 connections that never send a request (with 8 workers and 5 s timeouts the page took
  // 50 s to load behind them).
  std::vector<int> idle;
  for (int k = 0; k < 100; ++k) idle.push_back(connect_to(s.port));
  auto t0 = std::chrono::steady_clock::now();
  std::string r = get(s.port, "Host: 127.0.0.1:" + std::to_string(s.port) + "\r\n");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int fd : idle) ::close(fd);
  CHECK(status_line(r) == "HTTP/1.1 200 OK");
  // About 2 s (1 s read timeout, 64 workers); the bound leaves room for a loaded machine.
  CHECK(seconds < 15.0);
}
