// The size of a C++ tasklet's one CBLAS call (see the header).
#include "blas_call_work.h"

#include <cctype>
#include <vector>

namespace weir::codegen::detail {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

/// The arguments of the call whose `(` is at `open`, split at top-level commas; nullopt where the
/// parentheses do not close or anything but `;` and blanks follows the call.
std::optional<std::vector<std::string>> call_arguments(const std::string& code, std::size_t open) {
  std::vector<std::string> args;
  std::string cur;
  int depth = 0;
  for (std::size_t i = open + 1; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '(') ++depth;
    if (c == ')' && depth-- == 0) {
      args.push_back(trim(cur));
      if (trim(code.substr(i + 1)) != ";") return std::nullopt;
      return args;
    }
    if (c == ',' && depth == 0) {
      args.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return std::nullopt;
}

/// Whether `arg` is an integer expression of names and literals: readable before the call.
bool size_expression(const std::string& arg) {
  if (arg.empty()) return false;
  for (char c : arg)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("_ +-*()").find(c) == std::string::npos)
      return false;
  return true;
}

}  // namespace

std::optional<std::string> blas_call_work(const std::string& code) {
  const auto at = code.find("cblas_");
  if (at == std::string::npos || code.find("cblas_", at + 1) != std::string::npos) return std::nullopt;
  // Before the call: nothing, or one assignment of its result to a name.
  std::string lhs = trim(code.substr(0, at));
  if (!lhs.empty()) {
    if (lhs.back() != '=') return std::nullopt;
    lhs = trim(lhs.substr(0, lhs.size() - 1));
    if (lhs.empty() || !size_expression(lhs) || lhs.find_first_of(" +-*()") != std::string::npos)
      return std::nullopt;
  }
  const auto open = code.find('(', at);
  if (open == std::string::npos) return std::nullopt;
  const std::string name = trim(code.substr(at, open - at));
  // cblas_ + the type letter (s, d, c, z) + the routine.
  if (name.size() < 8 || std::string("sdcz").find(name[6]) == std::string::npos) return std::nullopt;
  const std::string routine = name.substr(7);
  std::vector<std::size_t> sizes;  // the positions of the size arguments
  std::size_t arity = 0;
  if (routine == "dot") {
    sizes = {0};
    arity = 5;
  } else if (routine == "gemv") {
    sizes = {2, 3};
    arity = 12;
  } else if (routine == "gemm") {
    sizes = {3, 4, 5};
    arity = 14;
  } else {
    return std::nullopt;
  }
  const auto args = call_arguments(code, open);
  if (!args || args->size() != arity) return std::nullopt;
  std::string work;
  for (std::size_t i : sizes) {
    if (!size_expression((*args)[i])) return std::nullopt;
    work += (work.empty() ? "(" : " * (") + (*args)[i] + ")";
  }
  return work;
}

}  // namespace weir::codegen::detail
