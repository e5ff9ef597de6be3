// weir::Error, the base of every weir error. It lives in the lowest layer (pycode) so that every
// layer above, the SDFG IR included, derives its errors from it.
#pragma once

#include <stdexcept>

namespace weir {

/// Base of all weir errors.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace weir
