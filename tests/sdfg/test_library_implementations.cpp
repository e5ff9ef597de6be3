// Library nodes are written with the implementation names DaCe has for their type (DaCe's
// MatMul has only "specialize": weir's "OpenBLAS" on a MatMul made DaCe fail with "Unknown
// implementation for node MatMul: OpenBLAS"), and weir's own choice comes back when it reads
// the file (issue 37).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "weir/sdfg/library_implementations.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"

using namespace weir;

namespace {

/// A connector, the container its memlet names and the memlet's subset.
struct Port {
  std::string connector, data, subset;
};

/// Adds library node `label` of DaCe's class `classpath` on OpenBLAS to `st`, reading `inputs`
/// and writing `output` through access nodes of their containers.
Node& add_openblas_node(SDFGState& st, const std::string& label, const std::string& classpath,
                        const std::vector<Port>& inputs, const Port& output) {
  auto lib = std::make_unique<LibraryNode>(label, "LibraryNode");
  lib->classpath = classpath;
  lib->implementation = "OpenBLAS";
  for (const Port& p : inputs) lib->in_connectors[p.connector] = std::nullopt;
  lib->out_connectors[output.connector] = std::nullopt;
  Node& n = st.add_node(std::move(lib));
  for (const Port& p : inputs)
    st.add_edge(st.add_access(p.data).id(), "", n.id(), p.connector,
                Memlet::simple(p.data, Subset::parse(p.subset)));
  st.add_edge(n.id(), output.connector, st.add_access(output.data).id(), "",
              Memlet::simple(output.data, Subset::parse(output.subset)));
  return n;
}

}  // namespace

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
  Node& mm = add_openblas_node(st, "matmul", "dace.libraries.blas.nodes.matmul.MatMul",
                               {{"_a", "A", "0:4, 0:5"}, {"_b", "B", "0:5, 0:3"}}, {"_c", "C", "0:4, 0:3"});
  const std::string text = sdfg_to_json_text(s);
  const auto j = nlohmann::json::parse(text);
  const auto& node = j["nodes"][0]["nodes"][mm.id()];
  REQUIRE(node["classpath"] == "dace.libraries.blas.nodes.matmul.MatMul");
  CHECK(node["attributes"]["implementation"] == "specialize");
  // weir's own name under a key DaCe skips silently (private_attributes.h).
  CHECK(node["attributes"]["_meta_weir_implementation"] == "OpenBLAS");
  CHECK_FALSE(node["attributes"].contains("weir_implementation"));
  auto back = sdfg_from_json_text(text);
  const auto* read = back->all_states().front()->node(mm.id()).as<LibraryNode>();
  REQUIRE(read != nullptr);
  CHECK(read->implementation == "OpenBLAS");
  // A name DaCe has for the type is written as it is, with nothing beside it.
  const_cast<LibraryNode*>(st.node(mm.id()).as<LibraryNode>())->implementation = "specialize";
  const auto k = nlohmann::json::parse(sdfg_to_json_text(s));
  CHECK(k["nodes"][0]["nodes"][mm.id()]["attributes"]["implementation"] == "specialize");
  CHECK_FALSE(k["nodes"][0]["nodes"][mm.id()]["attributes"].contains("_meta_weir_implementation"));
  // An older file's spelling is still read.
  auto old = j;
  old["nodes"][0]["nodes"][mm.id()]["attributes"].erase("_meta_weir_implementation");
  old["nodes"][0]["nodes"][mm.id()]["attributes"]["weir_implementation"] = "OpenBLAS";
  auto older = sdfg_from_json_text(old.dump());
  CHECK(older->all_states().front()->node(mm.id()).as<LibraryNode>()->implementation == "OpenBLAS");
}

TEST_CASE("library implementations: a library node weir makes is written with a name DaCe expands by",
          "[sdfg][library]") {
  // DaCe names the tasklet a library node expands into after the node's `name`, and its code
  // generator emits a tasklet with an empty name without its code: weir's Dot (from DaCe's
  // cblas_ddot tasklet, spmv after --auto cpu) ran in DaCe as a dot product left uncomputed.
  SDFG s("dot");
  s.add_array("X", ScalarType::Float64, {8});
  s.add_array("Y", ScalarType::Float64, {8});
  s.add_array("R", ScalarType::Float64, {1});
  auto& st = s.add_state("main", true);
  Node& dot = add_openblas_node(st, "_MatMult_dot", "dace.libraries.blas.nodes.dot.Dot",
                                {{"_x", "X", "0:8"}, {"_y", "Y", "0:8"}}, {"_result", "R", "0"});
  const std::string text = sdfg_to_json_text(s);
  CHECK(nlohmann::json::parse(text)["nodes"][0]["nodes"][dot.id()]["attributes"]["name"] == "_MatMult_dot");
  // A name read from a file is written back as it was, beside a label of its own.
  auto j = nlohmann::json::parse(text);
  j["nodes"][0]["nodes"][dot.id()]["attributes"]["name"] = "_Dot_";
  const auto again = nlohmann::json::parse(sdfg_to_json_text(*sdfg_from_json_text(j.dump())));
  CHECK(again["nodes"][0]["nodes"][dot.id()]["attributes"]["name"] == "_Dot_");
  CHECK(again["nodes"][0]["nodes"][dot.id()]["attributes"]["label"] == "_MatMult_dot");
}
