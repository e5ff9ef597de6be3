// DaCe's cfg_list order of control-flow regions (see the header).
#include "weir/sdfg/cfg_list.h"

namespace weir {

namespace {

void collect_regions(ControlFlowRegion& r, std::vector<ControlFlowRegion*>& out);

void collect_in_block(ControlFlowBlock& b, std::vector<ControlFlowRegion*>& out) {
  if (auto* st = b.as<SDFGState>()) {
    for (Node* n : st->nodes())
      if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) collect_regions(*ns->sdfg, out);
  } else if (auto* c = b.as<ConditionalBlock>()) {
    for (auto& br : c->branches())
      if (br.body) collect_regions(*br.body, out);
  } else if (auto* r = b.as<ControlFlowRegion>()) {
    collect_regions(*r, out);
  }
}

void collect_regions(ControlFlowRegion& r, std::vector<ControlFlowRegion*>& out) {
  out.push_back(&r);
  for (ControlFlowBlock* b : r.blocks()) collect_in_block(*b, out);
}

}  // namespace

std::vector<ControlFlowRegion*> cfg_list(const SDFG& root) {
  std::vector<ControlFlowRegion*> out;
  collect_regions(const_cast<SDFG&>(root), out);
  return out;
}

}  // namespace weir
