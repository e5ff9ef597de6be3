// The copy a transaction restores on failure (internal to transforms; see transaction.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms::detail {

/// What a change may touch, copied before it runs: the blocks of a footprint (the state for
/// dataflow patterns, the matched blocks for control-flow ones, every block of the root for a
/// whole-SDFG pass), the region's edges incident to them, the region's start and id counters,
/// and the named containers (all containers, symbols and arguments when `data` is nullopt).
/// Everything else stays in place. Restoring puts the copies back under their old ids, drops
/// what was added (ids past the saved counters) and puts the saved edges back, so the region is
/// exactly as before (ids included) and both snapshot and restore cost what the footprint holds.
class Snapshot {
 public:
  Snapshot(SDFG& sdfg, ControlFlowRegion& r, const std::vector<BlockId>& footprint,
           std::optional<std::vector<std::string>> data);

  /// Blocks of the footprint that were live when the snapshot was taken.
  std::vector<BlockId> blocks() const;
  std::size_t block_capacity() const { return block_cap_; }
  /// Interstate edges saved (incident to the footprint), by id.
  const std::map<EdgeId, ControlFlowEdge>& edges() const { return edges_; }
  bool all_data() const { return all_.has_value(); }
  /// Elements copied: nodes and edges of the copied blocks' states, interstate edges, containers.
  std::size_t size() const;
  /// Puts everything back; never throws on a graph the footprint's contract was kept for.
  void restore();

 private:
  struct Everything {
    std::map<std::string, DataDescriptor> arrays;
    std::map<std::string, DataType> symbols;
    std::vector<std::string> arg_names;
  };
  SDFG& sdfg_;
  ControlFlowRegion& region_;
  std::size_t block_cap_, edge_cap_;
  BlockId start_;
  std::map<BlockId, std::unique_ptr<ControlFlowBlock>> copies_;
  std::map<EdgeId, ControlFlowEdge> edges_;
  std::map<std::string, std::optional<DataDescriptor>> containers_;
  std::optional<Everything> all_;
};

}  // namespace weir::transforms::detail
