#include "view/server.h"

#include "weir/sdfg/errors.h"

#ifdef WEIR_HAVE_HTTPLIB
#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#endif

namespace weir::cli::view {

#ifdef WEIR_HAVE_HTTPLIB

bool have_server() { return true; }

void serve(int port, const std::function<std::string()>& page, const std::function<void(int)>& on_listening) {
  httplib::Server server;
  server.Get("/", [&](const httplib::Request&, httplib::Response& res) {
    try {
      res.set_content(page(), "text/html; charset=utf-8");
      res.set_header("Cache-Control", "no-store");
    } catch (const std::exception& e) {
      res.status = 500;
      res.set_content(std::string("weir view: ") + e.what() + "\n", "text/plain; charset=utf-8");
    }
  });
  // cpp-httplib's default options add SO_REUSEPORT, with which a second server binds a port
  // another one listens on and the two share its connections silently. SO_REUSEADDR alone still
  // allows a restart while old connections linger (TIME_WAIT), but no port in use.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Loopback only: the page shows the user's code and data.
  const char* host = "127.0.0.1";
  errno = 0;
  int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    const int err = errno;
    const std::string where = std::string(host) + ":" + std::to_string(port);
    if (err == EADDRINUSE)
      throw Error("port " + std::to_string(port) + " on " + host +
                  " is in use (another server listens there); choose another with --port N, or --port 0 "
                  "for a free one");
    throw Error("cannot listen on " + where +
                (err != 0 ? std::string(": ") + std::strerror(err) : std::string()) +
                "; choose another port with --port N, or --port 0 for a free one");
  }
  on_listening(bound);
  if (!server.listen_after_bind())
    throw Error("the server on port " + std::to_string(bound) + " stopped unexpectedly");
}

#else

bool have_server() { return false; }

void serve(int, const std::function<std::string()>&, const std::function<void(int)>&) {
  throw Error(
      "this weir was built without the HTTP server (libcpp-httplib-dev was not found when it was "
      "configured); "
      "use --html OUT.html, or install it (scripts/install-deps.sh) and rebuild");
}

#endif

}  // namespace weir::cli::view
