#include "view/server.h"

#include "weir/sdfg/errors.h"

#include <cctype>

#ifdef WEIR_HAVE_HTTPLIB
#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#endif

namespace weir::cli::view {

bool loopback_host(const std::string& host, int port) {
  std::string h = host;  // host names compare without case (RFC 9110)
  for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string p = ":" + std::to_string(port);
  for (const char* name : {"127.0.0.1", "localhost", "[::1]"})
    if (h == name + p || (port == 80 && h == name)) return true;
  return false;
}

#ifdef WEIR_HAVE_HTTPLIB

bool have_server() { return true; }

void serve(int port, const std::function<std::string()>& page, const std::function<void(int)>& on_listening) {
  httplib::Server server;
  int bound = -1;
  // DNS rebinding: a web page whose name resolves to 127.0.0.1 reaches this port as its own
  // origin, but its requests name its own host. Only requests for the loopback names with our
  // port are answered (misdirected: 421).
  server.set_pre_routing_handler([&bound](const httplib::Request& req, httplib::Response& res) {
    if (loopback_host(req.get_header_value("Host"), bound))
      return httplib::Server::HandlerResponse::Unhandled;
    res.status = 421;
    res.set_content("weir view answers only requests for 127.0.0.1, localhost or [::1] with port " +
                        std::to_string(bound) + "\n",
                    "text/plain; charset=utf-8");
    return httplib::Server::HandlerResponse::Handled;
  });
  // Connections that send nothing (or trickle) hold a worker only briefly, and enough workers
  // remain for the browser: 100 half-open connections stalled the default 8 workers with 5 s
  // timeouts for 50 s.
  server.set_read_timeout(1, 0);
  server.set_write_timeout(5, 0);
  server.set_keep_alive_timeout(2);
  server.new_task_queue = [] { return new httplib::ThreadPool(64); };
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
  bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
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
