// Scatter reductions in parallel maps: a map whose points add into a small container at indices
// known only at run time (a histogram: `hist[bin(x[i])] += w[i]`) updated it atomically, and two
// threads updating the same few cache lines took longer than one thread (azimint_hist: 1.0 ms on
// two threads, 0.83 ms on one, NumPy 0.8 ms). Where every write of the map to the container is
// such a write-conflict resolution with one associative operator and the map never reads it,
// each thread now adds into its own copy (filled with the operator's identity) without atomics,
// and the copies are combined into the container once per thread. The copies cost
// threads x size elements, so they are used only when the container is no larger than the
// map's points (checked at run time); larger ones keep the atomic loop. The sequential branch
// of the small-map threshold gets a body of its own without atomics.
#include "parallel_map_gen.h"
#include "state_codegen.h"
#include "weir/codegen/python_to_cpp.h"
#include "weir/sdfg/reduction_choice.h"
#include "weir/sdfg/sdfg.h"

namespace weir::codegen::detail {

namespace {

bool is_float_type(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}

/// C++ of the identity of `op` on `t`: -0.0 for float sums (x + -0.0 is x, also for x = -0.0).
std::string identity(const std::string& op, ScalarType t) {
  std::string T(cpp_name(t));
  if (op == "+") return is_float_type(t) ? T + "(-0.0)" : T + "(0)";
  if (op == "*") return T + "(1)";
  if (op == "&") return "static_cast<" + T + ">(~" + T + "(0))";
  return T + "(0)";
}

}  // namespace

std::vector<ParallelMapGen::Privatized> ParallelMapGen::plan_privatized(const MapEntry& e) const {
  std::vector<Privatized> out;
  // Called with the map's own frame pushed: it must be the only parallel one.
  if (!g_.opts.openmp || g_.sg.in_parallel || g_.frames_.empty() || !g_.frames_.back().parallel) return out;
  for (std::size_t k = 0; k + 1 < g_.frames_.size(); ++k)
    if (g_.frames_[k].parallel) return out;
  // A container of its own memory here: bound by its own name, no view, no scalar.
  auto plain = [&](const std::string& x) {
    const Binding* b = g_.binding(x);
    return b && !b->scalar && b->viewed.empty() && b->cpp == cpp_ident(x);
  };
  auto own = [&](const Subset& s) { return ConcurrentAccess(g_).pins_parallel_params(s); };
  std::vector<PrivatizableContainer> found =
      privatizable_containers(g_.sg.sdfg, g_.st, e, scope_nodes(g_.st, g_.children_, e.id()), plain, own);
  // cpu-schedules' verdict (weir/sdfg/reduction_choice.h): obeyed where the analysis proves it;
  // without one, copies where they avoid atomics (some write is not the iteration's own).
  std::set<std::string> proved;
  for (const PrivatizableContainer& c : found) proved.insert(c.data);
  std::optional<std::set<std::string>> recorded =
      recorded_reductions(*e.map, kPrivatizedAttribute, proved, g_.ref(e));
  for (const PrivatizableContainer& c : found)
    if (recorded ? recorded->count(c.data) > 0 : c.scattered)
      out.push_back({c.data, c.op, c.type, g_.sg.sdfg.arrays.at(c.data).total_size});
  return out;
}

void ParallelMapGen::emit_privatized(const std::vector<Privatized>& privs,
                                     const std::function<void(Writer&)>& loops, Writer& w) {
  w.open("{");
  for (const Privatized& p : privs) {
    std::string n = cpp_ident(p.data), T(cpp_name(p.type));
    w.line(T + "* const __weir_shared_" + n + " = " + n + ";");
    w.line("weir_buffer<" + T + "> __weir_copies_" + n + "((" + sym_cpp(p.size) +
           ") * omp_get_max_threads(), \"" + c_escape(p.data) + " (per-thread copies)\");");
  }
  w.line("#pragma omp parallel");
  w.open("{");
  for (const Privatized& p : privs) {
    std::string n = cpp_ident(p.data), T(cpp_name(p.type)), size = "(" + sym_cpp(p.size) + ")";
    w.line(T + "* __restrict__ " + n + " = __weir_copies_" + n +
           ".ptr + static_cast<int64_t>(omp_get_thread_num()) * " + size + ";");
    w.line("for (int64_t __k = 0; __k < " + size + "; ++__k) " + n + "[__k] = " + identity(p.op, p.type) +
           ";");
  }
  loops(w);
  // One thread at a time: each combines its whole copy (identity elements leave values as they are).
  w.line("#pragma omp critical");
  w.open("{");
  for (const Privatized& p : privs) {
    std::string n = cpp_ident(p.data);
    w.line("for (int64_t __k = 0; __k < (" + sym_cpp(p.size) + "); ++__k) __weir_shared_" + n + "[__k] " +
           p.op + "= " + n + "[__k];");
  }
  w.close();
  w.close();
  w.close();
}

}  // namespace weir::codegen::detail
