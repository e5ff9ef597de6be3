// A tiny reference interpreter for the small SDFGs of the transformation tests, used to check
// that a transformation keeps a program's meaning until the CPU backend can run them.
//
// Supports: plain states joined by interstate edges (conditions and integer assignments),
// access nodes of arrays/scalars (row-major, element type ignored: values are doubles),
// access-node-to-access-node copies, maps over integer ranges (nested, any step), tasklets with
// Python statements `out = expr` (+ - * / // % **, parentheses, min/max/abs, numbers, input
// connectors and symbols), and `lambda a, b: a + b` write-conflict resolution. Anything else
// throws std::runtime_error so a test cannot silently pass on something it did not run.
#pragma once

#include <cctype>
#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/symbolic.h"

namespace weir::test {

using Symbols = std::map<std::string, long long>;
using Arrays = std::map<std::string, std::vector<double>>;

/// Evaluates a Python arithmetic expression over doubles.
class ExprEval {
 public:
  ExprEval(const std::string& text, const std::map<std::string, double>& vars) : s_(text), vars_(vars) {}
  double run() {
    double v = expr();
    skip();
    if (i_ != s_.size()) fail("unexpected text");
    return v;
  }

 private:
  const std::string& s_;
  const std::map<std::string, double>& vars_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const std::string& m) const {
    throw std::runtime_error("interpreter: " + m + " at " + std::to_string(i_) + " in '" + s_ + "'");
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(const std::string& t) {
    skip();
    if (s_.compare(i_, t.size(), t) == 0) {
      i_ += t.size();
      return true;
    }
    return false;
  }
  double expr() {
    double v = term();
    while (true) {
      if (eat("+")) v += term();
      else if (eat("-")) v -= term();
      else return v;
    }
  }
  double term() {
    double v = unary();
    while (true) {
      skip();
      if (s_.compare(i_, 2, "**") == 0) return v;  // handled in power
      if (eat("//")) {
        double d = unary();
        if (d == 0) fail("division by zero");
        v = std::floor(v / d);
      } else if (eat("*")) {
        v *= unary();
      } else if (eat("/")) {
        double d = unary();
        if (d == 0) fail("division by zero");
        v /= d;
      } else if (eat("%")) {
        double d = unary();
        if (d == 0) fail("modulo by zero");
        v = v - std::floor(v / d) * d;
      } else {
        return v;
      }
    }
  }
  double unary() {
    if (eat("-")) return -unary();
    if (eat("+")) return unary();
    return power();
  }
  double power() {
    double b = atom();
    if (eat("**")) return std::pow(b, unary());
    return b;
  }
  double atom() {
    skip();
    if (eat("(")) {
      double v = expr();
      if (!eat(")")) fail("missing ')'");
      return v;
    }
    if (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) {
      std::size_t j = i_;
      while (j < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[j])) || s_[j] == '.' || s_[j] == 'e')) ++j;
      double v = std::stod(s_.substr(i_, j - i_));
      i_ = j;
      return v;
    }
    if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) {
      std::size_t j = i_;
      while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_')) ++j;
      std::string name = s_.substr(i_, j - i_);
      i_ = j;
      if (eat("(")) {
        std::vector<double> args{expr()};
        while (eat(",")) args.push_back(expr());
        if (!eat(")")) fail("missing ')'");
        if ((name == "min" || name == "Min") && !args.empty()) {
          double v = args[0];
          for (double a : args) v = std::min(v, a);
          return v;
        }
        if ((name == "max" || name == "Max") && !args.empty()) {
          double v = args[0];
          for (double a : args) v = std::max(v, a);
          return v;
        }
        if (name == "abs" && args.size() == 1) return std::fabs(args[0]);
        fail("unknown function '" + name + "'");
      }
      auto it = vars_.find(name);
      if (it == vars_.end()) fail("unknown name '" + name + "'");
      return it->second;
    }
    fail("expected a value");
  }
};

class Interpreter {
 public:
  Interpreter(const SDFG& sdfg, Symbols symbols) : sdfg_(sdfg), syms_(std::move(symbols)) {
    for (const auto& [name, d] : sdfg.arrays) {
      long long n = 1;
      for (const auto& e : d.shape) n *= e.evaluate(syms_);
      mem[name].assign(static_cast<std::size_t>(n), 0.0);
    }
  }

  /// Fills every non-transient container with seeded random small integers.
  void randomize(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(-9, 9);
    for (const auto& [name, d] : sdfg_.arrays)
      if (!d.transient)
        for (double& v : mem[name]) v = dist(rng);
  }

  void run() {
    const ControlFlowRegion& r = sdfg_;
    BlockId cur = r.start_block();
    long steps = 0;
    while (cur != kNoBlock) {
      if (++steps > 100000) throw std::runtime_error("interpreter: too many steps");
      const ControlFlowBlock& b = r.block(cur);
      const auto* st = b.as<SDFGState>();
      if (!st) throw std::runtime_error("interpreter: only states are supported, found " + std::string(to_string(b.kind())));
      run_state(*st);
      BlockId next = kNoBlock;
      for (const ControlFlowEdge* e : r.out_edges(cur)) {
        if (!e->data.is_unconditional() && sym::Expr::parse(e->data.condition.code).evaluate(syms_) == 0) continue;
        for (const auto& [k, v] : e->data.assignments) syms_[k] = sym::Expr::parse(v).evaluate(syms_);
        next = e->dst;
        break;
      }
      cur = next;
    }
  }

  Arrays mem;

 private:
  const SDFG& sdfg_;
  Symbols syms_;

  std::size_t flat(const std::string& data, const std::vector<long long>& idx) const {
    const DataDescriptor& d = sdfg_.data(data);
    if (d.kind == DataKind::Scalar) {
      for (long long i : idx)
        if (i != 0) throw std::runtime_error("interpreter: scalar '" + data + "' indexed");
      return 0;
    }
    if (idx.size() != d.shape.size()) throw std::runtime_error("interpreter: wrong index rank for '" + data + "'");
    std::size_t f = 0;
    for (std::size_t k = 0; k < idx.size(); ++k) {
      long long n = d.shape[k].evaluate(syms_);
      if (idx[k] < 0 || idx[k] >= n)
        throw std::runtime_error("interpreter: index " + std::to_string(idx[k]) + " out of bounds for '" + data + "'");
      f = f * static_cast<std::size_t>(n) + static_cast<std::size_t>(idx[k]);
    }
    return f;
  }

  std::vector<long long> point(const Subset& s, const Symbols& env) const {
    std::vector<long long> p;
    for (const Range& r : s.ranges()) {
      long long a = r.start.evaluate(env), b = r.end.evaluate(env);
      if (a != b) throw std::runtime_error("interpreter: tasklet memlet is not a single element: " + s.str());
      p.push_back(a);
    }
    return p;
  }

  /// All points of a subset in row-major order.
  std::vector<std::vector<long long>> points(const Subset& s, const Symbols& env) const {
    std::vector<std::vector<long long>> out{{}};
    for (const Range& r : s.ranges()) {
      std::vector<std::vector<long long>> next;
      long long a = r.start.evaluate(env), b = r.end.evaluate(env), st = r.step.evaluate(env);
      if (st == 0) throw std::runtime_error("interpreter: subset step 0: " + s.str());
      for (const auto& p : out)
        for (long long v = a; st > 0 ? v <= b : v >= b; v += st) {  // DaCe's inclusive ends, either direction
          auto q = p;
          q.push_back(v);
          next.push_back(q);
        }
      out = next;
    }
    return out;
  }

  void run_state(const SDFGState& st) {
    ScopeTree tree = st.scope_tree();
    std::vector<NodeId> topo = st.topological_order();
    run_scope(st, tree, topo, kNoNode, syms_);
  }

  void run_scope(const SDFGState& st, const ScopeTree& tree, const std::vector<NodeId>& topo, NodeId scope,
                 const Symbols& env) {
    for (NodeId n : topo) {
      if (tree.parent[n] != scope) continue;
      const Node& node = st.node(n);
      if (const auto* me = node.as<MapEntry>()) {
        run_map(st, tree, topo, *me, env, 0);
      } else if (const auto* t = node.as<Tasklet>()) {
        run_tasklet(st, *t, env);
      } else if (const auto* a = node.as<AccessNode>()) {
        for (EdgeId e : st.out_edges(n))
          if (const auto* b = st.node(st.edge(e).dst).as<AccessNode>()) copy(*a, *b, st.edge(e).memlet, env);
      } else if (!node.as<MapExit>()) {
        throw std::runtime_error("interpreter: unsupported node " + std::string(to_string(node.kind())));
      }
    }
  }

  void run_map(const SDFGState& st, const ScopeTree& tree, const std::vector<NodeId>& topo, const MapEntry& me,
               const Symbols& env, std::size_t dim) {
    if (dim == me.map->params.size()) {
      run_scope(st, tree, topo, me.id(), env);
      return;
    }
    const Range& r = me.map->range[dim];
    long long a = r.start.evaluate(env), b = r.end.evaluate(env), s = r.step.evaluate(env);
    if (s <= 0) throw std::runtime_error("interpreter: non-positive map step");
    for (long long v = a; v <= b; v += s) {
      Symbols inner = env;
      inner[me.map->params[dim]] = v;
      run_map(st, tree, topo, me, inner, dim + 1);
    }
  }

  void copy(const AccessNode& a, const AccessNode& b, const Memlet& m, const Symbols& env) {
    if (m.is_empty()) return;
    // DaCe's rules: `subset` indexes `data`, is_data_src settles self-copies (copy_subsets).
    CopySubsets ends = copy_subsets(m, a.data, b.data);
    if (!ends.src && !ends.dst) throw std::runtime_error("interpreter: copy memlet names neither end");
    const Subset& sa = ends.src ? *ends.src : *ends.dst;
    const Subset& sb = ends.dst ? *ends.dst : *ends.src;
    auto pa = points(sa, env), pb = points(sb, env);
    if (pa.size() != pb.size()) throw std::runtime_error("interpreter: copy of different sizes");
    // All of the source is read before anything is written (overlapping self-copies, as NumPy).
    std::vector<double> values;
    for (const auto& p : pa) values.push_back(mem[a.data][flat(a.data, p)]);
    for (std::size_t k = 0; k < pb.size(); ++k) {
      double& dst = mem[b.data][flat(b.data, pb[k])];
      dst = m.wcr.empty() ? values[k] : dst + values[k];
    }
  }

  void run_tasklet(const SDFGState& st, const Tasklet& t, const Symbols& env) {
    std::map<std::string, double> vars;
    for (const auto& [k, v] : env) vars[k] = static_cast<double>(v);
    for (EdgeId e : st.in_edges(t.id())) {
      const DataflowEdge& d = st.edge(e);
      if (d.memlet.is_empty() || d.dst_conn.empty()) continue;
      vars[d.dst_conn] = mem[d.memlet.data][flat(d.memlet.data, point(d.memlet.subset, env))];
    }
    std::string code = t.code.code;
    for (char& c : code)
      if (c == ';') c = '\n';
    std::stringstream ss(code);
    std::string line;
    while (std::getline(ss, line)) {
      if (line.find_first_not_of(" \t") == std::string::npos) continue;
      auto eq = line.find('=');
      if (eq == std::string::npos) throw std::runtime_error("interpreter: not an assignment: " + line);
      std::string lhs = line.substr(0, eq);
      lhs.erase(0, lhs.find_first_not_of(" \t"));
      lhs.erase(lhs.find_last_not_of(" \t") + 1);
      std::string rhs = line.substr(eq + 1);
      vars[lhs] = ExprEval(rhs, vars).run();
    }
    for (EdgeId e : st.out_edges(t.id())) {
      const DataflowEdge& d = st.edge(e);
      if (d.memlet.is_empty() || d.src_conn.empty()) continue;
      if (!vars.count(d.src_conn)) throw std::runtime_error("interpreter: output '" + d.src_conn + "' not assigned");
      double& dst = mem[d.memlet.data][flat(d.memlet.data, point(d.memlet.subset, env))];
      if (d.memlet.wcr.empty()) dst = vars[d.src_conn];
      else if (d.memlet.wcr.find("a + b") != std::string::npos) dst += vars[d.src_conn];
      else throw std::runtime_error("interpreter: unsupported wcr " + d.memlet.wcr);
    }
  }
};

/// Runs `sdfg` on seeded random inputs; returns the final contents of non-transient containers.
inline Arrays run_program(const SDFG& sdfg, const Symbols& symbols, unsigned seed) {
  Interpreter in(sdfg, symbols);
  in.randomize(seed);
  in.run();
  Arrays out;
  for (const auto& [name, d] : sdfg.arrays)
    if (!d.transient) out[name] = in.mem[name];
  return out;
}

}  // namespace weir::test
