// Shared by the libFuzzer targets of tests/fuzz (WEIR_FUZZ=ON, scripts/fuzz.sh): what counts as
// a finding. Bad input must end in a weir::Error (a located message); any other exception, like
// a crash or a sanitizer report, is a defect, so it aborts with the input libFuzzer saves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "weir/pycode/error.h"

namespace weir::fuzz {

/// Runs `body`; a weir::Error is the expected answer to bad input, anything else aborts.
template <class F>
void expect_located_errors(F&& body) {
  try {
    body();
  } catch (const weir::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: an exception other than weir::Error escaped: %s\n", e.what());
    std::abort();
  }
}

/// Aborts with `what` when a property the target checks does not hold.
inline void require(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: %s\n", what.c_str());
  std::abort();
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace weir::fuzz
