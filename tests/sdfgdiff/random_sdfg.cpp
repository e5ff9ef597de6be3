// The random SDFG generator (random_sdfg.h). Every part is valid by construction: subsets stay
// inside their containers, maps write each element once unless through a wcr, transients are
// written before they are read.
#include "random_sdfg.h"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "weir/sdfg/state.h"

namespace weir::test::sdfgdiff {

const char* to_string(PartKind k) {
  switch (k) {
    case PartKind::SelfCopy: return "self-copy";
    case PartKind::PairCopy: return "pair-copy";
    case PartKind::ViewCopy: return "view-copy";
    case PartKind::MapTasklet: return "map-tasklet";
    case PartKind::FanOut: return "fan-out";
    case PartKind::Reduction: return "reduction";
    case PartKind::Nested: return "nested";
    case PartKind::Loop: return "loop";
  }
  return "?";
}

int part_of(const std::string& container) {
  if (container.size() < 3 || container[0] != 'g') return -1;
  auto us = container.find('_');
  if (us == std::string::npos || us == 1) return -1;
  try {
    return std::stoi(container.substr(1, us - 1));
  } catch (...) {
    return -1;
  }
}

namespace {

using sym::Expr;

Subset S(const std::string& s) { return Subset::parse(s); }
std::string str(long long v) { return std::to_string(v); }

InterstateEdge when(const std::string& condition) {
  InterstateEdge e;
  e.condition.code = condition;
  return e;
}

/// A dimension: its extent as written in the SDFG and its value in this run.
struct Dim {
  Expr e;
  long long v;
};

class PartGen {
 public:
  PartGen(SDFG& sdfg, BlockId& last, unsigned seed, int index, const std::map<std::string, long long>& syms,
          const GenOptions& opts)
      : sdfg_(sdfg), last_(last), rng_(seed), px_("g" + str(index) + "_"), syms_(syms), opts_(opts) {}

  std::string generate(PartKind k) {
    switch (k) {
      case PartKind::SelfCopy: self_copy(); break;
      case PartKind::PairCopy: pair_copy(); break;
      case PartKind::ViewCopy: view_copy(); break;
      case PartKind::MapTasklet: map_tasklet(); break;
      case PartKind::FanOut: fan_out(); break;
      case PartKind::Reduction: reduction(); break;
      case PartKind::Nested: nested(); break;
      case PartKind::Loop: loop(); break;
    }
    return px_.substr(0, px_.size() - 1) + ": " + to_string(k) + (note_.empty() ? "" : " (" + note_ + ")");
  }

 private:
  SDFG& sdfg_;
  BlockId& last_;
  std::mt19937 rng_;
  std::string px_;
  const std::map<std::string, long long>& syms_;
  const GenOptions& opts_;
  std::string note_;

  long long uni(long long a, long long b) { return std::uniform_int_distribution<long long>(a, b)(rng_); }
  bool coin(double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(uni(0, v.size() - 1))];
  }
  void note(const std::string& s) { note_ += (note_.empty() ? "" : ", ") + s; }

  /// An extent: a literal 2..6 or one of the symbols N, M.
  Dim dim() {
    if (coin(0.4)) {
      std::string s = coin() ? "N" : "M";
      return {Expr::symbol(s), syms_.at(s)};
    }
    long long v = uni(2, 6);
    return {Expr(v), v};
  }
  std::vector<Dim> dims(int rank) {
    std::vector<Dim> d;
    for (int k = 0; k < rank; ++k) d.push_back(dim());
    return d;
  }
  std::string array(const std::string& base, const std::vector<Dim>& shape, bool transient = false) {
    std::string name = px_ + base;
    std::vector<Expr> sh;
    for (const auto& d : shape) sh.push_back(d.e);
    sdfg_.add_array(name, ScalarType::Float64, sh, transient);
    return name;
  }
  /// A new state after the last one.
  SDFGState& state(const std::string& label, InterstateEdge e = {}) {
    SDFGState& st = sdfg_.add_state(px_ + label);
    link(st.id(), std::move(e));
    return st;
  }
  void link(BlockId b, InterstateEdge e = {}) {
    if (last_ == kNoBlock)
      sdfg_.set_start_block(b);
    else
      sdfg_.add_edge(last_, b, std::move(e));
    last_ = b;
  }

  /// A range of `len` elements inside 0..n-1 starting at `start`, reversed (negative step) if asked.
  static Range range(long long start, long long len, bool reversed) {
    if (reversed && len > 1) return Range(Expr(start + len - 1), Expr(start), Expr(-1));
    return Range(Expr(start), Expr(start + len - 1));
  }
  /// A random subset of `len[k]` elements per dimension of `shape`.
  Subset place(const std::vector<Dim>& shape, const std::vector<long long>& len, bool allow_reverse) {
    std::vector<Range> rs;
    for (std::size_t k = 0; k < shape.size(); ++k)
      rs.push_back(range(uni(0, shape[k].v - len[k]), len[k], allow_reverse && coin(0.25)));
    return Subset(rs);
  }
  static bool reversed(const Subset& s) {
    for (const auto& r : s.ranges())
      if (r.step != Expr(1)) return true;
    return false;
  }

  /// A copy memlet from `src`[ssub] to `dst`[dsub]; `data` names one end, as DaCe allows.
  Memlet copy_memlet(const std::string& src, const Subset& ssub, const std::string& dst, const Subset& dsub,
                     bool on_src, std::optional<bool> flag, const std::string& wcr = {}) {
    Memlet m = Memlet::simple(on_src ? src : dst, on_src ? ssub : dsub, wcr);
    m.other_subset = on_src ? dsub : ssub;
    m.is_data_src = flag;
    return m;
  }

  // --- parts ---------------------------------------------------------------------------------

  void self_copy() {
    int rank = static_cast<int>(uni(1, 2));
    auto shape = dims(rank);
    std::string p = array("P", shape);
    int copies = static_cast<int>(uni(1, 3));
    for (int c = 0; c < copies; ++c) {
      std::vector<long long> len;
      for (const auto& d : shape) len.push_back(uni(1, d.v));
      if (rank == 2 && coin(0.4)) len[0] = 1;  // DaCe's row copy p[0, :] = p[1, :]
      bool allow_rev = coin(0.3);
      Subset src = place(shape, len, allow_rev), dst = place(shape, len, allow_rev);
      // data names both ends: is_data_src says which one `subset` is on (unset: the source).
      int mode = static_cast<int>(uni(0, 2));
      std::optional<bool> flag = mode == 0   ? std::optional<bool>(true)
                                 : mode == 1 ? std::optional<bool>(false)
                                             : std::nullopt;
      bool on_src = flag.value_or(true);
      SDFGState& st = state("copy" + str(c));
      auto& a = st.add_access(p);
      auto& b = st.add_access(p);
      st.add_edge(a.id(), "", b.id(), "", copy_memlet(p, src, p, dst, on_src, flag));
      note(src.str() + " -> " + dst.str() + (flag ? (*flag ? " src" : " dst") : " unset"));
    }
  }

  void pair_copy() {
    // k copied dimensions, embedded in ranks ra and rb with unit dimensions elsewhere.
    int k = static_cast<int>(uni(1, 2));
    int ra = static_cast<int>(uni(k, 3)), rb = static_cast<int>(uni(k, 3));
    std::vector<long long> len;
    for (int d = 0; d < k; ++d) len.push_back(uni(1, 4));
    auto embed = [&](int rank) {
      std::vector<int> pos(static_cast<std::size_t>(rank));
      for (int d = 0; d < rank; ++d) pos[static_cast<std::size_t>(d)] = d;
      std::shuffle(pos.begin(), pos.end(), rng_);
      pos.resize(static_cast<std::size_t>(k));
      std::sort(pos.begin(), pos.end());
      std::vector<long long> l(static_cast<std::size_t>(rank), 1);
      for (int d = 0; d < k; ++d)
        l[static_cast<std::size_t>(pos[static_cast<std::size_t>(d)])] = len[static_cast<std::size_t>(d)];
      std::vector<Dim> shape;
      for (int d = 0; d < rank; ++d) {
        Dim x = dim();
        long long need = l[static_cast<std::size_t>(d)];
        if (x.v < need) {
          long long v = need + uni(0, 2);
          x = Dim{Expr(v), v};
        }
        shape.push_back(x);
      }
      return std::make_pair(shape, l);
    };
    auto [sa, la] = embed(ra);
    auto [sb, lb] = embed(rb);
    std::string a = array("A", sa), b = array("B", sb);
    bool via = coin(0.3);  // a -> transient -> b: the transient holds exactly the copied block
    bool rev = coin(0.3);
    Subset asub = place(sa, la, rev), bsub = place(sb, lb, rev);
    std::string wcr = coin(0.2) ? "lambda x, y: x + y" : "";
    SDFGState& st = state("copy");
    auto& an = st.add_access(a);
    auto& bn = st.add_access(b);
    if (via) {
      std::vector<Dim> ts;
      for (long long l : len) ts.push_back(Dim{Expr(l), l});
      std::string t = array("T", ts, true);
      auto& tn = st.add_access(t);
      std::vector<Expr> tshape;
      for (const auto& d : ts) tshape.push_back(d.e);
      Subset tfull = Subset::full(tshape);
      bool on_a = coin();
      st.add_edge(an.id(), "", tn.id(), "", copy_memlet(a, asub, t, tfull, on_a, on_a));
      Memlet m = copy_memlet(t, tfull, b, bsub, coin(), std::nullopt, wcr);
      if (coin(0.3)) {  // the whole transient: other_subset may be left out
        m = Memlet::simple(b, bsub, wcr);
      }
      if (m.data == t) m.is_data_src = true;
      st.add_edge(tn.id(), "", bn.id(), "", m);
      note("via transient");
    } else {
      bool on_a = coin();
      std::optional<bool> flag = coin() ? std::optional<bool>(on_a) : std::nullopt;
      st.add_edge(an.id(), "", bn.id(), "", copy_memlet(a, asub, b, bsub, on_a, flag, wcr));
    }
    note(a + "[" + asub.str() + "] -> " + b + "[" + bsub.str() + "]" + (wcr.empty() ? "" : " wcr"));
  }

  /// A view descriptor of `shape` with `strides` (transient, as DaCe's views are).
  std::string view(const std::string& base, const std::vector<Expr>& shape,
                   const std::vector<Expr>& strides) {
    DataDescriptor d = DataDescriptor::make_array(ScalarType::Float64, shape, true);
    d.kind = DataKind::View;
    d.type_name = "View";
    d.strides = strides;
    std::string name = px_ + base;
    sdfg_.add_data(name, d);
    return name;
  }

  void view_copy() {
    std::vector<Dim> shape{dim(), dim()};
    std::string a = array("A", shape);
    long long n = shape[0].v, m = shape[1].v;
    // The viewed block: a row segment, a column segment, or a 2-D block.
    int form = static_cast<int>(uni(0, 2));
    long long r0 = uni(0, n - 1), c0 = uni(0, m - 1);
    long long rl = form == 0 ? 1 : uni(1, n - r0), cl = form == 1 ? 1 : uni(1, m - c0);
    Subset block({Range(Expr(r0), Expr(r0 + rl - 1)), Range(Expr(c0), Expr(c0 + cl - 1))});
    std::vector<Expr> vshape, vstrides;
    if (form == 0)
      vshape = {Expr(cl)}, vstrides = {Expr(1)};
    else if (form == 1)
      vshape = {Expr(rl)}, vstrides = {shape[1].e};
    else
      vshape = {Expr(rl), Expr(cl)}, vstrides = {shape[1].e, Expr(1)};
    std::string v = view("V", vshape, vstrides);
    Subset vfull = Subset::full(vshape);
    long long vlen = form == 2 ? rl * cl : (form == 0 ? cl : rl);
    std::string b = array("B", form == 2 ? std::vector<Dim>{Dim{Expr(rl), rl}, Dim{Expr(cl + 1), cl + 1}}
                                         : std::vector<Dim>{Dim{Expr(vlen + 1), vlen + 1}});
    Subset bsub = form == 2 ? Subset({Range(Expr(0), Expr(rl - 1)), Range(Expr(1), Expr(cl))})
                            : Subset({Range(Expr(1), Expr(vlen))});
    int dir = static_cast<int>(uni(0, opts_.view_into_own_array ? 3 : 2));
    SDFGState& st = state("view");
    if (dir == 3) {  // the view copied back into its own array, shifted: may overlap itself
      auto& an = st.add_access(a);
      auto& vn = st.add_access(v);
      auto& a2 = st.add_access(a);
      vn.in_connectors["views"] = std::nullopt;
      st.add_edge(an.id(), "", vn.id(), "views", Memlet::simple(a, block));
      long long dr = uni(-r0, n - r0 - rl), dc = uni(-c0, m - c0 - cl);
      Subset moved(
          {Range(Expr(r0 + dr), Expr(r0 + dr + rl - 1)), Range(Expr(c0 + dc), Expr(c0 + dc + cl - 1))});
      bool on_v = coin();
      st.add_edge(vn.id(), "", a2.id(), "", copy_memlet(v, vfull, a, moved, on_v, on_v));
      note("view " + block.str() + " back into " + moved.str());
    } else if (dir == 0) {  // out of the view: b[...] = a[block]
      auto& an = st.add_access(a);
      auto& vn = st.add_access(v);
      auto& bn = st.add_access(b);
      vn.in_connectors["views"] = std::nullopt;
      st.add_edge(an.id(), "", vn.id(), "views", Memlet::simple(a, block));
      bool on_v = coin();
      st.add_edge(vn.id(), "", bn.id(), "", copy_memlet(v, vfull, b, bsub, on_v, on_v));
      note("out of view " + block.str());
    } else if (dir == 1) {  // into the view: a[block] = b[...]
      auto& bn = st.add_access(b);
      auto& vn = st.add_access(v);
      auto& an = st.add_access(a);
      bool on_b = coin();
      st.add_edge(bn.id(), "", vn.id(), "", copy_memlet(b, bsub, v, vfull, on_b, on_b));
      vn.out_connectors["views"] = std::nullopt;
      st.add_edge(vn.id(), "views", an.id(), "", Memlet::simple(a, block));
      note("into view " + block.str());
    } else {            // a map reads the view: b[1 + i] = 2 * v[i] + i
      if (form == 2) {  // a map over a 2-D view
        auto& an = st.add_access(a);
        auto& vn = st.add_access(v);
        auto& bn = st.add_access(b);
        vn.in_connectors["views"] = std::nullopt;
        st.add_edge(an.id(), "", vn.id(), "views", Memlet::simple(a, block));
        auto& me = st.add_map(px_ + "vmap", {"i", "j"}, S("0:" + str(rl) + ", 0:" + str(cl)));
        auto& t = st.add_tasklet(px_ + "vt", {"o = 2 * x + i - j", Language::Python}, {"x"}, {"o"});
        auto in = st.add_memlet_path({vn.id(), me.id(), t.id()}, Memlet::simple(v, S("i, j")), "", "x");
        st.edge(in[0]).memlet = Memlet::simple(v, vfull);
        auto out = st.add_memlet_path({t.id(), me.exit, bn.id()}, Memlet::simple(b, S("i, j + 1")), "o", "");
        st.edge(out[1]).memlet = Memlet::simple(b, bsub);
      } else {
        auto& an = st.add_access(a);
        auto& vn = st.add_access(v);
        auto& bn = st.add_access(b);
        vn.in_connectors["views"] = std::nullopt;
        st.add_edge(an.id(), "", vn.id(), "views", Memlet::simple(a, block));
        auto& me = st.add_map(px_ + "vmap", {"i"}, S("0:" + str(vlen)));
        auto& t = st.add_tasklet(px_ + "vt", {"o = 2 * x + i", Language::Python}, {"x"}, {"o"});
        auto in = st.add_memlet_path({vn.id(), me.id(), t.id()}, Memlet::simple(v, S("i")), "", "x");
        st.edge(in[0]).memlet = Memlet::simple(v, vfull);
        auto out = st.add_memlet_path({t.id(), me.exit, bn.id()}, Memlet::simple(b, S("i + 1")), "o", "");
        st.edge(out[1]).memlet = Memlet::simple(b, bsub);
      }
      note("map over view " + block.str());
    }
  }

  /// A random integer-exact expression of the inputs, map parameters and symbols.
  std::string expr(const std::vector<std::string>& ins, const std::vector<std::string>& params) {
    std::string e = ins[0];
    for (std::size_t k = 1; k < ins.size(); ++k) e += pick<std::string>({" + ", " - ", " * "}) + ins[k];
    switch (uni(0, 4)) {
      case 0: e = "(" + e + ") * " + str(uni(2, 3)); break;
      case 1: e += " + " + pick(params); break;
      case 2: e = "max(" + e + ", " + str(uni(-3, 3)) + ")"; break;
      case 3: e = "min(" + e + ", " + pick(params) + " - 2)"; break;
      default: e += " - " + str(uni(1, 5)); break;
    }
    return e;
  }

  void map_tasklet() {
    int rank = static_cast<int>(uni(1, 3));
    auto shape = dims(rank);
    int nin = static_cast<int>(uni(1, 2));
    std::vector<std::string> params{"i", "j", "k"};
    params.resize(static_cast<std::size_t>(rank));
    // Offsets per input and dimension in -1..1; the map range keeps every access in bounds.
    std::vector<std::vector<long long>> offs(static_cast<std::size_t>(nin + 1));
    for (auto& o : offs)
      for (int d = 0; d < rank; ++d) o.push_back(coin(0.5) ? uni(-1, 1) : 0);
    std::vector<Range> mr;
    for (int d = 0; d < rank; ++d) {
      long long lo = 0, hi = 0;
      for (const auto& o : offs) {
        lo = std::max(lo, -o[static_cast<std::size_t>(d)]);
        hi = std::max(hi, o[static_cast<std::size_t>(d)]);
      }
      if (shape[static_cast<std::size_t>(d)].v - lo - hi < 1) {  // too small for these offsets
        for (auto& o : offs) o[static_cast<std::size_t>(d)] = 0;
        lo = hi = 0;
      }
      mr.push_back(Range(Expr(lo), shape[static_cast<std::size_t>(d)].e - Expr(1 + hi)));
    }
    std::vector<std::string> ins;
    for (int k = 0; k < nin; ++k) ins.push_back(array("A" + str(k), shape));
    std::string out = array("B", shape);
    SDFGState& st = state("map");
    auto& me = st.add_map(px_ + "map", params, Subset(mr));
    std::vector<std::string> conns;
    for (int k = 0; k < nin; ++k) conns.push_back("a" + str(k));
    auto& t = st.add_tasklet(px_ + "t", {"b = " + expr(conns, params), Language::Python}, conns, {"b"});
    auto idx = [&](const std::vector<long long>& o) {
      std::string s;
      for (int d = 0; d < rank; ++d) {
        long long v = o[static_cast<std::size_t>(d)];
        s += (d ? ", " : "") + params[static_cast<std::size_t>(d)] +
             (v ? (v > 0 ? " + " : " - ") + str(std::abs(v)) : "");
      }
      return S(s);
    };
    std::vector<Expr> full;
    for (const auto& d : shape) full.push_back(d.e);
    for (int k = 0; k < nin; ++k) {
      auto& an = st.add_access(ins[static_cast<std::size_t>(k)]);
      auto ids = st.add_memlet_path(
          {an.id(), me.id(), t.id()},
          Memlet::simple(ins[static_cast<std::size_t>(k)], idx(offs[static_cast<std::size_t>(k)])), "",
          conns[static_cast<std::size_t>(k)]);
      st.edge(ids[0]).memlet = Memlet::simple(ins[static_cast<std::size_t>(k)], Subset::full(full));
    }
    auto& bn = st.add_access(out);
    auto ids = st.add_memlet_path({t.id(), me.exit, bn.id()}, Memlet::simple(out, idx(offs.back())), "b", "");
    st.edge(ids[1]).memlet = Memlet::simple(out, Subset::full(full));
    note(std::to_string(rank) + "-D, " + t.code.code);
  }

  void fan_out() {
    int rank = static_cast<int>(uni(1, 2));
    auto shape = dims(rank);
    std::vector<Expr> full;
    for (const auto& d : shape) full.push_back(d.e);
    std::string a = array("A", shape);
    bool tmp_transient = coin(0.8);
    std::string tmp = array("tmp", shape, tmp_transient);
    int ncons = static_cast<int>(uni(2, 3));
    std::string ps = rank == 1 ? "i" : "i, j";
    std::vector<std::string> params =
        rank == 1 ? std::vector<std::string>{"i"} : std::vector<std::string>{"i", "j"};
    Subset range = Subset::full(full);
    SDFGState& st = state("fan");
    auto& an = st.add_access(a);
    auto& tn = st.add_access(tmp);
    auto& pm = st.add_map(px_ + "prod", params, range);
    auto& pt = st.add_tasklet(px_ + "pt", {"t = " + expr({"x"}, params), Language::Python}, {"x"}, {"t"});
    auto in = st.add_memlet_path({an.id(), pm.id(), pt.id()}, Memlet::simple(a, S(ps)), "", "x");
    st.edge(in[0]).memlet = Memlet::simple(a, range);
    auto out = st.add_memlet_path({pt.id(), pm.exit, tn.id()}, Memlet::simple(tmp, S(ps)), "t", "");
    st.edge(out[1]).memlet = Memlet::simple(tmp, range);
    // Sometimes one consumer updates A in place at its own point (gemm's `C = A @ B + beta * C`
    // after DaCe's simplify): on-the-fly fusion may then recompute the producer inside it only
    // where each copy reads A at that point. No other consumer reads A (that would be a race).
    // Half of the time it is the only consumer (fusion needs `tmp` to have no other reader).
    int in_place = coin(0.3) ? static_cast<int>(uni(0, ncons - 1)) : -1;
    if (in_place >= 0 && coin()) ncons = 1, in_place = 0;
    for (int c = 0; c < ncons; ++c) {
      std::string o = c == in_place ? a : array("C" + str(c), shape);
      auto& on = st.add_access(o);
      if (c == in_place) note("cons" + str(c) + " updates A in place");
      // Mostly the same point; sometimes a shifted read (fusion must then refuse or stay exact).
      bool shifted = coin(0.2);
      Subset crange = range;
      std::string rd = ps;
      if (shifted && shape[0].v > 1) {
        crange.ranges()[0] = Range(Expr(0), shape[0].e - Expr(2));
        rd = rank == 1 ? "i + 1" : "i + 1, j";
        note("cons" + str(c) + " shifted");
      }
      bool reads_a = coin(0.4) && (in_place < 0 || c == in_place);
      auto& cm = st.add_map(px_ + "cons" + str(c), params, crange);
      std::vector<std::string> conns{"y"};
      if (reads_a) conns.push_back("z");
      auto& ct =
          st.add_tasklet(px_ + "ct" + str(c), {"o = " + expr(conns, params), Language::Python}, conns, {"o"});
      auto ci = st.add_memlet_path({tn.id(), cm.id(), ct.id()}, Memlet::simple(tmp, S(rd)), "", "y");
      st.edge(ci[0]).memlet = Memlet::simple(tmp, range);
      if (reads_a) {
        auto ai = st.add_memlet_path({an.id(), cm.id(), ct.id()}, Memlet::simple(a, S(ps)), "", "z");
        st.edge(ai[0]).memlet = Memlet::simple(a, range);
      }
      auto co = st.add_memlet_path({ct.id(), cm.exit, on.id()}, Memlet::simple(o, S(ps)), "o", "");
      st.edge(co[1]).memlet = Memlet::simple(o, crange);
    }
    note(std::to_string(ncons) + " consumers" + (tmp_transient ? "" : ", tmp global"));
  }

  void reduction() {
    std::vector<Dim> shape{dim(), dim()};
    std::vector<Expr> full{shape[0].e, shape[1].e};
    std::string a = array("A", shape);
    bool per_row = coin();
    std::string r = array("R", per_row ? std::vector<Dim>{shape[0]} : std::vector<Dim>{Dim{Expr(1), 1}});
    std::string op = pick<std::string>({"sum", "min", "max"});
    std::string wcr = op == "sum" ? "lambda x, y: x + y" : "lambda x, y: " + op + "(x, y)";
    std::vector<Expr> rshape = per_row ? std::vector<Expr>{shape[0].e} : std::vector<Expr>{Expr(1)};
    // Sometimes into a transient accumulator set to the identity first, then copied out.
    bool acc = coin(0.4);
    std::string target = r;
    if (acc) {
      target = array("acc", per_row ? std::vector<Dim>{shape[0]} : std::vector<Dim>{Dim{Expr(1), 1}}, true);
      SDFGState& init = state("init");
      auto& tn = init.add_access(target);
      auto& im = init.add_map(px_ + "init", {"i"}, Subset::full(rshape));
      std::string id = op == "sum" ? "0" : op == "min" ? "1000" : "-1000";
      auto& it = init.add_tasklet(px_ + "id", {"z = " + id, Language::Python}, {}, {"z"});
      init.add_edge(im.id(), "", it.id(), "", Memlet{});
      auto ids = init.add_memlet_path({it.id(), im.exit, tn.id()}, Memlet::simple(target, S("i")), "z", "");
      init.edge(ids[1]).memlet = Memlet::simple(target, Subset::full(rshape));
      note("via accumulator");
    }
    SDFGState& st = state("reduce");
    auto& an = st.add_access(a);
    auto& rn = st.add_access(target);
    auto& me = st.add_map(px_ + "red", {"i", "j"}, Subset::full(full));
    auto& t = st.add_tasklet(px_ + "rt", {"o = " + expr({"x"}, {"i", "j"}), Language::Python}, {"x"}, {"o"});
    auto in = st.add_memlet_path({an.id(), me.id(), t.id()}, Memlet::simple(a, S("i, j")), "", "x");
    st.edge(in[0]).memlet = Memlet::simple(a, Subset::full(full));
    auto out = st.add_memlet_path({t.id(), me.exit, rn.id()},
                                  Memlet::simple(target, S(per_row ? "i" : "0"), wcr), "o", "");
    st.edge(out[1]).memlet = Memlet::simple(target, Subset::full(rshape), wcr);
    if (acc) {
      SDFGState& out_st = state("out");
      auto& tn = out_st.add_access(target);
      auto& on = out_st.add_access(r);
      out_st.add_edge(tn.id(), "", on.id(), "", Memlet::simple(target, Subset::full(rshape)));
    }
    note(op + (per_row ? " per row" : " of all"));
  }

  enum class NestedBody { TwoStates, WritesOnly, ReadsBack, CopiesInput };

  /// The nested parts' inner SDFG: X and Y of k elements with stride s, c an extra symbol.
  std::unique_ptr<SDFG> inner_sdfg() {
    auto inner = std::make_unique<SDFG>(px_ + "inner");
    for (const char* s : {"k", "s", "c"}) inner->add_symbol(s);
    for (const char* n : {"X", "Y"}) {
      DataDescriptor d = DataDescriptor::make_array(ScalarType::Float64, {Expr::symbol("k")});
      d.strides = {Expr::symbol("s")};
      d.total_size = (Expr::symbol("k") - Expr(1)) * Expr::symbol("s") + Expr(1);
      inner->add_data(n, d);
    }
    return inner;
  }
  /// Y[i] = 2 * X[i] + c - i in a map over 0..k-1; returns the access node written.
  static NodeId map_x_to_y(SDFGState& s0) {
    auto& x = s0.add_access("X");
    auto& y = s0.add_access("Y");
    auto& me = s0.add_map("imap", {"i"}, S("0:k"));
    auto& t = s0.add_tasklet("it", {"o = 2 * v + c - i", Language::Python}, {"v"}, {"o"});
    auto in = s0.add_memlet_path({x.id(), me.id(), t.id()}, Memlet::simple("X", S("i")), "", "v");
    s0.edge(in[0]).memlet = Memlet::simple("X", S("0:k"));
    auto out = s0.add_memlet_path({t.id(), me.exit, y.id()}, Memlet::simple("Y", S("i")), "o", "");
    s0.edge(out[1]).memlet = Memlet::simple("Y", S("0:k"));
    return y.id();
  }
  /// Y[k - 1] = Y[k - 1] + `add`, read from access node `y` of `st`.
  static void add_to_last(SDFGState& st, NodeId y, const std::string& add) {
    auto& y2 = st.add_access("Y");
    auto& t = st.add_tasklet("last", {"o = v + " + add, Language::Python}, {"v"}, {"o"});
    st.add_edge(y, "", t.id(), "v", Memlet::simple("Y", S("k - 1")));
    st.add_edge(t.id(), "o", y2.id(), "", Memlet::simple("Y", S("k - 1")));
  }
  /// The map, then (next state, after the interstate assignment d = c * 2) Y[k - 1] += d.
  std::unique_ptr<SDFG> two_state_inner() {
    auto inner = inner_sdfg();
    SDFGState& s0 = inner->add_state("first", true);
    map_x_to_y(s0);
    SDFGState& s1 = inner->add_state("second");
    InterstateEdge ie;
    ie.assignments.push_back({"d", "c * 2"});
    inner->add_symbol("d");
    inner->add_edge(s0.id(), s1.id(), ie);
    add_to_last(s1, s1.add_access("Y").id(), "d");
    return inner;
  }
  /// One state: the map alone, the map and Y[k - 1] += c read back from the Y it wrote, or X
  /// copied into Y and Y[k - 1] += c.
  std::unique_ptr<SDFG> one_state_inner(NestedBody body) {
    auto inner = inner_sdfg();
    SDFGState& s0 = inner->add_state("only", true);
    if (body == NestedBody::CopiesInput) {
      auto& x = s0.add_access("X");
      auto& y = s0.add_access("Y");
      s0.add_edge(x.id(), "", y.id(), "", Memlet::simple("X", S("0:k")));
      add_to_last(s0, y.id(), "c");
      return inner;
    }
    NodeId y = map_x_to_y(s0);
    if (body == NestedBody::ReadsBack) add_to_last(s0, y, "c");
    return inner;
  }

  void nested() {
    std::vector<Dim> shape{dim(), dim()};
    std::string a = array("A", shape), b = array("B", shape);
    bool column = coin();
    bool in_map = coin();
    // Two states (never inlined) or one, which InlineSDFG may inline: one writing Y only, one
    // reading back the Y it wrote, one copying X straight into Y (DaCe's InlineSDFG refuses the
    // last two in a map scope, and DaCe ran weir's inlined form of the first wrongly).
    const auto body = static_cast<NestedBody>(uni(0, 3));
    auto inner = body == NestedBody::TwoStates ? two_state_inner() : one_state_inner(body);
    if (body != NestedBody::TwoStates)
      note(body == NestedBody::WritesOnly  ? "one state"
           : body == NestedBody::ReadsBack ? "one state reading back Y"
                                           : "one state copying X into Y");
    SDFGState& st = state("nest");
    auto& an = st.add_access(a);
    auto& bn = st.add_access(b);
    std::map<std::string, Expr> mapping;
    mapping["k"] = column ? shape[0].e : shape[1].e;
    mapping["s"] = column ? shape[1].e : Expr(1);
    Expr fixed = Expr(uni(0, (column ? shape[1].v : shape[0].v) - 1));
    Expr line = in_map ? Expr::symbol("r") : fixed;
    mapping["c"] = in_map ? Expr::symbol("r") + Expr(uni(0, 3)) : Expr(uni(-3, 3));
    auto& ns = st.add_nested_sdfg(px_ + "nsdfg", std::move(inner), {"X"}, {"Y"}, mapping);
    auto sub = [&](const std::string& data) {
      Subset s = column ? Subset({Range(Expr(0), shape[0].e - Expr(1)), Range::index(line)})
                        : Subset({Range::index(line), Range(Expr(0), shape[1].e - Expr(1))});
      return Memlet::simple(data, s);
    };
    if (in_map) {
      long long lines = column ? shape[1].v : shape[0].v;
      auto& me = st.add_map(px_ + "rows", {"r"},
                            Subset({Range(Expr(0), (column ? shape[1].e : shape[0].e) - Expr(1))}));
      auto in = st.add_memlet_path({an.id(), me.id(), ns.id()}, sub(a), "", "X");
      st.edge(in[0]).memlet = Memlet::simple(a, Subset::full({shape[0].e, shape[1].e}));
      auto out = st.add_memlet_path({ns.id(), me.exit, bn.id()}, sub(b), "Y", "");
      st.edge(out[1]).memlet = Memlet::simple(b, Subset::full({shape[0].e, shape[1].e}));
      note(std::string(column ? "columns" : "rows") + " in a map of " + str(lines));
    } else {
      st.add_edge(an.id(), "", ns.id(), "X", sub(a));
      st.add_edge(ns.id(), "Y", bn.id(), "", sub(b));
      note(std::string(column ? "column " : "row ") + fixed.str());
    }
  }

  void loop() {
    std::string i = px_ + "i", j = px_ + "j";
    sdfg_.add_symbol(i);
    sdfg_.add_symbol(j);
    Dim n = dim();
    std::string a = array("A", {n});
    std::string s = array("S", {Dim{Expr(2), 2}});
    std::string bound = coin() ? n.e.str() : str(uni(0, n.v));
    // body: A[i] = A[i] * 2 + j; S[0] = S[0] + A[i] (j assigned on the edge into the body).
    auto body = [&](SDFGState& st) {
      auto& ar = st.add_access(a);
      auto& aw = st.add_access(a);
      auto& sr = st.add_access(s);
      auto& sw = st.add_access(s);
      auto& t = st.add_tasklet(px_ + "lt", {"o = x * 2 + " + j + "; q = p + o", Language::Python}, {"x", "p"},
                               {"o", "q"});
      st.add_edge(ar.id(), "", t.id(), "x", Memlet::simple(a, S(i)));
      st.add_edge(sr.id(), "", t.id(), "p", Memlet::simple(s, S("0")));
      st.add_edge(t.id(), "o", aw.id(), "", Memlet::simple(a, S(i)));
      st.add_edge(t.id(), "q", sw.id(), "", Memlet::simple(s, S("0")));
    };
    if (coin()) {  // guard / body / exit states with conditions and assignments
      InterstateEdge init;
      init.assignments.push_back({i, "0"});
      SDFGState& guard = state("guard", init);
      SDFGState& st = sdfg_.add_state(px_ + "body");
      InterstateEdge enter;
      enter.condition.code = i + " < " + bound;
      enter.assignments.push_back({j, i + " % 3 - 1"});
      sdfg_.add_edge(guard.id(), st.id(), enter);
      InterstateEdge back;
      back.assignments.push_back({i, i + " + 1"});
      sdfg_.add_edge(st.id(), guard.id(), back);
      body(st);
      SDFGState& after = sdfg_.add_state(px_ + "after");
      InterstateEdge leave;
      leave.condition.code = "not (" + i + " < " + bound + ")";
      sdfg_.add_edge(guard.id(), after.id(), leave);
      last_ = after.id();
      note("state loop to " + bound);
    } else {  // a LoopRegion, j assigned in the body from the loop variable
      LoopRegion& l = sdfg_.add_loop(px_ + "loop", i, i + " = 0", i + " < " + bound, i + " = " + i + " + 1");
      link(l.id());
      SDFGState& pre = l.add_state(px_ + "pre", true);
      SDFGState& st = l.add_state(px_ + "body");
      InterstateEdge e;
      e.assignments.push_back({j, i + " % 3 - 1"});
      l.add_edge(pre.id(), st.id(), e);
      body(st);
      note("loop region to " + bound);
    }
    // A branch on the final value of i: S[1] = 1 or 2.
    SDFGState& yes = state("yes", when(i + " > 2"));
    SDFGState& no = sdfg_.add_state(px_ + "no");
    BlockId before = sdfg_.in_edges(yes.id()).front()->src;
    sdfg_.add_edge(before, no.id(), when("not (" + i + " > 2)"));
    for (auto [st, v] : {std::pair<SDFGState*, int>{&yes, 1}, {&no, 2}}) {
      auto& sw = st->add_access(s);
      auto& t = st->add_tasklet(px_ + "flag" + str(v), {"f = " + str(v), Language::Python}, {}, {"f"});
      st->add_edge(t.id(), "f", sw.id(), "", Memlet::simple(s, S("1")));
    }
    SDFGState& join = sdfg_.add_state(px_ + "join");
    sdfg_.add_edge(yes.id(), join.id());
    sdfg_.add_edge(no.id(), join.id());
    last_ = join.id();
  }
};

}  // namespace

Batch make_batch(unsigned seed, int count, const std::vector<int>& which, const GenOptions& opts) {
  Batch b;
  b.sdfg = std::make_unique<SDFG>("fuzz" + std::to_string(seed));
  std::mt19937 rng(seed);
  b.symbols["N"] = std::uniform_int_distribution<long long>(3, 7)(rng);
  b.symbols["M"] = std::uniform_int_distribution<long long>(2, 6)(rng);
  b.sdfg->add_symbol("N");
  b.sdfg->add_symbol("M");
  // An empty first state, so that every part starts with an interstate edge (its assignments).
  BlockId last = b.sdfg->add_state("start", true).id();
  std::vector<PartKind> kinds = opts.kinds;
  if (kinds.empty())
    for (int k = 0; k < kNumPartKinds; ++k) kinds.push_back(static_cast<PartKind>(k));
  for (int k = 0; k < count; ++k) {
    unsigned part_seed = seed * 7919u + static_cast<unsigned>(k) * 104729u + 1u;
    std::mt19937 pr(part_seed);
    PartKind kind = kinds[std::uniform_int_distribution<std::size_t>(0, kinds.size() - 1)(pr)];
    if (std::find(which.begin(), which.end(), k) == which.end()) continue;
    PartGen g(*b.sdfg, last, pr(), k, b.symbols, opts);
    b.parts.push_back(g.generate(kind));
  }
  return b;
}

Batch make_batch(unsigned seed, int count, const GenOptions& opts) {
  std::vector<int> all;
  for (int k = 0; k < count; ++k) all.push_back(k);
  return make_batch(seed, count, all, opts);
}

}  // namespace weir::test::sdfgdiff
