// Reductions to one element in parallel maps. DaCe's pure expansion of a Reduce to a scalar
// (np.min, np.max, np.sum of an array) is a parallel map whose tasklet writes `_out[0]` with a
// write-conflict resolution at every point: one atomic update per point, all on one element, so
// the two threads fight for its cache line (azimint_hist's min and max: 2x NumPy's time). Each
// thread now combines its points in a local accumulator and the map combines the threads'
// accumulators into the element once each, atomically; the sequential branch of the small-map
// threshold seeds the accumulator with the element and stores it back, the same order of
// operations as without it.
#include "parallel_map_gen.h"
#include "state_codegen.h"
#include "weir/codegen/python_to_cpp.h"
#include "weir/sdfg/reduction_choice.h"

namespace weir::codegen::detail {

std::optional<std::set<std::string>> recorded_reductions(const MapInfo& m, const char* attribute,
                                                         const std::set<std::string>& proved,
                                                         const ElementRef& where) {
  std::optional<std::set<std::string>> names;
  try {
    names = recorded_reduction_names(m, attribute);
  } catch (const std::invalid_argument& ex) {
    throw CodegenError(where, std::string("map attribute ") + ex.what());
  }
  if (!names) return names;
  for (const std::string& x : *names)
    if (!proved.count(x)) {
      std::string list;
      for (const std::string& p : proved) list += (list.empty() ? "" : ", ") + p;
      throw CodegenError(where, "map attribute " + std::string(attribute) + " names `" + x +
                                    "`, which the dependence analysis does not prove safe for per-thread " +
                                    (attribute == std::string(kPartialsAttribute) ? "partials" : "copies") +
                                    " (proved: " + (list.empty() ? "none" : list) + ")");
    }
  return names;
}

std::size_t ParallelMapGen::plan_partials(const MapEntry& e) {
  g_.partials_.clear();
  if (!g_.opts.openmp) return 0;  // OpenMP threads only (CUDA host code runs without them)
  auto it = g_.children_.find(e.id());
  if (it == g_.children_.end()) return 0;
  std::vector<PartialReduction> found = partial_reductions(g_.st, e, it->second);
  std::set<std::string> proved;
  for (const PartialReduction& r : found) proved.insert(r.data);
  // cpu-schedules' verdict (weir/sdfg/reduction_choice.h), else every proved one.
  std::optional<std::set<std::string>> recorded =
      recorded_reductions(*e.map, kPartialsAttribute, proved, g_.ref(e));
  for (const PartialReduction& r : found) {
    if (recorded && !recorded->count(r.data)) continue;
    Partial p;
    p.var = g_.fresh("__weir_part");
    p.have = p.var + "_have";
    g_.partials_[{r.tasklet, r.connector}] = p;
  }
  return g_.partials_.size();
}

void ParallelMapGen::emit_with_partials(const std::function<void(bool, Writer&)>& nest, bool parallel,
                                        Writer& w) const {
  std::vector<const Partial*> used;
  for (const auto& [key, p] : g_.partials_)
    if (p.used) used.push_back(&p);
  // Code around the map may run concurrently with it (a nested SDFG called in parallel): then
  // even the sequential branch combines atomically.
  const bool around = g_.sg.in_parallel || g_.parallel_frame() >= 0;
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
      w.lines(g_.wcr_update(p->wcr, p->target, p->var, p->type, true));
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
        w.lines(g_.wcr_update(p->wcr, p->target, p->var, p->type, true));
        w.close();
      } else {
        w.line(p->target + " = " + p->var + ";");
      }
    }
  }
  w.close();
}

}  // namespace weir::codegen::detail
