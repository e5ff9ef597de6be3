// The CPU code generator's public face: its errors, argument descriptions, and generate_cpu (the
// frame and the walk are shared with the CUDA generator: program_frame.cpp).
#include "weir/codegen/cpu_codegen.h"

#include "codegen_internal.h"
#include "weir/codegen/program_abi.h"

namespace weir::codegen {

using namespace detail;

namespace {

std::string located(const ElementRef& where, const std::string& message) {
  std::string d = where.describe();
  return "codegen: " + (d.empty() ? message : d + ": " + message);
}

}  // namespace

CodegenError::CodegenError(ElementRef where, const std::string& message)
    : Error(located(where, message)), where_(std::move(where)), message_(message) {}

std::string_view to_string(ArgKind k) {
  switch (k) {
    case ArgKind::Array: return "array";
    case ArgKind::Scalar: return "scalar";
    case ArgKind::Symbol: return "symbol";
  }
  return "?";
}

std::string detail::json_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      static const char* hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string arglist_json(const std::vector<ArgInfo>& args) {
  std::string out = "[";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    out += "{\"name\": \"" + json_escape(args[i].name) + "\", \"kind\": \"" +
           std::string(to_string(args[i].kind)) + "\", \"dtype\": \"" +
           std::string(weir::to_string(args[i].dtype)) + "\"}";
  }
  return out + "]";
}

GeneratedCode generate_cpu(const SDFG& sdfg, const CodegenOptions& options) {
  return detail::generate_program(sdfg, options, detail::cpu_emitter());
}

}  // namespace weir::codegen
