// A generated program as several translation units (ADR 0024): compiling one unit of 1,000
// stencils took minutes at -O3 (the optimizer is superlinear in a unit's size), units of a few
// hundred KB compile in parallel, each in about a second. State and nested-SDFG functions
// become hidden (not static) so that units call each other; each unit declares what it calls.
#include <unordered_map>

#include "codegen_internal.h"

namespace weir::codegen::detail {

void FunctionList::append(const Writer& w, std::string declaration, CodeFacts facts) {
  Function f{w.str(), std::move(declaration), std::move(facts)};
  bytes_ += f.text.size();
  functions_.push_back(std::move(f));
}

bool FunctionList::any(bool CodeFacts::*flag, std::size_t first) const {
  for (std::size_t i = first; i < functions_.size(); ++i)
    if (functions_[i].facts.*flag) return true;
  return false;
}

std::string FunctionList::str() const {
  std::string out;
  out.reserve(bytes_);
  for (const auto& f : functions_) out += f.text;
  return out;
}

namespace {

constexpr const char* kHidden = "[[gnu::visibility(\"hidden\")]] ";

// The function name of a declaration "void name(params)".
std::string declared_name(const std::string& declaration) {
  std::size_t open = declaration.find('(');
  std::size_t start = declaration.rfind(' ', open);
  return declaration.substr(start + 1, open - start - 1);
}

}  // namespace

std::vector<std::string> split_units(const FunctionList& functions, const std::string& head,
                                     const std::string& entry, const std::set<std::string>& entry_calls,
                                     std::size_t unit_bytes) {
  if (unit_bytes == 0 || functions.bytes() <= unit_bytes) return {};
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < functions.size(); ++i) {
    if (functions[i].declaration.empty()) return {};
    index.emplace(declared_name(functions[i].declaration), i);
  }
  // Consecutive functions up to about unit_bytes per unit; unit 0 holds the entry points.
  std::vector<std::size_t> unit_of(functions.size());
  std::size_t units = 1, fill = 0;
  for (std::size_t i = 0; i < functions.size(); ++i) {
    if (i == 0 || fill >= unit_bytes) {
      ++units;
      fill = 0;
    }
    unit_of[i] = units - 1;
    fill += functions[i].text.size();
  }
  std::vector<std::string> decls(units), defs(units);
  std::vector<std::size_t> declared_in(functions.size(), units);  // last unit that declared it
  // The calls each function's emitters recorded (CodeFacts::calls), not names found in its text.
  auto declare_calls = [&](const std::set<std::string>& called, std::size_t u) {
    for (const std::string& name : called) {
      auto it = index.find(name);
      if (it == index.end()) continue;  // a kernel or device function: in its caller's unit
      std::size_t c = it->second;
      if (unit_of[c] == u || declared_in[c] == u) continue;
      declared_in[c] = u;
      decls[u] += kHidden + functions[c].declaration + ";\n";
    }
  };
  for (std::size_t i = 0; i < functions.size(); ++i) {
    const auto& f = functions[i];
    std::size_t u = unit_of[i];
    declare_calls(f.facts.calls, u);
    std::string header = "static " + f.declaration + " {";
    std::size_t at = f.text.find(header), prefix = 7;  // without "static "
    if (at == std::string::npos) {
      // A nested SDFG's inlined state (dataflow_codegen.cpp): its callers may be in another unit
      // now, so it is an ordinary hidden function there.
      const std::string inlined = "static inline __attribute__((always_inline)) ";
      at = f.text.find(inlined + f.declaration + " {");
      prefix = inlined.size();
    }
    if (at == std::string::npos)
      throw GenFailure("internal: function '" + declared_name(f.declaration) + "' does not start with '" +
                       header + "'");
    defs[u].append(f.text, 0, at);
    defs[u] += kHidden;
    defs[u].append(f.text, at + prefix, std::string::npos);
  }
  declare_calls(entry_calls, 0);
  defs[0] += entry;
  std::vector<std::string> out(units);
  for (std::size_t u = 0; u < units; ++u) {
    out[u].reserve(head.size() + decls[u].size() + defs[u].size() + 128);
    out[u] += head;
    out[u] += "// --- unit " + std::to_string(u) + " of " + std::to_string(units) +
              (u == 0 ? ": entry points" : ": functions") +
              "; declarations of the other units' functions it calls\n";
    out[u] += decls[u];
    out[u] += '\n';
    out[u] += defs[u];
  }
  return out;
}

}  // namespace weir::codegen::detail
