// Run-time bounds checks of the outermost scopes (CodegenOptions::bounds_checks, ADR 0005): before
// a map, tasklet, copy, nested SDFG or library node at the top of a state runs (of the SDFG or of
// a nested SDFG's body, whose containers are checked against their inner shapes), every dimension of the
// subset of each memlet on its outer edges is evaluated with the symbols' values and compared with the
// container's shape. The outer memlets carry the propagated subsets (DaCe's memlet propagation;
// weir's lowering and transforms keep them), so one check covers every iteration of the scope and
// costs nothing inside its loops. A violation throws, which weir_run turns into its error code
// and weir_last_error()'s text.
//
// Indices that tasklet code computes (a neighbour's index read from a connectivity table, any
// data-dependent subscript of a connector over several elements) are checked where they are
// used: parallel loops cannot throw, so a violation is recorded (weir_index in the prelude) and
// thrown after the state (SdfgGen::state_call), naming the state, map, tasklet, connector, the
// index and where it came from (docs/adr/0014).

#include <nlohmann/json.hpp>

#include "location_table.h"
#include "state_codegen.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/cpp_identifiers.h"
#include "weir/sdfg/field_dims.h"
#include "weir/sdfg/names.h"
#include "weir/sdfg/text.h"

namespace weir::codegen::detail {

namespace {

/// The first and last index of a range (`last` exact for steps other than 1: DaCe's inclusive
/// ends need not be hit), lowest first; nullopt for a step of unknown sign.
std::optional<std::pair<sym::Expr, sym::Expr>> range_bounds(const Range& r) {
  if (r.step.is_integer() && r.step.value() == 1) return std::make_pair(r.start, r.end);
  std::optional<int> s = r.step.sign_if_symbols_nonnegative();
  if (!s || *s == 0) return std::nullopt;
  sym::Expr last = r.start + sym::Expr::floordiv(r.end - r.start, r.step) * r.step;
  if (*s < 0) return std::make_pair(last, r.start);
  return std::make_pair(r.start, last);
}

/// C++ that is true when the map has no iteration (any dimension empty).
std::string map_empty_condition(const MapInfo& m) {
  std::string out;
  for (const Range& r : m.range.ranges()) {
    std::string start = sym_cpp(r.start), end = sym_cpp(r.end);
    std::optional<int> s = r.step.sign_if_symbols_nonnegative();
    std::string c;
    if (s && *s > 0)
      c = "(" + start + ") > (" + end + ")";
    else if (s && *s < 0)
      c = "(" + start + ") < (" + end + ")";
    else
      c = "((" + sym_cpp(r.step) + ") > 0 ? (" + start + ") > (" + end + ") : (" + start + ") < (" + end +
          "))";
    out += (out.empty() ? "" : " || ") + c;
  }
  return out;
}

// Whether a read of [first, last] in one dimension is shifted: a symbol plus a nonzero constant
// (`i + 1`, a loop variable's too), a negative constant, or inside `map` a parameter's range
// moved or widened by constants (the union of shifted reads, `[lo - 1, hi + 1]`). A range the
// map does not span by constants (a dimension an inner map or the whole array covers) reads
// over the domain: a failure there is an input smaller than the domain, not a shift.
bool offset_from_map(const std::pair<sym::Expr, sym::Expr>& b, const MapInfo* map) {
  if (b.first.is_integer() && b.first.value() < 0) return true;  // before every array's start
  for (const auto& s : b.first.free_symbols()) {
    sym::Expr d = b.first - sym::Expr::symbol(s);
    if (d.is_integer() && d.value() != 0) return true;
  }
  if (!map) return false;
  for (std::size_t d = 0; d < map->params.size() && d < map->range.dims(); ++d) {
    auto r = range_bounds(map->range[d]);
    if (!r) continue;
    sym::Expr lo = b.first - r->first, hi = b.second - r->second;
    if (lo.is_integer() && hi.is_integer() && (lo.value() != 0 || hi.value() != 0)) return true;
  }
  return false;
}

// The shifted reads behind a memlet: the source line of the first inner memlet (through map
// scopes, into nested SDFGs) that reads shifted (`a[k + 1]`), and per dimension whether one does.
// Transformations propagate subsets, not debuginfo or offsets.
struct InnerAccess {
  std::string source;         // "file.py:12:16" of a shifted read, or ""
  std::vector<bool> shifted;  // per dimension of the container (empty: unknown)
};

// `dims`: the outermost container's dimension of each dimension at this level (a nested
// SDFG's container may drop the dimensions its outer memlet fixes to one index).
void note_inner(const Memlet& m, const std::vector<std::size_t>& dims, InnerAccess& out) {
  bool shifted = false;
  for (std::size_t k = 0; k < m.subset.dims(); ++k) {
    auto b = range_bounds(m.subset[k]);
    if (!b || !offset_from_map(*b, nullptr)) continue;
    shifted = true;
    if (k < dims.size()) out.shifted[dims[k]] = true;
  }
  if (!shifted || !out.source.empty()) return;
  out.source = debuginfo_location(m.extra);
}

// The accesses beyond connector `conn` of `node`, reached through an edge with subset `via`.
// `depth` bounds the walk through nested SDFGs (each a separate body).
void walk_inner(const SDFGState& st, NodeId node, const std::string& conn, const Subset& via, bool write,
                const std::vector<std::size_t>& dims, InnerAccess& out, int depth) {
  if (depth > 16 || conn.empty()) return;
  const Node& n = st.node(node);
  auto paired = [&](const std::string& from, const std::string& to) -> std::string {
    return conn.rfind(from, 0) == 0 ? to + conn.substr(from.size()) : std::string();
  };
  if (n.as<MapEntry>() && !write) {
    for (EdgeId id : st.out_edges_by_connector(node, paired("IN_", "OUT_"))) {
      const DataflowEdge& e = st.edge(id);
      note_inner(e.memlet, dims, out);
      walk_inner(st, e.dst, e.dst_conn, e.memlet.subset, write, dims, out, depth);
    }
  } else if (n.as<MapExit>() && write) {
    for (EdgeId id : st.in_edges_by_connector(node, paired("OUT_", "IN_"))) {
      const DataflowEdge& e = st.edge(id);
      note_inner(e.memlet, dims, out);
      walk_inner(st, e.src, e.src_conn, e.memlet.subset, write, dims, out, depth);
    }
  } else if (auto* nested = n.as<NestedSDFGNode>(); nested && nested->sdfg) {
    // Inside, the connector names the inner container: all its dimensions, or those the outer
    // subset does not fix to one index (a column of a field).
    auto it = nested->sdfg->arrays.find(conn);
    if (it == nested->sdfg->arrays.end()) return;
    std::vector<std::size_t> inner_dims;
    const std::size_t rank = it->second.shape.size();
    if (rank == via.dims()) {
      inner_dims = dims;
    } else {
      for (std::size_t k = 0; k < via.dims() && k < dims.size(); ++k) {
        sym::Expr extent = via[k].end - via[k].start;
        if (!(extent.is_integer() && extent.value() == 0)) inner_dims.push_back(dims[k]);
      }
      if (inner_dims.size() != rank) inner_dims.clear();  // which is which is unknown
    }
    for (SDFGState* s : nested->sdfg->all_states())
      for (const DataflowEdge* e : s->edges()) {
        if (e->memlet.data != conn) continue;
        note_inner(e->memlet, inner_dims, out);
        if (!write && s->node(e->dst).as<NestedSDFGNode>())
          walk_inner(*s, e->dst, e->dst_conn, e->memlet.subset, write, inner_dims, out, depth + 1);
        if (write && s->node(e->src).as<NestedSDFGNode>())
          walk_inner(*s, e->src, e->src_conn, e->memlet.subset, write, inner_dims, out, depth + 1);
      }
  }
}

InnerAccess inner_access(const SDFGState& st, const DataflowEdge& e, bool write) {
  InnerAccess out;
  std::vector<std::size_t> dims(e.memlet.subset.dims());
  for (std::size_t k = 0; k < dims.size(); ++k) dims[k] = k;
  out.shifted.assign(dims.size(), false);
  if (write)
    walk_inner(st, e.src, e.src_conn, e.memlet.subset, true, dims, out, 0);
  else
    walk_inner(st, e.dst, e.dst_conn, e.memlet.subset, false, dims, out, 0);
  return out;
}

// The dimension an extent of field `data` is along, from the field-view lowering's size symbol
// (`__f_I_size` of f is along I; `__out_I_size` of __out), or "" for other extents.
std::string dimension_of(const std::string& data, const sym::Expr& extent) {
  auto fs = extent.free_symbols();
  if (fs.size() != 1 || extent.str() != *fs.begin()) return "";
  const std::string& s = *fs.begin();
  const std::string prefix = (data.rfind("__", 0) == 0 ? data : "__" + data) + "_", suffix = "_size";
  if (s.size() <= prefix.size() + suffix.size() || s.rfind(prefix, 0) != 0 ||
      s.compare(s.size() - suffix.size(), std::string::npos, suffix) != 0)
    return "";
  return s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
}

// The container `data` stands for in the program's terms: itself, or the argument whose size
// symbols make up its whole shape (a device copy `gpu_a1` that gpu-transform made of argument
// `a1` keeps a1's shape `[__a1_I_size, ...]`): errors in the program's terms name the field.
std::string field_of(const SDFG& sdfg, const std::string& data) {
  const DataDescriptor& d = sdfg.arrays.at(data);
  if (!d.transient || d.shape.empty()) return data;
  for (const auto& [name, other] : sdfg.arrays) {
    if (name == data || other.transient || other.shape != d.shape) continue;
    bool named = true;
    for (const auto& e : d.shape) named = named && !dimension_of(name, e).empty();
    if (named) return name;
  }
  return data;
}

// The name of axis `k` of array `d` (`field`: the field it stands for, field_of): the dimension
// the frontend recorded for it (field_dims.h: a local field of gtx.zeros, a call's temporary,
// an orchestration's local), else the one its size symbol names, else "".
std::string dimension_name(const SDFG& sdfg, const std::string& field, const DataDescriptor& d,
                           std::size_t k) {
  std::vector<std::string> dims = field_dims(d);
  if (dims.empty())
    if (auto it = sdfg.arrays.find(field);
        it != sdfg.arrays.end() && it->second.shape.size() == d.shape.size())
      dims = field_dims(it->second);
  if (k < dims.size()) return dims[k];
  return k < d.shape.size() ? dimension_of(field, d.shape[k]) : "";
}

// The dimension of the program that dimension `k` of a tasklet connector at `loc` spans whole
// (from 0 to the field's extent along it, named by its size symbol), or "".
std::string spanned_dimension(const SDFG& sdfg, const Location& loc, std::size_t k) {
  auto it = sdfg.arrays.find(loc.data);
  if (it == sdfg.arrays.end() || k >= it->second.shape.size() || k >= loc.subset.ranges().size()) return "";
  const Range& r = loc.subset.ranges()[k];
  const sym::Expr& extent = it->second.shape[k];
  if (!(r.start.is_integer() && r.start.value() == 0) || !(loc.subset.size()[k] == extent)) return "";
  return dimension_name(sdfg, field_of(sdfg, loc.data), it->second, k);
}
}  // namespace

// DaCe DebugInfo JSON (`extra["debuginfo"]`): {"type": "DebugInfo", "start_line": 12,
// "start_column": 16, "filename": ...}.
std::string debuginfo_location(const UnknownAttributes& extra) {
  const std::string* text = extra.find("debuginfo");
  if (!text) return "";
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.value("filename", nlohmann::json()).is_string() ||
      !j.value("start_line", nlohmann::json()).is_number_integer() ||
      j["filename"].get<std::string>().empty())
    return "";
  std::string out = j["filename"].get<std::string>() + ":" + std::to_string(j["start_line"].get<long long>());
  if (j.value("start_column", nlohmann::json()).is_number_integer())
    out += ":" + std::to_string(j["start_column"].get<long long>());
  return table_location(out);  // a token of the program's location table, if it has one (ADR 0061)
}

BoundsCheckGen::BoundsCheckGen(const StateGen& g) : g_(g), sg(g.sg), st(g.st), opts(g.opts) {}

bool BoundsCheckGen::checkable(const sym::Expr& e) const {
  for (const auto& s : e.free_symbols())
    if (!sg.symbols.count(s) || sg.sdfg.arrays.count(s) || dynamic_inputs_.count(s)) return false;
  return true;
}

std::string BoundsCheckGen::idle_through(NodeId node, const std::string& conn, bool write,
                                         std::set<std::string> params) const {
  const Node& n = st.node(node);
  const MapInfo* m = nullptr;
  if (auto* e = n.as<MapEntry>(); e && !write) m = e->map.get();
  if (auto* x = n.as<MapExit>(); x && write) m = x->map.get();
  if (!m) return "";
  for (const Range& r : m->range.ranges())
    for (const sym::Expr* b : {&r.start, &r.end, &r.step}) {
      if (!checkable(*b)) return "";
      for (const auto& s : b->free_symbols())
        if (params.count(s)) return "";
    }
  std::string empty = map_empty_condition(*m);
  params.insert(m->params.begin(), m->params.end());
  std::string beyond = idle_beyond(node, conn, write, params);
  return beyond.empty() ? empty : "(" + empty + ") || (" + beyond + ")";
}

std::string BoundsCheckGen::idle_beyond(NodeId node, const std::string& conn, bool write,
                                        const std::set<std::string>& params) const {
  // The paired connector (IN_x -> OUT_x of an entry, OUT_x -> IN_x of an exit) and its edges.
  std::string pair;
  if (!write && conn.rfind("IN_", 0) == 0) pair = "OUT_" + conn.substr(3);
  if (write && conn.rfind("OUT_", 0) == 0) pair = "IN_" + conn.substr(4);
  if (pair.empty()) return "";
  std::vector<EdgeId> next =
      write ? st.in_edges_by_connector(node, pair) : st.out_edges_by_connector(node, pair);
  std::string all;
  for (EdgeId id : next) {
    const DataflowEdge& e = st.edge(id);
    std::string c = write ? idle_through(e.src, e.src_conn, true, params)
                          : idle_through(e.dst, e.dst_conn, false, params);
    if (c.empty()) return "";
    all += (all.empty() ? "" : " && ") + std::string("(") + c + ")";
  }
  return all;
}

std::optional<std::string> BoundsCheckGen::extreme_over_map(const sym::Expr& e, const MapInfo* map,
                                                            bool lowest) const {
  // A map parameter shadows a symbol of the same name (a scan's loop variable `__K` elsewhere
  // in the SDFG): such an expression varies over the map, whatever the symbol's value.
  bool over_map = false;
  if (map)
    for (const std::string& p : map->params) over_map = over_map || e.free_symbols().count(p) > 0;
  if (!over_map && checkable(e)) return sym_cpp(e);
  if (!map) return std::nullopt;
  // A memlet that was not propagated still names the map parameters: its extremes over the map
  // are at the corners of the parameters' ranges when it is affine in each parameter.
  std::vector<std::pair<sym::Expr, sym::Expr>> corners_of;  // (symbol, first/last) per parameter used
  std::vector<std::string> used;
  std::set<std::string> params(map->params.begin(), map->params.end());
  std::set<std::string> fs = e.free_symbols();
  for (std::size_t d = 0; d < map->params.size(); ++d) {
    const std::string& p = map->params[d];
    if (!fs.count(p)) continue;
    sym::Expr step = e.subs({{p, sym::Expr::symbol(p) + 1}}) - e;
    for (const auto& s : step.free_symbols())
      if (params.count(s)) return std::nullopt;  // not affine in p
    auto b = range_bounds(map->range[d]);
    if (!b || !checkable(b->first) || !checkable(b->second)) return std::nullopt;
    used.push_back(p);
    corners_of.push_back(*b);
  }
  if (used.empty() || used.size() > 3) return std::nullopt;
  std::vector<std::string> values;
  for (std::size_t mask = 0; mask < (std::size_t{1} << used.size()); ++mask) {
    std::map<std::string, sym::Expr> m;
    for (std::size_t k = 0; k < used.size(); ++k)
      m[used[k]] = (mask >> k) & 1 ? corners_of[k].second : corners_of[k].first;
    sym::Expr v = e.subs(m);
    if (!checkable(v)) return std::nullopt;
    values.push_back(sym_cpp(v));
  }
  std::string out = values[0];
  for (std::size_t k = 1; k < values.size(); ++k)
    out =
        std::string(lowest ? "weir_min" : "weir_max") + "<int64_t, int64_t>(" + out + ", " + values[k] + ")";
  return out;
}

void BoundsCheckGen::emit_memlet_checks(const Memlet& m, const std::string& data, const Subset& subset,
                                        bool write, const std::string& where, const MapInfo* map,
                                        const Node* node, const DataflowEdge* edge, Writer& w,
                                        const DataDescriptor* desc) {
  // Dynamic memlets (indirect accesses such as unstructured neighbour reads through a
  // connectivity table) say only which container they may touch, not where: they cannot be
  // checked before the scope runs. The table reads themselves are ordinary memlets and checked.
  if (m.is_empty() || m.dynamic || m.allow_oob) return;
  auto it = sg.sdfg.arrays.find(data);
  const bool known = it != sg.sdfg.arrays.end();
  if (!known && !desc) return;
  const DataDescriptor& d = known ? it->second : *desc;
  // A view's accesses are checked against its own shape: its pointer's reach inside the subset it
  // views is checked when it is defined (require_reach, ADR 0037).
  if (d.is_scalar() || subset.dims() != d.shape.size()) return;
  const std::string field = known ? field_of(sg.sdfg, data) : data;
  // The source line of the access: the memlet's debuginfo (the lowering's inner memlets name
  // the read, `f` of `f(I + 1)`), else the node's (the call the state computes, as the
  // embedded backend's errors name it; outer memlets cover every read of the scope).
  std::string source = debuginfo_location(m.extra);
  // A memlet a transformation propagated (the outer memlet of a map, or of the nested SDFG that
  // LoopMapInterchange makes of a scan's column loop) names no line: a shifted read inside it
  // does (`a(K + 1)` of a scan's argument), and its dimensions get that line and the shift hint.
  std::optional<InnerAccess> inner;
  if (source.empty() && edge) inner = inner_access(st, *edge, write);
  if (source.empty() && node) source = debuginfo_location(node->extra);
  auto shifted_inside = [&](std::size_t k) {
    return inner && k < inner->shifted.size() && inner->shifted[k];
  };
  auto located_inside = [&](std::size_t k) { return shifted_inside(k) && !inner->source.empty(); };
  // One check per memlet over every dimension that can be checked, so that the error names
  // each dimension outside (weir_dim per dimension); dimensions read shifted inside first, with
  // the shifted read's line, the others with the memlet's or the node's.
  std::vector<std::string> dims[2], inside[2];
  for (std::size_t k = 0; k < subset.dims(); ++k) {
    auto b = range_bounds(subset[k]);
    if (!b) continue;
    // The hint names shifts only for a read offset from the map's range (`f[i - 1]`) or made
    // of shifted reads.
    std::string hint =
        write ? "the domain written is larger than the output; pass a larger output or a smaller domain"
        : offset_from_map(*b, map) || shifted_inside(k)
            ? "shifted reads need a larger input or a smaller output domain"
            : "the input is smaller than the domain it is read over; pass a larger input or a smaller domain";
    sym::Expr off = k < d.offset.size() ? d.offset[k] : sym::Expr(0);
    if (!checkable(d.shape[k]) || !checkable(off)) continue;
    std::optional<std::string> lo = extreme_over_map(b->first, map, true),
                               hi = extreme_over_map(b->second, map, false);
    if (!lo || !hi) continue;
    // A dimension whose bounds are constants inside a constant extent cannot fail (a nested
    // SDFG's one-element transients, `x[0]` of a size-1 array): no check, so that the nested
    // SDFGs of a map body do not pay for them per point.
    const sym::Expr lo_e = b->first + off, hi_e = b->second + off;
    if (lo_e.is_integer() && hi_e.is_integer() && d.shape[k].is_integer() && lo_e.value() >= 0 &&
        hi_e.value() < d.shape[k].value())
      continue;
    // Nor one inside for every value of the symbols: a constant start of at least 0 and an end
    // a constant below the extent (`0:N-2` of an array of N - 2, `2:N` of N: what greedy-map-
    // fusion's removed intermediates and jacobi_1d's shifted reads leave). Their checks made
    // jacobi_1d's state cache its checks in thread-local variables (kCachedChecks), a TLS lookup
    // per step that DaCe's file, with fewer checks, did not pay (issue 37, ADR 0053).
    if (const sym::Expr slack = d.shape[k] - sym::Expr(1) - hi_e;
        lo_e.is_integer() && lo_e.value() >= 0 && slack.is_integer() && slack.value() >= 0)
      continue;
    // The dimension's name, for the error's part in the program's terms (with a source line).
    ++checked_dims_;
    inside[located_inside(k) ? 0 : 1].push_back("weir_in(" + *lo + ", " + *hi + ", " + sym_cpp(off) + ", " +
                                                sym_cpp(d.shape[k]) + ")");
    dims[located_inside(k) ? 0 : 1].push_back("weir_dim(" + *lo + ", " + *hi + ", " + sym_cpp(off) + ", " +
                                              sym_cpp(d.shape[k]) + ", " + std::to_string(k) + ", \"" +
                                              c_escape(hint) + "\", \"" +
                                              c_escape(dimension_name(sg.sdfg, field, d, k)) + "\")");
  }
  std::string args = "\"" + c_escape(where) + "\", \"" + (write ? "writes" : "reads") + "\", \"" +
                     c_escape(data) + "\", \"" + c_escape(field) + "\", ";
  for (int g = 0; g < 2; ++g) {
    if (dims[g].empty()) continue;
    std::string list = "{" + join(dims[g], ", ") + "}";
    // The test first, as plain integer compares (constant-folded, no descriptors built): a state
    // in a loop runs its checks per iteration (deriche's recurrences over j), and only a failed
    // one builds the report.
    std::string fails = "!(" + join(inside[g], " && ") + ")";
    // A nested SDFG's body may run inside a parallel loop, which cannot throw: the violation is
    // recorded and the state returns before the access (raised after the top-level state).
    if (sg.top_level) {
      w.line("if (" + fails + ") weir_check_bounds(" + args + "\"" +
             c_escape(g == 0 ? inner->source : source) + "\", " + list + ");");
    } else {
      w.line("if (" + fails + " && !weir_bounds_ok(" + args + "\"" +
             c_escape(g == 0 ? inner->source : source) + "\", " + list + ")) return;");
      note_fault();
    }
  }
}

void BoundsCheckGen::emit_bounds_checks(const Node& n, Writer& w) {
  if (!opts.bounds_checks || !g_.frames_.empty() || sg.hoisted_check_states.count(&st)) return;
  if (!dynamic_inputs_known_)
    for (const Node* x : st.nodes())
      if (auto* e = x->as<MapEntry>())
        for (const auto& [c, t] : e->in_connectors)
          if (c.rfind("IN_", 0) != 0) dynamic_inputs_.insert(c);
  dynamic_inputs_known_ = true;
  checked_dims_ = 0;
  std::string path = st.path();
  std::string where = (sg.top_level ? "" : "nested SDFG '" + sg.sdfg.name + "', ") + "state '" +
                      (path.empty() ? st.label : path) + "', ";
  const std::size_t scope_at = where.size();  // where the scope's part of `where` starts
  Writer checks;
  const MapInfo* map = nullptr;
  // `idle`: C++ that is true when the edge's data is not accessed (idle_through), or "".
  auto edge_checks = [&](const DataflowEdge& e, bool write, const std::string& idle = "") {
    if (idle.empty())
      return emit_memlet_checks(e.memlet, e.memlet.data, e.memlet.subset, write, where, map, &n, &e, checks);
    Writer guarded;
    emit_memlet_checks(e.memlet, e.memlet.data, e.memlet.subset, write, where, map, &n, &e, guarded);
    if (guarded.empty()) return;
    checks.open("if (!(" + idle + ")) {");
    checks.append(guarded);
    checks.close();
  };
  switch (n.kind()) {
    case NodeKind::MapEntry: {
      const auto& me = static_cast<const MapEntry&>(n);
      where += "map '" + me.map->label + "'";
      map = me.map.get();
      for (const Range& r : me.map->range.ranges())
        if (!checkable(r.start) || !checkable(r.end) || !checkable(r.step))
          return;  // defined inside the scope
      // Each check is skipped when the data only flows through nested maps without iterations
      // (map expansion's inner map over an empty part of a domain split, issue 10): their
      // propagated subsets need not lie inside the container.
      // Writes first: a domain larger than the output is the output's fault (as the embedded
      // backend says it), even where the inputs are as small as the output.
      std::set<std::string> params(me.map->params.begin(), me.map->params.end());
      if (me.exit != kNoNode)
        for (EdgeId id : st.out_edges(me.exit)) {
          const DataflowEdge& e = st.edge(id);
          edge_checks(e, true, idle_beyond(me.exit, e.src_conn, true, params));
        }
      for (EdgeId id : st.in_edges(me.id())) {
        const DataflowEdge& e = st.edge(id);
        edge_checks(e, false, idle_beyond(me.id(), e.dst_conn, false, params));
      }
      // What the body accesses, not only what the outer memlets claim: the memlets inside the
      // map over the corners of its range (a map may run past its outer memlets).
      for (EdgeId id : st.out_edges(me.id())) {
        const DataflowEdge& e = st.edge(id);
        edge_checks(e, false, idle_through(e.dst, e.dst_conn, false, params));
      }
      if (me.exit != kNoNode)
        for (EdgeId id : st.in_edges(me.exit)) {
          const DataflowEdge& e = st.edge(id);
          edge_checks(e, true, idle_through(e.src, e.src_conn, true, params));
        }
      removed_access_checks(me, where.substr(0, scope_at), checks);
      if (checks.empty()) return;
      if (g_.opts.emit_comments)
        w.line("// bounds checks of map " + me.map->label + " (outer memlets, inner memlets over its range)");
      // A map without iterations touches nothing.
      Writer guarded;
      guarded.open("if (!(" + map_empty_condition(*me.map) + ")) {");
      guarded.append(checks);
      guarded.close();
      return append_checks(guarded, w);
    }
    case NodeKind::Access: {
      // Copies to other access nodes: each end's subset by DaCe's rules (copy_subsets).
      const auto& a = static_cast<const AccessNode&>(n);
      where += "copy from '" + a.data + "'";
      for (EdgeId id : st.out_edges(a.id())) {
        const DataflowEdge& e = st.edge(id);
        auto* dst = st.node(e.dst).as<AccessNode>();
        if (!dst || e.memlet.is_empty()) continue;
        CopySubsets ends = copy_subsets(e.memlet, a.data, dst->data);
        if (ends.src)
          emit_memlet_checks(e.memlet, a.data, *ends.src, false, where, nullptr, &n, nullptr, checks);
        if (ends.dst)
          emit_memlet_checks(e.memlet, dst->data, *ends.dst, true, where, nullptr, &n, nullptr, checks);
      }
      break;
    }
    case NodeKind::Tasklet:
    case NodeKind::NestedSDFG:
    case NodeKind::Library: {
      // A nested SDFG's outer memlets here; what its body accesses is checked in its states
      // against the inner containers (whose shapes come through the symbol mapping).
      where += std::string(n.kind() == NodeKind::Tasklet      ? "tasklet '"
                           : n.kind() == NodeKind::NestedSDFG ? "nested SDFG '"
                                                              : "library node '") +
               n.label + "'";
      for (EdgeId id : st.in_edges(n.id())) edge_checks(st.edge(id), false);
      for (EdgeId id : st.out_edges(n.id())) edge_checks(st.edge(id), true);
      break;
    }
    case NodeKind::MapExit: return;
  }
  if (checks.empty()) return;
  if (g_.opts.emit_comments) w.line("// bounds checks of " + where.substr(scope_at));
  append_checks(checks, w);
}

void BoundsCheckGen::removed_access_checks(const MapEntry& me, const std::string& state_where,
                                           Writer& checks) {
  // The accesses a fusion removed from this map (the producer's outer memlets, the consumer's
  // read of the transient between them): checked as they were, before the fused map runs
  // (docs/adr/0052, 2026-12-06). Their subsets are free of the map's parameters.
  const MapInfo& m = *me.map;
  std::vector<CheckedAccess> removed;
  try {
    removed = checked_accesses(m);
  } catch (const std::invalid_argument& ex) {
    throw CodegenError(g_.ref(me), std::string("map attribute ") + ex.what());
  }
  for (const CheckedAccess& a : removed) {
    DataDescriptor d = DataDescriptor::make_array(ScalarType::Float64, a.shape, true);
    if (!a.offset.empty()) d.offset = a.offset;
    if (!a.dims.empty()) set_field_dims(d, a.dims);  // named as before the fusion removed it
    Memlet mem = Memlet::simple(a.data, a.subset);
    if (!a.debuginfo.empty()) mem.extra.set("debuginfo", a.debuginfo);
    std::string where =
        state_where + (a.scope.empty() ? "a scope" : a.scope) + " (fused into map '" + m.label + "')";
    emit_memlet_checks(mem, a.data, a.subset, a.write, where, nullptr, nullptr, nullptr, checks, &d);
  }
}

void BoundsCheckGen::append_checks(const Writer& checks, Writer& w) {
  // The checks of a top-level state repeat with the state: every step of a time loop. When they
  // read nothing but symbols (the prelude's helpers aside), their outcome is a function of the
  // symbols' values, so a state that runs again with the values of its last passing checks
  // skips them (per thread: the cache is thread_local, never shared between concurrent runs).
  // What the checks may call besides symbols: the prelude's pure functions (expr_to_cpp.cpp's,
  // the checks').
  // (A nested SDFG's states check with weir_bounds_ok, which records a violation and returns;
  // they are not cached, below.)
  static const std::set<std::string> kPure{"if",           "int64_t",  "weir_check_bounds", "weir_dim",
                                           "weir_in",      "weir_min", "weir_max",          "weir_floordiv",
                                           "weir_ceildiv", "weir_mod", "weir_iabs",         "weir_bounds_ok",
                                           "return"};
  // Only symbols that stay the same between executions are worth a key: in a nested SDFG,
  // whose states run per point of the map around it, a key on its loop variables would miss
  // every time and only add the thread-local accesses (deriche's per-column recurrences).
  // Checks that were all compiled away need no cache.
  // The same holds at the top level: symbols assigned on interstate edges or loop variables
  // change between executions of the state (spmv's row bounds), so checks that read them run
  // inline. And a cache costs a thread-local lookup (__tls_get_addr in a shared library, several
  // nanoseconds) per execution: checks of fewer than kCachedChecks dimensions, a few compares
  // each, run inline (spmv's frontend stage spent 15% of its time in __tls_get_addr).
  // A nested SDFG's states never cache: they run per point of the map around them or per step
  // of a loop inside it, so the lookup is paid per point, while their checks are compares of
  // values that stay in registers. syrk's frontend after --auto cpu (a state per i and k whose
  // checks, keyed on the mapped symbol i, hit M - 1 times of M): 0.038 -> 0.031 ms per call
  // without the cache, as fast as DaCe's auto-optimized file (issue 37, ADR 0053).
  constexpr std::size_t kCachedChecks = 8;
  const std::string text = checks.str();
  std::vector<std::string> names;
  // Each checked dimension is one weir_in test of a weir_check_bounds / weir_bounds_ok line.
  // thread_local: host code only, top-level states only (above).
  bool cacheable = !g_.device_code() && sg.top_level && checked_dims_ >= kCachedChecks;
  if (cacheable) {
    std::set<std::string> symbols;
    std::set<std::string> local(sg.local_symbols.begin(), sg.local_symbols.end());
    for (const auto& [name, type] : sg.symbols)
      if (!sg.sdfg.arrays.count(name) && !dynamic_inputs_.count(name) && !local.count(name))
        symbols.insert(cpp_ident(name));
    for (const std::string& id : cpp_identifiers(text)) {
      if (kPure.count(id)) continue;
      if (!symbols.count(id)) {
        cacheable = false;
        break;
      }
      names.push_back(id);
    }
  }
  if (!cacheable) return w.append(checks);
  w.open("{");
  w.line("static thread_local bool weir_checked = false;");
  std::string same = "weir_checked";
  std::string remember = "weir_checked = true;";
  for (const std::string& n : names) {
    w.line("static thread_local std::decay_t<decltype(" + n + ")> weir_checked_" + n + "{};");
    same += " && weir_checked_" + n + " == " + n;
    remember += " weir_checked_" + n + " = " + n + ";";
  }
  w.open("if (!(" + same + ")) {");
  w.append(checks);
  w.line(remember);
  w.close();
  w.close();
}

void BoundsCheckGen::index_checks(const Tasklet& t, const std::string& conn, const Location& loc,
                                  PyVar& v) const {
  if (!opts.bounds_checks || loc.data.empty() || loc.binding->scalar) return;
  for (const Range& r : loc.subset.ranges())
    if (!(r.step.is_integer() && r.step.value() == 1)) return;
  auto sizes = loc.subset.size();
  if (sizes.size() != v.strides.size()) return;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    v.extents.push_back("(" + sym_cpp(sizes[k]) + ")");
    v.extent_values.push_back(sizes[k].is_integer() ? std::optional<long long>(sizes[k].value())
                                                    : std::nullopt);
    v.extent_dims.push_back(spanned_dimension(sg.sdfg, loc, k));
    if (!(sizes[k].is_integer() && sizes[k].value() == 1)) {
      v.squeezed_extents.push_back(v.extents.back());
      v.squeezed_extent_values.push_back(v.extent_values.back());
      v.squeezed_extent_dims.push_back(v.extent_dims.back());
    }
  }
  std::string path = st.path();
  std::string site = (sg.top_level ? "" : "nested SDFG '" + sg.sdfg.name + "', ") + "state '" +
                     (path.empty() ? st.label : path) + "', ";
  NodeId scope = t.id() < g_.scopes_.parent.size() ? g_.scopes_.parent[t.id()] : kNoNode;
  if (scope != kNoNode)
    if (auto* e = st.node(scope).as<MapEntry>()) site += "map '" + e->map->label + "', ";
  // The source line first: the read's memlet debuginfo (the lowering's), else the tasklet's.
  std::string at;
  for (EdgeId id : st.in_edges_by_connector(t.id(), conn))
    if (at.empty()) at = debuginfo_location(st.edge(id).memlet.extra);
  if (at.empty()) at = debuginfo_location(t.extra);
  // With a source line the error names the field there, and the SDFG's names after it (the
  // lowering's connectors and labels, `__all_f`, `..._part3`, mean nothing in the program).
  if (at.empty()) {
    v.check_site = site + "tasklet '" + t.label + "': connector '" + conn + "' of '" + loc.data + "'";
  } else {
    v.check_site = at + ": a read of '" + loc.data + "'";
    v.check_detail = site + "tasklet '" + t.label + "', connector '" + conn + "'";
  }
  for (const Frame& f : g_.frames_)
    for (const auto& [name, type] : f.symbols)
      if (is_ascii_identifier(cpp_ident(name))) v.check_point.push_back(cpp_ident(name));
  // Extents of the call's symbols only (never assigned in the body): an entry check of a table
  // in weir_run compares with the same values (docs/adr/0051).
  v.extents_at_entry = sg.top_level;
  for (const auto& size : sizes)
    for (const auto& s : size.free_symbols())
      if (!sg.init_symbols.count(s) || sg.assigned_symbols.count(s) || sg.sdfg.arrays.count(s) ||
          dynamic_inputs_.count(s))
        v.extents_at_entry = false;
}

void BoundsCheckGen::value_origin(const DataflowEdge& e, ScalarType type, PyVar& v) const {
  const bool integer = type >= ScalarType::Int8 && type <= ScalarType::UInt64;
  if (!opts.bounds_checks || e.memlet.is_empty() || !integer) return;
  // The enclosing maps' parameters as the error's map point names them: the field-view
  // lowering's `__Edge` is Edge (`E2V[Edge, 1]` beside "at (Edge=7, K=0)").
  std::map<std::string, sym::Expr> shown;
  for (const Frame& f : g_.frames_)
    for (const auto& [name, type] : f.symbols)
      if (name.rfind("__", 0) == 0 && name.size() > 2) shown[name] = sym::Expr::symbol(name.substr(2));
  v.origin = e.memlet.data + "[" + e.memlet.subset.subs(shown).str() + "]";
  v.origin_at = debuginfo_location(e.memlet.extra);
  if (sg.prog.entry_checked_tables.count(e.memlet.data)) v.table = e.memlet.data;
}

}  // namespace weir::codegen::detail
