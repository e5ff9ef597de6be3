// DaCe's Reduce library node (dace/libraries/standard/nodes/reduce.py: `wcr`, `axes`,
// `identity`) as its pure expansion: an identity state and a write-conflict-resolved map.
#include <algorithm>
#include <cctype>

#include "library_expansion_internal.h"
#include "weir/pycode/code.h"

namespace weir::transforms::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

/// Whether `e` is a number literal with at most one sign: `0`, `-1.5`, `+1e308`, `True`.
bool is_number_literal(const pycode::Expr& e) {
  const pycode::Expr* x = &e;
  if (const auto* u = pycode::dyn_cast<pycode::UnaryOp>(x);
      u && (u->op == pycode::UnaryOperator::USub || u->op == pycode::UnaryOperator::UAdd))
    x = u->operand.get();
  const auto* c = pycode::dyn_cast<pycode::Constant>(x);
  return c && (c->value_kind == pycode::ConstantKind::Int || c->value_kind == pycode::ConstantKind::Float ||
               (c->value_kind == pycode::ConstantKind::Bool && x == &e));
}

/// The Python literal of a Reduce identity as DaCe writes it (JSON text: "0",
/// "\"1.7976931348623157e+308\"", "\"-inf\"", true), "" for none. Anything but a number
/// (Python's syntax: no leading zeros, `0x`/`0o`/`0b` prefixes, single underscores between
/// digits), at most one sign, inf, -inf, True or False is refused at the node: the identity
/// becomes tasklet code, and `e` or `--1` there would be a name or an expression.
std::string identity_literal(const ExpansionSite& site) {
  std::string ident = site.node.identity;
  if (ident.size() >= 2 && ident.front() == '"' && ident.back() == '"')
    ident = ident.substr(1, ident.size() - 2);
  if (ident.empty() || ident == "null" || ident == "None") return "";
  if (ident == "inf" || ident == "Infinity") return "inf";
  if (ident == "-inf" || ident == "-Infinity") return "-inf";
  if (ident == "true" || ident == "True") return "True";
  if (ident == "false" || ident == "False") return "False";
  std::string why = "not a number";
  try {
    auto code = pycode::Code::parse(ident, "<identity>");
    if (const pycode::Expr* e = code->expression(); e && is_number_literal(*e)) return ident;
  } catch (const pycode::SourceError& err) {
    why = err.message();
  }
  throw site.error("invalid Reduce identity " + site.node.identity + " (" + why +
                   "; expected a number, inf, -inf, True or False)");
}

/// One state of the expansion: `code` in a tasklet reading `in` (if given) at `in_index` and
/// writing `out` at `out_index` (through `wcr` if not empty), in a Sequential map over
/// `params` in [0, sizes) when there are any.
void add_tasklet_state(SDFGState& st, const std::string& code, const LibraryOperand* in,
                       const std::vector<sym::Expr>& in_index, const LibraryOperand& out,
                       const std::vector<sym::Expr>& out_index, const std::string& wcr,
                       const std::vector<std::string>& params, const std::vector<sym::Expr>& sizes) {
  auto subset = [](const LibraryOperand& op, const std::vector<sym::Expr>& idx) {
    std::vector<Range> r;
    if (op.desc.is_scalar()) return Subset({Range::index(sym::Expr(0))});
    for (const auto& i : idx) r.push_back(Range::index(i));
    return Subset(r);
  };
  std::vector<std::string> inputs;
  if (in) inputs.push_back("__in");
  Tasklet& t = st.add_tasklet(st.label, CodeBlock{code, Language::Python}, inputs, {"__out"});
  AccessNode& o = st.add_access(out.name);
  Memlet wm = Memlet::simple(out.name, subset(out, out_index), wcr);
  if (params.empty()) {
    if (in)
      st.add_edge(st.add_access(in->name).id(), "", t.id(), "__in",
                  Memlet::simple(in->name, subset(*in, in_index)));
    st.add_edge(t.id(), "__out", o.id(), "", wm);
    return;
  }
  std::vector<Range> range;
  for (const auto& s : sizes) range.emplace_back(sym::Expr(0), s - sym::Expr(1));
  MapEntry& entry = st.add_map(st.label, params, Subset(range), ScheduleType::Sequential);
  if (in) {
    AccessNode& a = st.add_access(in->name);
    st.add_memlet_path({a.id(), entry.id(), t.id()}, Memlet::simple(in->name, subset(*in, in_index)), "",
                       "__in");
  } else {
    st.add_edge(entry.id(), "", t.id(), "", Memlet{});
  }
  st.add_memlet_path({t.id(), entry.exit, o.id()}, wm, "__out", "");
}

}  // namespace

std::unique_ptr<SDFG> expand_reduce(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  const LibraryNode& n = site.node;
  auto ins = site.data_edges(true), outs = site.data_edges(false);
  if (ins.size() > 1) throw site.error("Reduce with several inputs");
  if (outs.size() > 1) throw site.error("Reduce with several outputs");
  if (ins.empty() || outs.empty()) throw site.error("Reduce needs one input and one output memlet");
  ops = {site.operand(*ins[0], true, "_in"), site.operand(*outs[0], false, "_out")};
  if (ops[0].name == ops[1].name) ops[1].name += "_out";
  if (n.wcr.empty()) throw site.error("Reduce without a reduction function (wcr)");
  const LibraryOperand &I = ops[0], &O = ops[1];
  const std::size_t dims = I.desc.is_scalar() ? 0 : I.desc.shape.size();
  std::set<std::size_t> axes;
  if (n.axes) {
    for (int a : *n.axes) {
      if (a < 0 || static_cast<std::size_t>(a) >= dims)
        throw site.error("Reduce axis " + std::to_string(a) + " out of range");
      axes.insert(static_cast<std::size_t>(a));
    }
  } else {
    for (std::size_t d = 0; d < dims; ++d) axes.insert(d);
  }
  // Kept input dimensions (size != 1) map in order onto the output's non-unit dimensions.
  std::vector<std::size_t> kept, odims;
  for (std::size_t d = 0; d < dims; ++d)
    if (!axes.count(d) && !is_one(I.desc.shape[d])) kept.push_back(d);
  if (!O.desc.is_scalar())
    for (std::size_t d = 0; d < O.desc.shape.size(); ++d)
      if (!is_one(O.desc.shape[d])) odims.push_back(d);
  if (kept.size() != odims.size())
    throw site.error("Reduce output shape does not match the kept input dimensions");
  const std::string ident = identity_literal(site);

  std::unique_ptr<SDFG> inner = expansion_sdfg(site, ops);
  const std::size_t odim_count = O.desc.is_scalar() ? 0 : O.desc.shape.size();
  SDFGState* init = nullptr;
  if (!ident.empty()) {
    init = &inner->add_state("reduce_init", true);
    std::vector<std::string> params;
    std::vector<sym::Expr> sizes, oidx(odim_count, sym::Expr(0));
    for (std::size_t k = 0; k < odims.size(); ++k) {
      params.push_back("__o" + std::to_string(k));
      sizes.push_back(O.desc.shape[odims[k]]);
      oidx[odims[k]] = sym::Expr::symbol(params.back());
    }
    add_tasklet_state(*init, "__out = " + ident, nullptr, {}, O, oidx, "", params, sizes);
  }
  SDFGState& red = inner->add_state("reduce", init == nullptr);
  std::vector<std::string> params;
  std::vector<sym::Expr> sizes, iidx(dims, sym::Expr(0)), oidx(odim_count, sym::Expr(0));
  for (std::size_t d = 0; d < dims; ++d) {
    if (is_one(I.desc.shape[d])) continue;
    params.push_back("__r" + std::to_string(d));
    sizes.push_back(I.desc.shape[d]);
    iidx[d] = sym::Expr::symbol(params.back());
    auto k = std::find(kept.begin(), kept.end(), d);
    if (k != kept.end()) oidx[odims[static_cast<std::size_t>(k - kept.begin())]] = iidx[d];
  }
  add_tasklet_state(red, "__out = __in", &I, iidx, O, oidx, n.wcr, params, sizes);
  if (init) inner->add_edge(init->id(), red.id());
  return inner;
}

}  // namespace weir::transforms::detail
