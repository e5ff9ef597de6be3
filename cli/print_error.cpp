// The one form every command prints errors in (README: "weir: error: MESSAGE").
#include <iostream>
#include <string>

#include "commands.h"

namespace weir::cli {

int print_error(const std::string& message, int exit_code) {
  std::cerr << "weir: error: " << message << "\n";
  return exit_code;
}

}  // namespace weir::cli
