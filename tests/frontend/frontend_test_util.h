// Helpers shared by the frontend tests.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "weir/frontend/python_syntax.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/source.h"
#include "weir/pycode/unparse.h"

namespace weir::frontend::test {

inline std::string data_path(const std::string& name) {
  return std::string(WEIR_SOURCE_DIR) + "/tests/frontend/data/" + name;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `fn`, which must throw a FrontendError at line:column whose message contains
/// `message`. Returns the error's what().
inline std::string expect_error(const std::function<void()>& fn, std::uint32_t line, std::uint32_t column,
                                const std::string& message) {
  try {
    fn();
  } catch (const FrontendError& e) {
    INFO(e.what());
    CHECK(e.location().line == line);
    CHECK(e.location().column == column);
    CHECK_THAT(e.message(), Catch::Matchers::Contains(message));
    return e.what();
  }
  FAIL("expected a FrontendError containing: " << message);
  return {};
}

}  // namespace weir::frontend::test
