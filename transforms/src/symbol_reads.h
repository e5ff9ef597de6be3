// The names the control flow and dataflow of an SDFG read as symbols (private to the transforms
// layer): shared by symbol-propagation and dead-assignment-elimination.
#pragma once

#include <set>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms::detail {

/// Every name a block reads, nested blocks included (not inside nested SDFGs, whose reads of
/// outer symbols go through their symbol mappings, which count): interstate conditions and
/// assignment values of its regions, loop statements, branch conditions, map ranges, tasklet
/// code, memlets and nested symbol mappings. An over-approximation: code contributes every
/// identifier it names.
void names_read_in_block(const ControlFlowBlock& b, std::set<std::string>& used);

/// Every name `sdfg` reads: its descriptors' shapes, strides and offsets and every block and
/// edge of its regions (names_read_in_block of the SDFG itself).
std::set<std::string> names_read(const SDFG& sdfg);

/// Calls f(region) for `r` and then every region inside it: nested regions, loop bodies and
/// branch bodies, depth first (not nested SDFGs). `r` may be const; nested regions are passed
/// as `ControlFlowRegion&`, so `f` takes `const ControlFlowRegion&` or `ControlFlowRegion&`.
template <class Region, class F>
void for_each_region(Region& r, F&& f) {
  f(r);
  for (ControlFlowBlock* b : r.blocks()) {
    if (auto* sub = b->template as<ControlFlowRegion>())
      for_each_region(*sub, f);
    else if (auto* c = b->template as<ConditionalBlock>())
      for (auto& br : c->branches())
        if (br.body) for_each_region(*br.body, f);
  }
}

/// Whether an interstate edge reads `name`: its condition or one of its assignments' values.
bool edge_reads(const InterstateEdge& e, const std::string& name);

}  // namespace weir::transforms::detail
