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
  if (t == DType::Int32) std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else std::snprintf(buf, sizeof buf, "%.17g", v);
  return np_dtype(t) + "(" + buf + ")";
}

std::string shape(const Box& b) {
  Index3 e = b.extent();
  return "(" + std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " + std::to_string(e[2]) + ")";
}

std::string python_op(const std::string& op) { return op; }  // the same spelling, NumPy's meaning

class Writer {
 public:
  explicit Writer(std::ostringstream& o) : o_(o) {}

  /// A NumPy expression for the values of `n` on `box` (an array of the box's shape), or, in a
  /// scan body (`box` null), for one level (scalars and arrays over I, J).
  std::string eval(const Node& n, const Box* box) {
    const std::string S = box ? shape(*box) : "";
    switch (n.kind) {
      case Node::Kind::Field: {
        const Box& b = *box;
        std::string idx, rs;
        for (int d = 0; d < kNumDims; ++d) {
          bool has = n.dims & (1u << d);
          if (has) idx += (idx.empty() ? "" : ", ") + std::to_string(b.lo[d]) + ":" + std::to_string(b.hi[d]);
          rs += (d ? ", " : "") + (has ? std::to_string(b.extent()[d]) : std::string("1"));
        }
        return "np.broadcast_to(" + n.name + "[" + idx + "].reshape(" + rs + "), " + S + ")";
      }
      case Node::Kind::Scalar: return box ? "np.full(" + S + ", " + n.name + ")" : n.name;
      case Node::Kind::Literal: return box ? "np.full(" + S + ", " + number(n.dtype, n.value) + ")" : number(n.dtype, n.value);
      case Node::Kind::Var: return eval(*n.var, box);
      case Node::Kind::Shift: {
        Box b = box->shifted(n.shift);
        return eval(*n.args[0], &b);
      }
      case Node::Kind::Unary: return "(" + n.name + eval(*n.args[0], box) + ")";
      case Node::Kind::Binary:
        return "(" + eval(*n.args[0], box) + " " + python_op(n.name) + " " + eval(*n.args[1], box) + ")";
      case Node::Kind::Where:
        return "np.where(" + eval(*n.args[0], box) + ", " + eval(*n.args[1], box) + ", " + eval(*n.args[2], box) + ")";
      case Node::Kind::ConcatWhere: {
        std::string t = "t" + std::to_string(tmp_++);
        std::string a_parts, b_parts;
        o_ << "    " << t << " = np.empty(" << S << ", " << np_dtype(n.dtype) << ")\n";
        for (int side = 0; side < 2; ++side)
          for (const Box& part : cond_parts(n.cond, *box, side == 0)) {
            std::string v = eval(*n.args[static_cast<std::size_t>(side)], &part);
            std::string rel;
            for (int d = 0; d < kNumDims; ++d)
              rel += (d ? ", " : "") + std::to_string(part.lo[d] - box->lo[d]) + ":" + std::to_string(part.hi[d] - box->lo[d]);
            o_ << "    " << t << "[" << rel << "] = " << v << "\n";
          }
        return t;
      }
      case Node::Kind::AsType: return "(" + eval(*n.args[0], box) + ").astype(" + np_dtype(n.dtype) + ")";
      case Node::Kind::Call: {
        std::string s = "np." + n.name + "(";
        for (std::size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + eval(*n.args[i], box);
        return s + ")";
      }
    }
    return "?";
  }

 private:
  std::ostringstream& o_;
  int tmp_ = 0;
};

// Stores `value` (an array of the box's shape) into the output `out` on the box.
void store(std::ostringstream& o, const SubProgram& sp, const std::string& out, const std::string& value) {
  std::string idx, rs;
  for (int d = 0; d < kNumDims; ++d) {
    if (!(sp.out_dims & (1u << d))) continue;
    idx += (idx.empty() ? "" : ", ") + std::to_string(sp.box.lo[d]) + ":" + std::to_string(sp.box.hi[d]);
    rs += (rs.empty() ? "" : ", ") + std::to_string(sp.box.extent()[d]);
  }
  o << "    r = load(\"" << out << "\")\n";
  o << "    r[" << idx << "] = (" << value << ").reshape(" << rs << ",)\n";
  o << "    np.save(os.path.join(outdir, \"" << out << ".npy\"), r)\n";
}

void write_program(std::ostringstream& o, const SubProgram& sp) {
  o << "\n# " << sp.name() << " (seed " << sp.seed << ", program " << sp.number << ")\ndef " << sp.name() << "():\n";
  Writer w(o);
  if (!sp.is_scan) {
    for (std::size_t r = 0; r < sp.results.size(); ++r) {
      std::string v = w.eval(*sp.results[r], &sp.box);
      o << "    v" << r << " = " << v << "\n";
    }
    for (std::size_t r = 0; r < sp.results.size(); ++r) store(o, sp, sp.out_name(r), "v" + std::to_string(r));
    return;
  }
  const Scan& s = sp.scan;
  const Index3 e = sp.box.extent();
  for (std::size_t x = 0; x < s.args.size(); ++x) o << "    X" << x << " = " << w.eval(*s.args[x], &sp.box) << "\n";
  for (std::size_t c = 0; c < s.init.size(); ++c) {
    o << "    c" << c << " = np.full((" << e[0] << ", " << e[1] << "), " << number(DType::Float64, s.init[c]) << ")\n";
    o << "    R" << c << " = np.empty(" << shape(sp.box) << ")\n";
  }
  o << "    for k in " << (s.forward ? "range(" + std::to_string(e[2]) + ")" : "reversed(range(" + std::to_string(e[2]) + "))")
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
  o << "import os\nimport sys\n\nimport numpy as np\n\nindir, outdir = sys.argv[1], sys.argv[2]\n"
       "os.makedirs(outdir, exist_ok=True)\n\n\ndef load(name):\n    return np.load(os.path.join(indir, name + \".npy\"))\n\n\n";
  for (const Input* i : inputs_used(programs)) {
    if (i->dims) o << i->name << " = load(\"" << i->name << "\")\n";
    else o << i->name << " = " << number(i->dtype, i->scalar) << "\n";
  }
  for (const SubProgram* sp : programs)
    if (!sp->expect_error) write_program(o, *sp);
  o << "\n";
  for (const SubProgram* sp : programs)
    if (!sp->expect_error) o << sp->name() << "()\n";
  return o.str();
}

}  // namespace weir::fvdiff
