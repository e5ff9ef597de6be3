// Benchmark of orchestration (issue 13, ADR 0019): the diffusion granule of
// examples/orchestration/diffusion_granule.py on a periodic triangular mesh, run
//  * as ONE compiled SDFG (weir run --backend cpu FILE.py::diffusion_granule), and
//  * call by call: the same time loop with every stencil program compiled on its own and
//    called one after the other (what the Python function does under gt4py),
// interleaved, median time per call of the granule (n_steps time steps). Also: the bytes of
// the local temporaries each way, the number of (outermost) maps each way, and the time from
// source to optimized C++ (load, type-check, lower, inline, auto_optimize, generate C++; median).
// Usage: weir_bench_orchestration [nx ny levels steps reps]   (default 96 96 40 4 9)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../../examples/orchestration/granule_inputs.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/frontend/orchestration.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/sdfg.h"

using namespace weir;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

runtime::Arguments copy_of(const runtime::Arguments& a) {
  runtime::Arguments c;
  for (const auto& [k, f] : a.arrays) c.arrays.emplace(k, f.clone());
  c.values = a.values;
  return c;
}

// Outermost maps of every state, nested SDFGs included.
std::size_t count_maps(const SDFG& sdfg) {
  std::size_t n = 0;
  for (const SDFGState* st : sdfg.all_states()) {
    ScopeTree tree = st->scope_tree();
    for (const Node* node : st->nodes()) {
      if (node->kind() == NodeKind::MapEntry && tree.parent[node->id()] == kNoNode) ++n;
      if (auto* ns = node->as<NestedSDFGNode>()) n += count_maps(*ns->sdfg);
    }
  }
  return n;
}

// Bytes of the transient arrays (not scalars, not registers) at the given symbol values.
double transient_bytes(const SDFG& sdfg, const std::map<std::string, long long>& symbols) {
  double b = 0;
  for (const auto& [name, d] : sdfg.arrays) {
    if (!d.transient || d.is_scalar() || d.storage == StorageType::Register) continue;
    double n = 1;
    for (const sym::Expr& e : d.shape) n *= static_cast<double>(e.evaluate(symbols));
    b += n * static_cast<double>(size_of(d.dtype.base));
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  int nx = argc > 1 ? std::atoi(argv[1]) : 96, ny = argc > 2 ? std::atoi(argv[2]) : 96;
  std::int64_t levels = argc > 3 ? std::atoll(argv[3]) : 40, steps = argc > 4 ? std::atoll(argv[4]) : 4;
  int reps = argc > 5 ? std::atoi(argv[5]) : 9;
  const std::string file = std::string(WEIR_SOURCE_DIR) + "/examples/orchestration/diffusion_granule.py";
  mesh::TriangularMesh m = mesh::make_triangular_mesh(nx, ny);
  std::printf(
      "diffusion granule: %lld cells, %lld edges, %lld vertices, %lld levels, %lld steps per call, %d reps\n",
      static_cast<long long>(m.num_cells), static_cast<long long>(m.num_edges),
      static_cast<long long>(m.num_vertices), static_cast<long long>(levels), static_cast<long long>(steps),
      reps);

  // Source to optimized C++ (fresh each time: load, check, lower, inline, auto_optimize, codegen).
  std::vector<double> to_cpp, t_load, t_lower, t_gen;
  std::size_t cpp_bytes = 0;
  for (int r = 0; r < std::max(reps, 5); ++r) {
    auto t0 = Clock::now();
    runtime::FieldViewProgram p = runtime::load_field_view_program(file, "diffusion_granule");
    auto t1 = Clock::now();
    runtime::CompilableProgram c = runtime::lower(p);
    auto t2 = Clock::now();
    cpp_bytes = codegen::generate_cpu(*c.sdfg, c.options).source.size();
    to_cpp.push_back(since(t0));
    t_load.push_back(std::chrono::duration<double>(t1 - t0).count());
    t_lower.push_back(std::chrono::duration<double>(t2 - t1).count());
    t_gen.push_back(since(t2));
  }
  std::printf("source -> optimized C++: median %.1f ms (min %.1f ms), %zu bytes of C++\n",
              1e3 * median(to_cpp), 1e3 * *std::min_element(to_cpp.begin(), to_cpp.end()), cpp_bytes);
  std::printf(
      "  of which load + type-check %.1f ms, lower + inline + auto_optimize %.1f ms, generate C++ %.1f ms "
      "(medians)\n",
      1e3 * median(t_load), 1e3 * median(t_lower), 1e3 * median(t_gen));

  runtime::FieldViewProgram p = runtime::load_field_view_program(file, "diffusion_granule");
  auto cpu = runtime::make_backend("cpu");
  auto t0 = Clock::now();
  std::shared_ptr<runtime::Program> one = runtime::prepare(*cpu, p);
  std::printf("one SDFG: compiled (or loaded from cache) in %.2f s\n", since(t0));
  t0 = Clock::now();
  std::shared_ptr<runtime::Program> each = runtime::prepare_call_by_call(*cpu, p);
  runtime::Arguments base = examples::granule_args(m, levels, steps, true);
  {
    runtime::Arguments warm = copy_of(base);
    each->run(warm);  // compiles every callee on first use
  }
  std::printf("call by call: %zu programs compiled (or loaded) in %.2f s\n", p.orchestration->callees.size(),
              since(t0));

  // Same results both ways.
  runtime::Arguments a1 = copy_of(base), a2 = copy_of(base);
  one->run(a1);
  each->run(a2);
  double worst = 0;
  for (const char* f : {"vn", "vn_new", "w", "w_new", "theta", "theta_new"}) {
    const runtime::Field &x = a1.arrays.at(f), &y = a2.arrays.at(f);
    for (std::int64_t i = 0; i < x.size(); ++i)
      worst = std::max(worst, std::abs(x.value_as_double(i) - y.value_as_double(i)) /
                                  std::max(1.0, std::abs(y.value_as_double(i))));
  }
  std::printf("largest relative difference between the two: %.3g\n", worst);

  std::vector<double> t_one, t_each;
  for (int r = 0; r < reps; ++r) {
    runtime::Arguments x = copy_of(base), y = copy_of(base);
    auto s0 = Clock::now();
    one->run(x);
    t_one.push_back(since(s0));
    s0 = Clock::now();
    each->run(y);
    t_each.push_back(since(s0));
  }
  double mo = median(t_one), me = median(t_each);
  std::printf("per call of the granule (%lld steps): one SDFG %.2f ms, call by call %.2f ms: %.2fx\n",
              static_cast<long long>(steps), 1e3 * mo, 1e3 * me, me / mo);

  // Temporaries and maps.
  runtime::CompilableProgram opt = runtime::lower(p);
  std::map<std::string, long long> sym;
  for (const auto& [k, v] : base.values)
    if (auto* i = std::get_if<std::int64_t>(&v)) sym[k] = *i;
  for (const auto& prm : runtime::field_view_signature(p).params)
    for (std::size_t d = 0; d < prm.shape.size(); ++d)
      if (prm.shape[d].is_symbol()) sym[prm.shape[d].symbol_name()] = base.arrays.at(prm.name).shape()[d];
  double local_bytes = 0;
  std::function<void(const std::vector<frontend::OStmt>&)> allocs =
      [&](const std::vector<frontend::OStmt>& body) {
        for (const auto& s : body) {
          if (s.kind == frontend::OStmt::Kind::Alloc) {
            double n = 8;
            for (const auto& d : s.type.dims)
              n *= static_cast<double>(d.name == "K"      ? levels
                                       : d.name == "Cell" ? m.num_cells
                                       : d.name == "Edge" ? m.num_edges
                                                          : m.num_vertices);
            local_bytes += n;
          }
          allocs(s.body);
          allocs(s.orelse);
        }
      };
  allocs(p.orchestration->body);
  std::size_t maps_each = 0;
  for (const frontend::TypedDefinition* c : p.orchestration->callees) {
    runtime::FieldViewProgram cp;
    cp.definition = std::shared_ptr<const frontend::TypedDefinition>(p.orchestration, c);
    maps_each += count_maps(*runtime::lower(cp).sdfg);
  }
  std::printf("temporaries: one SDFG %.1f MiB of transient arrays, call by call %.1f MiB of local fields\n",
              transient_bytes(*opt.sdfg, sym) / 1048576.0, local_bytes / 1048576.0);
  std::printf(
      "maps: one SDFG %zu (whole function, every branch and unrolled copy), call by call %zu (one per "
      "stencil program)\n",
      count_maps(*opt.sdfg), maps_each);
  return 0;
}
