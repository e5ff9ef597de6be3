// The HTTP server of `weir view`: loopback only (127.0.0.1), Debian's cpp-httplib.
#pragma once

#include <functional>
#include <string>

namespace weir::cli::view {

/// Whether this weir was built with the server (cpp-httplib found at configure time).
bool have_server();

/// Serves `page()` at / on 127.0.0.1:`port` (0: a free port) until the process is stopped.
/// `page` runs on every request, so a reload shows the file as it is now; its exceptions
/// become a 500 response with the message. `on_listening(port)` runs once the port is bound.
/// Throws weir::Error when the port cannot be bound or there is no server in this build.
void serve(int port, const std::function<std::string()>& page, const std::function<void(int)>& on_listening);

}  // namespace weir::cli::view
