// libFuzzer target: data descriptor layouts (ADR 0037). The input picks one of four tiny valid
// SDFGs (a transient between two maps, a view of an argument, a view defined in each iteration
// of a map, a nested SDFG's argument) and
// overwrites the fields code generation trusts: shape, strides, offset, total_size (a constant
// or a symbol given at run time), start_offset, the viewed subset, the nested SDFG's symbol
// mapping and memlet. When weir's validation accepts the result, it is compiled by the cpu
// backend and run: an error (weir::Error: a refused compile, a run-time check) is an answer; a
// crash or a sanitizer report is a finding. Under ASan the generated code is compiled with
// clang++ -fsanitize=address as well, so that its out-of-bounds accesses are reported.
//
// Compiling is the cost (about a second per program at -O0), so the fields take few values
// (sizes 0..4, strides and offsets -1..9, now and then 2**40) and compiled programs are kept in
// a program cache for the process: equal SDFGs compile once. WEIR_FUZZ_LAYOUT_COMPILES caps
// the compiles of one process (beyond it inputs are only validated and generated).
#include <memory>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "generated_code.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/layout.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using sym::Expr;

namespace {

/// Reads the input a byte at a time; 0 once it is used up.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }
  /// A value in [lo, hi], or 2**40 for the byte 255 (a huge stride or offset).
  long long small(long long lo, long long hi) {
    std::uint8_t b = next();
    if (b == 255) return 1LL << 40;
    return lo + b % (hi - lo + 1);
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, pos_ = 0;
};

/// Overwrites the layout fields of `d` (rank kept) from the input.
void mutate_layout(Bytes& in, DataDescriptor& d, SDFG& sdfg, bool shape_too) {
  const std::uint8_t which = in.next();
  for (auto& e : d.shape)
    if (shape_too && (which & 1)) e = Expr(in.small(0, 4));
  for (auto& e : d.strides)
    if (which & 2) e = Expr(in.small(-1, 9));
  for (auto& e : d.offset)
    if (which & 4) e = Expr(in.small(-1, 1));
  if (which & 8) d.start_offset = Expr(in.small(-1, 9));
  if (which & 16) d.total_size = Expr(in.small(-2, 40));
  if ((which & 32) && d.transient && !d.is_view()) {
    // A size only known at run time: the generated code checks it.
    sdfg.add_symbol("S");
    d.total_size = Expr::symbol("S");
  }
}

/// A[2, 3] -> map (y = 2*x) -> T (transient) -> map (y = x + 1) -> B[2, 3].
std::unique_ptr<SDFG> transient_program(Bytes& in) {
  auto s = std::make_unique<SDFG>("layout_transient");
  s->add_array("A", ScalarType::Float64, {2, 3});
  s->add_array("B", ScalarType::Float64, {2, 3});
  DataDescriptor& t = s->add_array("T", ScalarType::Float64, {2, 3}, true);
  s->arg_names = {"A", "B"};
  auto& st = s->add_state("main", true);
  const Subset all = Subset::parse("0:2, 0:3"), point = Subset::parse("i, j");
  NodeId a = st.add_access("A").id(), tn = st.add_access("T").id(), b = st.add_access("B").id();
  struct Step {
    NodeId from, to;
    const char *from_name, *to_name, *code;
  };
  for (const Step& step : {Step{a, tn, "A", "T", "y = 2 * x"}, Step{tn, b, "T", "B", "y = x + 1"}}) {
    auto& m = st.add_map(std::string("m") + step.to_name, {"i", "j"}, all);
    NodeId k =
        st.add_tasklet(std::string("t") + step.to_name, CodeBlock{step.code, Language::Python}, {"x"}, {"y"})
            .id();
    auto inp = st.add_memlet_path({step.from, m.id(), k}, Memlet::simple(step.from_name, point), "", "x");
    auto out = st.add_memlet_path({k, m.exit, step.to}, Memlet::simple(step.to_name, point), "y", "");
    st.edge(inp.front()).memlet = Memlet::simple(step.from_name, all);
    st.edge(out.back()).memlet = Memlet::simple(step.to_name, all);
  }
  mutate_layout(in, t, *s, true);
  return s;
}

/// A[4, 5] -> V (a view of A[r0:r1, c]) -> map over [0:3] (y = x) -> B[3].
std::unique_ptr<SDFG> view_program(Bytes& in) {
  auto s = std::make_unique<SDFG>("layout_view");
  s->add_array("A", ScalarType::Float64, {4, 5});
  s->add_array("B", ScalarType::Float64, {3});
  DataDescriptor& v = s->add_array("V", ScalarType::Float64, {3}, true);
  v.kind = DataKind::View;
  v.type_name = "View";
  v.strides = {5};
  v.total_size = 11;
  s->arg_names = {"A", "B"};
  const long long r0 = in.small(0, 3), c = in.small(0, 4);
  const long long r1 = r0 + in.small(0, 3);
  const std::string subset = std::to_string(r0) + ":" + std::to_string(r1 + 1) + ", " + std::to_string(c);
  auto& st = s->add_state("main", true);
  NodeId a = st.add_access("A").id(), vn = st.add_access("V").id(), b = st.add_access("B").id();
  st.add_edge(a, "", vn, "views", Memlet::simple("A", Subset::parse(subset)));
  auto& m = st.add_map("copy", {"i"}, Subset::parse("0:3"));
  NodeId k = st.add_tasklet("t", CodeBlock{"y = x", Language::Python}, {"x"}, {"y"}).id();
  auto inp = st.add_memlet_path({vn, m.id(), k}, Memlet::simple("V", Subset::parse("i")), "", "x");
  auto out = st.add_memlet_path({k, m.exit, b}, Memlet::simple("B", Subset::parse("i")), "y", "");
  st.edge(inp.front()).memlet = Memlet::simple("V", Subset::parse("0:3"));
  st.edge(out.back()).memlet = Memlet::simple("B", Subset::parse("0:3"));
  mutate_layout(in, v, *s, true);
  return s;
}

/// A[8] -> map over i in [0:m] (sequential) defining V[q], a view of A[a*i + b : c], whose
/// reach depends on i -> map over j in [0:q] (y = x) -> B[4]. The iterations whose view would
/// leave A must fault before their body runs (emit_scope's per-iteration reach checks).
std::unique_ptr<SDFG> mapped_view_program(Bytes& in) {
  auto s = std::make_unique<SDFG>("layout_mapped_view");
  s->add_array("A", ScalarType::Float64, {8});
  s->add_array("B", ScalarType::Float64, {4});
  // The view's shape and the iteration count stay tiny (never 2**40: a loop that long is no
  // finding); the subset's bounds take every value small() gives.
  const long long q = 1 + in.next() % 4, iterations = 1 + in.next() % 3;
  const long long a = in.small(0, 3), b = in.small(0, 4), c = in.small(1, 8);
  DataDescriptor& v = s->add_array("V", ScalarType::Float64, {q}, true);
  v.kind = DataKind::View;
  v.type_name = "View";
  s->arg_names = {"A", "B"};
  const std::string subset = std::to_string(a) + "*i + " + std::to_string(b) + ":" + std::to_string(c);
  auto& st = s->add_state("main", true);
  NodeId an = st.add_access("A").id(), bn = st.add_access("B").id();
  auto& outer =
      st.add_map("rows", {"i"}, Subset::parse("0:" + std::to_string(iterations)), ScheduleType::Sequential);
  auto& vn = st.add_access("V");
  vn.in_connectors["views"] = std::nullopt;
  st.add_memlet_path({an, outer.id(), vn.id()}, Memlet::simple("A", Subset::parse(subset)), "", "views");
  st.edge(st.in_edges(outer.id()).front()).memlet = Memlet::simple("A", Subset::parse("0:8"));
  const std::string q_range = "0:" + std::to_string(q);
  auto& inner = st.add_map("points", {"j"}, Subset::parse(q_range), ScheduleType::Sequential);
  NodeId k = st.add_tasklet("t", CodeBlock{"y = x", Language::Python}, {"x"}, {"y"}).id();
  auto inp = st.add_memlet_path({vn.id(), inner.id(), k}, Memlet::simple("V", Subset::parse("j")), "", "x");
  auto out =
      st.add_memlet_path({k, inner.exit, outer.exit, bn}, Memlet::simple("B", Subset::parse("j")), "y", "");
  st.edge(inp.front()).memlet = Memlet::simple("V", Subset::parse(q_range));
  st.edge(out[1]).memlet = Memlet::simple("B", Subset::parse(q_range));
  st.edge(out.back()).memlet = Memlet::simple("B", Subset::parse(q_range));
  mutate_layout(in, v, *s, false);
  return s;
}

/// A[6] -> nested SDFG (X[M] -> Y[M], a copy) -> B[6], with M and the memlets from the input.
std::unique_ptr<SDFG> nested_program(Bytes& in) {
  auto s = std::make_unique<SDFG>("layout_nested");
  s->add_array("A", ScalarType::Float64, {6});
  s->add_array("B", ScalarType::Float64, {6});
  s->arg_names = {"A", "B"};
  auto inner = std::make_unique<SDFG>("inner");
  inner->add_symbol("M");
  const Expr m = Expr::symbol("M");
  DataDescriptor& x = inner->add_array("X", ScalarType::Float64, {m});
  inner->add_array("Y", ScalarType::Float64, {m});
  auto& is = inner->add_state("body", true);
  is.add_edge(is.add_access("X").id(), "", is.add_access("Y").id(), "",
              Memlet::simple("X", Subset::parse("0:M")));
  mutate_layout(in, x, *inner, false);
  const long long mv = in.small(0, 7), lo = in.small(0, 5);
  const std::string subset = std::to_string(lo) + ":" + std::to_string(lo + in.small(0, 6));
  auto& st = s->add_state("call", true);
  NodeId a = st.add_access("A").id(), b = st.add_access("B").id();
  auto& n = st.add_nested_sdfg("callee", std::move(inner), {"X"}, {"Y"}, {{"M", Expr(mv)}});
  st.add_edge(a, "", n.id(), "X", Memlet::simple("A", Subset::parse(subset)));
  st.add_edge(n.id(), "Y", b, "", Memlet::simple("B", Subset::parse(subset)));
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_located_errors([&] {
    Bytes in(data, size);
    std::unique_ptr<SDFG> sdfg;
    switch (in.next() % 4) {
      case 0: sdfg = transient_program(in); break;
      case 1: sdfg = view_program(in); break;
      case 3: sdfg = mapped_view_program(in); break;
      default: sdfg = nested_program(in); break;
    }
    if (!validate(*sdfg).empty()) return;
    const long long s_value = in.next() % 13;  // the run-time total_size S: never huge
    // Tiny sizes only: a valid transient of 2**40 elements is refused by the allocator (an error,
    // but a finding for ASan's and libFuzzer's malloc limits), so such programs are generated,
    // not run.
    bool huge = false;
    for (const auto& [name, d] : sdfg->arrays)
      if (d.transient && !d.is_view())
        if (auto n = allocated_elements(d).as_integer()) huge = huge || *n > (1 << 16);
    runtime::CompilableProgram prog{std::shared_ptr<const SDFG>(std::move(sdfg)), {}, "fuzz"};
    static fuzz::CompileBudget budget("WEIR_FUZZ_LAYOUT_COMPILES");
    if (huge || !budget.take()) {
      (void)codegen::generate_cpu(*prog.sdfg, prog.options);
      return;
    }
    runtime::Arguments args;
    for (const auto& [name, d] : prog.sdfg->arrays) {
      if (d.transient || d.is_scalar()) continue;
      std::vector<std::int64_t> shape;
      for (const auto& e : d.shape) shape.push_back(e.value());
      runtime::Field f = runtime::Allocator::cpu().allocate(d.dtype.base, shape);
      auto* p = static_cast<double*>(f.data());
      for (std::int64_t k = 0; k < f.size(); ++k) p[k] = static_cast<double>(k);
      args.arrays.emplace(name, std::move(f));
    }
    if (prog.sdfg->symbols.count("S")) args.values["S"] = static_cast<std::int64_t>(s_value);
    runtime::run(fuzz::fuzz_cpu_backend(), prog, args);
  });
  return 0;
}
