// Internal: shared state of the validator (validate*.cpp). Not a public header.
//
// One Validator checks one SDFG; nested SDFGs get their own Validator (validate_sdfg_into),
// whose ElementRef::sdfg is the '/'-joined chain of SDFG names ("outer/inner").
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "weir/sdfg/names.h"
#include "weir/sdfg/validate.h"

namespace weir::detail {

using SymbolSet = std::set<std::string>;

/// Parses every Python code block of `sdfg` and its nested SDFGs (tasklets: "tasklet-syntax";
/// conditions, assignments, loop statements: "code-syntax", and "code-language" where they are
/// not Python). validate() runs it when everything else is valid.
void validate_code_into(const SDFG& sdfg, std::vector<Diagnostic>& out);

class Validator {
 public:
  Validator(const SDFG& sdfg, std::string name_path, std::vector<Diagnostic>& out, int depth,
            const NestedSDFGNode* parent_node);

  const SDFG& sdfg;
  /// "outer/inner" for a nested SDFG.
  const std::string name_path;
  /// Nesting depth (0 for the SDFG validate() was called on).
  const int depth;
  /// The nested SDFG node this SDFG is called from (as found while recursing), or nullptr.
  const NestedSDFGNode* const parent_node;

  /// Symbols defined everywhere in the SDFG: declared symbols, every interstate assignment
  /// target, Python builtins. (Interstate code may also read data containers; see
  /// undefined_in_code.)
  SymbolSet defined;
  /// Every loop variable of a LoopRegion anywhere in the SDFG.
  SymbolSet all_loop_variables;
  /// Every interstate assignment target anywhere in the SDFG.
  SymbolSet assigned_symbols;

  void report(std::string code, std::string message, ElementRef where);
  /// Runs `check`; an exception escaping it (a bug or an IR query that throws on a malformed
  /// graph) becomes a "validator-exception" diagnostic at `where` instead of escaping.
  void guarded(const ElementRef& where, const std::function<void()>& check);
  /// Every diagnostic reported so far, nested SDFGs included (they report into the same list).
  std::vector<Diagnostic>& out;

  ElementRef at_sdfg() const;
  ElementRef at_block(const ControlFlowBlock& b) const;
  ElementRef at_node(const SDFGState& s, const Node& n) const;
  ElementRef at_edge(const SDFGState& s, EdgeId e) const;
  ElementRef at_interstate_edge(const ControlFlowRegion& r, EdgeId e) const;
};

/// Free symbols of a Python expression; nullopt if the text does not parse as one.
std::optional<SymbolSet> expression_symbols(const std::string& text);
/// Free symbols of `name = expr` (the right-hand side) or of a plain expression; nullopt if
/// neither parses.
std::optional<SymbolSet> statement_symbols(const std::string& text);
/// Members of `used` not in `defined`.
SymbolSet undefined_in(const SymbolSet& used, const SymbolSet& defined);
/// "'a', 'b'".
std::string quoted_list(const SymbolSet& names);
/// " (its code: `y = 2 * x`)" for short one-line code, "" for longer code (a message quotes
/// no more than a line of it).
std::string code_excerpt(const std::string& code);
/// Symbols every SDFG may use without declaring them (True, min, math, ...).
const SymbolSet& builtin_symbols();

/// Visits `region` and every region below it (loop bodies, plain regions, branch bodies),
/// not descending into nested SDFGs.
void for_each_region(const ControlFlowRegion& region,
                     const std::function<void(const ControlFlowRegion&)>& fn);

void validate_sdfg_into(const SDFG& sdfg, std::string name_path, std::vector<Diagnostic>& out, int depth,
                        const NestedSDFGNode* parent_node);
void validate_descriptors(Validator& v);
/// Memory layouts (validate_layout.cpp, ADR 0037): a descriptor's strides, start_offset and
/// total_size against its shape ("desc-layout"); a view against the subset it is bound to
/// ("view-reach"); a nested SDFG's array arguments against their outer memlets ("nested-reach").
void check_descriptor_layout(Validator& v, const std::string& name, const DataDescriptor& d);
void check_view_reach(Validator& v, const SDFGState& st, const AccessNode& n);
void check_nested_reach(Validator& v, const SDFGState& st, const NestedSDFGNode& n);
/// Control flow of the whole SDFG, including every state (via validate_state).
void validate_control_flow(Validator& v);
/// One state. `defined` holds the symbols defined at the state (SDFG-wide ones plus loop
/// variables of enclosing loops); map parameters are added per scope.
void validate_state(Validator& v, const SDFGState& state, const SymbolSet& defined);
/// Checks that need the scope tree of an acyclic state: edges crossing scopes, and symbols
/// of memlets, map ranges and symbol mappings (map parameters are defined inside their scope).
/// Reports a failing scope_tree() as "scope-tree" unless `scope_problems_reported`.
void validate_scopes(Validator& v, const SDFGState& state, const SymbolSet& defined,
                     bool scope_problems_reported);
/// DaCe's memlet propagation rule for every map of an acyclic state with sound scopes: inner
/// memlets over the map's range stay inside the outer memlet ("memlet-propagation").
void validate_propagation(Validator& v, const SDFGState& state);
/// What may run where on a GPU (validate_gpu.cpp): host/device storage against the schedules
/// that touch it. Runs once from the top-level SDFG, which knows where each nested SDFG runs.
void validate_gpu(Validator& v);
/// Connectors of DaCe's vector types (validate_vector_connectors.cpp), which weir does not
/// compile: "connector-vector-type" naming the connector, suggesting MapVectorization.
void check_vector_connectors(Validator& v, const SDFGState& st, const Node& n);
/// "tasklet 'add' (node 3)".
std::string describe_node(const Node& n);
/// Reports an exception thrown by an IR query on `state` (scope_tree, topological_order) as
/// `code`: an IRError's node becomes the diagnostic's node, and its location prefix is not
/// repeated in the message.
void report_query_failure(Validator& v, const SDFGState& state, const std::string& code,
                          const std::string& message, const std::exception& ex);

}  // namespace weir::detail
