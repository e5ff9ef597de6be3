// CPU schedules and vectorization hints (see the header).
#include "weir/transforms/cpu_schedules.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "dataflow_util.h"
#include "l2_tiling.h"
#include "map_propagation.h"
#include "weir/sdfg/dependence.h"
#include "weir/sdfg/omp_schedule.h"
#include "weir/sdfg/reduction_choice.h"
#include "weir/sdfg/streaming_choice.h"
#include "weir/sdfg/thread_choice.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

CpuSchedules::CpuSchedules()
    : Pass(
          "cpu-schedules",
          "OpenMP on outermost maps, sequential inside, SIMD hints on innermost unit-stride maps",
          {{"split_innermost", true, "split the last dimension of parallel maps into a sequential inner map"},
           {"vectorize", true, "mark innermost unit-stride sequential maps for SIMD"},
           {"blas", true, "BLAS and LAPACK library nodes without an implementation call OpenBLAS / LAPACKE"},
           {"omp_schedule", std::string(),
            "OpenMP schedule of top-level parallel maps without write-conflict resolution: static, dynamic "
            "or "
            "guided, optionally ,CHUNK (dynamic,16); empty: OpenMP's default"},
           {"l2_tiling", false,
            "tile the second dimension of stencil maps whose reuse window (the planes read with offsets "
            "along the first) exceeds half of the L2 cache"},
           {"l2_bytes", 0LL, "the L2 cache size l2_tiling assumes, in bytes; 0: the machine's"},
           {"streaming_stores", true,
            "false: top-level maps record that no row inside them is written with streaming stores; true: "
            "the "
            "code generator decides"}}) {}

namespace {

/// Whether `param` indexes the last dimension of some memlet on the scope's boundary edges
/// (inside the entry / exit) as `param + c`.
bool indexes_contiguous(const SDFGState& st, const MapEntry& e, const std::string& param) {
  auto check = [&](const Memlet& m) {
    if (m.is_empty() || m.subset.dims() == 0) return false;
    const sym::Expr& s = m.subset[m.subset.dims() - 1].start;
    if (!s.free_symbols().count(param)) return false;
    sym::Expr d = s.subs({{param, sym::Expr::symbol(param) + sym::Expr(1)}}) - s;
    return d == sym::Expr(1) && m.subset[m.subset.dims() - 1].end == s;
  };
  for (EdgeId id : st.out_edges(e.id()))
    if (check(st.edge(id).memlet)) return true;
  for (EdgeId id : st.in_edges(e.exit))
    if (check(st.edge(id).memlet)) return true;
  return false;
}

bool simd_safe_body(const SDFGState& st, const ScopeTree& tree, NodeId entry) {
  for (NodeId n : detail::scope_body(st, tree, entry)) {
    const Node& node = st.node(n);
    if (node.as<MapEntry>() || node.as<NestedSDFGNode>() || node.as<LibraryNode>()) return false;
    for (EdgeId e : st.out_edges(n))
      if (!st.edge(e).memlet.wcr.empty()) return false;
  }
  return true;
}

/// Whether any edge in the scope of `entry` (at any depth) carries write-conflict resolution.
bool scope_has_wcr(const SDFGState& st, const ScopeTree& tree, NodeId entry) {
  for (NodeId n : detail::scope_body(st, tree, entry))
    for (EdgeId e : st.out_edges(n))
      if (!st.edge(e).memlet.wcr.empty()) return true;
  return false;
}

/// Records `schedule` on every top-level CPU_Multicore map of `top` whose scope has no
/// write-conflict resolution (a reduction's per-thread partials or atomics: under a dynamic
/// schedule which thread sums which iterations, and so a float result's rounding, would change
/// from run to run); `schedule` nullopt records nothing. Returns how many maps changed.
std::size_t record_schedules(const SDFGState& st, const ScopeTree& tree, const std::vector<MapEntry*>& top,
                             const std::optional<OmpSchedule>& schedule) {
  if (!schedule) return 0;
  std::size_t changed = 0;
  for (MapEntry* e : top) {
    if (e->map->schedule != ScheduleType::CPU_Multicore || scope_has_wcr(st, tree, e->id())) continue;
    const std::string* old = e->map->extra.find(kOmpScheduleAttribute);
    const std::optional<std::string> before = old ? std::optional<std::string>(*old) : std::nullopt;
    record_omp_schedule(*e->map, *schedule);
    if (before != *e->map->extra.find(kOmpScheduleAttribute)) ++changed;
  }
  return changed;
}

/// Records "streaming stores off" (weir/sdfg/streaming_choice.h) on every top-level map of
/// `top` when `allowed` is false; true records nothing (the code generator decides, as without
/// the option). Returns how many maps changed.
std::size_t record_streaming(const std::vector<MapEntry*>& top, bool allowed) {
  if (allowed) return 0;
  std::size_t changed = 0;
  for (MapEntry* e : top) {
    const std::string* old = e->map->extra.find(kStreamingStoresAttribute);
    const std::optional<std::string> before = old ? std::optional<std::string>(*old) : std::nullopt;
    record_streaming_stores(*e->map, false);
    if (before != *e->map->extra.find(kStreamingStoresAttribute)) ++changed;
  }
  return changed;
}

/// Records the verdict of the dependence analysis on every write-conflict-resolved write of a
/// tasklet in `st` (`tree`: its scope tree; `top`: its top-level maps): `wcr_nonatomic` (DaCe's
/// Memlet property of that meaning) where concurrent iterations of a CPU_Multicore map in `top`
/// never share the element, over the parameters OpenMP distributes (the first `collapse`), so
/// the code generator updates it without atomics; cleared everywhere else (a mark from an
/// earlier run or from DaCe may no longer hold; the code generator decides there). Only writes
/// into a map exit, of a container of the state's SDFG that is no view (a view's elements are
/// those of what it views, at a base this pass does not follow). Returns how many changed.
std::size_t record_atomicity(SDFGState& st, const ScopeTree& tree, const std::vector<MapEntry*>& top) {
  // The iterations of each top-level CPU_Multicore map, computed when a tasklet inside asks
  // (a walk of its scope); a tasklet finds its map through the scope tree (its depth, not the
  // state's size: ADR 0024).
  std::map<NodeId, std::optional<Concurrency>> parallel;
  for (const MapEntry* e : top)
    if (e->map->schedule == ScheduleType::CPU_Multicore) parallel.emplace(e->id(), std::nullopt);
  const SDFG& sdfg = *st.sdfg();
  std::size_t changed = 0;
  for (const Node* n : st.nodes()) {
    if (!n->as<Tasklet>()) continue;
    NodeId outer = n->id();
    while (tree.parent[outer] != kNoNode) outer = tree.parent[outer];
    auto c = parallel.find(outer);
    for (EdgeId id : st.out_edges(n->id())) {
      DataflowEdge& ed = st.edge(id);
      Memlet& m = ed.memlet;
      if (m.wcr.empty()) continue;
      bool own = c != parallel.end() && st.node(ed.dst).as<MapExit>() && sdfg.arrays.count(m.data) &&
                 !sdfg.arrays.at(m.data).is_view();
      if (own && !c->second) {
        const MapEntry& e = *st.node(outer).as<MapEntry>();
        c->second = map_concurrency(st, e, static_cast<std::size_t>(std::max(e.map->collapse, 1)));
      }
      own = own && disjoint_points(m.data, m.subset, *c->second);
      if (m.wcr_nonatomic != own) {
        m.wcr_nonatomic = own;
        ++changed;
      }
    }
  }
  return changed;
}

/// Records on every top-level CPU_Multicore map of `st` (`tree`: its current scope tree, `top`:
/// its top-level maps) whether it runs on one thread, on many or as measured at run time
/// (weir/sdfg/thread_choice.h), and clears the record from the state's other maps (one from an
/// earlier run or written by hand may no longer hold; the code generator decides there).
/// Returns how many maps changed.
std::size_t record_thread_choices(SDFGState& st, const ScopeTree& tree, const std::vector<MapEntry*>& top) {
  std::set<const MapEntry*> parallel;
  for (const MapEntry* e : top)
    if (e->map->schedule == ScheduleType::CPU_Multicore) parallel.insert(e);
  std::size_t changed = 0;
  for (Node* n : st.nodes()) {
    auto* e = n->as<MapEntry>();
    if (!e) continue;
    if (!parallel.count(e)) {
      changed += clear_threads(*e->map) ? 1 : 0;
      continue;
    }
    UnknownAttributes before = e->map->extra;
    record_threads(*e->map, choose_threads(st, tree, *e));
    changed += before == e->map->extra ? 0 : 1;
  }
  return changed;
}

/// Records on every top-level CPU_Multicore map of `st` (`top`: its top-level maps) which of its
/// reductions run in per-thread partials and which containers in per-thread copies
/// (weir/sdfg/reduction_choice.h), as the code generator would choose them (also none, where a
/// write into the map's exit resolves conflicts), and clears both records from the state's
/// other maps and from maps without such writes. `root`: `st` belongs to the SDFG the pass runs on, whose
/// containers are their own memory; in a nested SDFG a container may be a connector bound to a
/// slice of the caller's, which this pass does not follow, so the code generator decides there.
/// Returns how many maps changed.
std::size_t record_reductions(SDFGState& st, const ScopeTree& tree, const std::vector<MapEntry*>& top,
                              bool root) {
  std::set<const MapEntry*> parallel;
  for (const MapEntry* e : top)
    if (root && e->map->schedule == ScheduleType::CPU_Multicore) parallel.insert(e);
  const SDFG& sdfg = *st.sdfg();
  std::size_t changed = 0;
  for (Node* n : st.nodes()) {
    auto* e = n->as<MapEntry>();
    if (!e) continue;
    if (!parallel.count(e)) {
      changed += clear_reductions(*e->map) ? 1 : 0;
      continue;
    }
    UnknownAttributes before = e->map->extra;
    std::set<std::string> partials, copies;
    for (const PartialReduction& r : partial_reductions(st, *e, tree.children(e->id())))
      partials.insert(r.data);
    // Copies where some write of the distributed iterations (the first `collapse` parameters)
    // may meet another's, and only where no partial is made (as the code generator does).
    if (partials.empty()) {
      Concurrency c = map_concurrency(st, *e, static_cast<std::size_t>(std::max(e->map->collapse, 1)));
      auto plain = [&](const std::string& x) { return !sdfg.arrays.at(x).is_scalar(); };
      auto own = [&](const Subset& s) { return disjoint_points("", s, c).disjoint; };
      for (const PrivatizableContainer& p :
           privatizable_containers(sdfg, st, *e, scope_nodes(st, tree, e->id()), plain, own))
        if (p.scattered) copies.insert(p.data);
    }
    // Where the question arises (a proved one, or a write-conflict-resolved write into the
    // map's exit), also a verdict of none; on maps without reductions no record.
    bool wcr = !partials.empty() || !copies.empty();
    for (EdgeId id : st.in_edges(e->exit)) wcr = wcr || !st.edge(id).memlet.wcr.empty();
    if (!wcr) {
      changed += clear_reductions(*e->map) ? 1 : 0;
      continue;
    }
    record_reduction_names(*e->map, kPartialsAttribute, partials);
    record_reduction_names(*e->map, kPrivatizedAttribute, copies);
    changed += before == e->map->extra ? 0 : 1;
  }
  return changed;
}

/// Schedules and vectorization hints of one state and of the SDFGs nested in it; returns the
/// number of maps changed. `in_map`: the state belongs to a nested SDFG inside a map (its
/// outermost maps run once per iteration of that map: sequential, never a nested OpenMP team).
/// `root`: the state belongs to the SDFG the pass runs on (record_reductions).
/// The `omp_schedule` option parsed; nullopt when empty. Throws TransformError for a value that
/// is no schedule.
std::optional<OmpSchedule> schedule_option(const Options& options) {
  const std::string& text = options.get_string("omp_schedule");
  if (text.empty()) return std::nullopt;
  try {
    return parse_omp_schedule(text);
  } catch (const std::invalid_argument& e) {
    throw TransformError("cpu-schedules: option 'omp_schedule': " + std::string(e.what()));
  }
}

/// The `l2_bytes` option, or the machine's L2 size where it is 0. Throws TransformError for a
/// negative value.
long long l2_option(const Options& options) {
  const long long l2 = options.get_int("l2_bytes");
  if (l2 < 0)
    throw TransformError("cpu-schedules: option 'l2_bytes' is " + std::to_string(l2) +
                         "; give 0 "
                         "(the machine's L2 cache) or a size in bytes");
  return l2 > 0 ? l2 : detail::machine_l2_bytes();
}

std::size_t schedule_state(SDFGState& st, const Options& options, bool in_map, bool root) {
  std::size_t changed = 0;
  bool state_changed = false;
  ScopeTree tree = st.scope_tree();
  std::vector<MapEntry*> top;
  for (Node* n : st.nodes()) {
    // What InlineSDFG left nested (several states: a loop, a branch) runs where its node is.
    if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg)
      for (SDFGState* inner : ns->sdfg->all_states())
        changed += schedule_state(*inner, options, in_map || tree.parent[ns->id()] != kNoNode, false);
  }
  // Before the schedules: the tiled map's outer part is then top-level, its inner part nested.
  if (!in_map && options.get_bool("l2_tiling"))
    if (const std::size_t tiled = detail::tile_j_for_l2(st, l2_option(options)); tiled > 0) {
      changed += tiled;
      tree = st.scope_tree();
    }
  for (Node* n : st.nodes())
    if (auto* e = n->as<MapEntry>()) {
      if (tree.parent[e->id()] == kNoNode && !in_map) {
        if (e->map->schedule == ScheduleType::Default) {
          e->map->schedule = ScheduleType::CPU_Multicore;
          ++changed;
          state_changed = true;
        }
        top.push_back(e);
      } else if (e->map->schedule == ScheduleType::Default) {
        e->map->schedule = ScheduleType::Sequential;
        ++changed;
        state_changed = true;
      }
    }
  if (options.get_bool("split_innermost"))
    for (MapEntry* e : top) {
      MapInfo& m = *e->map;
      if (m.schedule != ScheduleType::CPU_Multicore || m.params.size() < 2 ||
          m.range.dims() != m.params.size())
        continue;
      if (!detail::dynamic_inputs(*e).empty() || !indexes_contiguous(st, *e, m.params.back())) continue;
      std::string p = m.params.back();
      Range r = m.range.ranges().back();
      m.params.pop_back();
      m.range.ranges().pop_back();
      MapEntry& inner = st.add_map(m.label + "_inner", {p}, Subset({r}), ScheduleType::Sequential);
      detail::insert_map_inside(st, *e, inner);
      // The maps inside `inner` are unchanged and `e` is top-level: two maps to propagate.
      detail::propagate_map(st, inner);
      detail::propagate_map(st, *e);
      ++changed;
      state_changed = true;
    }
  // The code generator distributes only the dimensions of a map's `collapse` attribute (1 by
  // default, as DaCe's): weir's top-level parallel maps, the innermost unit-stride dimension
  // split off above, distribute all of theirs (ADR 0028).
  // Only the leading dimensions that separate every write-conflict output of the map
  // (conflict_free_prefix, weir/sdfg/dependence.h): a reduction dimension (DaCe's Reduce: `reduce_output[_o0,
  // _i0]` summing into `_out[_o0]`) distributed over threads needs an atomic update per point, where one
  // thread per output element needs none.
  for (MapEntry* e : top) {
    MapInfo& m = *e->map;
    if (m.schedule != ScheduleType::CPU_Multicore || m.collapse > 1 || m.params.size() < 2) continue;
    auto dims = conflict_free_prefix(st, *e);
    if (dims < 2) continue;
    m.collapse = static_cast<int>(dims);
    ++changed;
    state_changed = true;
  }
  if (state_changed) tree = st.scope_tree();
  changed += record_atomicity(st, tree, top);
  changed += record_thread_choices(st, tree, top);
  changed += record_reductions(st, tree, top, root);
  changed += record_schedules(st, tree, top, schedule_option(options));
  changed += record_streaming(top, options.get_bool("streaming_stores"));
  if (options.get_bool("vectorize")) {
    for (Node* n : st.nodes()) {
      auto* e = n->as<MapEntry>();
      if (!e || e->map->schedule != ScheduleType::Sequential || e->map->params.empty()) continue;
      if (e->map->extra.find(kVectorizeAttribute)) continue;
      if (!indexes_contiguous(st, *e, e->map->params.back()) || !simd_safe_body(st, tree, e->id())) continue;
      e->map->extra.set(kVectorizeAttribute, "true");
      ++changed;
      state_changed = true;
    }
  }
  return changed;
}

/// As DaCe's auto_optimize picks the fast BLAS it finds: MatMul, Dot, Gemm and Gemv nodes, and
/// the linalg nodes Cholesky, Solve and Inv and the lapack nodes Getrf, Getrs, Getri and Potrf, of the state
/// (and of SDFGs nested in it) without an implementation get "OpenBLAS" (CBLAS / LAPACKE calls in the CPU
/// code generator). Returns the number of nodes changed.
std::size_t fast_blas(SDFGState& st) {
  std::size_t changed = 0;
  for (Node* n : st.nodes()) {
    if (auto* ln = n->as<LibraryNode>()) {
      const std::string cls = ln->class_name();
      bool blas = cls == "MatMul" || cls == "Dot" || cls == "Gemm" || cls == "Gemv" || cls == "Cholesky" ||
                  cls == "Solve" || cls == "Inv" || cls == "Getrf" || cls == "Getrs" || cls == "Getri" ||
                  cls == "Potrf";
      if (blas && (ln->implementation.empty() || ln->implementation == "specialize")) {
        ln->implementation = "OpenBLAS";
        ++changed;
      }
    } else if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) {
      for (SDFGState* inner : ns->sdfg->all_states()) changed += fast_blas(*inner);
    }
  }
  return changed;
}

}  // namespace

std::size_t CpuSchedules::run_pass(SDFG& sdfg, Transaction& tx) {
  (void)schedule_option(options());  // a bad value fails before anything changes
  (void)l2_option(options());
  std::size_t changed = 0;
  for (SDFGState* stp : sdfg.all_states())
    tx.modify_state(*stp, [&] {
      changed += schedule_state(*stp, options(), false, true);
      if (options().get_bool("blas")) changed += fast_blas(*stp);
    });
  return changed;
}

}  // namespace weir::transforms
