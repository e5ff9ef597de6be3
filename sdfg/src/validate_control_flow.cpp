// Validation of control flow (DaCe's validate_control_flow_region): start blocks, interstate
// edges (endpoints, assignments, symbols), loops and conditionals, for the SDFG and every
// region below it. States are handed to validate_state with the symbols defined there.
#include <map>

#include "validate_internal.h"

namespace weir::detail {

namespace {

/// Interstate code (conditions, assignments, loop statements) may also read data containers,
/// as DaCe allows (`t < TSTEPS` with a Scalar TSTEPS).
SymbolSet undefined_in_code(const Validator& v, const SymbolSet& used, const SymbolSet& defined) {
  SymbolSet out;
  for (const std::string& s : undefined_in(used, defined)) {
    if (!v.sdfg.arrays.count(s)) out.insert(s);
  }
  return out;
}

std::string block_name(const ControlFlowRegion& r, BlockId id) {
  if (!r.has_block(id)) return "block " + std::to_string(id);
  return "'" + r.block(id).label + "'";
}

/// Reports symbols of Python `text` that are not in `defined` (nothing if it does not parse).
void check_code_symbols(Validator& v, const CodeBlock& code, bool statement, const SymbolSet& defined,
                        const ElementRef& where, const std::string& what) {
  if (code.language != Language::Python || code.code.empty()) return;
  auto used = statement ? statement_symbols(code.code) : expression_symbols(code.code);
  if (!used) return;
  SymbolSet undefined = undefined_in_code(v, *used, defined);
  if (!undefined.empty()) {
    v.report("undefined-symbol",
             what + " '" + code.code + "' uses undefined symbol(s) " + quoted_list(undefined), where);
  }
}

void check_start_block(Validator& v, const ControlFlowRegion& r) {
  if (r.num_blocks() == 0) return;
  const ElementRef here = v.at_block(r);
  if (r.has_explicit_start()) {
    BlockId start = r.explicit_start();
    if (!r.has_block(start)) {
      v.report("cf-start-block",
               "the start block (" + std::to_string(start) + ") is not a block of this region", here);
    }
    return;
  }
  if (r.start_block() == kNoBlock) {
    std::size_t sources = 0;
    for (const ControlFlowBlock* b : r.blocks()) {
      if (r.in_edges(b->id()).empty()) ++sources;
    }
    v.report("cf-start-block",
             "the start block is ambiguous or undefined (" + std::to_string(sources) +
                 " blocks without incoming edges and no explicit start block)",
             here);
  }
}

void check_unique_labels(Validator& v, const ControlFlowRegion& r) {
  std::map<std::string, int> count;
  for (const ControlFlowBlock* b : r.blocks()) ++count[b->label];
  for (const auto& [label, n] : count) {
    if (n > 1) {
      v.report("cf-duplicate-label",
               std::to_string(n) + " blocks of this region are labelled '" + label + "'", v.at_block(r));
    }
  }
}

void check_interstate_edge(Validator& v, const ControlFlowRegion& r, const ControlFlowEdge& e,
                           const SymbolSet& defined) {
  const ElementRef here = v.at_interstate_edge(r, e.id);
  const std::string what = "interstate edge " + block_name(r, e.src) + " -> " + block_name(r, e.dst);
  if (!r.has_block(e.src) || !r.has_block(e.dst)) {
    v.report("cf-edge-endpoint", what + " does not join two blocks of this region", here);
    return;
  }
  check_code_symbols(v, e.data.condition, false, defined, here, what + ": condition");

  SymbolSet targets;
  for (const auto& [target, value] : e.data.assignments) targets.insert(target);
  for (const auto& [target, value] : e.data.assignments) {
    if (!is_identifier(target)) {
      v.report("isedge-assign-name", what + " assigns to '" + target + "', which is not a valid identifier",
               here);
    }
    if (v.sdfg.arrays.count(target)) {
      v.report(
          "isedge-assign-data",
          what + " assigns to data container '" + target + "' (interstate edges may only assign symbols)",
          here);
    }
    auto used = expression_symbols(value.code);
    if (!used) continue;
    SymbolSet undefined = undefined_in_code(v, *used, defined);
    if (!undefined.empty()) {
      v.report("undefined-symbol",
               what + ": assignment " + target + " = " + value.code + " uses undefined symbol(s) " +
                   quoted_list(undefined),
               here);
    }
    SymbolSet racing;
    for (const std::string& s : *used) {
      if (s != target && targets.count(s)) racing.insert(s);
    }
    if (!racing.empty()) {
      v.report("isedge-assign-race",
               what + ": assignment " + target + " = " + value.code + " reads " + quoted_list(racing) +
                   ", which the same edge also assigns",
               here);
    }
  }
}

void validate_region(Validator& v, const ControlFlowRegion& r, const SymbolSet& defined);

void validate_block(Validator& v, const ControlFlowBlock& b, const SymbolSet& defined) {
  const ElementRef here = v.at_block(b);
  if (const auto* state = b.as<SDFGState>()) {
    if (!is_identifier(state->label)) {
      v.report("block-name", "state label '" + state->label + "' is not a valid identifier", here);
    }
    validate_state(v, *state, defined);
  } else if (const auto* loop = b.as<LoopRegion>()) {
    SymbolSet inner = defined;
    if (!loop->loop_variable.empty()) {
      if (!is_identifier(loop->loop_variable)) {
        v.report("loop-variable-name",
                 "loop variable '" + loop->loop_variable + "' is not a valid identifier", here);
      }
      inner.insert(loop->loop_variable);
    }
    check_code_symbols(v, loop->init_statement, true, inner, here, "loop init statement");
    check_code_symbols(v, loop->loop_condition, false, inner, here, "loop condition");
    check_code_symbols(v, loop->update_statement, true, inner, here, "loop update statement");
    validate_region(v, *loop, inner);
  } else if (const auto* region = b.as<ControlFlowRegion>()) {
    validate_region(v, *region, defined);
  } else if (const auto* cond = b.as<ConditionalBlock>()) {
    const auto& branches = cond->branches();
    for (std::size_t i = 0; i < branches.size(); ++i) {
      const auto& branch = branches[i];
      if (branch.condition) {
        check_code_symbols(v, *branch.condition, false, defined, here,
                           "condition of branch " + std::to_string(i));
      }
      if (!branch.body) {
        v.report("conditional-branch", "branch " + std::to_string(i) + " has no body region", here);
        continue;
      }
      validate_region(v, *branch.body, defined);
    }
  }
  // Break / continue / return blocks carry nothing to check.
}

void validate_region(Validator& v, const ControlFlowRegion& r, const SymbolSet& defined) {
  v.guarded(v.at_block(r), [&] {
    check_start_block(v, r);
    check_unique_labels(v, r);
    for (const ControlFlowEdge* e : r.edges()) {
      v.guarded(v.at_interstate_edge(r, e->id), [&] { check_interstate_edge(v, r, *e, defined); });
    }
  });
  for (const ControlFlowBlock* b : r.blocks()) {
    v.guarded(v.at_block(*b), [&] { validate_block(v, *b, defined); });
  }
}

}  // namespace

void validate_control_flow(Validator& v) { validate_region(v, v.sdfg, v.defined); }

}  // namespace weir::detail
