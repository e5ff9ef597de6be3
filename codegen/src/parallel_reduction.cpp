// Reductions to one element in parallel maps. DaCe's pure expansion of a Reduce to a scalar
// (np.min, np.max, np.sum of an array) is a parallel map whose tasklet writes `_out[0]` with a
// write-conflict resolution at every point: one atomic update per point, all on one element, so
// the two threads fight for its cache line (azimint_hist's min and max: 2x NumPy's time). Each
// thread now combines its points in a local accumulator and the map combines the threads'
// accumulators into the element once each, atomically; the sequential branch of the small-map
// threshold seeds the accumulator with the element and stores it back, the same order of
// operations as without it.
#include "state_codegen.h"
#include "weir/codegen/python_to_cpp.h"

namespace weir::codegen::detail {

std::size_t StateGen::plan_partials(const MapEntry& e) {
  partials_.clear();
  if (!opts.openmp) return 0;  // OpenMP threads only (CUDA host code runs without them)
  auto it = children_.find(e.id());
  if (it == children_.end()) return 0;
  // What varies between iterations: the parameters, and dynamic range inputs to be safe.
  std::set<std::string> varying(e.map->params.begin(), e.map->params.end());
  for (const auto& [c, t] : e.in_connectors)
    if (c.rfind("IN_", 0) != 0) varying.insert(c);
  // Containers the map reads: a tasklet reading the element it reduces into would see it stale.
  std::set<std::string> read;
  for (EdgeId id : st.in_edges(e.id()))
    if (!st.edge(id).memlet.is_empty()) read.insert(st.edge(id).memlet.data);
  for (NodeId c : it->second) {
    if (!st.node(c).as<Tasklet>()) continue;
    std::map<std::string, int> writes;  // per connector
    for (EdgeId id : st.out_edges(c)) ++writes[st.edge(id).src_conn];
    for (EdgeId id : st.out_edges(c)) {
      const DataflowEdge& ed = st.edge(id);
      const Memlet& m = ed.memlet;
      if (ed.dst != e.exit || m.is_empty() || m.wcr.empty() || ed.src_conn.empty() ||
          writes[ed.src_conn] != 1 || read.count(m.data))
        continue;
      bool fixed = true;
      for (const Range& r : m.subset.ranges()) {
        fixed = fixed && r.start == r.end;
        for (const auto& s : r.start.free_symbols()) fixed = fixed && !varying.count(s);
      }
      if (!fixed) continue;
      Partial p;
      p.var = fresh("__weir_part");
      p.have = p.var + "_have";
      partials_[{c, ed.src_conn}] = p;
    }
  }
  return partials_.size();
}

void StateGen::emit_with_partials(const std::function<void(bool, Writer&)>& nest, bool parallel, Writer& w) {
  std::vector<const Partial*> used;
  for (const auto& [key, p] : partials_)
    if (p.used) used.push_back(&p);
  // Code around the map may run concurrently with it (a nested SDFG called in parallel): then
  // even the sequential branch combines atomically.
  const bool around = sg.in_parallel || parallel_frame() >= 0;
  w.open("{");
  if (parallel) {
    w.line("#pragma omp parallel");
    w.open("{");
    for (const Partial* p : used) {
      w.line(std::string(cpp_name(p->type)) + " " + p->var + "{};");
      w.line("bool " + p->have + " = false;");
    }
    nest(true, w);
    for (const Partial* p : used) {
      w.open("if (" + p->have + ") {");
      w.lines(wcr_update(p->wcr, p->target, p->var, p->type, true));
      w.close();
    }
    w.close();
  } else {
    for (const Partial* p : used) {
      if (around) {
        w.line(std::string(cpp_name(p->type)) + " " + p->var + "{};");
        w.line("bool " + p->have + " = false;");
      } else {
        w.line(std::string(cpp_name(p->type)) + " " + p->var + " = " + p->target + ";");
        w.line("bool " + p->have + " = true;");
      }
    }
    nest(false, w);
    for (const Partial* p : used) {
      if (around) {
        w.open("if (" + p->have + ") {");
        w.lines(wcr_update(p->wcr, p->target, p->var, p->type, true));
        w.close();
      } else {
        w.line(p->target + " = " + p->var + ";");
      }
    }
  }
  w.close();
}

}  // namespace weir::codegen::detail
