// A CUDA kernel's parameters come from the IR (issue 11): the containers, symbols and edge
// values of its map scope, not the identifiers of the C++ it was printed as. The generated
// comment "// tasklet scale (node 6)" names symbol `scale`, which only the second state uses:
// a kernel taking it as a parameter would not compile in the first state's function (which
// does not have `scale`).
#include <catch2/catch.hpp>
#include <cstdint>

#include "cuda_emulation.h"
#include "runtime_test_util.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/sdfg/nodes.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

using namespace weir::runtime;

namespace {

// State "twice": B[i] = 2 A[i] for i < N, by a tasklet labelled `scale`; state "count":
// C[j] = j for j < scale.
CompilableProgram two_state_program() {
  using weir::ScalarType;
  using weir::Subset;
  using E = weir::sym::Expr;
  auto s = std::make_shared<weir::SDFG>("kernel_parameters");
  s->add_symbol("N");
  s->add_symbol("scale");
  s->add_array("A", ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", ScalarType::Float64, {E::symbol("N")});
  s->add_array("C", ScalarType::Int64, {E::symbol("scale")});
  auto& first = s->add_state("twice", true);
  {
    auto& a = first.add_access("A");
    auto& b = first.add_access("B");
    auto& m = first.add_map("points", {"i"}, Subset::parse("0:N"));
    auto& t = first.add_tasklet("scale", {"o = 2 * x", weir::Language::Python}, {"x"}, {"o"});
    auto in = first.add_memlet_path({a.id(), m.id(), t.id()}, weir::Memlet::simple("A", Subset::parse("i")),
                                    "", "x");
    auto out = first.add_memlet_path({t.id(), m.exit, b.id()}, weir::Memlet::simple("B", Subset::parse("i")),
                                     "o", "");
    first.edge(in.front()).memlet = weir::Memlet::simple("A", Subset::parse("0:N"));
    first.edge(out.back()).memlet = weir::Memlet::simple("B", Subset::parse("0:N"));
  }
  auto& second = s->add_state("count");
  {
    auto& c = second.add_access("C");
    auto& m = second.add_map("indices", {"j"}, Subset::parse("0:scale"));
    auto& t = second.add_tasklet("index", {"o = j", weir::Language::Python}, {}, {"o"});
    second.add_edge(m.id(), "", t.id(), "", weir::Memlet{});
    auto out = second.add_memlet_path({t.id(), m.exit, c.id()}, weir::Memlet::simple("C", Subset::parse("j")),
                                      "o", "");
    second.edge(out.back()).memlet = weir::Memlet::simple("C", Subset::parse("0:scale"));
  }
  s->add_edge(first.id(), second.id());
  CompilableProgram program;
  program.sdfg = s;
  return program;
}

}  // namespace

TEST_CASE("cuda emulation: a kernel's parameters come from its scope, not from names in its comments",
          "[runtime][gpu][emulation]") {
  CompilableProgram program = two_state_program();
  CHECK_THAT(generate_gpu_program(program).source, Catch::Contains("// tasklet scale (node "));
  for (const char* backend : {"cuda-emulation", "cpu"}) {
    INFO(backend);
    Arguments args;
    args.arrays.emplace("A", Allocator::cpu().allocate(weir::ScalarType::Float64, {5}));
    args.arrays.emplace("B", Allocator::cpu().allocate(weir::ScalarType::Float64, {5}));
    args.arrays.emplace("C", Allocator::cpu().allocate(weir::ScalarType::Int64, {3}));
    auto* a = static_cast<double*>(args.arrays.at("A").data());
    for (int i = 0; i < 5; ++i) a[i] = 0.5 * i;
    if (std::string(backend) == "cpu")
      run(*make_cpu_backend(), program, args);
    else
      run(*weir::test::make_cuda_emulation_backend(), program, args);
    const auto* b = static_cast<const double*>(args.arrays.at("B").data());
    CHECK(std::vector<double>(b, b + 5) == std::vector<double>{0, 1, 2, 3, 4});
    const auto* c = static_cast<const std::int64_t*>(args.arrays.at("C").data());
    CHECK(std::vector<std::int64_t>(c, c + 3) == std::vector<std::int64_t>{0, 1, 2});
  }
}
