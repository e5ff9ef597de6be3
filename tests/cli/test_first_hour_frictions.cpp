// What a new user hit in the first hour after following README (issue 16), each fixed for its
// whole kind, with exact messages: outputs a program only writes are allocated by weir;
// --random-inputs can save what it made; optimize names what it applied; one exit-code rule
// (2: the command line is wrong, 1: the work failed) in every command, CLI11's own errors in
// weir's form; the program cache does not depend on how a path is spelt; a missing -I folder
// is an error; misspelt names get the closest known one; `weir run` says how many threads ran.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path ex_path(const std::string& rel) { return fs::path(WEIR_SOURCE_DIR) / "examples" / rel; }
std::string ex(const std::string& rel) { return q(ex_path(rel)); }
std::string cache_env(const fs::path& dir) { return "WEIR_CACHE_DIR=" + q(dir / "cache"); }

// NumPy's Laplacian of f on the interior, as examples/cartesian/laplacian.py computes it.
const char* kNumpyLaplacian =
    "def lap(f):\n"
    "    return -4.0 * f[1:-1, 1:-1] + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + f[1:-1, :-2]\n";

}  // namespace

TEST_CASE("first hour: outputs a program only writes are allocated by weir", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-frictions-outputs");
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.random.default_rng(3).random((7, 6, 2)))\n", "make.py") == 0);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + ex("cartesian/laplacian.py::laplacian") + " --in f=" + q(dir / "f.npy") +
                          " --backend " + backend + " --out " + q(dir / backend),
                      cache_env(dir));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: out float64 (7, 6, 2)\n"));
    if (std::string(backend) == "cpu")  // what was done before compiling
      CHECK_THAT(r.out,
                 Catch::Contains("\nlowered to an SDFG and optimized by auto-optimize-cpu ('weir sdfg' and "
                                 "'weir optimize' write and tune it yourself)\ncompiled in "));
    // The interior is the Laplacian, the border the zeros weir allocated.
    CHECK(run_numpy(dir, std::string(kNumpyLaplacian) + "f = np.load('f.npy'); o = np.load('" + backend +
                             "/out.npy')\n"
                             "want = np.zeros_like(f); want[1:-1, 1:-1] = lap(f)\n"
                             "sys.exit(0 if o.shape == f.shape and np.array_equal(o, want) else 1)\n") == 0);
  }
  // A @field_operator run directly: its result `__out` is allocated like its input.
  std::ofstream(dir / "scale.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
         "I = gtx.Dimension('I')\nJ = gtx.Dimension('J')\nK = gtx.Dimension('K')\n"
         "@gtx.field_operator\n"
         "def twice(f: Field[[I, J, K], float64]) -> Field[[I, J, K], float64]:\n"
         "    return 2.0 * f\n";
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + q(dir / "scale.py") + "::twice --in f=" + q(dir / "f.npy") + " --backend " +
                          backend + " --out " + q(dir / (std::string("twice_") + backend)),
                      cache_env(dir));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: __out float64 (7, 6, 2)\n"));
    CHECK(run_numpy(dir, "f = np.load('f.npy'); o = np.load('twice_" + std::string(backend) +
                             "/__out.npy')\nsys.exit(0 if np.array_equal(o, 2.0 * f) else 1)\n") == 0);
  }
  // An output given with --in keeps its values where the program does not write.
  REQUIRE(run_numpy(dir, "np.save('ones.npy', np.ones((7, 6, 2)))\n", "ones.py") == 0);
  auto r = run_weir("run " + ex("cartesian/laplacian.py::laplacian") + " --in f=" + q(dir / "f.npy") +
                    " --in out=" + q(dir / "ones.npy") + " --out " + q(dir / "given"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, !Catch::Contains("allocated"));
  CHECK(run_numpy(dir, "o = np.load('given/out.npy')\nsys.exit(0 if (o[0] == 1).all() else 1)\n") == 0);
}

TEST_CASE("first hour: --save-inputs writes what --random-inputs made, for NumPy", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-frictions-save-inputs");
  auto r =
      run_weir("run " + ex("cartesian/laplacian.py::laplacian") +
                   " --random-inputs --set I=6 --set J=5 --set K=2 --seed 4 --backend cpu --save-inputs " +
                   q(dir / "inputs") + " --out " + q(dir / "results"),
               cache_env(dir));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out,
             Catch::Contains("\nrandom inputs (seed 4): f float64 (6, 5, 2)\nsaved 1 random input to " +
                             (dir / "inputs").string() +
                             " (NAME.npy each)\n"
                             "outputs allocated as zeros: out float64 (6, 5, 2)\n"));
  // Only the inputs are saved (the output is the program's); NumPy on them gives the results.
  CHECK(fs::exists(dir / "inputs" / "f.npy"));
  CHECK_FALSE(fs::exists(dir / "inputs" / "out.npy"));
  CHECK(run_numpy(dir, std::string(kNumpyLaplacian) +
                           "f = np.load('inputs/f.npy'); o = np.load('results/out.npy')\n"
                           "ok = f.shape == (6, 5, 2) and f.dtype == np.float64 and (0 <= f).all() and "
                           "(f < 1).all() and len(np.unique(f)) == f.size\n"
                           "ok = ok and np.array_equal(o[1:-1, 1:-1], lap(f)) and (o[0] == 0).all()\n"
                           "sys.exit(0 if ok else 1)\n") == 0);
  // The same seed makes the same inputs on the embedded backend.
  r = run_weir("run " + ex("cartesian/laplacian.py::laplacian") +
               " --random-inputs --set I=6 --set J=5 --set K=2 --seed 4 --save-inputs " + q(dir / "again"));
  REQUIRE(r.code == 0);
  CHECK(run_numpy(dir,
                  "sys.exit(0 if np.array_equal(np.load('inputs/f.npy'), np.load('again/f.npy')) else "
                  "1)\n") == 0);
  // Without --random-inputs there is nothing to save.
  r = run_weir("run " + ex("cartesian/laplacian.py::laplacian") + " --in f=" + q(dir / "inputs" / "f.npy") +
               " --save-inputs " + q(dir / "x"));
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --save-inputs " + (dir / "x").string() +
                     " saves the inputs --random-inputs makes: give --random-inputs too\n");
  // --help says what it does.
  CHECK_THAT(run_weir("run --help").out,
             Catch::Contains("--save-inputs DIR") && Catch::Contains("write NAME.npy for every input"));
}

TEST_CASE("first hour: command-line mistakes are exit code 2 in every command, in weir's form",
          "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-frictions-usage");
  const std::string lap = ex("cartesian/laplacian.py::laplacian");
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.ones((5, 5, 1)))\n", "make.py") == 0);
  REQUIRE(run_weir("sdfg " + lap + " -o " + q(dir / "lap.sdfg")).code == 0);
  const std::string sdfg = q(dir / "lap.sdfg"), f = (dir / "f.npy").string();
  struct Case {
    std::string args, out;
  };
  const std::string no_dir = (dir / "nodir").string();
  const std::string no_include = "weir: error: -I " + no_dir +
                                 ": no such directory (-I names a folder searched for the modules a program "
                                 "imports)\n";
  const std::vector<Case> cases = {
      // CLI11's own errors, in weir's form with the command whose --help to read.
      {"optimize " + sdfg + " --auto cpu",
       "weir: error: --output is required\n  hint: 'weir optimize --help' lists the options\n"},
      {"",
       "weir: error: 'weir' needs a command (validate, info, convert, run, compile, cache, transforms, "
       "check, sdfg, mesh, optimize, view, compose)\n  hint: 'weir --help' lists the options\n"},
      {"cache",
       "weir: error: 'weir cache' needs a command (info, clear)\n"
       "  hint: 'weir cache --help' lists the options\n"},
      {"run " + lap + " --random-inputs --set I=5 --set J=5 --set K=1 --seed -1",
       "weir: error: --seed -1: expected a non-negative integer\n"},
      {"convert " + sdfg + " -o x.sdfg --bogus",
       "weir: error: unknown option '--bogus' for 'weir convert'\n"
       "  hint: 'weir convert --help' lists the options\n"},
      // Names the program, weir or the registry does not have: the closest one.
      {"run " + lap + " --in f=" + q(f) + " --in outt=" + q(f),
       "weir: error: --in outt=" + f +
           ": program 'laplacian' has no array argument 'outt'; did you mean 'out'? (arrays: f, out)\n"},
      {"run " + lap + " --in f=" + q(f) + " --in coeff=" + q(f),
       "weir: error: --in coeff=" + f +
           ": program 'laplacian' has no array argument 'coeff' (arrays: f, out)\n"},
      {"run " + lap + " --random-inputs --set II=4 --set J=4 --set K=1",
       "weir: error: --set II=4: program 'laplacian' has no parameter, symbol or dimension 'II'; did you "
       "mean "
       "'I'? (parameters: f, out; dimensions: I, J, K)\n"},
      {"run " + lap + " --in f=" + q(f) + " --backend cpp",
       "weir: error: --backend: unknown backend 'cpp'; did you mean 'cpu'? (known: cpu, embedded, gpu)\n"},
      {"optimize " + sdfg + " -o " + q(dir / "o.sdfg") + " --auto cpuu",
       "weir: error: unknown device 'cpuu' for --auto: no pipeline 'auto-optimize-cpuu' is registered; did "
       "you "
       "mean 'cpu'? (devices: cpu, gpu)\n"},
      {"transforms match " + sdfg + " MapFuson",
       "weir: error: unknown transformation 'MapFuson'; did you mean 'MapFusion'? (see `weir transforms "
       "list`)\n"},
      {"optimise " + sdfg,
       "weir: error: unknown command 'optimise'; did you mean 'optimize'? (commands: validate, info, "
       "convert, "
       "run, compile, cache, transforms, check, sdfg, mesh, optimize, view, compose)\n"},
      {"run " + lap + " --in-dir " + q(no_dir), "weir: error: --in-dir " + no_dir + ": no such directory\n"},
      // A folder -I names must exist, in every command that takes -I.
      {"check " + ex("cartesian/laplacian.py") + " -I " + q(no_dir), no_include},
      {"sdfg " + lap + " -o " + q(dir / "x.sdfg") + " -I " + q(no_dir), no_include},
      {"run " + lap + " --in f=" + q(f) + " -I " + q(no_dir), no_include},
      {"compile " + lap + " -I " + q(no_dir), no_include},
      {"view " + lap + " --html " + q(dir / "x.html") + " -I " + q(no_dir), no_include},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    auto r = run_weir(c.args, cache_env(dir));
    CHECK(r.code == 2);
    CHECK(r.out == c.out);
  }
  // Pass names in --passes and --print-after: the closest registered pass.
  for (const char* opt : {"--passes simplfy", "--auto cpu --print-after simplfy"}) {
    INFO(opt);
    auto r = run_weir("optimize " + sdfg + " -o " + q(dir / "o.sdfg") + " " + opt);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::StartsWith("weir: error: ") && Catch::Contains("unknown pass 'simplfy'") &&
                          Catch::Contains("; did you mean 'simplify'? ("));
  }
  CHECK_FALSE(fs::exists(dir / "o.sdfg"));
  CHECK_FALSE(fs::exists(dir / "x.sdfg"));
  // The rule is written down in `weir --help`.
  auto r = run_weir("--help");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("Exit codes (every command):\n  0  success\n  1  the work failed: "));
}

TEST_CASE("first hour: an integer literal with a float field says to write a float literal",
          "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-frictions-int-literal");
  std::ofstream(dir / "twice.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
                                     "I = gtx.Dimension('I')\n@gtx.field_operator\n"
                                     "def twice(f: Field[[I], float64]) -> Field[[I], float64]:\n"
                                     "    return 2 * f\n";
  auto r = run_weir("check " + q(dir / "twice.py"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::StartsWith(
                 (dir / "twice.py").string() +
                 ":6:14: error: cannot multiply int32 and Field[[I], float64]; write the literal 2 as 2.0 "
                 "(integers are not converted to floating point)\n"));
}

TEST_CASE("first hour: the program cache does not depend on how the .py path is spelt", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-frictions-cache-paths");
  const std::string env = cache_env(dir);
  const std::string args = " --random-inputs --set I=5 --set J=4 --set K=1 --backend cpu";
  // Relative to the examples folder, then absolute, then with `..` and `.` in it.
  auto r = run_weir("run cartesian/laplacian.py::laplacian" + args, "cd " + q(ex_path("")) + " && " + env);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\ncompiled in "));
  for (const std::string& spelt : {ex_path("cartesian/laplacian.py").string(),
                                   ex_path("cartesian/../cartesian/./laplacian.py").string()}) {
    INFO(spelt);
    r = run_weir("run " + q(spelt) + "::laplacian" + args, env);
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\nloaded from cache in "));
  }
  // A run-time error names the file as typed, in the user's terms.
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.ones((5, 4, 1))); np.save('o.npy', np.zeros((5, 4, 2)))\n",
                    "make.py") == 0);
  r = run_weir("run cartesian/laplacian.py::laplacian --backend cpu --in f=" + q(dir / "f.npy") +
                   " --in out=" + q(dir / "o.npy"),
               "cd " + q(ex_path("")) + " && " + env);
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::Contains("\nloaded from cache in ") &&
                 Catch::Contains("weir: error: program 'laplacian' stopped with an error: "
                                 "cartesian/laplacian.py:25:5: 'f' is read over K: [0, 2), outside its "
                                 "domain K: [0, 1)\n"));
}

TEST_CASE("first hour: --threads sets the OpenMP threads of the compiled program, and run says how many",
          "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-frictions-threads");
  std::ofstream(dir / "copy.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
                                    "I = gtx.Dimension('I')\nJ = gtx.Dimension('J')\n@gtx.field_operator\n"
                                    "def copy(f: Field[[I, J], float64]) -> Field[[I, J], float64]:\n"
                                    "    return f\n";
  REQUIRE(run_weir("sdfg " + q(dir / "copy.py") + "::copy -o " + q(dir / "copy.sdfg")).code == 0);
  REQUIRE(run_weir("optimize " + q(dir / "copy.sdfg") + " --auto cpu -o " + q(dir / "fast.sdfg")).code == 0);
  // The tasklet of the parallel map writes the size of the OpenMP team that runs it.
  auto j = nlohmann::json::parse(weir::test::read_text(dir / "fast.sdfg"));
  for (const char* history : {"orig_sdfg", "transformation_hist", "_meta_weir_transformation_hist"})
    j["attributes"].erase(history);  // (orig_sdfg has a tasklet too)
  weir::test::first_of_type(j, "Tasklet", [](nlohmann::json& t) {
    std::string out = t["attributes"]["out_connectors"].begin().key();
    t["attributes"]["code"] = {{"string_data", out + " = omp_get_num_threads();"}, {"language", "CPP"}};
  });
  j["attributes"]["global_code"] = {{"frame", {{"string_data", "#include <omp.h>"}, {"language", "CPP"}}}};
  std::ofstream(dir / "team.sdfg") << j.dump();
  // 256 x 256 points: maps under 32768 points run without OpenMP (a team of one), split or not.
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.zeros((256, 256))); np.save('o.npy', np.zeros((256, 256)))\n",
                    "make.py") == 0);
  for (int threads : {1, 2}) {
    INFO(threads);
    const std::string n = std::to_string(threads);
    auto r =
        run_weir("run " + q(dir / "team.sdfg") + " --backend cpu --trust-code --in f=" + q(dir / "f.npy") +
                     " --in __out=" + q(dir / "o.npy") + " --threads " + n + " --out " + q(dir / ("t" + n)),
                 cache_env(dir));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\nrunning on " + n + " OpenMP thread" + (threads == 1 ? "" : "s") +
                                      " (--threads " + n + ")\n"));
    CHECK(run_numpy(dir, "sys.exit(0 if (np.load('t" + n + "/__out.npy') == " + n + ").all() else 1)\n") ==
          0);
  }
  // Without --threads: one per hardware thread unless OMP_NUM_THREADS says otherwise.
  auto r = run_weir("run " + q(dir / "team.sdfg") + " --backend cpu --trust-code --in f=" + q(dir / "f.npy") +
                        " --in __out=" + q(dir / "o.npy"),
                    "OMP_NUM_THREADS=3 " + cache_env(dir));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\nrunning on 3 OpenMP threads (OMP_NUM_THREADS)\n"));
}

TEST_CASE("first hour: weir optimize names the transformations and passes it applied", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-frictions-optimize");
  const std::string hdiff = q(weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg");
  const std::string out = (dir / "fused.sdfg").string();
  auto r = run_weir("optimize " + hdiff + " --passes map-fusion,cpu-schedules -o " + q(out));
  INFO(r.out);
  REQUIRE(r.code == 0);
  // The history written into the SDFG says what was applied: count it independently.
  auto j = nlohmann::json::parse(weir::test::read_text(out));
  const auto& hist = j["attributes"]["_meta_weir_transformation_hist"];
  std::size_t fusions = 0, schedules = 0;
  for (const auto& e : hist) {
    fusions += e.value("transformation", "") == "MapFusion";
    schedules += e.value("type", "") == "Pass" && e.value("pass", "") == "cpu-schedules";
  }
  REQUIRE(fusions + schedules == hist.size());
  CHECK(schedules == 1);
  CHECK(r.out == "applied " + std::to_string(fusions) + " transformations (MapFusion x" +
                     std::to_string(fusions) + ") and 1 pass (cpu-schedules); wrote " + out + "\n");
  // Transformations in the order first applied, each named once.
  r = run_weir("optimize " + q(out) + " --passes 'map-collapse,map-tiling{tile_sizes=2}' -o " +
               q(dir / "tiled.sdfg"));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("applied ") && Catch::Contains(" transformations (MapCollapse x") &&
                        Catch::Contains(", MapTiling"));
}

TEST_CASE("first hour: frictions of the fresh-user trial", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-frictions-trial");
  const std::string env = cache_env(dir);
  const std::string lap = ex("cartesian/laplacian.py::laplacian");
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.ones((5, 5, 1)))\n", "make.py") == 0);
  // A --set-json name the program lacks is a warning, and the run goes on without it.
  std::ofstream(dir / "sym.json") << "{\"nz\": 3}";
  auto r = run_weir("run " + lap + " --in f=" + q(dir / "f.npy") + " --set-json " + q(dir / "sym.json"), env);
  CHECK(r.code == 0);
  CHECK_THAT(r.out,
             Catch::StartsWith("weir: warning: --set-json: program 'laplacian' has no parameter, symbol or "
                               "dimension 'nz' (parameters: f, out; dimensions: I, J, K); ignored\n"));
  // SDFG files run on the cpu backend without --backend (the only kind that runs them).
  REQUIRE(run_weir("sdfg " + lap + " -o " + q(dir / "lap.sdfg")).code == 0);
  r = run_weir("run " + q(dir / "lap.sdfg") + " --random-inputs --set I=5 --set J=5 --set K=1", env);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains(" on backend 'cpu'\n"));
  // --auto takes the device in any case; its help lists the devices.
  r = run_weir("optimize " + q(dir / "lap.sdfg") + " --auto CPU -o " + q(dir / "fast.sdfg"));
  CHECK(r.code == 0);
  CHECK(r.out == "applied 1 pass (cpu-schedules); wrote " + (dir / "fast.sdfg").string() + "\n");
  CHECK_THAT(run_weir("optimize --help").out,
             Catch::Contains("auto-optimize pipeline for a device: cpu or gpu"));
  // The viewer shows orchestration functions (they have no single definition).
  r = run_weir("view " + ex("orchestration/heat.py::heat") + " --html " + q(dir / "heat.html"));
  CHECK(r.code == 0);
  CHECK(fs::file_size(dir / "heat.html") > 0);
  // An output path that is a symbolic link (as /dev/stdout is) is written through, never
  // replaced by a file.
  std::ofstream(dir / "real.sdfg") << "";
  fs::create_symlink(dir / "real.sdfg", dir / "link.sdfg");
  r = run_weir("sdfg " + lap + " -o " + q(dir / "link.sdfg"));
  CHECK(r.code == 0);
  CHECK(fs::is_symlink(dir / "link.sdfg"));
  CHECK(weir::test::read_text(dir / "real.sdfg").rfind("{", 0) == 0);
  r = run_weir("view " + lap + " --html " + q(dir / "link.sdfg"));
  CHECK(r.code == 0);
  CHECK(fs::is_symlink(dir / "link.sdfg"));
  CHECK(weir::test::read_text(dir / "real.sdfg").rfind("<!doctype html>", 0) == 0);
  // A file in --in-dir named almost like a missing argument: a warning names the argument.
  fs::create_directories(dir / "in");
  fs::copy_file(dir / "f.npy", dir / "in" / "F.npy");
  r = run_weir("run " + lap + " --in-dir " + q(dir / "in"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::StartsWith("weir: warning: --in-dir " + (dir / "in").string() +
                                      ": F.npy matches no array argument (ignored); did you mean f.npy?\n"));
  // A symbol --random-inputs needs is named in the option that gives it.
  r = run_weir("run " + q(weir::test::dace_corpus_dir() / "jacobi_2d" / "jacobi_2d.simplified.sdfg") +
                   " --random-inputs",
               env);
  CHECK(r.code == 1);
  CHECK(
      r.out ==
      "weir: error: --random-inputs: the shape of 'A' (float64 array of shape (N, N)) needs N; give it with "
      "--set N=VALUE\n");
  // A scalar given as an array file is named with the option that gives it.
  r = run_weir("run " + ex("cartesian/heat3d.py::heat3d") + " --in u=" + q(dir / "f.npy") +
                   " --in alpha=" + q(dir / "f.npy"),
               env);
  CHECK(r.code == 2);
  CHECK(r.out ==
        "weir: error: --in alpha=" + (dir / "f.npy").string() +
            ": 'alpha' is a scalar of program 'heat3d', not an array: give it with --set alpha=VALUE\n");
  // A field-view file that is not there says why.
  r = run_weir("run " + q(dir / "none.py") + "::p");
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "none.py").string() + ": cannot open: No such file or directory\n");
}
