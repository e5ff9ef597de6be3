// Whether concurrent iterations of the code being generated can touch the same memory: the
// questions write-conflict resolution (atomic or plain updates), nested SDFG calls in parallel
// and per-thread copies ask about the state being generated (concurrent_access.cpp). The
// answers come from the dependence analysis (weir/sdfg/dependence.h) over what the StateGen
// knows at this point: its parallel frames, bindings and the calling iteration of a nested SDFG.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen_internal.h"
#include "weir/sdfg/dependence.h"

namespace weir::codegen::detail {

class StateGen;
struct Location;

/// Questions about the concurrent iterations around the point a StateGen is generating. Holds
/// only a reference: made where asked, `ConcurrentAccess(g).needs_atomic(...)`.
class ConcurrentAccess {
 public:
  /// `g` must outlive this object.
  explicit ConcurrentAccess(const StateGen& g) : g_(g) {}

  /// Whether a write-conflict-resolved write to `data` at `idx` may race with another thread.
  bool needs_atomic(const std::string& data, const std::vector<sym::Expr>& idx) const;
  /// Whether a write-conflict-resolved write of a tasklet through `loc` (`multi`: a connector
  /// over several elements) must be atomic: never where a pass recorded `wcr_nonatomic`.
  bool wcr_atomic(const Location& loc, bool multi) const;
  /// The parameters whose iterations run concurrently with this code: the innermost parallel
  /// frame's, or in a nested SDFG called in parallel its symbols that are the calling loop's
  /// parameters (SdfgGen::calling_parallel_symbols); nullopt when unknown or not parallel.
  std::optional<std::vector<std::string>> concurrent_params() const;
  /// Whether symbol `s` has one value in all concurrent iterations: in the state's parallel map,
  /// any symbol but the parameters of its scope and the scopes inside it; in a nested SDFG
  /// called in parallel, a symbol mapped from such (SdfgGen::calling_invariant_symbols) that the
  /// nested SDFG does not assign. false when nothing runs in parallel.
  bool invariant(const std::string& s) const;
  /// Whether every symbol of `region` is invariant.
  bool invariant(const Subset& region) const;
  /// Whether each of concurrent_params() separates its own dimension of `idx` (as a*param + b,
  /// a a nonzero integer, b invariant): concurrent iterations touch disjoint elements
  /// (disjoint_points).
  bool pins_parallel_params(const std::vector<sym::Expr>& idx) const;
  /// The same for a region: only its single-point dimensions count.
  bool pins_parallel_params(const Subset& region) const;
  /// Whether `data`'s element 0 is the same place for every concurrent iteration (a container,
  /// a transient, a connector whose outer memlet does not move with them, a view of a fixed
  /// slice of such): then indices that pin the parameters are disjoint places.
  bool fixed_base(const std::string& data) const;
  /// In a nested SDFG called in parallel: whether `data` is memory other calls may write too
  /// (not a transient of the call, not a private parameter; a view as what it views).
  bool shared_by_calls(const std::string& data) const;
  /// Whether `data` belongs to one iteration of the innermost parallel frame: allocated in its
  /// body, or a view defined there of a slice pinned by the parallel parameters.
  bool private_to_iteration(const std::string& data) const;

 private:
  /// The concurrent iterations of `params` for the dependence analysis: the symbols invariant()
  /// accepts are fixed.
  Concurrency concurrency(const std::vector<std::string>& params) const;

  const StateGen& g_;
};

}  // namespace weir::codegen::detail
