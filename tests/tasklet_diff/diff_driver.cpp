// The differential test of tasklet expressions (diff_driver.h).
#include "diff_driver.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../transforms/support/cpu_run.h"
#include "../transforms/support/interpreter.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/allocator.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir_test_paths.h"

namespace weir::tasklet_diff {

namespace {

using json = nlohmann::json;

const char* const kInputs[] = {"x", "y", "i", "j", "p", "q"};

ScalarType input_type(const std::string& n) {
  if (n == "x" || n == "y") return ScalarType::Float64;
  if (n == "i" || n == "j") return ScalarType::Int64;
  return ScalarType::Bool;
}

ScalarType output_type(ExprType t) {
  switch (t) {
    case ExprType::Float: return ScalarType::Float64;
    case ExprType::Int: return ScalarType::Int64;
    case ExprType::Bool: return ScalarType::Bool;
  }
  return ScalarType::Float64;
}

const char* output_name(ExprType t) {
  return t == ExprType::Float ? "out_f" : t == ExprType::Int ? "out_i" : "out_b";
}

/// One expression of a batch with its place in the output container of its type.
struct Item {
  std::uint64_t index = 0;
  GeneratedExpr expr;
  std::int64_t slot = 0;
};

/// The input values of a batch (the same for all its expressions).
struct Inputs {
  double x = 0, y = 0;
  std::int64_t i = 0, j = 0;
  bool p = false, q = false;
};

Inputs batch_inputs(std::uint64_t seed, std::uint64_t first) {
  std::mt19937_64 rng(seed * 1000003ULL + first);
  auto pick = [&](int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(rng)); };
  auto real = [&]() -> double {
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.75, 1e300, 1e-310, 10.0};
    if (pick(3) == 0) return special[pick(10)];
    return std::uniform_real_distribution<double>(-20.0, 20.0)(rng);
  };
  Inputs in;
  in.x = real();
  in.y = real();
  in.i = pick(19) - 9;
  in.j = pick(19) - 9;
  in.p = pick(2) == 1;
  in.q = pick(2) == 1;
  return in;
}

bool uses(const std::string& text, const std::string& name) {
  return std::regex_search(text, std::regex("\\b" + name + "\\b"));
}

/// One state: a tasklet `r = <expr>` per item, reading the inputs it names from one-element
/// arrays in_<name> and writing out_f / out_i / out_b at its slot.
std::unique_ptr<SDFG> make_sdfg(const std::vector<Item>& items) {
  auto sdfg = std::make_unique<SDFG>("tasklet_diff");
  for (const char* n : kInputs) sdfg->add_array(std::string("in_") + n, input_type(n), {sym::Expr(1)});
  std::map<ExprType, std::int64_t> sizes{{ExprType::Float, 1}, {ExprType::Int, 1}, {ExprType::Bool, 1}};
  for (const Item& it : items) sizes[it.expr.type] = std::max(sizes[it.expr.type], it.slot + 1);
  for (const auto& [t, n] : sizes) sdfg->add_array(output_name(t), output_type(t), {sym::Expr(n)});
  SDFGState& st = sdfg->add_state("main", true);
  std::map<std::string, NodeId> access;
  auto node = [&](const std::string& name) {
    auto f = access.find(name);
    if (f != access.end()) return f->second;
    NodeId id = st.add_access(name).id();
    access[name] = id;
    return id;
  };
  for (const Item& it : items) {
    std::vector<std::string> ins;
    for (const char* n : kInputs)
      if (uses(it.expr.text, n)) ins.emplace_back(n);
    Tasklet& t = st.add_tasklet("e" + std::to_string(it.index),
                                CodeBlock{"r = " + it.expr.text, Language::Python}, ins, {"r"});
    for (const std::string& n : ins)
      st.add_edge(node("in_" + n), "", t.id(), n, Memlet::simple("in_" + n, Subset::parse("0")));
    const std::string out = output_name(it.expr.type);
    st.add_edge(t.id(), "r", node(out), "", Memlet::simple(out, Subset::parse(std::to_string(it.slot))));
  }
  return sdfg;
}

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

/// What one side computed for an expression.
struct Outcome {
  bool value = false;  ///< a value (else refused or raised)
  std::string reason;  ///< the refusal or exception
  double f = 0;
  std::int64_t i = 0;
};

/// The interpreter's value of an item alone (its inputs from `in`).
Outcome interpret(const Item& item, const Inputs& in) {
  Item alone = item;
  alone.slot = 0;
  auto sdfg = make_sdfg({alone});
  Outcome o;
  try {
    test::Interpreter interp(*sdfg, {});
    interp.mem["in_x"][0] = in.x;
    interp.mem["in_y"][0] = in.y;
    interp.mem["in_i"][0] = static_cast<double>(in.i);
    interp.mem["in_j"][0] = static_cast<double>(in.j);
    interp.mem["in_p"][0] = in.p ? 1.0 : 0.0;
    interp.mem["in_q"][0] = in.q ? 1.0 : 0.0;
    interp.run();
    double v = interp.mem[output_name(item.expr.type)][0];
    o.value = true;
    o.f = v;
    o.i = static_cast<std::int64_t>(v);
  } catch (const std::exception& e) {
    o.reason = e.what();
  }
  return o;
}

/// Whether weir's code generator refuses the item (and the message if so).
std::optional<std::string> translation_refusal(const Item& item) {
  Item alone = item;
  alone.slot = 0;
  auto sdfg = make_sdfg({alone});
  try {
    (void)codegen::generate_cpu(*sdfg);
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

/// CPython's outcomes of the items, by index.
std::map<std::uint64_t, Outcome> cpython(const std::vector<Item>& items, const Inputs& in,
                                         const std::filesystem::path& dir, std::uint64_t first) {
  json batch;
  batch["inputs"] = {{"x", hex(in.x)},
                     {"y", hex(in.y)},
                     {"i", "int:" + std::to_string(in.i)},
                     {"j", "int:" + std::to_string(in.j)},
                     {"p", in.p},
                     {"q", in.q}};
  batch["exprs"] = json::array();
  for (const Item& it : items)
    batch["exprs"].push_back({{"id", it.index}, {"text", it.expr.text}, {"type", type_name(it.expr.type)}});
  const auto in_path = dir / ("batch_" + std::to_string(first) + ".json");
  const auto out_path = dir / ("batch_" + std::to_string(first) + ".out");
  std::ofstream(in_path) << batch.dump(1);
  const auto script =
      std::filesystem::path(WEIR_SOURCE_DIR) / "tests" / "tasklet_diff" / "cpython_reference.py";
  std::string cmd =
      "/usr/bin/python3 '" + script.string() + "' '" + in_path.string() + "' > '" + out_path.string() + "'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("the CPython reference failed: " + cmd);
  std::map<std::uint64_t, Outcome> out;
  std::ifstream f(out_path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    json r = json::parse(line);
    Outcome o;
    if (r.contains("raises")) {
      o.reason = r["raises"].get<std::string>();
    } else {
      o.value = true;
      const json& v = r["value"];
      if (v.is_boolean()) {
        o.i = v.get<bool>() ? 1 : 0;
        o.f = static_cast<double>(o.i);
      } else {
        const std::string s = v.get<std::string>();
        if (s.find_first_of("xn") != std::string::npos || s.find('.') != std::string::npos) {
          o.f = std::strtod(s.c_str(), nullptr);  // float.hex(), inf, nan
        } else {
          o.i = std::strtoll(s.c_str(), nullptr, 10);
          o.f = static_cast<double>(o.i);
        }
      }
    }
    out[r["id"].get<std::uint64_t>()] = o;
  }
  return out;
}

/// Runs the items' SDFG on the cpu backend; the value of each item by index.
std::map<std::uint64_t, Outcome> run_cpu(const std::vector<Item>& items, const Inputs& in,
                                         const std::string& opt) {
  auto sdfg = make_sdfg(items);
  runtime::Arguments args;
  auto one = [&](const char* name, ScalarType t, double v) {
    runtime::Field f = runtime::Allocator::cpu().allocate(t, {1});
    if (t == ScalarType::Float64) static_cast<double*>(f.data())[0] = v;
    if (t == ScalarType::Int64) static_cast<std::int64_t*>(f.data())[0] = static_cast<std::int64_t>(v);
    if (t == ScalarType::Bool) static_cast<bool*>(f.data())[0] = v != 0.0;
    args.arrays.emplace(name, std::move(f));
  };
  one("in_x", ScalarType::Float64, in.x);
  one("in_y", ScalarType::Float64, in.y);
  one("in_i", ScalarType::Int64, static_cast<double>(in.i));
  one("in_j", ScalarType::Int64, static_cast<double>(in.j));
  one("in_p", ScalarType::Bool, in.p ? 1 : 0);
  one("in_q", ScalarType::Bool, in.q ? 1 : 0);
  for (ExprType t : {ExprType::Float, ExprType::Int, ExprType::Bool}) {
    const auto& d = sdfg->data(output_name(t));
    args.arrays.emplace(output_name(t),
                        runtime::Allocator::cpu().allocate(d.dtype.base, {d.shape[0].evaluate({})}));
  }
  (void)test::run_arguments_on_cpu(*sdfg, args, test::cpu_config(opt));
  std::map<std::uint64_t, Outcome> out;
  for (const Item& it : items) {
    const runtime::Field& f = args.arrays.at(output_name(it.expr.type));
    Outcome o;
    o.value = true;
    switch (it.expr.type) {
      case ExprType::Float: o.f = static_cast<const double*>(f.data())[it.slot]; break;
      case ExprType::Int: o.i = static_cast<const std::int64_t*>(f.data())[it.slot]; break;
      case ExprType::Bool: o.i = static_cast<const bool*>(f.data())[it.slot] ? 1 : 0; break;
    }
    out[it.index] = o;
  }
  return out;
}

/// Distance in units in the last place between two finite doubles of the same sign.
std::uint64_t ulps(double a, double b) {
  std::int64_t ia = 0, ib = 0;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  if (ia < 0) ia = std::numeric_limits<std::int64_t>::min() - ia;
  if (ib < 0) ib = std::numeric_limits<std::int64_t>::min() - ib;
  return ia > ib ? static_cast<std::uint64_t>(ia) - static_cast<std::uint64_t>(ib)
                 : static_cast<std::uint64_t>(ib) - static_cast<std::uint64_t>(ia);
}

/// "" when `got` is CPython's `want` for type `t` (exact, NaN for NaN, or floats within
/// kUlpTolerance with the same sign), else what differs. `close` is set for an inexact match.
std::string differs(ExprType t, const Outcome& want, const Outcome& got, bool* close) {
  if (t != ExprType::Float) {
    if (want.i == got.i) return "";
    return "CPython " + std::to_string(want.i) + ", got " + std::to_string(got.i);
  }
  const double a = want.f, b = got.f;
  if (std::isnan(a) && std::isnan(b)) return "";
  if (std::memcmp(&a, &b, sizeof a) == 0) return "";
  // 0.0 against -0.0: weir gives a mixed if-else, min, max, and, or its operands' common type
  // before the next operation (NumPy's static promotion), where CPython keeps an int or bool
  // operand an int: `-max(False, -3.5)` is the int 0 in CPython, -0.0 in weir (wide run of
  // seed 9: five expressions, all of this form). Equal values; counted as close, not identical.
  if (a == 0.0 && b == 0.0) {
    if (close) *close = true;
    return "";
  }
  if (std::isfinite(a) && std::isfinite(b) && std::signbit(a) == std::signbit(b) && a != 0.0 && b != 0.0 &&
      ulps(a, b) <= kUlpTolerance) {
    if (close) *close = true;
    return "";
  }
  return "CPython " + hex(a) + " (" + std::to_string(a) + "), got " + hex(b) + " (" + std::to_string(b) + ")";
}

/// Runs `items` on the cpu backend, halving the batch until each failure names one item.
void cpu_values(const std::vector<Item>& items, const Inputs& in, const std::string& opt,
                std::map<std::uint64_t, Outcome>& out, std::vector<std::pair<Item, std::string>>& failures) {
  if (items.empty()) return;
  try {
    auto v = run_cpu(items, in, opt);
    out.insert(v.begin(), v.end());
  } catch (const std::exception& e) {
    if (items.size() == 1) {
      failures.emplace_back(items[0], e.what());
      return;
    }
    const auto mid = items.begin() + static_cast<std::ptrdiff_t>(items.size() / 2);
    cpu_values({items.begin(), mid}, in, opt, out, failures);
    cpu_values({mid, items.end()}, in, opt, out, failures);
  }
}

}  // namespace

std::string Finding::str() const {
  return "tasklet_diff finding: seed " + std::to_string(seed) + ", expression " + std::to_string(index) +
         " (" + type + "), " + stage + ": `" + text + "`: " + detail +
         "\n  reproduce: WEIR_TASKLETDIFF_SEED=" + std::to_string(seed) +
         " WEIR_TASKLETDIFF_FIRST=" + std::to_string(index) +
         " WEIR_TASKLETDIFF_COUNT=1 build-test/tests/weir_tasklet_diff_tests 'tasklet_diff: seeded*'";
}

RunSummary run_tasklet_diff(const DriverOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  RunSummary s;
  const bool verbose = std::getenv("WEIR_TASKLETDIFF_VERBOSE") != nullptr;
  std::filesystem::create_directories(o.dir);
  for (std::uint64_t first = o.first; first < o.first + o.count; first += o.batch) {
    const std::uint64_t n = std::min(o.batch, o.first + o.count - first);
    const Inputs in = batch_inputs(o.seed, first);
    std::vector<Item> all, compiled;
    std::map<ExprType, std::int64_t> next;
    std::map<std::uint64_t, std::string> refusals;
    for (std::uint64_t k = first; k < first + n; ++k) {
      Item it{k, generate_expression(o.seed, k), 0};
      all.push_back(it);
      if (auto why = translation_refusal(it)) {
        refusals[k] = *why;
        continue;
      }
      it.slot = next[it.expr.type]++;
      compiled.push_back(it);
    }
    auto want = cpython(all, in, o.dir, first);
    std::map<std::uint64_t, Outcome> got;
    std::vector<std::pair<Item, std::string>> failures;
    cpu_values(compiled, in, o.opt, got, failures);
    ++s.batches;
    auto finding = [&](const Item& it, const std::string& stage, const std::string& detail) {
      std::ostringstream inputs;
      inputs << " (inputs x=" << hex(in.x) << " y=" << hex(in.y) << " i=" << in.i << " j=" << in.j
             << " p=" << in.p << " q=" << in.q << ")";
      s.findings.push_back(
          {o.seed, it.index, it.expr.text, type_name(it.expr.type), stage, detail + inputs.str()});
    };
    for (const auto& [it, why] : failures) finding(it, "cpu", "the compiled program failed: " + why);
    for (const Item& it : all) {
      ++s.expressions;
      auto w = want.find(it.index);
      if (w == want.end()) {
        finding(it, "cpython", "no result from the reference script");
        continue;
      }
      const Outcome& py = w->second;
      // The reference interpreter: CPython's value, or a refusal.
      const Outcome ip = interpret(it, in);
      if (verbose) {
        auto r = refusals.find(it.index);
        std::cout << it.index << " " << type_name(it.expr.type) << " `" << it.expr.text << "`: CPython "
                  << (py.value ? "value" : "raises " + py.reason) << "; interpreter "
                  << (ip.value ? "value" : "refuses: " + ip.reason) << "; weir "
                  << (r == refusals.end() ? "compiles" : "refuses: " + r->second) << "\n";
      }
      if (py.value && ip.value) {
        if (std::string d = differs(it.expr.type, py, ip, nullptr); !d.empty()) finding(it, "interpreter", d);
      } else if (py.value) {
        ++s.interpreter_refused;
      } else if (ip.value) {
        finding(it, "interpreter", "computed a value where CPython raises " + py.reason);
      }
      if (!py.value) ++s.python_raises;
      if (auto r = refusals.find(it.index); r != refusals.end()) {
        ++s.refused_by_weir;
        if (py.value) ++s.refused_python_value;
        // A refusal must say where: the tasklet's code line.
        if (r->second.find("line 1") == std::string::npos && r->second.find("tasklet") == std::string::npos)
          finding(it, "cpu", "refused without a location: " + r->second);
        continue;
      }
      auto g = got.find(it.index);
      if (g == got.end() || !py.value) continue;  // failed (a finding above), or NumPy's meaning
      ++s.compared;
      bool close = false;
      if (std::string d = differs(it.expr.type, py, g->second, &close); !d.empty()) {
        finding(it, "cpu", d);
      } else if (it.expr.type == ExprType::Float) {
        ++(close ? s.float_close : s.float_exact);
      }
    }
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace weir::tasklet_diff
