// Run-time checks of memory layouts (ADR 0037): the conditions of weir/sdfg/layout.h that the
// validator could not decide because they depend on symbol values. Descriptors' conditions are
// checked where the body starts, before any state runs (a nested SDFG's body records the fault
// and returns, as its bounds checks do); a condition known to fail, or one that depends on
// symbols the body only learns later, is a CodegenError (the validator reports the first kind as
// well). The reaches of views and nested SDFG arguments are checked where the body starts when
// they depend on the call's symbols only, before the state that binds them when they depend on
// symbols the control flow assigns, and at the call of a nested SDFG when they depend on a map's
// parameters (StateGen::emit_nested).
#include "codegen_internal.h"
#include "state_codegen.h"
#include "weir/sdfg/layout.h"
#include "weir/sdfg/view_binding.h"

namespace weir::codegen::detail {

std::string layout_failure_test(const LayoutCondition& c) {
  std::string test = "(" + sym_cpp(c.value) + ") < 0";
  for (const auto& e : c.nonempty) {
    if (e.is_integer()) continue;  // a constant extent >= 1 (holds() returns true for 0)
    test = "(" + sym_cpp(e) + ") >= 1 && " + test;
  }
  return test;
}

std::set<std::string> layout_condition_symbols(const LayoutCondition& c) {
  std::set<std::string> syms = c.value.free_symbols();
  for (const auto& e : c.nonempty) syms.merge(e.free_symbols());
  return syms;
}

std::string unwritable_check(const LayoutCondition& c, const GenFailure& e) {
  return c.message + " (not provable, and weir cannot write a run-time check for it: " + e.what() + ")";
}

namespace {

/// The reach conditions of the views and nested SDFG arguments of `st` that depend on symbol
/// values in a way the validator cannot decide, each once. A reach whose arithmetic overflows
/// is left to state generation, which refuses it at its node.
std::vector<LayoutCondition> undecided_reaches(const SDFG& sdfg, const SDFGState& st) {
  std::vector<LayoutCondition> out;
  auto add = [&](std::optional<LayoutCondition> c) {
    if (!c || holds(*c).has_value()) return;
    for (const auto& o : out)
      if (o.message == c->message && o.value == c->value) return;
    out.push_back(std::move(*c));
  };
  for (const Node* n : st.nodes()) {
    try {
      if (auto* a = n->as<AccessNode>()) {
        auto self = sdfg.arrays.find(a->data);
        if (self == sdfg.arrays.end() || !self->second.is_view()) continue;
        auto b = view_binding(sdfg, st, *a);
        if (!b || b->viewed == a->data) continue;
        auto viewed = sdfg.arrays.find(b->viewed);
        if (viewed == sdfg.arrays.end()) continue;
        add(reach_condition(a->data, self->second, b->viewed, viewed->second, b->subset,
                            "view '" + a->data + "'"));
      } else if (auto* ns = n->as<NestedSDFGNode>()) {
        for (bool incoming : {true, false})
          for (EdgeId id : incoming ? st.in_edges(ns->id()) : st.out_edges(ns->id()))
            add(nested_argument_reach(sdfg, *ns, st.edge(id), incoming));
      }
    } catch (const sym::SymbolicError&) {
      // (refused where the state defines the view or calls the nested SDFG)
    }
  }
  return out;
}

}  // namespace

SdfgGen::CheckPoint SdfgGen::reach_check_point(const LayoutCondition& c) const {
  bool at_start = true, in_body = true;
  for (const auto& s : layout_condition_symbols(c)) {
    at_start = at_start && init_symbols.count(s) && !assigned_symbols.count(s) && !sdfg.arrays.count(s);
    in_body = in_body && symbols.count(s) && !sdfg.arrays.count(s);
  }
  return at_start ? CheckPoint::BodyStart : in_body ? CheckPoint::StateStart : CheckPoint::Use;
}

std::string SdfgGen::layout_check_statement(const LayoutCondition& c, const std::string& why) const {
  const std::string text = c_escape(c.message + why);
  if (top_level) return "if (" + layout_failure_test(c) + ") weir_throw(\"%s\", \"" + text + "\");";
  // A nested SDFG's function may run inside a parallel loop or a kernel, where it cannot throw:
  // the fault is recorded and the body returns before any state runs; the top-level state that
  // called it throws (conv2d's auto-optimized views: strides (H - K + 1) * ...).
  note_fault();
  return "if (" + layout_failure_test(c) + ") { weir_layout_fault(\"" + text + "\"); " + return_statement() +
         " }";
}

void SdfgGen::emit_layout_checks(Writer& w) {
  for (const auto& [name, d] : sdfg.arrays) {
    std::vector<LayoutCondition> conditions;
    try {
      conditions = layout_conditions(name, d);
    } catch (const sym::SymbolicError& e) {
      throw CodegenError(
          ref(), "container '" + name + "': its layout overflows 64-bit element indices (" + e.what() + ")");
    }
    for (const LayoutCondition& c : conditions) {
      std::optional<bool> ok = holds(c);
      if (ok == true) continue;
      // A nested SDFG's argument: its strides are checked by the caller against the outer
      // container's (StateGen::emit_nested, require_argument_strides).
      if (ok != false && !top_level && !d.transient && c.field == "strides") continue;
      if (ok == false) throw CodegenError(ref(), c.message);
      for (const auto& s : layout_condition_symbols(c))
        if (!init_symbols.count(s))
          throw CodegenError(ref(), c.message + " (not provable, and it depends on symbol '" + s +
                                        "', which is only known inside the SDFG: weir cannot check it before "
                                        "the container is used)");
      w.line(layout_check_statement(c, " (false for the symbol values of this call)"));
    }
  }
  // The reaches of views and nested SDFG arguments (a constant inner shape 64 bound to S[0:N] is
  // right only for N >= 64): those on the call's symbols here, those on symbols the control
  // flow assigns before their state (state_call), those on a map's parameters at the nested
  // SDFG's call (StateGen::emit_nested; a view's are not checked).
  std::set<std::string> emitted;
  for (const SDFGState* st : sdfg.all_states()) {
    for (LayoutCondition& c : undecided_reaches(sdfg, *st)) {
      const CheckPoint at = reach_check_point(c);
      if (at == CheckPoint::Use) continue;
      try {
        if (at == CheckPoint::StateStart) {
          (void)layout_failure_test(c);  // C++ for it exists
          state_reach_checks[st].push_back(std::move(c));
        } else if (emitted.insert(c.message + "\n" + c.value.str()).second) {
          w.line(layout_check_statement(c, " (false for the symbol values of this call)"));
        }
      } catch (const GenFailure& e) {
        throw CodegenError(ref(st), unwritable_check(c, e));
      }
    }
  }
}

std::string scope_reach_test(const LayoutCondition& c, const std::map<std::string, ScalarType>& visible,
                             const ElementRef& where) {
  for (const auto& s : layout_condition_symbols(c))
    if (!visible.count(s))
      throw CodegenError(where, c.message + " (not provable, and it depends on '" + s +
                                    "', which is not known where it is used: weir cannot check it)");
  try {
    return layout_failure_test(c);
  } catch (const GenFailure& e) {
    throw CodegenError(where, unwritable_check(c, e));
  }
}

void require_reach(const std::optional<LayoutCondition>& c, const ElementRef& where) {
  // Refused when it provably fails; a reach that depends on symbol values in a way weir cannot
  // decide is checked at run time (emit_layout_checks, StateGen::emit_nested).
  if (c && holds(*c) == false) throw CodegenError(where, c->message);
}

}  // namespace weir::codegen::detail
