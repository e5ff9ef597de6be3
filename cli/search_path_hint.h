// How `weir` reports a module that an import names but the search path does not hold: the
// headline "module 'mymodel' not found", the frontend's located error, and the directory to
// add with -I when one near the importing file holds the package.
#pragma once

#include <cstddef>
#include <string>

namespace weir::cli {

/// The module a frontend error says is missing: "mymodel" of "... (no module 'mymodel' in A, B)";
/// "" when the message names none.
std::string missing_module(const std::string& message);

/// `message` (a frontend error "FILE.py:LINE:COL: ...") as the user reads it when it names a
/// missing module: "module 'mymodel' not found", the message indented below it, and a hint:
/// "-I DIR" with the concrete directory when a folder above FILE holds `mymodel/` or
/// `mymodel.py` (relative to the working directory when below it), else how to find it.
/// `errors` > 1 says that many errors come from the same module (`weir check` prints it once).
/// Other messages are returned unchanged. (targets.h declares the one-error form.)
std::string with_search_path_hint(const std::string& message, std::size_t errors);

}  // namespace weir::cli
