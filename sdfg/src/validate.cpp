// SDFG validation (DaCe's validate_sdfg): the driver, SDFG-level checks (names, arguments)
// and the helpers shared by validate_descriptors.cpp, validate_control_flow.cpp and
// validate_dataflow.cpp. Every check reports a Diagnostic instead of throwing, so that one
// run lists every problem of a malformed graph.
#include "weir/sdfg/validate.h"

#include <exception>
#include <map>

#include "validate_internal.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/unparse.h"
#include "weir/sdfg/symbolic.h"

namespace weir {

std::string Diagnostic::str() const {
  std::string place = where.describe();
  std::string s = place.empty() ? message : place + ": " + message;
  return s + " [" + code + "]";
}

namespace {

std::string list_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string s = "invalid SDFG (" + std::to_string(diagnostics.size()) + " problem" +
                  (diagnostics.size() == 1 ? "" : "s") + ")";
  for (const Diagnostic& d : diagnostics) s += "\n  " + d.str();
  return s;
}

}  // namespace

InvalidSDFGError::InvalidSDFGError(std::vector<Diagnostic> diagnostics)
    : Error(list_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

std::vector<Diagnostic> validate(const SDFG& sdfg) {
  std::vector<Diagnostic> out;
  detail::validate_sdfg_into(sdfg, sdfg.name, out, 0, nullptr);
  if (out.empty()) detail::validate_code_into(sdfg, out);
  return out;
}

void validate_or_throw(const SDFG& sdfg) {
  std::vector<Diagnostic> diagnostics = validate(sdfg);
  if (!diagnostics.empty()) throw InvalidSDFGError(std::move(diagnostics));
}

namespace detail {

// --- Validator -----------------------------------------------------------------------------

Validator::Validator(const SDFG& s, std::string path, std::vector<Diagnostic>& o, int d,
                     const NestedSDFGNode* parent)
    : sdfg(s), name_path(std::move(path)), depth(d), parent_node(parent), out(o) {}

void Validator::report(std::string code, std::string message, ElementRef where) {
  out.push_back(Diagnostic{std::move(code), std::move(message), std::move(where)});
}

void Validator::guarded(const ElementRef& where, const std::function<void()>& check) {
  try {
    check();
  } catch (const std::exception& e) {
    report("validator-exception", std::string("validation stopped early here: ") + e.what(), where);
  } catch (...) {
    report("validator-exception", "validation stopped early here: unknown exception", where);
  }
}

ElementRef Validator::at_sdfg() const {
  ElementRef r;
  r.sdfg = name_path;
  return r;
}

ElementRef Validator::at_block(const ControlFlowBlock& b) const {
  ElementRef r = at_sdfg();
  // The SDFG itself is named by `sdfg`; only blocks below it get a path.
  if (b.kind() != BlockKind::SDFG) r.block_path = b.path();
  return r;
}

ElementRef Validator::at_node(const SDFGState& s, const Node& n) const {
  ElementRef r = at_block(s);
  r.node = static_cast<long>(n.id());
  r.node_label = n.label;
  return r;
}

ElementRef Validator::at_edge(const SDFGState& s, EdgeId e) const {
  ElementRef r = at_block(s);
  r.edge = static_cast<long>(e);
  return r;
}

ElementRef Validator::at_interstate_edge(const ControlFlowRegion& region, EdgeId e) const {
  ElementRef r = at_block(region);
  r.edge = static_cast<long>(e);
  return r;
}

// --- helpers -------------------------------------------------------------------------------

std::optional<SymbolSet> expression_symbols(const std::string& text) {
  try {
    return sym::Expr::parse(text).free_symbols();
  } catch (const std::exception&) {
    // Not an expression weir's symbolic layer reads (Python calls, subscripts, ...): the
    // validator is lenient and checks nothing rather than report a false error.
    return std::nullopt;
  }
}

std::optional<SymbolSet> statement_symbols(const std::string& text) {
  // Assignments `x = e` / `x op= e`, from the syntax tree; the symbols of each value, less the
  // names the statements before it assigned. Anything else: not checked (nullopt).
  pycode::StmtList body;
  try {
    body = pycode::parse_statements(text, "<statement>");
  } catch (const pycode::SourceError&) {
    return std::nullopt;  // validate_for_codegen reports the syntax error
  }
  SymbolSet out, assigned;
  for (const pycode::StmtPtr& st : body) {
    const pycode::Expr* value = nullptr;
    const pycode::Expr* target = nullptr;
    if (const auto* a = pycode::dyn_cast<pycode::Assign>(st.get()); a && a->targets.size() == 1) {
      value = a->value.get();
      target = a->targets[0].get();
    } else if (const auto* g = pycode::dyn_cast<pycode::AugAssign>(st.get())) {
      value = g->value.get();
      target = g->target.get();
      if (const auto* n = pycode::dyn_cast<pycode::Name>(target); n && !assigned.count(n->id))
        out.insert(n->id);
    } else if (const auto* e = pycode::dyn_cast<pycode::ExprStmt>(st.get())) {
      value = e->value.get();
    }
    if (!value) return std::nullopt;
    auto used = expression_symbols(pycode::unparse(*value));
    if (!used) return std::nullopt;
    for (const std::string& u : *used)
      if (!assigned.count(u)) out.insert(u);
    if (const auto* n = pycode::dyn_cast<pycode::Name>(target))
      assigned.insert(n->id);
    else if (target)
      return std::nullopt;
  }
  return out;
}

SymbolSet undefined_in(const SymbolSet& used, const SymbolSet& defined) {
  SymbolSet out;
  for (const std::string& s : used) {
    if (!defined.count(s)) out.insert(s);
  }
  return out;
}

std::string quoted_list(const SymbolSet& names) {
  std::string s;
  for (const std::string& n : names) {
    if (!s.empty()) s += ", ";
    s += "'" + n + "'";
  }
  return s;
}

std::string code_excerpt(const std::string& code) {
  constexpr std::size_t kMaxExcerpt = 80;
  if (code.find('\n') != std::string::npos || code.size() > kMaxExcerpt) return "";
  return " (its code: `" + code + "`)";
}

const SymbolSet& builtin_symbols() {
  static const SymbolSet builtins = {
      "True", "False", "None",  "and",  "or",        "not",      "min",       "max",
      "abs",  "int",   "float", "bool", "round",     "pow",      "len",       "range",
      "math", "np",    "numpy", "dace", "pi",        "inf",      "nan",       "sqrt",
      "exp",  "log",   "sin",   "cos",  "tan",       "floor",    "ceil",      "ceiling",
      "Min",  "Max",   "Abs",   "Mod",  "int_floor", "int_ceil", "floor_div", "ceiling_div"};
  return builtins;
}

void for_each_region(const ControlFlowRegion& region,
                     const std::function<void(const ControlFlowRegion&)>& fn) {
  fn(region);
  for (const ControlFlowBlock* b : region.blocks()) {
    if (const auto* r = b->as<ControlFlowRegion>()) {
      for_each_region(*r, fn);
    } else if (const auto* c = b->as<ConditionalBlock>()) {
      for (const auto& branch : c->branches()) {
        if (branch.body) for_each_region(*branch.body, fn);
      }
    }
  }
}

// --- SDFG-level checks ---------------------------------------------------------------------

namespace {

void collect_control_flow_symbols(Validator& v) {
  for_each_region(v.sdfg, [&v](const ControlFlowRegion& r) {
    if (const auto* loop = r.as<LoopRegion>()) {
      if (!loop->loop_variable.empty()) v.all_loop_variables.insert(loop->loop_variable);
    }
    for (const ControlFlowEdge* e : r.edges()) {
      for (const auto& [target, value] : e->data.assignments) v.assigned_symbols.insert(target);
    }
  });
  for (const auto& [name, type] : v.sdfg.symbols) v.defined.insert(name);
  v.defined.insert(v.assigned_symbols.begin(), v.assigned_symbols.end());
  v.defined.insert(builtin_symbols().begin(), builtin_symbols().end());
}

void check_names_and_arguments(Validator& v) {
  const SDFG& sdfg = v.sdfg;
  const ElementRef here = v.at_sdfg();
  if (!is_identifier(sdfg.name)) {
    v.report("sdfg-name", "SDFG name '" + sdfg.name + "' is not a valid identifier", here);
  }
  for (const auto& [name, type] : sdfg.symbols) {
    if (!is_identifier(name)) {
      v.report("symbol-name", "symbol name '" + name + "' is not a valid identifier", here);
    }
    if (sdfg.arrays.count(name)) {
      v.report("name-conflict", "'" + name + "' is both a symbol and a data container", here);
    }
  }
  std::set<std::string> seen;
  for (const std::string& arg : sdfg.arg_names) {
    if (!seen.insert(arg).second) {
      v.report("arg-duplicate", "argument '" + arg + "' appears more than once in arg_names", here);
      continue;
    }
    auto it = sdfg.arrays.find(arg);
    if (it != sdfg.arrays.end()) {
      if (it->second.transient) {
        v.report("arg-transient", "argument '" + arg + "' is a transient data container", here);
      }
    } else if (!sdfg.symbols.count(arg)) {
      v.report("arg-unknown", "argument '" + arg + "' is neither a data container nor a symbol", here);
    }
  }
  if (sdfg.num_blocks() == 0) {
    v.report("sdfg-empty", "the SDFG has no blocks (DaCe requires at least one state)", here);
  }
}

}  // namespace

void validate_sdfg_into(const SDFG& sdfg, std::string name_path, std::vector<Diagnostic>& out, int depth,
                        const NestedSDFGNode* parent_node) {
  Validator v(sdfg, std::move(name_path), out, depth, parent_node);
  const ElementRef here = v.at_sdfg();
  v.guarded(here, [&v] { collect_control_flow_symbols(v); });
  v.guarded(here, [&v] { check_names_and_arguments(v); });
  v.guarded(here, [&v] { validate_descriptors(v); });
  v.guarded(here, [&v] { validate_control_flow(v); });
  v.guarded(here, [&v] { validate_gpu(v); });
}

}  // namespace detail
}  // namespace weir
