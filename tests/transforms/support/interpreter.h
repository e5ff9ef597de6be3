// The reference interpreter of the transformation tests and of the SDFG-level differential
// tests (tests/sdfgdiff/): an executor written independently of weir's code generator, that
// walks the SDFG and moves doubles.
//
// Supports: control-flow regions of states joined by interstate edges (conditions, integer
// assignments applied in order), LoopRegions and ConditionalBlocks; access nodes of arrays,
// scalars and views (a view aliases its viewed container through the `views` edge, or the only
// edge to/from another access node, with its own strides); copies between access nodes
// following DaCe's memlet rules (below); maps over integer ranges (nested, positive steps);
// tasklets with Python statements `out = expr` in Python's meaning (tasklet_eval.h: bools,
// exact int64 ints and floats by the containers' types, refused where CPython raises); nested SDFGs
// (connectors alias the outer subset's first element with the inner descriptor's strides; symbols from
// `symbol_mapping`; inner transients fresh per call); write-conflict resolution by any lambda
// expr_eval.h can evaluate (`lambda a, b: a + b`, `min(a, b)`, ...). Anything else throws
// std::runtime_error so a test cannot silently pass on something it did not run.
//
// Copies (DaCe's Memlet): `subset` indexes `data`, `other_subset` the container at the other end.
// When `data` names only one end of the edge, that decides which end `subset` is on (and an
// `is_data_src` that says otherwise is an error). When both ends are the same container
// (`p -> p`), `is_data_src` decides (unset: `subset` is the source). A missing `other_subset`
// means the whole other container. A copy reads all of its source before it writes (as NumPy
// does for overlapping slices); points of source and destination pair up in row-major order,
// ranges with negative steps run backwards.
#pragma once

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "expr_eval.h"
#include "tasklet_eval.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/symbolic.h"

namespace weir::test {

using Symbols = std::map<std::string, long long>;
using Arrays = std::map<std::string, std::vector<double>>;

class Interpreter {
 public:
  /// Allocates every top-level container (views excepted) with `symbols` as sizes. With
  /// `poison_transients`, transients start as NaN so that reading one before writing it shows.
  Interpreter(const SDFG& sdfg, Symbols symbols, bool poison_transients = false)
      : sdfg_(sdfg), poison_(poison_transients) {
    top_.sdfg = &sdfg;
    top_.syms = std::move(symbols);
    for (const auto& [name, d] : sdfg.arrays) {
      if (d.is_view()) continue;
      Ref r = layout(d, top_.syms);
      double init = d.transient && poison_ ? std::numeric_limits<double>::quiet_NaN() : 0.0;
      mem[name].assign(static_cast<std::size_t>(extent(r)), init);
    }
    for (auto& [name, buf] : mem) {
      Ref r = layout(sdfg.data(name), top_.syms);
      r.buf = &buf;
      top_.refs[name] = r;
    }
  }

  /// Fills every non-transient container with seeded random small integers.
  void randomize(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(-9, 9);
    for (const auto& [name, d] : sdfg_.arrays)
      if (!d.transient && !d.is_view())
        for (double& v : mem[name]) v = dist(rng);
  }

  void run() { run_region(sdfg_, top_); }

  /// Top-level containers, flat in their descriptors' strides.
  Arrays mem;

 private:
  struct Ref {
    std::vector<double>* buf = nullptr;
    long long base = 0;
    std::vector<long long> shape, strides;
    bool scalar = false;
  };
  struct Frame {
    const SDFG* sdfg = nullptr;
    Symbols syms;
    std::map<std::string, Ref> refs;
    std::deque<std::vector<double>> owned;  // transients of a nested SDFG call
  };

  const SDFG& sdfg_;
  bool poison_;
  Frame top_;

  [[noreturn]] static void fail(const std::string& m) { throw std::runtime_error("interpreter: " + m); }

  static long long ev(const sym::Expr& e, const Symbols& env) { return e.evaluate(env); }
  static bool truth(const std::string& code, const Symbols& env) {
    return sym::Expr::parse(code).evaluate(env) != 0;
  }

  static Ref layout(const DataDescriptor& d, const Symbols& env) {
    Ref r;
    r.scalar = d.kind == DataKind::Scalar;
    if (r.scalar) {
      r.shape = {1};
      r.strides = {1};
      return r;
    }
    for (const auto& e : d.shape) r.shape.push_back(ev(e, env));
    auto strides = d.strides.empty() ? DataDescriptor::row_major_strides(d.shape) : d.strides;
    for (const auto& e : strides) r.strides.push_back(ev(e, env));
    return r;
  }
  static long long extent(const Ref& r) {
    long long n = 1;
    for (std::size_t k = 0; k < r.shape.size(); ++k) {
      if (r.shape[k] <= 0) return 0;
      n += (r.shape[k] - 1) * r.strides[k];
    }
    return n;
  }

  /// The element `idx` of `data` in frame `f`, bounds-checked against shape and storage.
  double& at(Frame& f, const std::string& data, const std::vector<long long>& idx) {
    auto it = f.refs.find(data);
    if (it == f.refs.end()) fail("container '" + data + "' is not available here");
    const Ref& r = it->second;
    long long off = r.base;
    if (r.scalar) {
      for (long long i : idx)
        if (i != 0) fail("scalar '" + data + "' indexed");
    } else {
      if (idx.size() != r.shape.size()) fail("wrong index rank for '" + data + "'");
      for (std::size_t k = 0; k < idx.size(); ++k) {
        if (idx[k] < 0 || idx[k] >= r.shape[k])
          fail("index " + std::to_string(idx[k]) + " out of bounds for '" + data + "'");
        off += idx[k] * r.strides[k];
      }
    }
    if (off < 0 || off >= static_cast<long long>(r.buf->size()))
      fail("offset outside the storage of '" + data + "'");
    return (*r.buf)[static_cast<std::size_t>(off)];
  }

  static std::vector<long long> point(const Subset& s, const Symbols& env) {
    std::vector<long long> p;
    for (const Range& r : s.ranges()) {
      long long a = ev(r.start, env), b = ev(r.end, env);
      if (a != b) fail("tasklet memlet is not a single element: " + s.str());
      p.push_back(a);
    }
    return p;
  }

  /// All points of a subset in row-major order (negative steps run from start down to end).
  static std::vector<std::vector<long long>> points(const Subset& s, const Symbols& env) {
    std::vector<std::vector<long long>> out{{}};
    for (const Range& r : s.ranges()) {
      std::vector<std::vector<long long>> next;
      long long a = ev(r.start, env), b = ev(r.end, env), st = ev(r.step, env);
      if (st == 0) fail("zero step in " + s.str());
      for (const auto& p : out)
        for (long long v = a; st > 0 ? v <= b : v >= b; v += st) {
          auto q = p;
          q.push_back(v);
          next.push_back(q);
        }
      out = next;
    }
    return out;
  }

  /// `var = expr` (a loop's init and update statements); empty text does nothing.
  static void assign(const std::string& stmt, Symbols& env) {
    if (stmt.find_first_not_of(" \t\n;") == std::string::npos) return;
    std::size_t eq = std::string::npos;
    for (std::size_t k = 0; k < stmt.size(); ++k)
      if (stmt[k] == '=' && (k + 1 >= stmt.size() || stmt[k + 1] != '=') &&
          (k == 0 || std::string("<>!=").find(stmt[k - 1]) == std::string::npos)) {
        eq = k;
        break;
      }
    if (eq == std::string::npos) fail("not an assignment: " + stmt);
    std::string lhs = stmt.substr(0, eq);
    lhs.erase(0, lhs.find_first_not_of(" \t"));
    lhs.erase(lhs.find_last_not_of(" \t") + 1);
    env[lhs] = sym::Expr::parse(stmt.substr(eq + 1)).evaluate(env);
  }

  // --- control flow ----------------------------------------------------------------------

  void run_block(const ControlFlowBlock& b, Frame& f) {
    if (const auto* st = b.as<SDFGState>()) return run_state(*st, f);
    if (const auto* loop = b.as<LoopRegion>()) return run_loop(*loop, f);
    if (const auto* c = b.as<ConditionalBlock>()) {
      for (const auto& br : c->branches())
        if (!br.condition || truth(br.condition->code, f.syms)) return run_region(*br.body, f);
      return;
    }
    if (b.kind() == BlockKind::Region) return run_region(static_cast<const ControlFlowRegion&>(b), f);
    fail("unsupported control-flow block " + std::string(to_string(b.kind())));
  }

  void run_region(const ControlFlowRegion& r, Frame& f) {
    BlockId cur = r.start_block();
    long steps = 0;
    while (cur != kNoBlock) {
      if (++steps > 100000) fail("too many steps");
      run_block(r.block(cur), f);
      BlockId next = kNoBlock;
      for (const ControlFlowEdge* e : r.out_edges(cur)) {
        if (!e->data.is_unconditional() && !truth(e->data.condition.code, f.syms)) continue;
        for (const auto& [k, v] : e->data.assignments) f.syms[k] = sym::Expr::parse(v.code).evaluate(f.syms);
        next = e->dst;
        break;
      }
      cur = next;
    }
  }

  void run_loop(const LoopRegion& l, Frame& f) {
    assign(l.init_statement.code, f.syms);
    long iters = 0;
    auto cond = [&] { return truth(l.loop_condition.code.empty() ? "1" : l.loop_condition.code, f.syms); };
    if (!l.inverted && !cond()) return;
    while (true) {
      if (++iters > 100000) fail("too many loop iterations");
      run_region(l, f);
      if (l.inverted && !l.update_before_condition) {
        if (!cond()) return;
        assign(l.update_statement.code, f.syms);
      } else {
        assign(l.update_statement.code, f.syms);
        if (!cond()) return;
      }
    }
  }

  // --- dataflow ----------------------------------------------------------------------------

  /// The edge that defines view node `v` (as the code generator finds it).
  static const DataflowEdge* view_edge(const SDFGState& st, const AccessNode& v) {
    for (EdgeId id : st.in_edges(v.id()))
      if (st.edge(id).dst_conn == "views") return &st.edge(id);
    for (EdgeId id : st.out_edges(v.id()))
      if (st.edge(id).src_conn == "views") return &st.edge(id);
    const auto& ins = st.in_edges(v.id());
    if (ins.size() == 1 && st.node(st.edge(ins[0]).src).kind() == NodeKind::Access) return &st.edge(ins[0]);
    const auto& outs = st.out_edges(v.id());
    if (outs.size() == 1 && st.node(st.edge(outs[0]).dst).kind() == NodeKind::Access)
      return &st.edge(outs[0]);
    return nullptr;
  }

  void run_state(const SDFGState& st, Frame& f) {
    // Views first: each aliases the first element of the viewed subset.
    std::vector<std::string> bound;
    std::set<EdgeId> view_edges;
    std::vector<const AccessNode*> views;
    for (Node* n : st.nodes())
      if (auto* a = n->as<AccessNode>(); a && f.sdfg->data(a->data).is_view()) views.push_back(a);
    for (std::size_t round = 0; round <= views.size(); ++round)
      for (const AccessNode* v : views) {
        const DataflowEdge* e = view_edge(st, *v);
        if (!e) fail("cannot tell which container view '" + v->data + "' views");
        const auto& other = st.node(e->src == v->id() ? e->dst : e->src);
        const auto* oa = other.as<AccessNode>();
        if (!oa) fail("view '" + v->data + "' defined through a scope node");
        if (!f.refs.count(oa->data)) continue;  // a view of a view bound later
        Subset sub;
        if (e->memlet.data == oa->data)
          sub = e->memlet.subset;
        else if (e->memlet.other_subset)
          sub = *e->memlet.other_subset;
        else
          sub = Subset(std::vector<Range>(f.refs.at(oa->data).shape.size(), Range::index(0)));
        Ref r = layout(f.sdfg->data(v->data), f.syms);
        const Ref& o = f.refs.at(oa->data);
        r.buf = o.buf;
        r.base = o.base;
        for (std::size_t k = 0; k < sub.dims() && k < o.strides.size(); ++k) {
          long long a = ev(sub[k].start, f.syms), b = ev(sub[k].end, f.syms);
          r.base += std::min(a, b) * o.strides[k];
        }
        auto [pos, fresh] = f.refs.emplace(v->data, r);
        if (!fresh && (pos->second.buf != r.buf || pos->second.base != r.base)) {
          if (std::find(bound.begin(), bound.end(), v->data) != bound.end())
            fail("view '" + v->data + "' views two places in one state");
          pos->second = r;
        }
        if (std::find(bound.begin(), bound.end(), v->data) == bound.end()) bound.push_back(v->data);
        view_edges.insert(e->id);
      }
    for (const AccessNode* v : views)
      if (!view_edges.count(view_edge(st, *v)->id))
        fail("view '" + v->data + "': viewed container not available");
    ScopeTree tree = st.scope_tree();
    std::vector<NodeId> topo = st.topological_order();
    run_scope(st, tree, topo, kNoNode, f.syms, f, view_edges);
    for (const auto& v : bound) f.refs.erase(v);
  }

  void run_scope(const SDFGState& st, const ScopeTree& tree, const std::vector<NodeId>& topo, NodeId scope,
                 const Symbols& env, Frame& f, const std::set<EdgeId>& view_edges) {
    for (NodeId n : topo) {
      if (tree.parent[n] != scope) continue;
      const Node& node = st.node(n);
      if (const auto* me = node.as<MapEntry>()) {
        run_map(st, tree, topo, *me, env, 0, f, view_edges);
      } else if (const auto* t = node.as<Tasklet>()) {
        run_tasklet(st, *t, env, f);
      } else if (const auto* ns = node.as<NestedSDFGNode>()) {
        run_nested(st, *ns, env, f);
      } else if (const auto* a = node.as<AccessNode>()) {
        // A local copy at a scope's edge (outer container -> buffer inside the scope), then
        // copies to other access nodes and back out of the scope.
        for (EdgeId id : st.in_edges(n)) {
          const DataflowEdge& e = st.edge(id);
          if (e.memlet.is_empty() || view_edges.count(id) || st.node(e.src).kind() != NodeKind::MapEntry)
            continue;
          const auto* outer = st.node(st.edge(st.memlet_path(id).front()).src).as<AccessNode>();
          if (outer && outer->data != a->data) copy(outer->data, a->data, e.memlet, env, f);
        }
        for (EdgeId id : st.out_edges(n)) {
          const DataflowEdge& e = st.edge(id);
          if (e.memlet.is_empty() || view_edges.count(id)) continue;
          if (const auto* b = st.node(e.dst).as<AccessNode>()) {
            copy(a->data, b->data, e.memlet, env, f);
          } else if (st.node(e.dst).kind() == NodeKind::MapExit) {
            const auto* outer = st.node(st.edge(st.memlet_path(id).back()).dst).as<AccessNode>();
            if (outer && outer->data != a->data) copy(a->data, outer->data, e.memlet, env, f);
          }
        }
      } else if (!node.as<MapExit>()) {
        fail("unsupported node " + std::string(to_string(node.kind())));
      }
    }
  }

  void run_map(const SDFGState& st, const ScopeTree& tree, const std::vector<NodeId>& topo,
               const MapEntry& me, const Symbols& env, std::size_t dim, Frame& f,
               const std::set<EdgeId>& view_edges) {
    if (dim == me.map->params.size()) {
      run_scope(st, tree, topo, me.id(), env, f, view_edges);
      return;
    }
    const Range& r = me.map->range[dim];
    long long a = ev(r.start, env), b = ev(r.end, env), s = ev(r.step, env);
    if (s <= 0) fail("non-positive map step");
    for (long long v = a; v <= b; v += s) {
      Symbols inner = env;
      inner[me.map->params[dim]] = v;
      run_map(st, tree, topo, me, inner, dim + 1, f, view_edges);
    }
  }

  /// `old` combined with `value` by the lambda text `wcr` (empty: plain write).
  static double combine(const std::string& wcr, double old, double value) {
    if (wcr.empty()) return value;
    auto colon = wcr.find(':');
    auto lam = wcr.find("lambda");
    if (lam == std::string::npos || colon == std::string::npos) fail("unsupported wcr " + wcr);
    std::string params = wcr.substr(lam + 6, colon - lam - 6);
    auto comma = params.find(',');
    if (comma == std::string::npos) fail("unsupported wcr " + wcr);
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t") + 1);
      return s;
    };
    std::map<std::string, double> vars{{trim(params.substr(0, comma)), old},
                                       {trim(params.substr(comma + 1)), value}};
    std::string body = wcr.substr(colon + 1);
    return ExprEval(body, vars).run();
  }

  void copy(const std::string& src, const std::string& dst, const Memlet& m, const Symbols& env, Frame& f) {
    if (m.is_empty()) return;
    bool subset_is_src;
    if (m.data == src && m.data == dst)
      subset_is_src = m.is_data_src.value_or(true);
    else if (m.data == src)
      subset_is_src = true;
    else if (m.data == dst)
      subset_is_src = false;
    else
      fail("copy memlet names '" + m.data + "', neither '" + src + "' nor '" + dst + "'");
    if (m.is_data_src && *m.is_data_src != subset_is_src)
      fail("copy " + src + " -> " + dst + ": is_data_src contradicts the memlet's data '" + m.data + "'");
    const std::string& other = subset_is_src ? dst : src;
    Subset other_sub;
    if (m.other_subset) {
      other_sub = *m.other_subset;
    } else {
      auto it = f.refs.find(other);
      if (it == f.refs.end()) fail("container '" + other + "' is not available here");
      std::vector<Range> rs;
      if (!it->second.scalar)
        for (long long n : it->second.shape) rs.push_back(Range(0, n - 1));
      else
        rs.push_back(Range::index(0));
      other_sub = Subset(rs);
    }
    const Subset& ssub = subset_is_src ? m.subset : other_sub;
    const Subset& dsub = subset_is_src ? other_sub : m.subset;
    auto ps = points(ssub, env), pd = points(dsub, env);
    if (ps.size() != pd.size())
      fail("copy " + src + "[" + ssub.str() + "] -> " + dst + "[" + dsub.str() + "] of different sizes");
    std::vector<double> values;
    for (const auto& p : ps) values.push_back(at(f, src, p));
    for (std::size_t k = 0; k < pd.size(); ++k) {
      double& d = at(f, dst, pd[k]);
      d = combine(m.wcr, d, values[k]);
    }
  }

  static bool is_integer_type(ScalarType t) {
    switch (t) {
      case ScalarType::Int8:
      case ScalarType::Int16:
      case ScalarType::Int32:
      case ScalarType::Int64:
      case ScalarType::UInt8:
      case ScalarType::UInt16:
      case ScalarType::UInt32:
      case ScalarType::UInt64: return true;
      default: return false;
    }
  }

  /// A container element as the Python value a tasklet reads: a bool, an int or a float by the
  /// container's type (an integer container poisoned with NaN reads as NaN, so that a read of
  /// an unwritten transient still shows).
  static PyValue load(double v, ScalarType t) {
    if (t == ScalarType::Bool) return PyValue::boolean(v != 0.0);
    if (is_integer_type(t) && !std::isnan(v)) return PyValue::integer(static_cast<std::int64_t>(v));
    return PyValue::real(v);
  }

  /// `v` stored into an element of type `t` (NumPy's conversion: a float into an integer
  /// container truncates), as the double this interpreter keeps. Refuses what it cannot keep
  /// exactly: an integer beyond 2**53, a NaN or infinite float into an integer container.
  static double store(const PyValue& v, ScalarType t, const std::string& where) {
    if (t == ScalarType::Bool) return v.truthy() ? 1.0 : 0.0;
    if (is_integer_type(t)) {
      std::int64_t i = v.i;
      if (v.is_float()) {
        if (!std::isfinite(v.f) || std::fabs(v.f) >= 9007199254740992.0)
          fail("float " + std::to_string(v.f) + " stored into the integer container " + where);
        i = static_cast<std::int64_t>(v.f);
      }
      if (i > (std::int64_t{1} << 53) || i < -(std::int64_t{1} << 53))
        fail("integer " + std::to_string(i) + " in " + where +
             " is beyond what this interpreter keeps exactly");
      return static_cast<double>(i);
    }
    if (t == ScalarType::Float32) return static_cast<double>(static_cast<float>(v.as_double()));
    return v.as_double();
  }

  void run_tasklet(const SDFGState& st, const Tasklet& t, const Symbols& env, Frame& f) {
    if (t.code.language != Language::Python) fail("tasklet '" + t.label + "' is not Python");
    std::map<std::string, PyValue> vars;
    for (const auto& [k, v] : env) vars[k] = PyValue::integer(v);
    for (EdgeId e : st.in_edges(t.id())) {
      const DataflowEdge& d = st.edge(e);
      if (d.memlet.is_empty() || d.dst_conn.empty()) continue;
      vars[d.dst_conn] =
          load(at(f, d.memlet.data, point(d.memlet.subset, env)), f.sdfg->data(d.memlet.data).dtype.base);
    }
    TaskletEval(vars).run(t.code.code);
    for (EdgeId e : st.out_edges(t.id())) {
      const DataflowEdge& d = st.edge(e);
      if (d.memlet.is_empty() || d.src_conn.empty()) continue;
      if (!vars.count(d.src_conn)) fail("output '" + d.src_conn + "' not assigned");
      double& dst = at(f, d.memlet.data, point(d.memlet.subset, env));
      dst = combine(d.memlet.wcr, dst,
                    store(vars[d.src_conn], f.sdfg->data(d.memlet.data).dtype.base, d.memlet.data));
    }
  }

  void run_nested(const SDFGState& st, const NestedSDFGNode& ns, const Symbols& env, Frame& f) {
    Frame inner;
    inner.sdfg = ns.sdfg.get();
    for (const auto& [k, e] : ns.symbol_mapping) inner.syms[k] = ev(e, env);
    auto bind = [&](const std::string& conn, const Memlet& m) {
      if (m.is_empty() || conn.empty()) return;
      auto it = f.refs.find(m.data);
      if (it == f.refs.end()) fail("container '" + m.data + "' is not available here");
      const Ref& o = it->second;
      Ref r = layout(inner.sdfg->data(conn), inner.syms);
      r.buf = o.buf;
      r.base = o.base;
      for (std::size_t k = 0; k < m.subset.dims() && k < o.strides.size(); ++k) {
        long long a = ev(m.subset[k].start, env), b = ev(m.subset[k].end, env);
        r.base += std::min(a, b) * o.strides[k];
      }
      auto [pos, fresh] = inner.refs.emplace(conn, r);
      if (!fresh && (pos->second.buf != r.buf || pos->second.base != r.base))
        fail("nested SDFG '" + ns.label + "': connector '" + conn + "' bound to two places");
    };
    for (EdgeId id : st.in_edges(ns.id())) bind(st.edge(id).dst_conn, st.edge(id).memlet);
    for (EdgeId id : st.out_edges(ns.id())) bind(st.edge(id).src_conn, st.edge(id).memlet);
    for (const auto& [name, d] : inner.sdfg->arrays) {
      if (inner.refs.count(name) || d.is_view()) continue;
      if (!d.transient) fail("nested SDFG '" + ns.label + "': container '" + name + "' is not connected");
      Ref r = layout(d, inner.syms);
      inner.owned.emplace_back(static_cast<std::size_t>(extent(r)),
                               poison_ ? std::numeric_limits<double>::quiet_NaN() : 0.0);
      r.buf = &inner.owned.back();
      inner.refs[name] = r;
    }
    run_region(*inner.sdfg, inner);
  }
};

/// Runs `sdfg` on seeded random inputs; returns the final contents of non-transient containers.
inline Arrays run_program(const SDFG& sdfg, const Symbols& symbols, unsigned seed) {
  Interpreter in(sdfg, symbols);
  in.randomize(seed);
  in.run();
  Arrays out;
  for (const auto& [name, d] : sdfg.arrays)
    if (!d.transient && !d.is_view()) out[name] = in.mem[name];
  return out;
}

}  // namespace weir::test
