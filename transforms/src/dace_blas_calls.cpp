// DaCe's CBLAS tasklets back to library nodes (dace_blas_calls.h, ADR 0035).
//
// The match reads the call as CBLAS defines it, independently of how DaCe chose the arguments:
// each matrix argument is a stored matrix X (column-major: X(r, c) at r + c * ld; row-major: at
// r * ld + c) whose rows and columns the call's sizes give; the connector's memlet, squeezed to
// two dimensions P (e0 x e1, element strides s0, s1), is X itself or X's transpose when its
// strides and extents say so exactly. The call's product then is a product of the P's, possibly
// transposed, which is what weir's Gemm / Gemv / Dot compute on the same memlets.
#include "weir/transforms/dace_blas_calls.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <utility>

#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/state.h"

namespace weir::transforms {

namespace {

// ---------------------------------------------------------------------------------------------
// The call's text.

/// `[result =] function(arg, arg, ...);` and nothing else (whitespace aside).
struct CallText {
  std::string result;  // empty without an assignment
  std::string function;
  std::vector<std::string> args;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !ident_start(s[0])) return false;
  for (char c : s)
    if (!ident_char(c)) return false;
  return true;
}

std::optional<CallText> parse_call(const std::string& code, std::string& why) {
  // Only what such a call is made of: no comments, strings, braces, preprocessor lines,
  // operators other than arithmetic, and one ';' at the very end.
  for (char c : code)
    if (!ident_char(c) && std::string(" \t\r\n()+-*.,;=").find(c) == std::string::npos) {
      why = std::string("the code has a character no CBLAS call of DaCe's has ('") + c + "')";
      return std::nullopt;
    }
  std::string s = trim(code);
  if (s.empty() || s.back() != ';' || s.find(';') != s.size() - 1) {
    why = "the code is not one statement ending in ';'";
    return std::nullopt;
  }
  s = trim(s.substr(0, s.size() - 1));
  CallText call;
  if (auto eq = s.find('='); eq != std::string::npos) {
    call.result = trim(s.substr(0, eq));
    s = trim(s.substr(eq + 1));
    if (!is_identifier(call.result) || s.find('=') != std::string::npos) {
      why = "the code is not `result = call(...)`";
      return std::nullopt;
    }
  }
  std::size_t open = s.find('(');
  if (open == std::string::npos || s.back() != ')') {
    why = "the code is not one function call";
    return std::nullopt;
  }
  call.function = trim(s.substr(0, open));
  if (!is_identifier(call.function)) {
    why = "the code is not one function call";
    return std::nullopt;
  }
  std::string inner = s.substr(open + 1, s.size() - open - 2);
  int depth = 0;
  std::string cur;
  for (char c : inner) {
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0) break;
    if (c == ',' && depth == 0) {
      call.args.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) {
    why = "the call's parentheses do not balance";
    return std::nullopt;
  }
  call.args.push_back(trim(cur));
  return call;
}

// ---------------------------------------------------------------------------------------------
// The tasklet's operands.

/// A connector's operand: its memlet squeezed to the dimensions of extent other than 1.
struct Operand {
  std::string conn;
  bool input = true;
  EdgeId edge = 0;
  const DataDescriptor* desc = nullptr;
  std::vector<sym::Expr> extents, strides;  // of the non-unit dimensions
};

bool is_int(const sym::Expr& e, long long v) { return e.is_integer() && e.value() == v; }
bool same(const sym::Expr& a, const sym::Expr& b) { return is_int(a - b, 0); }

class Matcher {
 public:
  Matcher(const SDFG& sdfg, const SDFGState& st, const Tasklet& t) : sdfg_(sdfg), st_(st), t_(t) {}

  std::string why;  // the first mismatch

  bool fail(const std::string& reason) {
    if (why.empty()) why = reason;
    return false;
  }

  /// The operand on connector `conn`: exactly one edge, a plain memlet (no WCR, other subset,
  /// dynamic volume or tiling) of a container of `type`, the connector typed as DaCe's
  /// expansions type it (a pointer to `type`, or `type` itself for Dot's result).
  std::optional<Operand> operand(const std::string& conn, bool input, ScalarType type, bool pointer) {
    const ConnectorMap& conns = input ? t_.in_connectors : t_.out_connectors;
    auto c = conns.find(conn);
    if (c == conns.end())
      return fail("'" + conn + "' is not an " + (input ? "input" : "output") + " connector"), std::nullopt;
    if (!c->second || c->second->base != type || c->second->pointer_depth != (pointer ? 1 : 0) ||
        !c->second->raw_json.empty())
      return fail("connector '" + conn + "' is not of type " + std::string(to_string(type)) +
                  (pointer ? "*" : "")),
             std::nullopt;
    auto edges = input ? st_.in_edges_by_connector(t_.id(), conn) : st_.out_edges_by_connector(t_.id(), conn);
    if (edges.size() != 1)
      return fail("connector '" + conn + "' does not have exactly one edge"), std::nullopt;
    const Memlet& m = st_.edge(edges[0]).memlet;
    if (m.is_empty() || !m.wcr.empty() || m.other_subset || m.dynamic || !sdfg_.has_data(m.data))
      return fail("the memlet of '" + conn + "' is not a plain memlet of a container"), std::nullopt;
    Operand op;
    op.conn = conn;
    op.input = input;
    op.edge = edges[0];
    op.desc = &sdfg_.data(m.data);
    if (op.desc->dtype.base != type || op.desc->dtype.pointer_depth != 0 || !op.desc->dtype.raw_json.empty())
      return fail("container '" + m.data + "' of '" + conn + "' is not of type " +
                  std::string(to_string(type))),
             std::nullopt;
    for (std::size_t d = 0; d < m.subset.dims(); ++d) {
      const Range& r = m.subset[d];
      if (!is_int(r.tile, 1)) return fail("the memlet of '" + conn + "' is tiled"), std::nullopt;
      sym::Expr size = r.size();
      if (is_int(size, 1)) continue;
      if (d >= op.desc->strides.size())
        return fail("the memlet of '" + conn + "' does not match its container's dimensions"), std::nullopt;
      op.extents.push_back(size);
      op.strides.push_back(op.desc->strides[d] * r.step);
    }
    used_.insert({input, conn});
    return op;
  }

  /// An integer argument: arithmetic (+, -, *, parentheses) of integers and names that are not
  /// connectors or containers, parsed as a symbolic expression. `names` gets the names used.
  std::optional<sym::Expr> integer(const std::string& text, const std::string& what,
                                   std::set<std::string>& names) {
    // C++ reads `N**2` as N * *2 and `010` as 8, the symbolic parser as N^2 and 10.
    if (text.find("**") != std::string::npos)
      return fail(what + " `" + text + "` is not an integer expression of symbols"), std::nullopt;
    for (std::size_t i = 0; i < text.size();) {
      char c = text[i];
      if (ident_start(c)) {
        std::size_t j = i;
        while (j < text.size() && ident_char(text[j])) ++j;
        std::string name = text.substr(i, j - i);
        if (t_.in_connectors.count(name) || t_.out_connectors.count(name) || sdfg_.has_data(name))
          return fail(what + " `" + text + "` reads a connector or container"), std::nullopt;
        names.insert(name);
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        if (c == '0' && i + 1 < text.size() && ident_char(text[i + 1]))
          return fail(what + " `" + text + "` has an octal or hexadecimal literal"), std::nullopt;
        while (i < text.size() && ident_char(text[i])) {
          if (!std::isdigit(static_cast<unsigned char>(text[i])))
            return fail(what + " `" + text + "` is not an integer expression"), std::nullopt;
          ++i;
        }
      } else if (std::string(" \t\r\n+-*()").find(c) != std::string::npos) {
        ++i;
      } else {
        return fail(what + " `" + text + "` is not an integer expression of symbols"), std::nullopt;
      }
    }
    try {
      return sym::Expr::parse(text);
    } catch (const weir::Error&) {
      return fail(what + " `" + text + "` is not an integer expression of symbols"), std::nullopt;
    }
  }

  /// Whether the integer argument `text` equals `expected` (symbolically, naming only symbols of
  /// `expected`: a name that cancels out is not taken as agreeing).
  bool agrees(const std::string& text, const sym::Expr& expected, const std::string& what) {
    std::set<std::string> names;
    auto e = integer(text, what, names);
    if (!e) return false;
    std::set<std::string> known = expected.free_symbols();
    for (const auto& n : names)
      if (!known.count(n)) return fail(what + " `" + text + "` does not match " + expected.str());
    if (!same(*e, expected)) return fail(what + " `" + text + "` does not match " + expected.str());
    return true;
  }

  /// A number: `1`, `0.5`, `1e-3`, with an optional sign.
  static std::optional<double> number(const std::string& s) {
    if (s.empty()) return std::nullopt;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c)) && std::string("+-.eE").find(c) == std::string::npos)
        return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return std::nullopt;
    return v;
  }

  /// A scalar argument as DaCe writes it: `double(1)` (the C type of the call), or a number.
  /// Returns the number as JSON and C++ read it ("2", "0.5", "1e-05").
  std::optional<std::string> constant(const std::string& text, const std::string& ctype,
                                      const std::string& what) {
    std::string s = text;
    if (s.rfind(ctype + "(", 0) == 0 && s.back() == ')')
      s = trim(s.substr(ctype.size() + 1, s.size() - ctype.size() - 2));
    std::optional<double> v = number(s);
    if (!v || !std::isfinite(*v)) return fail(what + " `" + text + "` is not a number"), std::nullopt;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", *v);
    return std::string(buf);
  }

  /// The connector a pointer argument names.
  std::optional<std::string> pointer(const std::string& text, const std::string& what) {
    if (!t_.in_connectors.count(text) && !t_.out_connectors.count(text))
      return fail(what + " `" + text + "` is not one of the tasklet's connectors"), std::nullopt;
    return text;
  }

  /// Whether the matrix operand is the stored matrix of `rows` x `cols` with leading dimension
  /// `ld` of the call's layout (`transposed` false) or its transpose (true).
  std::optional<bool> stored(const Operand& op, bool col_major, const std::string& rows,
                             const std::string& cols, const std::string& ld) {
    if (op.extents.size() != 2)
      return fail("'" + op.conn + "' is not a matrix (" + std::to_string(op.extents.size()) +
                  " dimensions of extent other than 1)"),
             std::nullopt;
    std::string saved = why;
    for (bool t : {false, true}) {
      // Unit stride along the rows (column-major) or the columns (row-major) of X.
      std::size_t unit = (col_major != t) ? 0 : 1, lead = 1 - unit;
      std::size_t r = t ? 1 : 0, c = 1 - r;
      if (!is_int(op.strides[unit], 1)) continue;
      if (!agrees(ld, op.strides[lead], "the leading dimension") ||
          !agrees(rows, op.extents[r], "the number of rows of '" + op.conn + "'") ||
          !agrees(cols, op.extents[c], "the number of columns of '" + op.conn + "'"))
        continue;
      // CBLAS refuses ld < rows (column-major) or ld < cols (row-major): it computes nothing.
      if (!(op.strides[lead] - op.extents[col_major ? r : c]).nonnegative_if_symbols_nonnegative()) {
        fail("the leading dimension of '" + op.conn + "' may be less than its " +
             (col_major ? "rows" : "columns"));
        continue;
      }
      why = saved;
      return t;
    }
    return fail("the strides of '" + op.conn + "' (" + op.strides[0].str() + ", " + op.strides[1].str() +
                ") do not match the call's layout and leading dimension " + ld),
           std::nullopt;
  }

  /// Whether the vector operand has `n` elements at increment `inc`.
  bool vector(const Operand& op, const std::string& n, const std::string& inc) {
    if (op.extents.size() != 1)
      return fail("'" + op.conn + "' is not a vector (" + std::to_string(op.extents.size()) +
                  " dimensions of extent other than 1)");
    if (!agrees(n, op.extents[0], "the length of '" + op.conn + "'")) return false;
    // CBLAS walks a negative increment backwards from the end: the stride must not be negative
    // (a stride of symbols, which are sizes, is taken as non-negative).
    if (!op.strides[0].nonnegative_if_symbols_nonnegative())
      return fail("the stride of '" + op.conn + "' may be negative");
    return agrees(inc, op.strides[0], "the increment of '" + op.conn + "'");
  }

  /// Every connector of the tasklet is an operand of the call (an input and an output of one
  /// name are two connectors).
  bool all_used() {
    for (bool input : {true, false})
      for (const auto& [name, type] : input ? t_.in_connectors : t_.out_connectors)
        if (!used_.count({input, name}))
          return fail(std::string(input ? "input" : "output") + " connector '" + name +
                      "' is not an operand of the call");
    return true;
  }

 private:
  const SDFG& sdfg_;
  const SDFGState& st_;
  const Tasklet& t_;
  std::set<std::pair<bool, std::string>> used_;  // (input, connector)
};

/// The library node to put in a tasklet's place: its class, attributes and operands by role.
struct Replacement {
  std::string cls, attributes;
  std::vector<std::pair<std::string, std::string>> extra;  // attribute -> JSON text
  std::vector<std::pair<std::string, Operand>> inputs, outputs;
};

std::optional<bool> flag(const std::string& s, const std::string& no, const std::string& yes) {
  if (s == no) return false;
  if (s == yes) return true;
  return std::nullopt;
}

// `cblas_?gemm(layout, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)`:
// C (M x N) = alpha * op(A) (M x K) * op(B) (K x N).
std::optional<Replacement> match_gemm(Matcher& m, const CallText& c, ScalarType t, const std::string& ctype) {
  if (!c.result.empty() || c.args.size() != 14)
    return m.fail("not a call of cblas_?gemm's 14 arguments"), std::nullopt;
  auto layout = flag(c.args[0], "CblasRowMajor", "CblasColMajor");
  auto ta = flag(c.args[1], "CblasNoTrans", "CblasTrans"), tb = flag(c.args[2], "CblasNoTrans", "CblasTrans");
  if (!layout || !ta || !tb) return m.fail("the layout or transpose flags are not constants"), std::nullopt;
  auto alpha = m.constant(c.args[6], ctype, "alpha");
  auto beta = m.constant(c.args[11], ctype, "beta");
  if (!alpha || !beta) return std::nullopt;
  if (*Matcher::number(*beta) != 0.0) return m.fail("beta is not 0 (C is not only written)"), std::nullopt;
  auto pa = m.pointer(c.args[7], "A"), pb = m.pointer(c.args[9], "B"), pc = m.pointer(c.args[12], "C");
  if (!pa || !pb || !pc) return std::nullopt;
  if (*pa == *pb || *pa == *pc || *pb == *pc)
    return m.fail("the call names one connector twice"), std::nullopt;
  auto a = m.operand(*pa, true, t, true), b = m.operand(*pb, true, t, true),
       out = m.operand(*pc, false, t, true);
  if (!a || !b || !out || !m.all_used()) return std::nullopt;
  const std::string &M = c.args[3], &N = c.args[4], &K = c.args[5];
  auto t1 = m.stored(*a, *layout, *ta ? K : M, *ta ? M : K, c.args[8]);
  if (!t1) return std::nullopt;
  auto t2 = m.stored(*b, *layout, *tb ? N : K, *tb ? K : N, c.args[10]);
  if (!t2) return std::nullopt;
  auto tc = m.stored(*out, *layout, M, N, c.args[13]);
  if (!tc) return std::nullopt;
  // X_C = op(X_A) op(X_B) with X = P or P^T: P_C = P_A^f1 P_B^f2, or P_C^T = ..., so that
  // P_C = P_B^!f2 P_A^!f1.
  bool f1 = *t1 != *ta, f2 = *t2 != *tb;
  Replacement r;
  r.cls = "Gemm";
  Operand first = *a, second = *b;
  if (*tc) {
    std::swap(first, second);
    std::swap(f1, f2);
    f1 = !f1, f2 = !f2;
  }
  r.inputs = {{"_a", first}, {"_b", second}};
  r.outputs = {{"_c", *out}};
  r.extra = {
      {"transA", f1 ? "true" : "false"}, {"transB", f2 ? "true" : "false"}, {"alpha", *alpha}, {"beta", "0"}};
  std::vector<std::string> notes;
  if (f1) notes.emplace_back("transA");
  if (f2) notes.emplace_back("transB");
  if (*Matcher::number(*alpha) != 1.0) notes.push_back("alpha " + *alpha);
  for (const auto& n : notes) r.attributes += (r.attributes.empty() ? "" : ", ") + n;
  return r;
}

// `cblas_?gemv(layout, trans, M, N, alpha, A, lda, x, incx, beta, y, incy)`: A is M x N;
// y = alpha * op(A) x.
std::optional<Replacement> match_gemv(Matcher& m, const CallText& c, ScalarType t, const std::string& ctype) {
  if (!c.result.empty() || c.args.size() != 12)
    return m.fail("not a call of cblas_?gemv's 12 arguments"), std::nullopt;
  auto layout = flag(c.args[0], "CblasRowMajor", "CblasColMajor");
  auto tr = flag(c.args[1], "CblasNoTrans", "CblasTrans");
  if (!layout || !tr) return m.fail("the layout or transpose flag is not a constant"), std::nullopt;
  auto alpha = m.constant(c.args[4], ctype, "alpha");
  auto beta = m.constant(c.args[9], ctype, "beta");
  if (!alpha || !beta) return std::nullopt;
  if (*Matcher::number(*beta) != 0.0) return m.fail("beta is not 0 (y is not only written)"), std::nullopt;
  auto pa = m.pointer(c.args[5], "A"), px = m.pointer(c.args[7], "x"), py = m.pointer(c.args[10], "y");
  if (!pa || !px || !py) return std::nullopt;
  if (*pa == *px || *pa == *py || *px == *py)
    return m.fail("the call names one connector twice"), std::nullopt;
  auto a = m.operand(*pa, true, t, true), x = m.operand(*px, true, t, true),
       y = m.operand(*py, false, t, true);
  if (!a || !x || !y || !m.all_used()) return std::nullopt;
  const std::string &M = c.args[2], &N = c.args[3];
  auto ta = m.stored(*a, *layout, M, N, c.args[6]);
  if (!ta) return std::nullopt;
  if (!m.vector(*x, *tr ? M : N, c.args[8]) || !m.vector(*y, *tr ? N : M, c.args[11])) return std::nullopt;
  bool trans = *ta != *tr;
  Replacement r;
  r.cls = "Gemv";
  r.inputs = {{"_A", *a}, {"_x", *x}};
  r.outputs = {{"_y", *y}};
  r.extra = {{"transA", trans ? "true" : "false"}, {"alpha", *alpha}, {"beta", "0"}};
  if (trans) r.attributes = "transA";
  if (*Matcher::number(*alpha) != 1.0)
    r.attributes += (r.attributes.empty() ? "" : ", ") + ("alpha " + *alpha);
  return r;
}

// `result = cblas_?dot(n, x, incx, y, incy)`.
std::optional<Replacement> match_dot(Matcher& m, const CallText& c, ScalarType t) {
  if (c.result.empty() || c.args.size() != 5)
    return m.fail("not `result = cblas_?dot(5 arguments)`"), std::nullopt;
  auto px = m.pointer(c.args[1], "x"), py = m.pointer(c.args[3], "y");
  if (!px || !py) return std::nullopt;
  if (*px == *py || c.result == *px || c.result == *py)
    return m.fail("the call names one connector twice"), std::nullopt;
  auto x = m.operand(*px, true, t, true), y = m.operand(*py, true, t, true),
       res = m.operand(c.result, false, t, false);
  if (!x || !y || !res || !m.all_used()) return std::nullopt;
  if (!res->extents.empty()) return m.fail("the result's memlet is not one element"), std::nullopt;
  if (!m.vector(*x, c.args[0], c.args[2]) || !m.vector(*y, c.args[0], c.args[4])) return std::nullopt;
  Replacement r;
  r.cls = "Dot";
  r.inputs = {{"_x", *x}, {"_y", *y}};
  r.outputs = {{"_result", *res}};
  return r;
}

const char* classpath(const std::string& cls) {
  if (cls == "Gemm") return "dace.libraries.blas.nodes.gemm.Gemm";
  if (cls == "Gemv") return "dace.libraries.blas.nodes.gemv.Gemv";
  return "dace.libraries.blas.nodes.dot.Dot";
}

/// Puts the library node of `r` in the place of tasklet `t`, on the tasklet's edges.
void replace(SDFGState& st, const Tasklet& t, const Replacement& r) {
  auto node = std::make_unique<LibraryNode>(t.label, "LibraryNode");
  node->classpath = classpath(r.cls);
  node->implementation = "OpenBLAS";
  for (const auto& [k, v] : r.extra) node->extra.set(k, v);
  for (const auto& [conn, op] : r.inputs) node->in_connectors[conn] = std::nullopt;
  for (const auto& [conn, op] : r.outputs) node->out_connectors[conn] = std::nullopt;
  NodeId id = st.add_node(std::move(node)).id();
  for (const auto& [conn, op] : r.inputs) {
    DataflowEdge e = st.edge(op.edge);  // a copy: adding an edge may move the state's edges
    st.add_edge(e.src, e.src_conn, id, conn, e.memlet);
  }
  for (const auto& [conn, op] : r.outputs) {
    DataflowEdge e = st.edge(op.edge);
    st.add_edge(id, conn, e.dst, e.dst_conn, e.memlet);
  }
  st.remove_node(t.id());
}

/// The library node to put in the place of `t`, or nullopt with the reason in `m.why`.
std::optional<Replacement> match(Matcher& m, const Tasklet& t, std::string& function) {
  if (!is_blank(t.code_global) || !is_blank(t.code_init) || !is_blank(t.code_exit))
    return m.fail("the tasklet has global, init or exit code"), std::nullopt;
  if (t.side_effects.value_or(false))
    return m.fail("the tasklet is marked as having side effects"), std::nullopt;
  auto call = parse_call(t.code.code, m.why);
  if (!call) return std::nullopt;
  function = call->function;
  // cblas_ + s (float32) or d (float64) + gemm / gemv / dot.
  std::string kind = function.size() > 7 ? function.substr(7) : "";
  bool single = function.rfind("cblas_s", 0) == 0, dbl = function.rfind("cblas_d", 0) == 0;
  if (!single && !dbl)
    return m.fail("'" + function + "' is not a real single or double precision CBLAS function"), std::nullopt;
  ScalarType type = single ? ScalarType::Float32 : ScalarType::Float64;
  std::string ctype = single ? "float" : "double";
  try {
    if (kind == "gemm") return match_gemm(m, *call, type, ctype);
    if (kind == "gemv") return match_gemv(m, *call, type, ctype);
    if (kind == "dot") return match_dot(m, *call, type);
  } catch (const weir::Error& e) {  // symbolic arithmetic that overflows, say: no match
    return m.fail(std::string("its sizes cannot be compared (") + e.what() + ")"), std::nullopt;
  }
  return m.fail("'" + function + "' is not cblas_?gemm, cblas_?gemv or cblas_?dot"), std::nullopt;
}

void recognize(SDFG& sdfg, BlasRecognition& out) {
  for (SDFGState* st : sdfg.all_states()) {
    for (Node* n : st->nodes()) {
      if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) recognize(*ns->sdfg, out);
      const auto* t = n->as<Tasklet>();
      if (!t || t->code.language != Language::CPP || t->code.code.find("cblas_") == std::string::npos)
        continue;
      Matcher m(sdfg, *st, *t);
      std::string function;
      std::optional<Replacement> r = match(m, *t, function);
      if (!r) {
        out.kept.push_back({sdfg.name, st->label, t->label, t->id(), m.why});
        continue;
      }
      out.recognized.push_back({sdfg.name, st->label, t->label, t->id(), function, r->cls, r->attributes});
      replace(*st, *t, *r);
    }
  }
}

}  // namespace

std::string RecognizedBlasCall::str() const {
  return "SDFG '" + sdfg + "', state '" + state + "', tasklet '" + tasklet + "' (node " +
         std::to_string(tasklet_id) + "): " + function + " -> " + library_node +
         (attributes.empty() ? "" : " (" + attributes + ")");
}

std::string UnrecognizedBlasCall::str() const {
  return "SDFG '" + sdfg + "', state '" + state + "', tasklet '" + tasklet + "' (node " +
         std::to_string(tasklet_id) + ") stays C++ (needs --trust-code): " + reason;
}

BlasRecognition recognize_dace_blas_calls(SDFG& sdfg) {
  BlasRecognition out;
  recognize(sdfg, out);
  return out;
}

}  // namespace weir::transforms
