// Dependence analysis: whether concurrent iterations of a loop or map touch disjoint elements of
// the containers they access, and where they may not, why. The one answer LoopToMap (may a loop
// run as a map?), the CPU scheduling pass (how many map dimensions may OpenMP distribute without
// atomics?) and the code generators (does this write-conflict resolution need an atomic update?
// may this container get per-thread copies?) ask for; ADR 0034.
//
// Definitions used throughout:
//  * An *iteration* is one point of the parameters' ranges. Two iterations are *concurrent* when
//    they may run at the same time: they differ in at least one of the concurrent parameters
//    (Concurrency::params), and every symbol the caller calls *fixed* (Concurrency::fixed) has
//    the same value in both. Any other symbol (an inner loop's variable, a sequential map's
//    parameter, an interstate assignment in the body) may differ between them.
//  * An index *separates* parameter p when it is a*p + b with a a nonzero integer constant and b
//    built from fixed symbols only: two iterations that differ in p get different values.
//  * Accesses are *disjoint* when no element is touched by two concurrent iterations. For one
//    single-point access (the same memlet in every iteration) this holds when every concurrent
//    parameter has a dimension of its own whose index separates it (disjoint_points). For a
//    write and another access of one loop variable it holds when some dimension has, at both, the
//    same separating coefficient and offsets that never meet in different iterations
//    (disjoint_across_iterations).
// The analysis reads subsets as written: it does not know which container a memlet's name
// denotes. The caller says when two names are the same memory at the same base (a view of a
// slice, a nested SDFG's argument), as only it knows how they are bound.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "weir/sdfg/control_flow.h"
#include "weir/sdfg/memlet.h"
#include "weir/sdfg/state.h"

namespace weir {

/// The answer of a dependence query. `disjoint`: concurrent iterations provably touch
/// different elements. Otherwise `reason` says which container, which index and why the proof
/// fails ("A is written at i and read at i - 1", "parameter j indexes no dimension of out[i]
/// of its own").
struct DependenceVerdict {
  bool disjoint = true;
  std::string reason;

  static DependenceVerdict proven() { return {}; }
  static DependenceVerdict conflict(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return disjoint; }
};

/// Which iterations run concurrently (see the definitions at the top of this header).
struct Concurrency {
  /// The parameters whose different values may run at the same time: a parallel map's (or its
  /// leading `collapse` ones), a loop's variable.
  std::vector<std::string> params;
  /// Whether a symbol other than the parameters has the same value in all concurrent
  /// iterations. Unset: every symbol that is not a parameter.
  std::function<bool(const std::string&)> invariant;

  /// Whether `s` is fixed: not a concurrent parameter, and invariant.
  bool fixed(const std::string& s) const;
};

/// `e` as a*var + b with a, b free of `var`; nullopt if `e` is not affine in `var`.
std::optional<std::pair<sym::Expr, sym::Expr>> affine_in(const sym::Expr& e, const std::string& var);

/// Whether concurrent iterations (`c`) touch different elements through one access at the
/// point `idx` (one index per dimension): each concurrent parameter separates its own
/// dimension (a dimension whose index uses one parameter only, a*p + b, a a nonzero integer,
/// b fixed). `what` names the access in the reason ("out[i + j]").
DependenceVerdict disjoint_points(const std::vector<sym::Expr>& idx, const Concurrency& c,
                                  const std::string& what = "the access");

/// The same for a region: only its single-point dimensions count (a range [i, i + 2] overlaps
/// its neighbours' ranges, so it separates nothing).
DependenceVerdict disjoint_points(const std::string& data, const Subset& region, const Concurrency& c);

/// Whether iterations of a loop over `var` touch different elements of `data` through the
/// write `w` and the access `x` (a read, or with `x_is_write` another write; `x` may be `w`):
/// some single-point dimension is a*var + bw at `w` and a*var + bx at `x` (a a nonzero integer,
/// bx - bw an integer constant c with c == 0 or c not a multiple of a: they meet in no two
/// different iterations), with offsets free of `varying` symbols. The reason, when not:
/// "A is written at i and read at i - 1" (a loop-carried dependence), "B is written at the same
/// element(s) [0] in every iteration", or "cannot prove that different iterations touch
/// different elements of ...".
DependenceVerdict disjoint_across_iterations(const std::string& data, const std::string& var, const Memlet& w,
                                             const Memlet& x, bool x_is_write,
                                             const std::set<std::string>& varying = {});

/// The concurrent iterations of map `e` of state `st` run with its first `concurrent`
/// parameters distributed over threads (the others, and the parameters of maps inside, run
/// sequentially within one iteration): the fixed symbols are all but the parameters and the
/// dynamic inputs of `e` and of the maps inside its scope.
Concurrency map_concurrency(const SDFGState& st, const MapEntry& e, std::size_t concurrent);

/// Map `e` of state `st` run with its first `concurrent` parameters distributed over threads
/// (the others, and the parameters of maps inside, run sequentially within one iteration):
/// whether the write-conflict-resolved writes that leave its scope (the memlets into its exit)
/// touch disjoint elements in concurrent iterations (map_concurrency), so that they need no
/// atomic update.
DependenceVerdict wcr_outputs_disjoint(const SDFGState& st, const MapEntry& e, std::size_t concurrent);

/// The largest k (at most the number of `e`'s parameters) such that wcr_outputs_disjoint(st,
/// e, k) holds: how many leading dimensions threads may share without atomics (all of them when
/// the map has no write-conflict-resolved output).
std::size_t conflict_free_prefix(const SDFGState& st, const MapEntry& e);

/// Whether the control flow of `r` (its interstate edges' conditions and assignments, loop
/// headers, branch conditions; nested regions too, not the states' dataflow) reads or writes
/// the name `name` (a container used as a value there). From the code's names (code_names), not
/// its text; code that does not parse counts as naming it.
bool control_flow_uses_name(const ControlFlowRegion& r, const std::string& name);

}  // namespace weir
