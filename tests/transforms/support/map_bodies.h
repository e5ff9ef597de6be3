// Maps whose bodies hold several tasklets, for the tests of MapFission and MapUnroll.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "builders.h"

namespace weir::test {

/// One map over `range` (params `params`) reading A and writing B, C (all N x M), whose body
/// the test builds.
struct Builder {
  std::unique_ptr<SDFG> sdfg = std::make_unique<SDFG>("fission");
  SDFGState* st = nullptr;
  MapEntry* map = nullptr;
  std::map<std::string, NodeId> nodes;
  Builder(const std::vector<std::string>& params, const std::string& range) {
    sdfg->add_symbol("N");
    sdfg->add_symbol("M");
    for (const char* n : {"A", "B", "C"}) sdfg->add_array(n, ScalarType::Float64, {E("N"), E("M")});
    st = &sdfg->add_state("main", true);
    map = &st->add_map("m", params, S(range));
  }
  Tasklet& tasklet(const std::string& label, const std::string& code, const std::vector<std::string>& in,
                   const std::vector<std::string>& out) {
    return st->add_tasklet(label, {code, Language::Python}, in, out);
  }
  NodeId node(const std::string& data) {
    if (!nodes.count(data)) nodes[data] = st->add_access(data).id();
    return nodes[data];
  }
  void read(NodeId t, const std::string& conn, const std::string& data, const std::string& subset) {
    path_in(*st, node(data), {map->id()}, t, conn, {M(data, "0:N, 0:M"), M(data, subset)});
  }
  void write(NodeId t, const std::string& conn, const std::string& data, const std::string& subset) {
    path_out(*st, t, conn, {map->exit}, node(data), {M(data, subset), M(data, "0:N, 0:M")});
  }
};

/// B[i, j] = A[i, j] * 2 and C[i, j] = A[i, j] + 1 in one map, optionally linked through a
/// scalar transient: t = A * 2; B = t; C = t + A.
inline std::unique_ptr<SDFG> two_parts(bool linked, const std::string& range = "0:N, 0:M") {
  Builder g({"i", "j"}, range);
  if (!linked) {
    auto& t1 = g.tasklet("double", "b = a * 2", {"a"}, {"b"});
    auto& t2 = g.tasklet("incr", "c = a + 1", {"a"}, {"c"});
    g.read(t1.id(), "a", "A", "i, j");
    g.read(t2.id(), "a", "A", "i, j");
    g.write(t1.id(), "b", "B", "i, j");
    g.write(t2.id(), "c", "C", "i, j");
    return std::move(g.sdfg);
  }
  g.sdfg->add_scalar("t", ScalarType::Float64, true);
  auto& t1 = g.tasklet("double", "o = a * 2", {"a"}, {"o"});
  auto& tn = g.st->add_access("t");
  auto& t2 = g.tasklet("copy", "b = x", {"x"}, {"b"});
  auto& t3 = g.tasklet("sum", "c = x + a", {"x", "a"}, {"c"});
  g.read(t1.id(), "a", "A", "i, j");
  g.read(t3.id(), "a", "A", "i, j");
  g.st->add_edge(t1.id(), "o", tn.id(), "", M("t", "0"));
  g.st->add_edge(tn.id(), "", t2.id(), "x", M("t", "0"));
  g.st->add_edge(tn.id(), "", t3.id(), "x", M("t", "0"));
  g.write(t2.id(), "b", "B", "i, j");
  g.write(t3.id(), "c", "C", "i, j");
  return std::move(g.sdfg);
}

}  // namespace weir::test
