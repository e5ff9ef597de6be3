// Snapshots of a region's blocks and containers, restored in place (see snapshot.h).
#include "snapshot.h"

#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

Snapshot::Snapshot(SDFG& sdfg, ControlFlowRegion& r, const std::vector<BlockId>& footprint,
                   std::optional<std::vector<std::string>> data)
    : sdfg_(sdfg),
      region_(r),
      block_cap_(r.block_capacity()),
      edge_cap_(r.edge_capacity()),
      start_(r.explicit_start()) {
  for (BlockId b : footprint) {
    if (!r.has_block(b) || copies_.count(b)) continue;
    copies_[b] = r.block(b).clone();
    for (EdgeId e : r.incident_edges(b)) edges_.emplace(e, r.edge(e));
  }
  if (data) {
    for (const auto& name : *data) {
      auto it = sdfg.arrays.find(name);
      containers_.emplace(name,
                          it == sdfg.arrays.end() ? std::nullopt : std::optional<DataDescriptor>(it->second));
    }
  } else {
    all_ = Everything{sdfg.arrays, sdfg.symbols, sdfg.arg_names};
  }
}

std::vector<BlockId> Snapshot::blocks() const {
  std::vector<BlockId> out;
  for (const auto& [id, c] : copies_) out.push_back(id);
  return out;
}

std::size_t Snapshot::size() const {
  std::size_t n = edges_.size() + containers_.size();
  for (const auto& [id, c] : copies_) {
    if (const auto* st = c->as<SDFGState>())
      n += st->num_nodes() + st->num_edges();
    else
      n += 1;
  }
  if (all_) n += all_->arrays.size() + all_->symbols.size() + all_->arg_names.size();
  return n;
}

void Snapshot::restore() {
  for (auto& [id, c] : copies_)
    if (region_.has_block(id)) region_.take_block(id);
  for (const auto& [id, e] : edges_)
    if (region_.has_edge(id)) region_.remove_edge(id);
  region_.truncate(block_cap_, edge_cap_);
  for (auto& [id, c] : copies_) region_.put_block(std::move(c), id);
  copies_.clear();
  for (const auto& [id, e] : edges_) region_.put_edge(e);
  region_.set_start_block(start_);
  if (all_) {
    sdfg_.arrays = all_->arrays;
    sdfg_.symbols = all_->symbols;
    sdfg_.arg_names = all_->arg_names;
  } else {
    for (const auto& [name, d] : containers_) {
      if (d)
        sdfg_.arrays.insert_or_assign(name, *d);
      else
        sdfg_.arrays.erase(name);
    }
  }
  sdfg_.relink_nested();
}

}  // namespace weir::transforms::detail
