// Benchmark of orchestration (issue 13 and 34, ADR 0019, 0049): the granules of
// examples/orchestration (diffusion_granule.py: nine stencils in a time loop with a flag and
// swaps; half_level_granule.py: full and half levels, domains as arguments) on a periodic
// triangular mesh, each run
//  * as ONE compiled SDFG (what `weir run --backend cpu FILE.py::NAME` runs), and
//  * call by call: the same statements with every stencil program compiled on its own and called
//    one after the other (what the Python function does under gt4py).
// Both ways run on the same persistent buffers (the inputs copied back before each round, outside
// the timed region), in interleaved rounds (the order alternating), median per call of the
// granule. Kernel time: the one SDFG's run; call by call, the callee programs' runs summed
// (runtime::CalleeTimes), without the walk of the statements and the allocation of local fields,
// which the wall time per call includes. Also: outermost maps and bytes of transients each way,
// and the compile time of the one SDFG (source -> loaded program into an empty program cache
// whose precompiled header the call-by-call programs built first; wall and CPU, compilers
// included). `--json FILE` writes the numbers for bench/report.py --orchestration.
#include <sys/resource.h>

#include <unistd.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "../../examples/orchestration/granule_inputs.h"
#include "weir/frontend/orchestration.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/sdfg.h"

using namespace weir;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::vector<std::string> granules{"diffusion", "half-level"};
  int nx = 100, ny = 100;  // 20,000 cells
  std::int64_t levels = 65, steps = 4;
  int reps = 5;
  std::string json;
  std::string cache;  // empty: a fresh program cache, removed at the end
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds of this process and its finished children (the compilers).
double cpu_seconds() {
  double s = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    s += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  }
  return s;
}

std::vector<double> load_average() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) != 3) return {};
  return {l[0], l[1], l[2]};
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

// Bytes of the transient arrays (not scalars, not registers) of the SDFG itself at the given
// symbol values.
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

runtime::Arguments copy_of(const runtime::Arguments& a) {
  runtime::Arguments c;
  for (const auto& [k, f] : a.arrays) c.arrays.emplace(k, f.clone());
  c.values = a.values;
  return c;
}

// Every array of `from` copied into the array of the same name in `to` (same shapes).
void copy_into(runtime::Arguments& to, const runtime::Arguments& from) {
  for (const auto& [k, f] : from.arrays) std::memcpy(to.arrays.at(k).data(), f.data(), f.nbytes());
  to.values = from.values;
}

double largest_relative_difference(const runtime::Arguments& a, const runtime::Arguments& b) {
  double worst = 0;
  for (const auto& [k, x] : a.arrays) {
    const runtime::Field& y = b.arrays.at(k);
    if (x.dtype() != ScalarType::Float64) continue;
    for (std::int64_t i = 0; i < x.size(); ++i)
      worst = std::max(worst, std::abs(x.value_as_double(i) - y.value_as_double(i)) /
                                  std::max(1.0, std::abs(y.value_as_double(i))));
  }
  return worst;
}

struct Granule {
  std::string key, file, function;
  runtime::Arguments args;
};

Granule make_granule(const std::string& key, const mesh::TriangularMesh& m, const Options& o) {
  const std::string dir = std::string(WEIR_SOURCE_DIR) + "/examples/orchestration/";
  if (key == "diffusion")
    return {key, dir + "diffusion_granule.py", "diffusion_granule",
            examples::granule_args(m, o.levels, o.steps, true)};
  // A model's horizontal range leaves out the lateral boundary: here the first and last row of cells.
  const std::int64_t row = 2LL * o.nx;
  return {key, dir + "half_level_granule.py", "half_level_granule",
          examples::half_level_granule_args(m, o.levels, o.steps, row, m.num_cells - row)};
}

nlohmann::json bench_granule(Granule& g, const mesh::TriangularMesh& m, const Options& o,
                             const std::filesystem::path& cache) {
  runtime::CompiledBackendConfig cfg;
  cfg.cache_dir = cache;
  std::unique_ptr<runtime::Backend> cpu = runtime::make_cpu_backend(cfg);
  std::printf(
      "\n%s (%s): %lld cells, %lld edges, %lld vertices, %lld levels, %lld steps per call, %d rounds\n",
      g.function.c_str(), g.file.substr(g.file.rfind('/') + 1).c_str(), static_cast<long long>(m.num_cells),
      static_cast<long long>(m.num_edges), static_cast<long long>(m.num_vertices),
      static_cast<long long>(o.levels), static_cast<long long>(o.steps), o.reps);

  // Call by call first: its programs fill the cache's precompiled header.
  runtime::FieldViewProgram p = runtime::load_field_view_program(g.file, g.function);
  auto times = std::make_shared<runtime::CalleeTimes>();
  auto t0 = Clock::now();
  std::shared_ptr<runtime::Program> each = runtime::prepare_call_by_call(*cpu, p, times);
  runtime::Arguments y = copy_of(g.args);
  each->run(y);  // compiles every callee on first use
  const double each_compile = since(t0);
  std::printf("call by call: %zu programs compiled in %.1f s\n", p.orchestration->callees.size(),
              each_compile);

  // Source -> loaded program of the one SDFG: load, type-check, lower, inline, auto_optimize,
  // generate C++, compile, load.
  t0 = Clock::now();
  const double c0 = cpu_seconds();
  runtime::FieldViewProgram fresh = runtime::load_field_view_program(g.file, g.function);
  std::shared_ptr<runtime::Program> one = runtime::prepare(*cpu, fresh);
  const double compile_wall = since(t0), compile_cpu = cpu_seconds() - c0;
  std::printf("one SDFG: source -> loaded program %.1f s wall, %.1f s CPU (compilers included)\n",
              compile_wall, compile_cpu);

  // Same results both ways, on the same inputs.
  runtime::Arguments x = copy_of(g.args);
  copy_into(y, g.args);
  one->run(x);
  each->run(y);
  const double diff = largest_relative_difference(x, y);
  std::printf("largest relative difference between the two: %.3g\n", diff);

  std::vector<double> t_one, t_each, t_kernels;
  for (int r = 0; r < o.reps; ++r) {
    copy_into(x, g.args);
    copy_into(y, g.args);
    auto run_one = [&] {
      auto s0 = Clock::now();
      one->run(x);
      t_one.push_back(since(s0));
    };
    auto run_each = [&] {
      *times = {};
      auto s0 = Clock::now();
      each->run(y);
      t_each.push_back(since(s0));
      t_kernels.push_back(times->seconds);
    };
    if (r % 2 == 0) {
      run_one();
      run_each();
    } else {
      run_each();
      run_one();
    }
  }
  const double mo = median(t_one), me = median(t_each), mk = median(t_kernels);
  std::printf(
      "per call of the granule: one SDFG %.1f ms; call by call %.1f ms wall, of it %.1f ms in its %lld "
      "program "
      "runs: kernel time %.2fx\n",
      1e3 * mo, 1e3 * me, 1e3 * mk, static_cast<long long>(times->runs), mk / mo);

  // Maps and transients: the optimized one SDFG against the programs and the local fields.
  runtime::CompilableProgram opt = runtime::lower(p);
  std::map<std::string, long long> sym;
  for (const auto& [k, v] : g.args.values)
    if (auto* i = std::get_if<std::int64_t>(&v)) sym[k] = *i;
  for (const auto& prm : runtime::field_view_signature(p).params)
    for (std::size_t d = 0; d < prm.shape.size(); ++d)
      if (prm.shape[d].is_symbol() && g.args.arrays.count(prm.name))
        sym[prm.shape[d].symbol_name()] = g.args.arrays.at(prm.name).shape()[d];
  std::unique_ptr<SDFG> lowered = frontend::lower_orchestration(*p.orchestration);
  std::size_t maps_each = 0;
  for (const frontend::TypedDefinition* c : p.orchestration->callees) {
    runtime::FieldViewProgram cp;
    cp.definition = std::shared_ptr<const frontend::TypedDefinition>(p.orchestration, c);
    maps_each += count_maps(*runtime::lower(cp).sdfg);
  }
  const double bytes_one = transient_bytes(*opt.sdfg, sym), bytes_each = transient_bytes(*lowered, sym);
  const std::size_t maps_one = count_maps(*opt.sdfg);
  std::printf("transients: one SDFG %.1f MiB, call by call %.1f MiB of local fields\n", bytes_one / 1048576.0,
              bytes_each / 1048576.0);
  std::printf(
      "maps: one SDFG %zu (every branch and unrolled copy), call by call %zu (one per stencil program)\n",
      maps_one, maps_each);
  return {{"granule", g.function},
          {"file", "examples/orchestration/" + g.file.substr(g.file.rfind('/') + 1)},
          {"cells", m.num_cells},
          {"edges", m.num_edges},
          {"vertices", m.num_vertices},
          {"levels", o.levels},
          {"steps", o.steps},
          {"rounds", o.reps},
          {"one_sdfg_ms", 1e3 * mo},
          {"call_by_call_wall_ms", 1e3 * me},
          {"call_by_call_kernel_ms", 1e3 * mk},
          {"program_runs", times->runs},
          {"kernel_speedup", mk / mo},
          {"max_relative_difference", diff},
          {"maps_one_sdfg", maps_one},
          {"maps_call_by_call", maps_each},
          {"transient_bytes_one_sdfg", bytes_one},
          {"local_field_bytes_call_by_call", bytes_each},
          {"compile_wall_s", compile_wall},
          {"compile_cpu_s", compile_cpu},
          {"call_by_call_compile_wall_s", each_compile}};
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "Orchestrated granules as ONE compiled SDFG vs their stencil programs called one by one "
      "(bench/README.md)",
      "weir_bench_orchestration"};
  app.add_option("--granules", o.granules, "which granules (default: both)")
      ->delimiter(',')
      ->check(CLI::IsMember({"diffusion", "half-level"}));
  app.add_option("--nx", o.nx, "mesh columns (cells: 2 nx ny; default 100)")->check(CLI::Range(3, 100000));
  app.add_option("--ny", o.ny, "mesh rows (default 100)")->check(CLI::Range(3, 100000));
  app.add_option("--levels", o.levels, "full levels (default 65)")->check(CLI::Range(2, 100000));
  app.add_option("--steps", o.steps, "time steps (substeps) per call of a granule (default 4)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--reps", o.reps, "timed rounds, each way once per round (default 5)")
      ->check(CLI::Range(1, 10000));
  app.add_option("--json", o.json, "write the numbers as JSON (bench/report.py --orchestration)");
  app.add_option("--cache", o.cache,
                 "program cache to use and keep (default: a fresh one, removed at the end; with a cache that "
                 "holds the programs already, the compile times are those of loading them)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "weir_bench_orchestration: error: %s\nRun with --help for the options.\n", e.what());
    return 2;
  }
  const bool fresh = o.cache.empty();
  const std::filesystem::path cache =
      fresh ? std::filesystem::temp_directory_path() /
                  ("weir-bench-orchestration-" + std::to_string(static_cast<long long>(::getpid())))
            : std::filesystem::path(o.cache);
  auto drop_cache = [&] {
    std::error_code ec;
    if (fresh) std::filesystem::remove_all(cache, ec);
  };
  try {
    drop_cache();
    nlohmann::json doc;
    const char* threads = std::getenv("OMP_NUM_THREADS");
    doc["machine"] = {{"online_cpus", std::thread::hardware_concurrency()},
                      {"OMP_NUM_THREADS", threads ? threads : ""},
                      {"load_average_at_start", load_average()}};
    doc["program_cache"] = fresh ? "fresh (compile times include the compiler)" : "given: " + o.cache;
    mesh::TriangularMesh m = mesh::make_triangular_mesh(o.nx, o.ny);
    std::printf("load average at start: %.2f\n", load_average().empty() ? -1.0 : load_average()[0]);
    for (const std::string& key : o.granules) {
      Granule g = make_granule(key, m, o);
      doc["granules"].push_back(bench_granule(g, m, o, cache));
    }
    doc["machine"]["load_average_at_end"] = load_average();
    drop_cache();
    if (!o.json.empty()) {
      std::ofstream f(o.json);
      f << doc.dump(2) << "\n";
      if (!f) throw std::runtime_error("cannot write " + o.json);
    }
  } catch (const std::exception& e) {
    drop_cache();
    std::fprintf(stderr, "weir_bench_orchestration: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
