// The HTTP server of `weir view`: loopback only (127.0.0.1), Debian's cpp-httplib. It answers
// only requests whose Host names the loopback (DNS rebinding) and times out idle connections
// (docs/security.md).
#pragma once

#include <functional>
#include <string>

namespace weir::cli::view {

/// Whether this weir was built with the server (cpp-httplib found at configure time).
bool have_server();

/// Whether an HTTP Host header value names this server: `127.0.0.1`, `localhost` or `[::1]` with
/// `port` (the name alone where `port` is 80, as browsers send it), in any case.
bool loopback_host(const std::string& host, int port);

/// Serves `page()` at / on 127.0.0.1:`port` (0: a free port) until the process is stopped.
/// `page` runs on every request, so a reload shows the file as it is now; its exceptions
/// become a 500 response with the message. A request for another host gets 421; a connection
/// idle for a second is closed. `on_listening(port)` runs once the port is bound.
/// Throws weir::Error when the port cannot be bound or there is no server in this build.
void serve(int port, const std::function<std::string()>& page, const std::function<void(int)>& on_listening);

}  // namespace weir::cli::view
