// Values of number and string literal tokens.
#pragma once

#include <cstdint>
#include <string>

#include "weir/pycode/token.h"

namespace weir::pycode {

struct NumberLiteral {
  enum class Kind { Int, Float, Imaginary };
  Kind kind = Kind::Int;
  std::int64_t int_value = 0;  ///< for Int
  double float_value = 0.0;    ///< for Float; the imaginary part for Imaginary
};

/// Decodes a Number token (underscores, 0x/0o/0b prefixes, exponents, a 'j' suffix).
/// Throws SourceError at the token when an integer does not fit in int64.
NumberLiteral decode_number(const Token& token);

struct StringLiteral {
  std::string value;   ///< decoded value (UTF-8 for str, raw bytes for bytes)
  bool bytes = false;  ///< a b"..." literal
};

/// Decodes a String token: prefix, quotes, escape sequences (none in raw strings).
/// Throws SourceError for \N{...} escapes (not supported) and non-ASCII bytes literals.
StringLiteral decode_string(const Token& token);

}  // namespace weir::pycode
