// Small SDFGs for the transformation tests, and the checks every transformation test runs:
// validate() is clean and the reference interpreter computes the same outputs as before.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "interpreter.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/transformation.h"

namespace weir::test {

inline sym::Expr E(const std::string& s) { return sym::Expr::parse(s); }
inline Subset S(const std::string& s) { return Subset::parse(s); }

/// Requires validate() to report nothing, listing what it found otherwise.
inline void require_valid(const SDFG& sdfg) {
  auto diags = validate(sdfg);
  std::string all;
  for (const auto& d : diags) all += d.str() + "\n";
  INFO(all);
  REQUIRE(diags.empty());
}

/// Connects `src` -> entries... -> `dst` with the given memlet per hop (outermost first).
inline void path_in(SDFGState& st, NodeId src, const std::vector<NodeId>& entries, NodeId dst,
                    const std::string& conn, const std::vector<Memlet>& memlets) {
  std::vector<NodeId> p{src};
  p.insert(p.end(), entries.begin(), entries.end());
  p.push_back(dst);
  auto ids = st.add_memlet_path(p, memlets.front(), "", conn);
  for (std::size_t k = 0; k < ids.size(); ++k)
    st.edge(ids[k]).memlet = memlets[std::min(k, memlets.size() - 1)];
}

/// Connects `src` -> exits... -> `dst`; memlets given innermost first.
inline void path_out(SDFGState& st, NodeId src, const std::string& conn, const std::vector<NodeId>& exits,
                     NodeId dst, const std::vector<Memlet>& memlets) {
  std::vector<NodeId> p{src};
  p.insert(p.end(), exits.begin(), exits.end());
  p.push_back(dst);
  auto ids = st.add_memlet_path(p, memlets.front(), conn, "");
  for (std::size_t k = 0; k < ids.size(); ++k)
    st.edge(ids[k]).memlet = memlets[std::min(k, memlets.size() - 1)];
}

inline Memlet M(const std::string& data, const std::string& subset) {
  return Memlet::simple(data, S(subset));
}

/// B[i, j] = code(a = A[i, j]) over i in 0:N, j in 0:M, as nested maps (outer i, inner j) or
/// as one 2-D map. Sizes are symbols N and M.
inline std::unique_ptr<SDFG> make_map2d(bool nested, const std::string& code = "b = a * 2 + 1",
                                        const std::string& inner_range = "0:M") {
  auto sdfg = std::make_unique<SDFG>("map2d");
  sdfg->add_symbol("N");
  sdfg->add_symbol("M");
  sdfg->add_array("A", ScalarType::Float64, {E("N"), E("M")});
  sdfg->add_array("B", ScalarType::Float64, {E("N"), E("M")});
  SDFGState& st = sdfg->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& t = st.add_tasklet("compute", {code, Language::Python}, {"a"}, {"b"});
  if (nested) {
    auto& o = st.add_map("outer", {"i"}, S("0:N"));
    auto& in = st.add_map("inner", {"j"}, S(inner_range));
    path_in(st, a.id(), {o.id(), in.id()}, t.id(), "a",
            {M("A", "0:N, 0:M"), M("A", "i, 0:M"), M("A", "i, j")});
    path_out(st, t.id(), "b", {in.exit, o.exit}, b.id(),
             {M("B", "i, j"), M("B", "i, 0:M"), M("B", "0:N, 0:M")});
  } else {
    auto& m = st.add_map("map", {"i", "j"}, S("0:N, " + inner_range));
    path_in(st, a.id(), {m.id()}, t.id(), "a", {M("A", "0:N, 0:M"), M("A", "i, j")});
    path_out(st, t.id(), "b", {m.exit}, b.id(), {M("B", "i, j"), M("B", "0:N, 0:M")});
  }
  return sdfg;
}

inline SDFGState& only_state(SDFG& sdfg) {
  auto states = sdfg.all_states();
  REQUIRE(states.size() >= 1);
  return *states.front();
}

inline std::vector<MapEntry*> maps_of(const SDFGState& st) {
  std::vector<MapEntry*> out;
  for (Node* n : st.nodes())
    if (auto* me = n->as<MapEntry>()) out.push_back(me);
  return out;
}

/// Applies `t` at every candidate `pick` selects (the first applicable one by default) and
/// checks validity and semantics (outputs equal on seeded random inputs, for each symbol set).
inline void apply_and_check(SDFG& sdfg, transforms::Transformation& t,
                            const std::vector<Symbols>& symbol_sets, std::size_t which = 0) {
  require_valid(sdfg);
  auto before = sdfg.clone_sdfg();
  transforms::AnalysisCache cache;
  auto cands = transforms::find_matches(sdfg, t, cache);
  std::vector<transforms::Candidate> ok;
  for (auto& c : cands)
    if (c.result) ok.push_back(c);
  REQUIRE(ok.size() > which);
  transforms::apply_transactional(sdfg, t, ok[which].match, cache);
  require_valid(sdfg);
  // The JSON form must survive a round trip too.
  auto reloaded = sdfg_from_json_text(sdfg_to_json_text(sdfg));
  REQUIRE(sdfg_difference(*reloaded, sdfg).empty());
  for (const auto& syms : symbol_sets)
    for (unsigned seed : {1u, 7u, 42u}) {
      INFO("seed " << seed);
      auto x = run_program(*before, syms, seed);
      auto y = run_program(sdfg, syms, seed);
      REQUIRE(x == y);
    }
}

/// The refusal reason of the only candidate of `t` (requires exactly one candidate that refuses).
inline std::string refusal(SDFG& sdfg, const transforms::Transformation& t) {
  transforms::AnalysisCache cache;
  auto cands = transforms::find_matches(sdfg, t, cache);
  std::string all;
  for (auto& c : cands) {
    if (c.result)
      all += c.match.id() + " applies\n";
    else
      all += c.match.id() + ": " + c.result.reason() + "\n";
  }
  INFO(all);
  for (auto& c : cands) REQUIRE_FALSE(c.result);
  REQUIRE(!cands.empty());
  return cands.front().result.reason();
}

}  // namespace weir::test
