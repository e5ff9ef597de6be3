// Validation of memory layouts (ADR 0037): every element address the generated code can form
// from in-bounds indices must lie inside the container's memory. Descriptors alone
// (desc-layout: strides, start_offset, total_size), views against the subset they are bound to
// (view-reach) and nested SDFG arguments against their outer memlets (nested-reach). What
// depends on symbols in a way that cannot be decided here is checked by the generated code.
#include "validate_internal.h"
#include "weir/sdfg/layout.h"
#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/view_binding.h"

namespace weir::detail {

namespace {

void report_if_fails(Validator& v, const std::string& code, const LayoutCondition& c,
                     const ElementRef& where) {
  if (holds(c) == false) v.report(code, c.message, where);
}

}  // namespace

void check_descriptor_layout(Validator& v, const std::string& name, const DataDescriptor& d) {
  const ElementRef here = v.at_sdfg();
  try {
    for (const LayoutCondition& c : layout_conditions(name, d)) report_if_fails(v, "desc-layout", c, here);
    // An argument of the top-level SDFG is bound to the caller's array at its first element.
    if (v.depth == 0 && v.parent_node == nullptr && !d.transient && !d.is_scalar() &&
        d.kind == DataKind::Array && !(d.start_offset == sym::Expr(0)) && d.start_offset.is_integer()) {
      v.report("desc-layout",
               "container '" + name + "' is an argument of the program with start_offset " +
                   d.start_offset.str() +
                   ": arguments are bound at their first element, so start_offset must be 0",
               here);
    }
  } catch (const sym::SymbolicError& e) {
    v.report("desc-layout",
             "container '" + name +
                 "': its shape, strides, start_offset and total_size overflow 64-bit element "
                 "indices (" +
                 e.what() + ")",
             here);
  }
}

void check_view_reach(Validator& v, const SDFGState& st, const AccessNode& n) {
  auto self = v.sdfg.arrays.find(n.data);
  if (self == v.sdfg.arrays.end() || !self->second.is_view()) return;
  auto b = view_binding(v.sdfg, st, n);
  if (!b) return;  // code generation reports a view it cannot bind
  auto viewed = v.sdfg.arrays.find(b->viewed);
  if (viewed == v.sdfg.arrays.end() || viewed->first == n.data) return;
  try {
    auto c =
        reach_condition(n.data, self->second, b->viewed, viewed->second, b->subset, "view '" + n.data + "'");
    if (c) report_if_fails(v, "view-reach", *c, v.at_node(st, n));
  } catch (const sym::SymbolicError& e) {
    v.report("view-reach",
             "view '" + n.data + "': its reach overflows 64-bit element indices (" + e.what() + ")",
             v.at_node(st, n));
  }
}

void check_nested_reach(Validator& v, const SDFGState& st, const NestedSDFGNode& n) {
  auto check = [&](const std::vector<EdgeId>& edges, bool incoming) {
    for (EdgeId id : edges) {
      try {
        if (auto c = nested_argument_reach(v.sdfg, n, st.edge(id), incoming))
          report_if_fails(v, "nested-reach", *c, v.at_edge(st, id));
      } catch (const sym::SymbolicError& ex) {
        v.report("nested-reach",
                 describe_node(n) + ": the reach of an argument overflows 64-bit element indices (" +
                     ex.what() + ")",
                 v.at_edge(st, id));
      }
    }
  };
  check(st.in_edges(n.id()), true);
  check(st.out_edges(n.id()), false);
}

}  // namespace weir::detail
