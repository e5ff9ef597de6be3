#include "numpy_writer.h"

#include <cstdio>
#include <sstream>

#include "gt4py_writer.h"

namespace weir::fvdiff {

namespace {

std::string np_dtype(DType t) {
  switch (t) {
    case DType::Float64: return "np.float64";
    case DType::Int32: return "np.int32";
    case DType::Bool: return "np.bool_";
  }
  return "?";
}

std::string number(DType t, double v) {
  char buf[64];
  if (t == DType::Int32)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return np_dtype(t) + "(" + buf + ")";
}

std::string shape(const Box& b) {
  Index3 e = b.extent();
  return "(" + std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " + std::to_string(e[2]) + ")";
}

/// The Python slice of the half-open range [lo, hi): an empty one is spelled `0:0`, since Python
/// reads a negative bound from the end (`0:-1` of an empty box shifted by -1 is all but the last).
std::string slice(std::int64_t lo, std::int64_t hi) {
  return hi <= lo ? std::string("0:0") : std::to_string(lo) + ":" + std::to_string(hi);
}

std::string python_op(const std::string& op) { return op; }  // the same spelling, NumPy's meaning

class Writer {
 public:
  explicit Writer(std::ostringstream& o, int tmp = 0, std::string indent = "    ")
      : o_(o), tmp_(tmp), indent_(std::move(indent)) {}

  /// A NumPy expression for the values of `n` on `box` (an array of the box's shape), or, in a
  /// scan body (`box` null), for one level (scalars and arrays over I, J). Unstructured: on the
  /// horizontal points of the index array named `rows` and the box's K range, an array of
  /// shape (len(rows), K extent).
  std::string eval(const Node& n, const Box* box, const std::string& rows = "") {
    const std::string S = !box ? ""
                          : rows.empty()
                              ? shape(*box)
                              : "(" + rows + ".shape[0], " + std::to_string(box->extent()[2]) + ")";
    const std::string K = box ? slice(box->lo[2], box->hi[2]) : "";
    switch (n.kind) {
      case Node::Kind::Field: {
        if (!rows.empty()) return n.name + "[" + rows + "][:, " + K + "]";
        const Box& b = *box;
        // An empty box reads nothing (its bounds may lie outside the array after a shift).
        if (b.empty()) return "np.zeros(" + S + ", " + np_dtype(n.dtype) + ")";
        std::string idx, rs;
        for (int d = 0; d < kNumDims; ++d) {
          bool has = n.dims & (1u << d);
          if (has) idx += (idx.empty() ? "" : ", ") + slice(b.lo[d], b.hi[d]);
          rs += (d ? ", " : "") + (has ? std::to_string(b.extent()[d]) : std::string("1"));
        }
        return "np.broadcast_to(" + n.name + "[" + idx + "].reshape(" + rs + "), " + S + ")";
      }
      case Node::Kind::Scalar: return box ? "np.full(" + S + ", " + n.name + ")" : n.name;
      case Node::Kind::Literal:
        return box ? "np.full(" + S + ", " + number(n.dtype, n.value) + ")" : number(n.dtype, n.value);
      case Node::Kind::Var: return eval(*n.var, box, rows);
      case Node::Kind::Shift: {
        Box b = box->shifted(n.shift);
        return eval(*n.args[0], &b, rows);
      }
      case Node::Kind::Unary: return "(" + n.name + eval(*n.args[0], box, rows) + ")";
      case Node::Kind::Binary:
        // Float powers through C's pow (math.pow), once per element: NumPy's own vectorized
        // power may differ in the last bit, and cancellations downstream magnify that.
        if (n.name == "**" && n.dtype == DType::Float64)
          return "fpow(" + eval(*n.args[0], box, rows) + ", " + eval(*n.args[1], box, rows) + ")";
        return "(" + eval(*n.args[0], box, rows) + " " + python_op(n.name) + " " +
               eval(*n.args[1], box, rows) + ")";
      case Node::Kind::Where:
        return "np.where(" + eval(*n.args[0], box, rows) + ", " + eval(*n.args[1], box, rows) + ", " +
               eval(*n.args[2], box, rows) + ")";
      case Node::Kind::ConcatWhere: {
        std::string t = "t" + std::to_string(tmp_++);
        std::string a_parts, b_parts;
        o_ << indent_ << t << " = np.empty(" << S << ", " << np_dtype(n.dtype) << ")\n";
        for (int side = 0; side < 2; ++side)
          for (const Box& part : cond_parts(n.cond, *box, side == 0)) {
            std::string v = eval(*n.args[static_cast<std::size_t>(side)], &part, rows);
            std::string rel = rows.empty() ? "" : ":, ";
            for (int d = rows.empty() ? 0 : 2; d < kNumDims; ++d)
              rel +=
                  (d && rows.empty() ? ", " : "") + slice(part.lo[d] - box->lo[d], part.hi[d] - box->lo[d]);
            o_ << indent_ << t << "[" << rel << "] = " << v << "\n";
          }
        return t;
      }
      case Node::Kind::AsType:
        return "(" + eval(*n.args[0], box, rows) + ").astype(" + np_dtype(n.dtype) + ")";
      case Node::Kind::Neighbor: {
        std::string ix = "t" + std::to_string(tmp_++);
        o_ << indent_ << ix << " = " << n.offset << "[" << rows << ", " << static_cast<int>(n.value) << "]\n";
        return eval(*n.args[0], box, ix);
      }
      case Node::Kind::Reduce: {
        // Neighbour by neighbour, in table order, skipping -1 entries.
        std::string t = "t" + std::to_string(tmp_++);
        const std::string nb = t + "nb", ok = t + "ok", all = t + "all";
        o_ << indent_ << nb << " = " << n.offset << "[" << rows << "]\n";
        o_ << indent_ << ok << " = " << nb << " != -1\n";
        o_ << indent_ << all << " = np.where(" << ok << ", " << nb << ", 0)\n";
        std::string init = n.name == "neighbor_sum" ? "0.0" : n.name == "max_over" ? "-np.inf" : "np.inf";
        o_ << indent_ << t << " = np.full(" << S << ", " << init << ")\n";
        o_ << indent_ << "for " << t << "i in range(" << nb << ".shape[1]):\n";
        std::string col = t + "col";
        o_ << indent_ << "    " << col << " = " << all << "[:, " << t << "i]\n";
        // The column's values (indices of missing neighbours read point 0, then masked out).
        Writer inner(o_, tmp_, indent_ + "    ");
        std::string v = inner.eval(*n.args[0], box, col);
        tmp_ = inner.tmp_;
        if (n.args.size() > 1) v = "(" + v + " * " + n.args[1]->name + "[" + rows + ", " + t + "i][:, None])";
        std::string combine =
            n.name == "neighbor_sum"
                ? t + " + " + v
                : std::string(n.name == "max_over" ? "np.maximum(" : "np.minimum(") + t + ", " + v + ")";
        o_ << indent_ << "    " << t << " = np.where(" << ok << "[:, " << t << "i][:, None], " << combine
           << ", " << t << ")\n";
        return t;
      }
      case Node::Kind::Call: {
        std::string s = "np." + n.name + "(";
        for (std::size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + eval(*n.args[i], box, rows);
        return s + ")";
      }
    }
    return "?";
  }

 private:
  std::ostringstream& o_;
  int tmp_ = 0;
  std::string indent_;  // of the statements emitted (a reduction's loop body is one deeper)
};

// Stores `value` (an array of the box's shape) into the output `out` on the box.
void store(std::ostringstream& o, const SubProgram& sp, const std::string& out, const std::string& value) {
  std::string idx, rs;
  for (int d = 0; d < kNumDims; ++d) {
    if (!(sp.out_dims & (1u << d))) continue;
    idx += (idx.empty() ? "" : ", ") + slice(sp.box.lo[d], sp.box.hi[d]);
    rs += (rs.empty() ? "" : ", ") + std::to_string(sp.box.extent()[d]);
  }
  o << "    r = load(\"" << out << "\")\n";
  o << "    r[" << idx << "] = (" << value << ").reshape(" << rs << ",)\n";
  o << "    np.save(os.path.join(outdir, \"" << out << ".npy\"), r)\n";
}

void write_program(std::ostringstream& o, const SubProgram& sp) {
  o << "\n# " << sp.name() << " (seed " << sp.seed << ", program " << sp.number << ")\ndef " << sp.name()
    << "():\n";
  Writer w(o);
  std::string rows;
  if (sp.universe->unstructured) {
    const int h = (sp.out_dims & 1u) ? 0 : 1;  // the output's horizontal dimension
    rows = "rows";
    o << "    rows = np.arange(" << sp.box.lo[h] << ", " << sp.box.hi[h] << ")\n";
  }
  if (!sp.is_scan) {
    for (std::size_t r = 0; r < sp.results.size(); ++r) {
      std::string v = w.eval(*sp.results[r], &sp.box, rows);
      o << "    res" << r << " = " << v << "\n";
    }
    for (std::size_t r = 0; r < sp.results.size(); ++r)
      store(o, sp, sp.out_name(r), "res" + std::to_string(r));
    return;
  }
  const Scan& s = sp.scan;
  const Index3 e = sp.box.extent();
  for (std::size_t x = 0; x < s.args.size(); ++x) {
    std::string v = w.eval(*s.args[x], &sp.box);  // may write statements first
    o << "    X" << x << " = " << v << "\n";
  }
  for (std::size_t c = 0; c < s.init.size(); ++c) {
    o << "    c" << c << " = np.full((" << e[0] << ", " << e[1] << "), " << number(DType::Float64, s.init[c])
      << ")\n";
    o << "    R" << c << " = np.empty(" << shape(sp.box) << ")\n";
  }
  o << "    for k in "
    << (s.forward ? "range(" + std::to_string(e[2]) + ")" : "reversed(range(" + std::to_string(e[2]) + "))")
    << ":\n";
  for (std::size_t x = 0; x < s.args.size(); ++x) o << "        x" << x << " = X" << x << "[:, :, k]\n";
  std::string targets, values;
  for (std::size_t c = 0; c < s.body.size(); ++c) {
    targets += (c ? ", " : "") + std::string("c") + std::to_string(c);
    values += (c ? ", " : "") + w.eval(*s.body[c], nullptr);
  }
  o << "        " << targets << " = " << values << "\n";
  for (std::size_t c = 0; c < s.body.size(); ++c) o << "        R" << c << "[:, :, k] = c" << c << "\n";
  for (std::size_t c = 0; c < s.body.size(); ++c) store(o, sp, sp.out_name(c), "R" + std::to_string(c));
}

}  // namespace

std::string write_numpy_script(const std::vector<const SubProgram*>& programs) {
  std::ostringstream o;
  o << "import math\nimport os\nimport sys\n\nimport numpy as np\n\nindir, outdir = sys.argv[1], "
       "sys.argv[2]\n"
       "os.makedirs(outdir, exist_ok=True)\n\n\ndef load(name):\n    return np.load(os.path.join(indir, name "
       "+ \".npy\"))\n\n\n"
       "def fpow(x, y):\n    return np.vectorize(lambda a, b: math.pow(float(a), float(b)), "
       "otypes=[np.float64])(x, y)\n\n\n";
  for (const Input* i : inputs_used(programs)) {
    if (i->dims)
      o << i->name << " = load(\"" << i->name << "\")\n";
    else
      o << i->name << " = " << number(i->dtype, i->scalar) << "\n";
  }
  for (const Table* t : tables_used(programs)) o << t->name << " = load(\"" << t->name << "\")\n";
  for (const SubProgram* sp : programs)
    if (!sp->expect_error) write_program(o, *sp);
  o << "\n";
  for (const SubProgram* sp : programs)
    if (!sp->expect_error) o << sp->name() << "()\n";
  return o.str();
}

}  // namespace weir::fvdiff
