#include "concurrent_access.h"

#include <algorithm>

#include "state_codegen.h"

namespace weir::codegen::detail {

bool ConcurrentAccess::invariant(const std::string& s) const {
  int p = g_.parallel_frame();
  for (std::size_t k = 0; k < g_.frames_.size(); ++k)
    for (const auto& [name, type] : g_.frames_[k].symbols)
      if (name == s && (p < 0 || static_cast<int>(k) >= p)) return false;
  if (p >= 0) return true;  // the state's own parallel map: nothing outside its scopes changes
  if (!g_.sg.in_parallel) return false;
  return g_.sg.calling_invariant_symbols.count(s) > 0 &&
         std::find(g_.sg.local_symbols.begin(), g_.sg.local_symbols.end(), s) == g_.sg.local_symbols.end();
}

bool ConcurrentAccess::invariant(const Subset& region) const {
  for (const auto& s : region.free_symbols())
    if (!invariant(s)) return false;
  return true;
}

std::optional<std::vector<std::string>> ConcurrentAccess::concurrent_params() const {
  int p = g_.parallel_frame();
  if (p >= 0) return g_.frames_[static_cast<std::size_t>(p)].parallel_params;
  if (g_.sg.in_parallel && g_.sg.calling_params_known) return g_.sg.calling_parallel_symbols;
  return std::nullopt;
}

bool ConcurrentAccess::pins_parallel_params(const std::vector<sym::Expr>& idx) const {
  auto params = concurrent_params();
  return params && disjoint_points(idx, concurrency(*params));
}

bool ConcurrentAccess::pins_parallel_params(const Subset& region) const {
  auto params = concurrent_params();
  return params && disjoint_points("", region, concurrency(*params));
}

Concurrency ConcurrentAccess::concurrency(const std::vector<std::string>& params) const {
  return {params, [q = *this](const std::string& s) { return q.invariant(s); }};
}

bool ConcurrentAccess::fixed_base(const std::string& data) const {
  const Binding* b = g_.binding(data);
  auto params = concurrent_params();
  if (!b || !params) return false;
  if (!b->viewed.empty()) return invariant(b->view_subset) && fixed_base(b->viewed);
  if (g_.parallel_frame() >= 0) return true;  // a container, or an allocation of its own
  return b->desc->transient || g_.sg.fixed_base_params.count(data) > 0;
}

bool ConcurrentAccess::shared_by_calls(const std::string& data) const {
  const Binding* b = g_.binding(data);
  if (!b) return true;
  if (!b->viewed.empty()) {
    // A view of its call's own slice (pinned by the calling loop's parameters) is private;
    // otherwise it is as shared as what it views (a transient of the call, not its memory).
    if (fixed_base(b->viewed) && pins_parallel_params(b->view_subset)) return false;
    return shared_by_calls(b->viewed);
  }
  return !b->desc->transient && !g_.sg.private_params.count(data);
}

bool ConcurrentAccess::private_to_iteration(const std::string& data) const {
  const Binding* b = g_.binding(data);
  int p = g_.parallel_frame();
  if (p >= 0 && g_.frames_[static_cast<std::size_t>(p)].privatized.count(data)) return true;
  if (!b || p < 0 || b->frame < p + 1) return false;
  if (b->viewed.empty()) return true;  // allocated in the parallel loop's body
  // A view defined in the body: its own slice of the viewed container per iteration.
  return (fixed_base(b->viewed) && pins_parallel_params(b->view_subset)) || private_to_iteration(b->viewed);
}

bool ConcurrentAccess::needs_atomic(const std::string& data, const std::vector<sym::Expr>& idx) const {
  if (!g_.sg.prog.target.concurrent_iterations(g_.opts.openmp)) return false;
  if (!g_.binding(data)) return true;
  if (g_.parallel_frame() < 0 && !(g_.sg.in_parallel && shared_by_calls(data))) return false;
  if (private_to_iteration(data)) return false;
  // Elements of memory whose base is the same for every iteration: disjoint when the index
  // pins the parallel parameters.
  return !(fixed_base(data) && pins_parallel_params(idx));
}

bool ConcurrentAccess::wcr_atomic(const Location& loc, bool multi) const {
  if (!g_.sg.prog.target.concurrent_iterations(g_.opts.openmp) || loc.data.empty()) return false;
  // The verdict recorded in the SDFG, where a pass left one; computed here otherwise.
  if (loc.wcr_nonatomic) return false;
  if (multi) {
    if (g_.parallel_frame() < 0) return g_.sg.in_parallel && shared_by_calls(loc.data);
    return !private_to_iteration(loc.data);
  }
  return needs_atomic(loc.data, loc.start());
}

}  // namespace weir::codegen::detail
