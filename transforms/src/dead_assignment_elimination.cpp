// DeadAssignmentElimination: remove interstate assignments overwritten before any read.
#include "weir/transforms/dead_assignment_elimination.h"

#include <set>
#include <vector>

#include "symbol_reads.h"

namespace weir::transforms {

DeadAssignmentElimination::DeadAssignmentElimination()
    : Pass("dead-assignment-elimination",
           "Remove interstate assignments that every path overwrites before any read (or that nothing "
           "reads)") {}

namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }

bool assigns(const InterstateEdge& e, const std::string& name) {
  for (const auto& [k, v] : e.assignments)
    if (k == name) return true;
  return false;
}

/// Whether `name` is a loop variable of a loop of `r` (nested loops included).
bool is_loop_variable(const ControlFlowRegion& r, const std::string& name) {
  bool found = false;
  detail::for_each_region(r, [&](const ControlFlowRegion& sub) {
    if (const auto* L = sub.as<LoopRegion>(); L && L->loop_variable == name) found = true;
  });
  return found;
}

/// Where a path from `start` in `region` may read `name` before an edge assigns it again.
std::optional<std::string> read_on_some_path(const SDFG& sdfg, const ControlFlowRegion& region, BlockId start,
                                             const std::string& name) {
  std::set<BlockId> seen{start};
  std::vector<BlockId> work{start};
  while (!work.empty()) {
    const BlockId b = work.back();
    work.pop_back();
    const ControlFlowBlock& blk = region.block(b);
    if (blk.as<ControlTransferBlock>()) return "reaches the control transfer " + q(blk.label);
    std::set<std::string> reads;
    detail::names_read_in_block(blk, reads);
    if (reads.count(name)) return "read in block " + q(blk.label);
    auto outs = region.out_edges(b);
    if (outs.empty() && &region != &static_cast<const ControlFlowRegion&>(sdfg))
      return "reaches the end of region " + q(region.label);
    for (const ControlFlowEdge* e : outs) {
      if (detail::edge_reads(e->data, name))
        return "read by the edge " + q(blk.label) + " -> " + q(region.block(e->dst).label);
      if (assigns(e->data, name)) continue;  // overwritten on this path
      if (seen.insert(e->dst).second) work.push_back(e->dst);
    }
  }
  return std::nullopt;
}

std::optional<std::string> live_reason(const SDFG& sdfg, const ControlFlowRegion& region, EdgeId edge,
                                       const std::string& symbol, const std::set<std::string>& read) {
  const ControlFlowEdge& e = region.edge(edge);
  if (!assigns(e.data, symbol))
    throw TransformError("dead-assignment-elimination: the edge " + q(region.block(e.src).label) + " -> " +
                         q(region.block(e.dst).label) + " does not assign " + q(symbol));
  if (sdfg.has_data(symbol)) return q(symbol) + " is a container";
  if (is_loop_variable(sdfg, symbol)) return q(symbol) + " is a loop variable";
  if (!read.count(symbol)) return std::nullopt;
  for (const auto& [k, v] : e.data.assignments) {
    InterstateEdge one;
    one.assignments = {{k, v}};
    if (k != symbol && detail::edge_reads(one, symbol))
      return "another assignment of the same edge (" + k + ") reads it";
  }
  return read_on_some_path(sdfg, region, e.dst, symbol);
}

std::size_t eliminate_in(SDFG& sdfg) {
  std::size_t removed = 0;
  std::set<std::string> touched;
  // Decide every assignment on the unchanged graph first: removing one never makes another
  // one live (a removed assignment is never read), but deciding on the original graph keeps
  // the kill edges of every path in place.
  struct Dead {
    ControlFlowRegion* region;
    EdgeId edge;
    std::string symbol;
  };
  std::vector<Dead> dead;
  const std::set<std::string> read = detail::names_read(sdfg);
  detail::for_each_region(sdfg, [&](ControlFlowRegion& r) {
    for (const ControlFlowEdge* e : r.edges())
      for (const auto& [k, v] : e->data.assignments)
        if (!live_reason(sdfg, r, e->id, k, read)) dead.push_back({&r, e->id, k});
  });
  for (const Dead& d : dead) {
    auto& as = d.region->edge(d.edge).data.assignments;
    for (auto it = as.begin(); it != as.end(); ++it)
      if (it->first == d.symbol) {
        as.erase(it);
        ++removed;
        touched.insert(d.symbol);
        break;
      }
  }
  if (touched.empty()) return 0;
  std::set<std::string> still;
  detail::for_each_region(sdfg, [&](ControlFlowRegion& r) {
    for (const ControlFlowEdge* e : r.edges())
      for (const auto& [k, v] : e->data.assignments) still.insert(k);
  });
  for (const auto& s : touched)
    if (!still.count(s) && !read.count(s)) sdfg.symbols.erase(s);
  return removed;
}

}  // namespace

std::optional<std::string> assignment_live_reason(const SDFG& sdfg, const ControlFlowRegion& region,
                                                  EdgeId edge, const std::string& symbol) {
  return live_reason(sdfg, region, edge, symbol, detail::names_read(sdfg));
}

std::size_t DeadAssignmentElimination::run_pass(SDFG& sdfg, Transaction& tx) {
  return tx.modify_all([&] {
    std::size_t changes = 0;
    for (ControlFlowRegion* r : cfg_list(sdfg))
      if (auto* s = r->as<SDFG>()) changes += eliminate_in(*s);
    return changes;
  });
}

}  // namespace weir::transforms
