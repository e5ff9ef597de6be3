// Run-time checks of memory layouts (ADR 0037): the conditions of weir/sdfg/layout.h that the
// validator could not decide because they depend on symbol values, checked where the body
// starts, before any state runs (a nested SDFG's body records the fault and returns, as its
// bounds checks do). A condition known to fail, or one that depends on symbols the body only
// learns later, is a CodegenError (the validator reports the first kind as well).
#include "codegen_internal.h"
#include "weir/sdfg/layout.h"

namespace weir::codegen::detail {

namespace {

/// C++ of `c`: true when it fails.
std::string failure_test(const LayoutCondition& c) {
  std::string test = "(" + sym_cpp(c.value) + ") < 0";
  for (const auto& e : c.nonempty) {
    if (e.is_integer()) continue;  // a constant extent >= 1 (holds() returns true for 0)
    test = "(" + sym_cpp(e) + ") >= 1 && " + test;
  }
  return test;
}

}  // namespace

void SdfgGen::emit_layout_checks(Writer& w) const {
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
      std::set<std::string> syms = c.value.free_symbols();
      for (const auto& e : c.nonempty) syms.merge(e.free_symbols());
      for (const auto& s : syms)
        if (!init_symbols.count(s))
          throw CodegenError(ref(), c.message + " (not provable, and it depends on symbol '" + s +
                                        "', which is only known inside the SDFG: weir cannot check it before "
                                        "the container is used)");
      const std::string text = c_escape(c.message + " (false for the symbol values of this call)");
      if (!top_level) {
        // A nested SDFG's function may run inside a parallel loop or a kernel, where it cannot
        // throw: the fault is recorded and the body returns before any state runs; the top-level
        // state that called it throws (conv2d's auto-optimized views: strides (H - K + 1) * ...).
        w.line("if (" + failure_test(c) + ") { weir_layout_fault(\"" + text + "\"); " + return_statement() +
               " }");
        note_fault();
        continue;
      }
      w.line("if (" + failure_test(c) + ") weir_throw(\"%s\", \"" + text + "\");");
    }
  }
}

}  // namespace weir::codegen::detail

namespace weir::codegen::detail {

void require_reach(const std::optional<LayoutCondition>& c, const ElementRef& where) {
  // Refused when it provably fails; a reach that depends on symbol values in a way weir cannot
  // decide is not refused (a known gap, ADR 0037: no run-time check of it yet).
  if (c && holds(*c) == false) throw CodegenError(where, c->message);
}

}  // namespace weir::codegen::detail
