// Every example program under examples/ is lowered, validated, run on each backend of its case
// (the embedded interpreter; the cpu backend through the toolchain, i.e. lowered and
// auto-optimized; the lowered SDFG as it is, compiled for the cpu backend; the lowered SDFG
// auto-optimized for the GPU, its kernels run on the host) and compared with
// an independent NumPy reference (tests/examples/references/<example>.py,
// run with Debian's python3): |result - expected| <= 1e-12 * max(|expected|, 1) for float64.
// Inputs are seeded random fields; outputs start random too, so writes outside the computed
// domain show up. Unstructured cases run on the periodic triangular mesh of weir_mesh, some
// with missing neighbours (-1) put into a table to check that reductions skip them.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <set>

#include "cli_run.h"
#include "corpus.h"
#include "cuda_emulation.h"
#include "nvcc_batch.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/mesh/triangular_mesh.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

namespace fs = std::filesystem;
using namespace weir;

namespace {

/// One example program and how to check it.
struct Case {
  std::string file;       ///< under examples/
  std::string program;    ///< the @program
  std::string reference;  ///< tests/examples/references/<reference>.py
  /// Extents of the Cartesian / vertical dimensions by name.
  std::map<std::string, std::int64_t> sizes;
  /// > 0: the program is unstructured; Vertex, Edge, Cell extents and the connectivity tables
  /// come from make_triangular_mesh(mesh_nx, mesh_ny).
  int mesh_nx = 0, mesh_ny = 0;
  std::map<std::string, runtime::Number> scalars = {};
  /// Value range of inputs by name (default [-1, 1]).
  std::map<std::string, std::pair<double, double>> ranges = {};
  std::vector<std::string> outputs = {};
  /// Tables in which some entries become -1 (missing neighbours).
  std::vector<std::string> missing_neighbours = {};
  std::vector<std::string> search_path = {};  ///< under examples/
  /// "embedded" and "cpu" run the field-view program (runtime::run with a FieldViewProgram: the
  /// cpu backend lowers and auto-optimizes it); "cpu-lowered" runs the unoptimized lowered SDFG;
  /// "cpu-gpu" the lowered SDFG after auto_optimize for the GPU, its kernels run as host loops
  /// by the cpu backend (codegen's gpu_as_cpu); "cpu-gpu-host" the same with the arguments in
  /// host memory and device copies (gpu-transform's host_arguments); "cuda-emulation" that SDFG
  /// through the CUDA generator, compiled as host C++ with the emulation header (kernels run
  /// block by block, thread by thread: tests/support/cuda_emulation.h).
  std::vector<std::string> backends = {"embedded", "cpu",          "cpu-lowered",
                                       "cpu-gpu",  "cpu-gpu-host", "cuda-emulation"};
  /// Added to the scratch folder's name: a variant of a case (other sizes) runs in its own.
  std::string tag = {};
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = [] {
    std::vector<Case> v;
    v.push_back({"cartesian/laplacian.py",
                 "laplacian",
                 "laplacian",
                 {{"I", 9}, {"J", 8}, {"K", 3}},
                 0,
                 0,
                 {},
                 {},
                 {"out"}});
    v.push_back({"cartesian/laplacian.py",
                 "bi_laplacian",
                 "laplacian",
                 {{"I", 10}, {"J", 9}, {"K", 3}},
                 0,
                 0,
                 {},
                 {},
                 {"out"}});
    v.push_back({"cartesian/hdiff.py",
                 "hdiff_program",
                 "hdiff",
                 {{"I", 10}, {"J", 9}, {"K", 3}},
                 0,
                 0,
                 {},
                 {},
                 {"out"}});
    v.push_back({"cartesian/heat3d.py",
                 "heat3d",
                 "heat3d",
                 {{"I", 7}, {"J", 6}, {"K", 5}},
                 0,
                 0,
                 {{"alpha", 0.125}},
                 {},
                 {"u_new"}});
    v.push_back({"cartesian/vertical_solver.py",
                 "vertical_solver",
                 "vertical_solver",
                 {{"I", 4}, {"J", 3}, {"K", 9}},
                 0,
                 0,
                 {{"nk", std::int64_t{7}}},
                 {{"b", {4.0, 5.0}}},
                 {"x"}});
    v.push_back({"unstructured/nabla.py",
                 "nabla_program",
                 "nabla",
                 {{"K", 3}},
                 4,
                 3,
                 {},
                 {{"vol", {1.0, 2.0}}},
                 {"out_x", "out_y"},
                 {"V2E"}});
    v.push_back({"unstructured/cell_laplacian.py",
                 "cell_laplacian",
                 "cell_laplacian",
                 {{"K", 3}},
                 3,
                 4,
                 {},
                 {},
                 {"lap"},
                 {"C2E2CO"}});
    v.push_back({"unstructured/cell_laplacian.py",
                 "cell_bounds",
                 "cell_laplacian",
                 {{"K", 2}},
                 4,
                 3,
                 {},
                 {},
                 {"psi_max", "psi_min"},
                 {"C2E2CO"}});
    v.push_back({"unstructured/edge_stencil.py",
                 "edge_gradients",
                 "edge_stencil",
                 {{"K", 3}},
                 3,
                 3,
                 {},
                 {},
                 {"grad_t", "grad_n"}});
    v.push_back({"unstructured/edge_stencil.py",
                 "edge_smooth",
                 "edge_stencil",
                 {{"K", 2}},
                 4,
                 3,
                 {{"strength", 0.25}},
                 {},
                 {"u_edge"}});
    Case mm{"multimodule/mymodel/program.py",
            "smooth",
            "multimodule",
            {{"K", 5}},
            3,
            3,
            {{"n_cells", std::int64_t{14}}, {"n_levels", std::int64_t{4}}},
            {},
            {"out"}};
    mm.search_path = {"multimodule"};
    v.push_back(mm);
    Case pot{"multimodule/mymodel/program.py",
             "potential_program",
             "multimodule",
             {{"Cell", 7}, {"K", 3}},
             0,
             0,
             {},
             {},
             {"out"}};
    pot.search_path = {"multimodule"};
    v.push_back(pot);
    // A namespace package `model` over three import roots (relative imports in __init__.py,
    // an import cycle, chained shifts, tuple astype, class constants, argument expressions).
    Case ns_edge{"namespaced/dycore/model/dycore/program.py",
                 "edge_program",
                 "namespaced",
                 {{"K", 5}},
                 3,
                 3,
                 {{"alpha", 0.75}, {"n_edges", std::int64_t{20}}, {"nlev", std::int64_t{5}}},
                 {},
                 {"out"}};
    ns_edge.search_path = {"namespaced/core", "namespaced/dycore", "namespaced/physics"};
    v.push_back(ns_edge);
    // Tuple domains: one domain per output.
    Case ns_pair{"namespaced/dycore/model/dycore/program.py",
                 "pair_program",
                 "namespaced",
                 {{"Cell", 7}, {"K", 5}},
                 0,
                 0,
                 {{"n_cells", std::int64_t{6}}, {"nlev", std::int64_t{5}}},
                 {},
                 {"a", "b"}};
    ns_pair.search_path = ns_edge.search_path;
    v.push_back(ns_pair);
    // A NamedTuple of fields as an argument.
    Case ns_state{"namespaced/dycore/model/dycore/program.py",
                  "state_program",
                  "namespaced",
                  {{"K", 3}},
                  3,
                  3,
                  {},
                  {},
                  {"out"}};
    ns_state.search_path = ns_edge.search_path;
    v.push_back(ns_state);
    // The programs the orchestration examples call (the functions themselves: tests/orchestration).
    v.push_back({"orchestration/heat.py",
                 "heat_step",
                 "orchestration",
                 {{"I", 8}, {"J", 7}},
                 0,
                 0,
                 {{"dt", 0.1}},
                 {{"kappa", {0.0, 1.0}}},
                 {"out"}});
    v.push_back({"orchestration/adaptive_heat.py",
                 "heat_step",
                 "adaptive_heat",
                 {{"I", 8}, {"J", 7}},
                 0,
                 0,
                 {{"dt", 0.1}},
                 {},
                 {"out"}});
    v.push_back({"orchestration/adaptive_heat.py",
                 "shift_step",
                 "adaptive_heat",
                 {{"I", 8}, {"J", 7}},
                 0,
                 0,
                 {{"by", -0.25}},
                 {},
                 {"out"}});
    v.push_back({"orchestration/diffusion_granule.py",
                 "smagorinsky_coefficient",
                 "orchestration",
                 {{"K", 3}},
                 4,
                 3,
                 {{"smag_fac", 0.15}},
                 {},
                 {"uv", "kh", "kh_c"}});
    // theta and theta_ic are given the same 4 levels: nlev = 3 full levels fill the 4 half
    // levels (the granule's own sizes: tests/orchestration/test_half_level_granule.cpp).
    v.push_back({"orchestration/half_level_granule.py",
                 "theta_at_half_levels",
                 "orchestration",
                 {{"K", 4}},
                 4,
                 3,
                 {{"wgt", 0.6},
                  {"horizontal_start", std::int64_t{2}},
                  {"horizontal_end", std::int64_t{20}},
                  {"nlev", std::int64_t{3}}},
                 {},
                 {"theta_ic"}});
    return v;
  }();
  return c;
}

const Case& find_case(const std::string& file, const std::string& program) {
  for (const Case& c : cases())
    if (c.file == file && c.program == program) return c;
  throw std::runtime_error("no case for " + file + "::" + program);
}

fs::path source_dir() { return fs::path(WEIR_SOURCE_DIR); }

/// Loads, type-checks and lowers the case's program; the SDFG must validate.
std::shared_ptr<SDFG> lower_case(const Case& c, const frontend::TypedDefinition** def_out,
                                 frontend::ModuleLoader& loader, frontend::TypeChecker& tc) {
  const frontend::LoadedModule& m = loader.load_file((source_dir() / "examples" / c.file).string());
  for (const auto& d : m.definitions)
    if (d->name == c.program) {
      const frontend::TypedDefinition& td = tc.check(*d);
      *def_out = &td;
      std::shared_ptr<SDFG> sdfg = frontend::lower_to_sdfg(td);
      std::string diags;
      for (const Diagnostic& x : validate(*sdfg)) diags += x.str() + "\n";
      CHECK(diags == "");
      return sdfg;
    }
  FAIL("no definition " << c.program << " in " << c.file);
  return nullptr;
}

std::int64_t extent(const Case& c, const mesh::TriangularMesh* m, const std::string& dim) {
  if (m && dim == "Vertex") return m->num_vertices;
  if (m && dim == "Edge") return m->num_edges;
  if (m && dim == "Cell") return m->num_cells;
  auto it = c.sizes.find(dim);
  if (it == c.sizes.end()) FAIL("case " << c.program << " gives no extent of dimension " << dim);
  return it->second;
}

/// The lowered SDFG as a compilable program, with `examples/FILE.py::PROGRAM` as its origin.
runtime::CompilableProgram program_of(const Case& c, std::shared_ptr<SDFG> sdfg) {
  return runtime::CompilableProgram{
      std::move(sdfg), {}, (source_dir() / "examples" / c.file).string() + "::" + c.program};
}

/// The lowered SDFG optimized for the GPU: valid (which includes the GPU rules: no host array
/// in a kernel, no device array on the host), every top-level map a GPU_Device kernel with a
/// block size, every argument array in GPU memory (or, with host arguments, in host memory
/// with a GPU_Global copy).
std::shared_ptr<SDFG> gpu_optimized(const SDFG& lowered, bool host_arguments) {
  std::shared_ptr<SDFG> g = lowered.clone_sdfg();
  auto pipe = transforms::make_auto_optimize_pipeline(DeviceType::GPU);
  for (auto& pass : pipe->passes())
    if (pass->name() == "gpu-transform") pass->options().set("host_arguments", host_arguments);
  pipe->run(*g);
  std::string diags;
  for (const Diagnostic& x : validate(*g)) diags += x.str() + "\n";
  REQUIRE(diags == "");
  std::size_t kernels = 0;
  for (SDFGState* st : g->all_states()) {
    ScopeTree tree = st->scope_tree();
    for (Node* n : st->nodes())
      if (auto* me = n->as<MapEntry>(); me && tree.parent[me->id()] == kNoNode) {
        INFO("map " << me->map->label);
        CHECK(me->map->schedule == ScheduleType::GPU_Device);
        CHECK((me->map->gpu_block_size == std::vector<std::string>{"32", "8", "1"} ||
               me->map->gpu_block_size == std::vector<std::string>{"64", "1", "1"}));
        CHECK((me->map->gpu_block_size[1] == "1") == (me->map->params.size() == 1));
        ++kernels;
      }
  }
  CHECK(kernels >= 1);
  for (const auto& [name, d] : g->arrays) {
    if (d.transient || d.is_scalar()) continue;
    INFO("argument " << name);
    CHECK(d.storage == (host_arguments ? StorageType::CPU_Heap : StorageType::GPU_Global));
    if (host_arguments) CHECK(g->data("gpu_" + name).storage == StorageType::GPU_Global);
  }
  return g;
}

/// Runs the case on `variant` (see Case::backends).
void run_variant(const Case& c, const std::string& variant, std::shared_ptr<SDFG> sdfg,
                 runtime::Arguments& args) {
  if (variant == "cpu-lowered") {
    runtime::run(*runtime::make_backend("cpu"), program_of(c, std::move(sdfg)), args);
    return;
  }
  if (variant == "cuda-emulation") {
    runtime::run(*test::make_cuda_emulation_backend(), program_of(c, gpu_optimized(*sdfg, true)), args);
    return;
  }
  if (variant == "cpu-gpu" || variant == "cpu-gpu-host") {
    runtime::run(*runtime::make_backend("cpu"),
                 program_of(c, gpu_optimized(*sdfg, variant == "cpu-gpu-host")), args);
    return;
  }
  std::vector<std::string> path;
  for (const std::string& s : c.search_path) path.push_back((source_dir() / "examples" / s).string());
  runtime::FieldViewProgram fv =
      runtime::load_field_view_program((source_dir() / "examples" / c.file).string(), c.program, path);
  runtime::run(*runtime::make_backend(variant), fv, args);
}

runtime::Field make_field(ScalarType t, const std::vector<std::int64_t>& shape) {
  return runtime::Allocator::cpu().allocate(t, shape);
}

void run_case(const Case& c) {
  INFO("example " << c.file << "::" << c.program);
  frontend::ModuleLoader loader(frontend::LoaderOptions{[&] {
                                                          std::vector<std::string> p;
                                                          for (const std::string& s : c.search_path)
                                                            p.push_back(
                                                                (source_dir() / "examples" / s).string());
                                                          return p;
                                                        }(),
                                                        false});
  frontend::TypeChecker tc;
  const frontend::TypedDefinition* def = nullptr;
  std::shared_ptr<SDFG> sdfg = lower_case(c, &def, loader, tc);
  REQUIRE(sdfg);

  std::unique_ptr<mesh::TriangularMesh> mesh;
  if (c.mesh_nx > 0)
    mesh = std::make_unique<mesh::TriangularMesh>(mesh::make_triangular_mesh(c.mesh_nx, c.mesh_ny));

  // Inputs: every array argument of the SDFG.
  std::mt19937_64 rng(std::hash<std::string>{}(c.file + "::" + c.program) & 0xffff);
  std::map<std::string, runtime::Field> arrays;
  for (const frontend::TParam& p : def->params) {
    if (!p.type.is_field()) continue;
    const DataDescriptor& desc = sdfg->data(p.name);
    std::vector<std::int64_t> shape;
    for (std::size_t j = 0; j < p.type.dims.size(); ++j)
      shape.push_back(p.type.dims[j].kind == frontend::DimensionKind::Local
                          ? desc.shape[j].value()
                          : extent(c, mesh.get(), p.type.dims[j].name));
    REQUIRE(desc.dtype == DataType::scalar(ScalarType::Float64));
    runtime::Field f = make_field(ScalarType::Float64, shape);
    auto [lo, hi] = c.ranges.count(p.name) ? c.ranges.at(p.name) : std::make_pair(-1.0, 1.0);
    std::uniform_real_distribution<double> dist(lo, hi);
    auto* d = static_cast<double*>(f.data());
    for (std::int64_t i = 0; i < f.size(); ++i) d[i] = dist(rng);
    arrays.emplace(p.name, std::move(f));
  }
  for (const std::string& name : sdfg->arg_names) {
    if (arrays.count(name) || !sdfg->has_data(name) || sdfg->data(name).is_scalar()) continue;
    REQUIRE(mesh);
    const mesh::Connectivity& t = mesh->table(name);
    const DataDescriptor& desc = sdfg->data(name);
    REQUIRE(desc.shape.size() == 2);
    REQUIRE(desc.shape[1].value() == t.cols);
    runtime::Field f = make_field(ScalarType::Int32, {t.rows, t.cols});
    std::memcpy(f.data(), t.data.data(), t.data.size() * sizeof(std::int32_t));
    if (std::find(c.missing_neighbours.begin(), c.missing_neighbours.end(), name) !=
        c.missing_neighbours.end()) {
      // Every third row loses one neighbour (never the last one it has).
      auto* d = static_cast<std::int32_t*>(f.data());
      for (std::int64_t r = 0; r < t.rows; r += 3)
        d[r * t.cols + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(t.cols - 1))] = -1;
    }
    arrays.emplace(name, std::move(f));
  }

  // The reference.
  // (File and program: two example files have a `heat_step`, whose cases run at the same time.)
  fs::path dir = test::scratch_dir("examples-" + fs::path(c.file).stem().string() + "-" + c.program + c.tag);
  fs::create_directories(dir / "in");
  for (const auto& [name, f] : arrays) runtime::write_npy(dir / "in" / (name + ".npy"), f);
  {
    std::ofstream js(dir / "in" / "scalars.json");
    js << "{";
    bool first = true;
    for (const auto& [k, v] : c.scalars)
      js << (first ? "" : ", ") << "\"" << k << "\": " << runtime::to_string(v), first = false;
    js << "}\n";
  }
  std::string cmd = "/usr/bin/python3 '" +
                    (source_dir() / "tests/examples/references" / (c.reference + ".py")).string() + "' " +
                    c.program + " '" + (dir / "in").string() + "' '" + (dir / "expected").string() + "'";
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);

  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  for (const std::string& backend_name : c.backends) {
    INFO("backend " << backend_name);
    runtime::Arguments args;
    for (const auto& [name, f] : arrays) args.arrays.emplace(name, f.clone());
    for (const auto& [k, v] : c.scalars) args.values[k] = v;
    run_variant(c, backend_name, sdfg, args);
    for (const std::string& out : c.outputs) {
      INFO("output " << out);
      runtime::Field want = runtime::read_npy(dir / "expected" / (out + ".npy"));
      const runtime::Field& got = args.arrays.at(out);
      REQUIRE(got.shape() == want.shape());
      std::int64_t bad = 0, first_bad = -1;
      for (std::int64_t i = 0; i < want.size(); ++i) {
        double g = got.value_as_double(i), w = want.value_as_double(i);
        bool ok = g == w || std::abs(g - w) <= 1e-12 * std::max(std::abs(w), 1.0);
        if (!ok && bad++ == 0) first_bad = i;
      }
      if (bad) {
        INFO(std::setprecision(17) << bad << " mismatches; first at flat index " << first_bad << ": got "
                                   << got.value_as_double(first_bad) << ", expected "
                                   << want.value_as_double(first_bad));
        CHECK(bad == 0);
      }
    }
  }
}

}  // namespace

TEST_CASE("examples: every example program has a numerical case", "[examples]") {
  // Programs of every example file (multimodule: its program module).
  for (const auto& e : fs::recursive_directory_iterator(source_dir() / "examples")) {
    if (e.path().extension() != ".py") continue;
    std::string rel = fs::relative(e.path(), source_dir() / "examples").string();
    std::string text = test::read_text(e.path());
    for (std::size_t pos = text.find("@gtx.program"); pos != std::string::npos;
         pos = text.find("@gtx.program", pos + 1)) {
      std::size_t d = text.find("def ", pos);
      std::string name = text.substr(d + 4, text.find('(', d) - d - 4);
      INFO(rel << "::" << name);
      CHECK_NOTHROW(find_case(rel, name));
    }
  }
}

TEST_CASE("examples: weir sdfg writes every example program as a valid SDFG", "[examples][cli]") {
  fs::path dir = test::scratch_dir("examples-weir-sdfg");
  for (const Case& c : cases()) {
    INFO(c.file << "::" << c.program);
    std::string args = "sdfg '" + (source_dir() / "examples" / c.file).string() + "::" + c.program +
                       "' -o '" + (dir / (c.program + ".sdfg")).string() + "'";
    for (const std::string& p : c.search_path)
      args += " -I '" + (source_dir() / "examples" / p).string() + "'";
    auto r = test::run_weir(args);
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto sdfg = load_sdfg((dir / (c.program + ".sdfg")).string());
    CHECK(sdfg->name == c.program);
    CHECK(validate(*sdfg).empty());
  }
}

TEST_CASE("examples: laplacian", "[examples]") { run_case(find_case("cartesian/laplacian.py", "laplacian")); }
TEST_CASE("examples: bi_laplacian", "[examples]") {
  run_case(find_case("cartesian/laplacian.py", "bi_laplacian"));
}
TEST_CASE("examples: hdiff", "[examples]") { run_case(find_case("cartesian/hdiff.py", "hdiff_program")); }
TEST_CASE("examples: heat3d", "[examples]") { run_case(find_case("cartesian/heat3d.py", "heat3d")); }
TEST_CASE("examples: vertical_solver (two scans)", "[examples]") {
  run_case(find_case("cartesian/vertical_solver.py", "vertical_solver"));
}
TEST_CASE("examples: nabla with missing V2E neighbours", "[examples]") {
  run_case(find_case("unstructured/nabla.py", "nabla_program"));
}
TEST_CASE("examples: cell_laplacian", "[examples]") {
  run_case(find_case("unstructured/cell_laplacian.py", "cell_laplacian"));
}
TEST_CASE("examples: nabla and cell_laplacian at sizes whose output rows stream", "[examples][streaming]") {
  // Outputs over weir_stream_min_bytes (8 MiB) with columns longer than one block of 256 levels
  // and not a multiple of 8 (unaligned rows): the compiled program stores them with streaming
  // stores (docs/adr/0041), missing neighbours included; compared with NumPy as every case.
  Case nabla = find_case("unstructured/nabla.py", "nabla_program");
  nabla.sizes = {{"K", 1031}};  // 32 x 32 = 1024 vertices: 1024 x 1031 x 8 B = 8.4 MB per output
  nabla.mesh_nx = nabla.mesh_ny = 32;
  nabla.backends = {"cpu"};
  nabla.tag = "-streamed";
  run_case(nabla);
  Case lap = find_case("unstructured/cell_laplacian.py", "cell_laplacian");
  lap.sizes = {{"K", 517}};  // 2 x 32 x 32 = 2048 cells: 2048 x 517 x 8 B = 8.5 MB
  lap.mesh_nx = lap.mesh_ny = 32;
  lap.backends = {"cpu"};
  lap.tag = "-streamed";
  run_case(lap);
}
TEST_CASE("examples: laplacian and heat3d at sizes whose output rows may stream", "[examples][streaming]") {
  // Outputs over weir_stream_min_bytes (8 MiB), compared with NumPy as every case. laplacian
  // writes whole rows of K (K = 67: not a multiple of 8, so rows start inside cache lines), which
  // stream. heat3d writes u_new[1:-1, 1:-1, 1:-1], rows with a halo in K (docs/adr/0041,
  // "session 30"): rows of 64 levels (512 bytes) are written straight to u_new, rows of 1100
  // levels (8800 bytes, over weir_stream_min_gapped_row_bytes) stream, the halo left as it was.
  Case lap = find_case("cartesian/laplacian.py", "laplacian");
  lap.sizes = {{"I", 130}, {"J", 130}, {"K", 67}};  // 130 x 130 x 67 x 8 B = 9.1 MB per field
  lap.backends = {"cpu"};
  lap.tag = "-streamed";
  run_case(lap);
  Case heat = find_case("cartesian/heat3d.py", "heat3d");
  heat.sizes = {{"I", 130}, {"J", 130}, {"K", 66}};  // 8.9 MB per field
  heat.backends = {"cpu"};
  heat.tag = "-short-rows";
  run_case(heat);
  heat.sizes = {{"I", 32}, {"J", 32}, {"K", 1102}};  // 9.0 MB per field
  heat.tag = "-long-rows";
  run_case(heat);
}
TEST_CASE("examples: cell_bounds (max_over, min_over)", "[examples]") {
  run_case(find_case("unstructured/cell_laplacian.py", "cell_bounds"));
}
TEST_CASE("examples: edge_gradients", "[examples]") {
  run_case(find_case("unstructured/edge_stencil.py", "edge_gradients"));
}
TEST_CASE("examples: edge_smooth", "[examples]") {
  run_case(find_case("unstructured/edge_stencil.py", "edge_smooth"));
}
TEST_CASE("examples: multimodule smooth", "[examples]") {
  run_case(find_case("multimodule/mymodel/program.py", "smooth"));
}
TEST_CASE("examples: multimodule potential_program", "[examples]") {
  run_case(find_case("multimodule/mymodel/program.py", "potential_program"));
}
TEST_CASE("examples: namespace package edge_program (chained shifts, tuple astype, argument expressions)",
          "[examples]") {
  run_case(find_case("namespaced/dycore/model/dycore/program.py", "edge_program"));
}
TEST_CASE("examples: namespace package pair_program (a domain per output)", "[examples]") {
  run_case(find_case("namespaced/dycore/model/dycore/program.py", "pair_program"));
}
TEST_CASE("examples: namespace package state_program (a NamedTuple of fields)", "[examples]") {
  run_case(find_case("namespaced/dycore/model/dycore/program.py", "state_program"));
}
TEST_CASE("examples: orchestration heat_step", "[examples]") {
  run_case(find_case("orchestration/heat.py", "heat_step"));
}
TEST_CASE("examples: orchestration adaptive_heat heat_step and shift_step", "[examples]") {
  run_case(find_case("orchestration/adaptive_heat.py", "heat_step"));
  run_case(find_case("orchestration/adaptive_heat.py", "shift_step"));
}
TEST_CASE("examples: orchestration theta_at_half_levels (domains as arguments up to nlev + 1)",
          "[examples]") {
  run_case(find_case("orchestration/half_level_granule.py", "theta_at_half_levels"));
}
TEST_CASE("examples: orchestration smagorinsky_coefficient (three calls over V2C, E2C2V, C2E)",
          "[examples]") {
  run_case(find_case("orchestration/diffusion_granule.py", "smagorinsky_coefficient"));
}

// The CUDA the gpu backend compiles for every example (auto-optimized for the GPU, arguments in
// host memory, as the toolchain lowers for it) goes through nvcc, all programs in one run.
TEST_CASE("examples: every example's CUDA program compiles with nvcc", "[examples][gpu][nvcc]") {
  try {
    runtime::find_nvcc();
  } catch (const runtime::RuntimeError& e) {
    WARN("skipped: " << e.what());
    return;
  }
  std::vector<std::pair<std::string, std::string>> programs;
  for (const Case& c : cases()) {
    INFO("example " << c.file << "::" << c.program);
    std::vector<std::string> path;
    for (const std::string& s : c.search_path) path.push_back((source_dir() / "examples" / s).string());
    frontend::ModuleLoader loader(frontend::LoaderOptions{path, false});
    frontend::TypeChecker tc;
    const frontend::TypedDefinition* def = nullptr;
    std::shared_ptr<SDFG> sdfg = lower_case(c, &def, loader, tc);
    REQUIRE(sdfg);
    codegen::GeneratedCode code = runtime::generate_gpu_program(program_of(c, gpu_optimized(*sdfg, true)));
    CHECK_THAT(code.source, Catch::Contains("__global__ void"));
    programs.emplace_back(c.file + "::" + c.program, code.source);
  }
  CHECK(programs.size() == cases().size());
  fs::path dir = test::scratch_dir("examples-nvcc");
  CHECK_NOTHROW(test::nvcc_compile_together(programs, dir));
  CHECK(fs::is_regular_file(dir / "all.so"));
}
