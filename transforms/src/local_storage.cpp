// Local storage for accumulations (see the header).
#include "weir/transforms/local_storage.h"

#include "fusion_util.h"
#include "weir/pycode/parser.h"

namespace weir::transforms {

LocalStorage::LocalStorage()
    : Pass("local-storage",
           "Accumulate sums of inner maps in a register scalar written once per outer iteration") {}

namespace {

// `lambda a, b: a + b` (or `b + a`), read from its syntax tree.
bool is_sum(const std::string& wcr) {
  pycode::ExprPtr e;
  try {
    e = pycode::parse_expression(wcr, "<wcr>");
  } catch (const pycode::SourceError&) {
    return false;  // not Python: not a sum this pass knows
  }
  const auto* l = pycode::dyn_cast<pycode::Lambda>(e.get());
  if (!l || l->params.size() != 2) return false;
  const auto* add = pycode::dyn_cast<pycode::BinOp>(l->body.get());
  if (!add || add->op != pycode::BinaryOperator::Add) return false;
  const auto* x = pycode::dyn_cast<pycode::Name>(add->left.get());
  const auto* y = pycode::dyn_cast<pycode::Name>(add->right.get());
  const std::string &a = l->params[0].name, &b = l->params[1].name;
  return x && y && ((x->id == a && y->id == b) || (x->id == b && y->id == a));
}

bool parallel(ScheduleType s) {
  return s != ScheduleType::Default && s != ScheduleType::Sequential && s != ScheduleType::Unrolled;
}

/// Rewrites the sum accumulations of one state; returns how many.
std::size_t accumulate_locally(SDFG& sdfg, SDFGState& st, std::size_t& counter) {
  std::size_t changed = 0;
  std::vector<NodeId> exits;
  for (Node* n : st.nodes())
    if (n->as<MapExit>()) exits.push_back(n->id());
  for (NodeId x : exits) {
    const auto& inner = *st.node(x).as<MapExit>();
    if (parallel(inner.map->schedule)) continue;
    for (EdgeId e : std::vector<EdgeId>(st.out_edges(x))) {
      DataflowEdge d = st.edge(e);
      if (!st.node(d.dst).as<MapExit>() || d.src_conn.rfind("OUT_", 0) != 0) continue;
      const Memlet& m = d.memlet;
      if (m.is_empty() || !is_sum(m.wcr) || !m.subset.is_single_element() || m.other_subset || m.dynamic)
        continue;
      bool uses_param = false;
      for (const auto& p : inner.map->params) uses_param = uses_param || m.subset.free_symbols().count(p);
      if (uses_param) continue;
      auto ins = st.in_edges_by_connector(x, "IN_" + d.src_conn.substr(4));
      bool simple = !ins.empty();
      for (EdgeId i : ins)
        simple = simple && st.edge(i).memlet.data == m.data && is_sum(st.edge(i).memlet.wcr);
      if (!simple) continue;
      std::string acc = detail::fresh_data_name(sdfg, m.data + "_acc", counter);
      DataDescriptor desc = DataDescriptor::make_scalar(ScalarType::Float64, true);
      desc.dtype = sdfg.data(m.data).dtype;
      desc.storage = StorageType::Register;
      desc.lifetime = AllocationLifetime::Scope;
      sdfg.add_data(acc, desc);
      AccessNode& an = st.add_access(acc);
      an.setzero = true;
      // The body accumulates into acc: the memlets on the paths into I's exit connector,
      // up to and including the edge into I's exit (the path goes on outside).
      for (EdgeId i : ins) {
        auto path = st.memlet_path(i);
        for (EdgeId p : path) {
          Memlet& pm = st.edge(p).memlet;
          if (pm.data == m.data) {
            pm.data = acc;
            pm.subset = Subset::parse("0");
          }
          if (p == i) break;
        }
      }
      Memlet to_acc = Memlet::simple(acc, Subset::parse("0"), m.wcr);
      st.remove_edge(e);
      st.add_edge(x, d.src_conn, an.id(), "", to_acc);
      st.add_edge(an.id(), "", d.dst, d.dst_conn, m);
      ++changed;
    }
  }
  return changed;
}

}  // namespace

std::size_t LocalStorage::run_pass(SDFG& sdfg, Transaction& tx) {
  std::size_t changed = 0, counter = 0;
  for (SDFGState* stp : sdfg.all_states()) {
    SDFGState& st = *stp;
    tx.modify_state(st, [&] { changed += accumulate_locally(sdfg, st, counter); });
  }
  return changed;
}

}  // namespace weir::transforms
