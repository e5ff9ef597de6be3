// Notices: what the runtime tells its user while it works, outside any result or error (it is
// waiting for another process that builds the same program). The CLI prints them on stderr; an
// embedding application (a model's Python driver) can route them to its own log.
#pragma once

#include <functional>
#include <string>

namespace weir::runtime {

/// Receives one notice: one sentence, without a "weir: " prefix or a trailing newline.
using NoticeHandler = std::function<void(const std::string& text)>;

/// Makes `handler` receive every notice from now on and returns the one it replaces. The
/// default handler writes "weir: TEXT\n" to stderr; an empty handler drops notices. Thread-safe.
NoticeHandler set_notice_handler(NoticeHandler handler);

/// Sends `text` to the current handler (serialized: one notice at a time). A handler that
/// throws has its exception swallowed: a notice never fails the work it reports on.
void notice(const std::string& text);

}  // namespace weir::runtime
