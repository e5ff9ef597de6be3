// Library nodes are written with the implementation names DaCe has for their type (DaCe's
// MatMul has only "specialize": weir's "OpenBLAS" on a MatMul made DaCe fail with "Unknown
// implementation for node MatMul: OpenBLAS"), and weir's own choice comes back when it reads
// the file (issue 37).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "weir/sdfg/library_implementations.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"

using namespace weir;

TEST_CASE("library implementations: DaCe's names per node type", "[sdfg][library]") {
  // As dace/libraries/blas/nodes/matmul.py and gemm.py (DaCe 2.0).
  REQUIRE(dace_implementations("MatMul") != nullptr);
  CHECK(*dace_implementations("MatMul") == std::set<std::string>{"specialize"});
  CHECK(dace_implementations("Gemm")->count("OpenBLAS") == 1);
  CHECK(dace_implementations("Solve")->count("pure") == 0);
  CHECK(dace_implementations("WeirOwnNode") == nullptr);
  // A name DaCe has is kept; weir's CBLAS / LAPACKE spellings become DaCe's "OpenBLAS" where the
  // type has it, MatMul and Einsum DaCe's "specialize", others no implementation.
  CHECK(dace_implementation_name("Gemm", "MKL") == "MKL");
  CHECK(dace_implementation_name("MatMul", "OpenBLAS") == "specialize");
  CHECK(dace_implementation_name("MatMul", "pure") == "specialize");
  CHECK(dace_implementation_name("Dot", "cblas") == "OpenBLAS");
  CHECK(dace_implementation_name("Solve", "lapacke") == "OpenBLAS");
  CHECK(dace_implementation_name("Ger", "OpenBLAS") == std::nullopt);
  CHECK(dace_implementation_name("Reduce", "OpenMP") == "OpenMP");
  CHECK(dace_implementation_name("WeirOwnNode", "fast") == "fast");
  CHECK(dace_implementation_name("WeirOwnNode", "") == std::nullopt);
}

TEST_CASE("library implementations: a MatMul on OpenBLAS is written as DaCe's and read back as weir's",
          "[sdfg][library]") {
  SDFG s("mm");
  s.add_array("A", ScalarType::Float64, {4, 5});
  s.add_array("B", ScalarType::Float64, {5, 3});
  s.add_array("C", ScalarType::Float64, {4, 3});
  auto& st = s.add_state("main", true);
  auto lib = std::make_unique<LibraryNode>("matmul", "LibraryNode");
  lib->classpath = "dace.libraries.blas.nodes.matmul.MatMul";
  lib->implementation = "OpenBLAS";
  lib->in_connectors["_a"] = std::nullopt;
  lib->in_connectors["_b"] = std::nullopt;
  lib->out_connectors["_c"] = std::nullopt;
  Node& mm = st.add_node(std::move(lib));
  st.add_edge(st.add_access("A").id(), "", mm.id(), "_a", Memlet::simple("A", Subset::parse("0:4, 0:5")));
  st.add_edge(st.add_access("B").id(), "", mm.id(), "_b", Memlet::simple("B", Subset::parse("0:5, 0:3")));
  st.add_edge(mm.id(), "_c", st.add_access("C").id(), "", Memlet::simple("C", Subset::parse("0:4, 0:3")));
  const std::string text = sdfg_to_json_text(s);
  const auto j = nlohmann::json::parse(text);
  const auto& node = j["nodes"][0]["nodes"][mm.id()];
  REQUIRE(node["classpath"] == "dace.libraries.blas.nodes.matmul.MatMul");
  CHECK(node["attributes"]["implementation"] == "specialize");
  CHECK(node["attributes"]["weir_implementation"] == "OpenBLAS");
  auto back = sdfg_from_json_text(text);
  const auto* read = back->all_states().front()->node(mm.id()).as<LibraryNode>();
  REQUIRE(read != nullptr);
  CHECK(read->implementation == "OpenBLAS");
  // A name DaCe has for the type is written as it is, with nothing beside it.
  const_cast<LibraryNode*>(st.node(mm.id()).as<LibraryNode>())->implementation = "specialize";
  const auto k = nlohmann::json::parse(sdfg_to_json_text(s));
  CHECK(k["nodes"][0]["nodes"][mm.id()]["attributes"]["implementation"] == "specialize");
  CHECK_FALSE(k["nodes"][0]["nodes"][mm.id()]["attributes"].contains("weir_implementation"));
}
