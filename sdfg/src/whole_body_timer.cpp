// Which element inside a map a profile times once per thread (see the header).
#include "weir/sdfg/whole_body_timer.h"

#include <algorithm>
#include <cctype>

namespace weir {

bool has_simd_hint(const MapInfo& m) {
  const std::string* hint = m.extra.find("weir_vectorize");
  if (!hint || hint->empty()) return false;
  if (*hint == "true") return true;
  return std::all_of(hint->begin(), hint->end(), [](unsigned char c) { return std::isdigit(c) != 0; }) &&
         hint->find_first_not_of('0') != std::string::npos;
}

NodeId whole_body_timed_once(const SDFGState& st, const ScopeTree& scopes, NodeId entry) {
  const auto* me = st.node(entry).as<MapEntry>();
  if (!me) return kNoNode;
  if (has_simd_hint(*me->map)) return kNoNode;
  NodeId only = kNoNode;
  for (NodeId c : scopes.children(entry)) {
    if (st.node(c).kind() == NodeKind::MapExit) continue;
    if (only != kNoNode) return kNoNode;
    only = c;
  }
  if (only == kNoNode) return kNoNode;
  const NodeKind k = st.node(only).kind();
  return k == NodeKind::MapEntry || k == NodeKind::Library || k == NodeKind::NestedSDFG ? only : kNoNode;
}

}  // namespace weir
