#include "view/server.h"

#include "weir/sdfg/errors.h"

#ifdef WEIR_HAVE_HTTPLIB
#include <httplib.h>
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
  // Loopback only: the page shows the user's code and data.
  const char* host = "127.0.0.1";
  int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound < 0)
    throw Error("cannot listen on " + std::string(host) + ":" + std::to_string(port) +
                " (in use? choose another with --port N, or --port 0 for a free one)");
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
