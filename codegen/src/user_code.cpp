// The trust rule for user-written C++ in an SDFG (docs/security.md): CPP tasklets, tasklets'
// code_global / code_init / code_exit and the SDFG's global_code / init_code / exit_code are
// pasted into the generated program verbatim, so an SDFG carrying them is a program, not data.
// Without CodegenOptions::trust_code the code generator refuses them before generating
// anything; Python tasklets are always allowed (they are translated, never pasted), and so are
// tasklets weir's own passes wrote (weir/sdfg/written_by_weir.h, a mark in memory only).
#include <nlohmann/json.hpp>

#include "codegen_internal.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/written_by_weir.h"

namespace weir::codegen::detail {

namespace {

std::string excerpt(const std::string& code) {
  std::string s;
  for (char c : code) {
    if (s.size() >= 60) return s + "...";
    s += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  return s;
}

bool blank(const std::string& code) { return code.find_first_not_of(" \t\r\n") == std::string::npos; }

class UserCodeCheck {
 public:
  explicit UserCodeCheck(const CodegenOptions& o) : opts_(o) {}

  void sdfg(const SDFG& s, const std::string& path) {
    ElementRef where;
    where.sdfg = path;
    frame(s.global_code, "global_code", where, "the SDFG's");
    frame(s.init_code, "init_code", where, "the SDFG's");
    frame(s.exit_code, "exit_code", where, "the SDFG's");
    for (const char* field : {"global_code", "init_code", "exit_code"}) located(s, field, where);
    for (const SDFGState* st : s.all_states()) {
      for (const Node* n : st->nodes()) {
        ElementRef at = where;
        at.block_path = st->path().empty() ? st->label : st->path();
        at.node = static_cast<long>(n->id());
        at.node_label = n->label;
        if (const auto* t = n->as<Tasklet>()) tasklet(*t, at);
        if (const auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg)
          sdfg(*ns->sdfg, path + "/" + ns->sdfg->name);
      }
    }
  }

 private:
  const CodegenOptions& opts_;

 public:
  bool found = false;  // user-written C++ seen (and trusted)

 private:
  [[noreturn]] static void untrusted(const ElementRef& where, const std::string& what,
                                     const std::string& code) {
    throw CodegenError(
        where, what + " is C++ written into the SDFG (`" + excerpt(code) +
                   "`), which would be compiled and run as it is; an SDFG file is untrusted input, so "
                   "weir refuses user-written C++ unless you trust its author: pass --trust-code "
                   "(weir run, weir compile) or set CodegenOptions::trust_code (C++ API)");
  }

  void frame(const CodeBlock& c, const std::string& field, const ElementRef& where,
             const std::string& owner) {
    if (is_blank(c)) return;
    if (c.language != Language::CPP)
      throw CodegenError(where, owner + " " + field + " in " + std::string(to_string(c.language)) +
                                    " is not supported by the CPU code generator (only C++)");
    if (!opts_.trust_code) untrusted(where, owner + " " + field, c.code);
    found = true;
  }

  // DaCe keeps frame code as {location: code}; the loader models a lone "frame" location and
  // keeps any other form raw in `extra`, which no generator emits: refused, never dropped.
  void located(const SDFG& s, const std::string& field, const ElementRef& where) {
    const std::string* raw = s.extra.find(field);
    if (!raw) return;
    nlohmann::json j = nlohmann::json::parse(*raw, nullptr, false);
    if (!j.is_object()) {
      if (j.is_null()) return;
      throw CodegenError(
          where, "the SDFG's " + field + " is not an object {location: code} (`" + excerpt(*raw) + "`)");
    }
    for (const auto& [location, block] : j.items()) {
      std::string code = block.is_object() && block.value("string_data", nlohmann::json()).is_string()
                             ? block["string_data"].get<std::string>()
                             : block.dump();
      if (blank(code)) continue;
      std::string what = "the SDFG's " + field + " for location '" + location + "'";
      if (!opts_.trust_code) untrusted(where, what, code);
      throw CodegenError(where, what +
                                    " is not supported: weir's code generators emit frame code of the "
                                    "location 'frame' only, given as the field's one location");
    }
  }

  void tasklet(const Tasklet& t, const ElementRef& where) {
    std::string name = "tasklet '" + t.label + "'";
    // weir's own C++ (a CBLAS or LAPACKE call of the library-expansion pass), never a file's.
    if (written_by_weir(t) && is_blank(t.code_global) && is_blank(t.code_init) && is_blank(t.code_exit))
      return;
    if (t.code.language == Language::CPP && !is_blank(t.code) && !opts_.trust_code)
      untrusted(where, "the code of " + name, t.code.code);
    if (t.code.language == Language::CPP && !is_blank(t.code)) found = true;
    frame(t.code_global, "code_global", where, "the " + name + "'s");
    frame(t.code_init, "code_init", where, "the " + name + "'s");
    frame(t.code_exit, "code_exit", where, "the " + name + "'s");
  }
};

}  // namespace

bool check_user_code(const SDFG& sdfg, const CodegenOptions& options) {
  UserCodeCheck check(options);
  check.sdfg(sdfg, sdfg.name);
  return check.found;
}

}  // namespace weir::codegen::detail
