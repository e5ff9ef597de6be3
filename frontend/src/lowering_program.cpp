// Lowering of @programs (and directly called @field_operators) to SDFGs: containers and
// symbols for the parameters, one state per program call, one map over the call's output
// domain per state with one tasklet computing the inlined operator.
#include <algorithm>
#include <set>

#include "lowering_internal.h"
#include "weir/sdfg/state.h"

namespace weir::frontend {

using namespace lowering;

namespace {


std::string map_param(const Dimension& d) { return "__" + d.name; }

/// One output of a call: a field container and the dims it is written over.
struct OutField {
  std::string name;
  std::vector<Dimension> dims;
};

class ProgramLowering {
 public:
  ProgramLowering(const TypedDefinition& def, const LoweringOptions& opts)
      : def_(def), opts_(opts),
        sdfg_(std::make_unique<SDFG>(opts.sdfg_name.empty() ? def.name : opts.sdfg_name)) {}

  std::unique_ptr<SDFG> run() {
    if (def_.kind == DefinitionKind::Program) lower_program();
    else if (def_.kind == DefinitionKind::FieldOperator) lower_operator();
    else unsupported(def_.loc, "lowering a scan_operator called directly ('" + def_.name + "')");
    return std::move(sdfg_);
  }

 private:
  // ---------------------------------------------------------------- containers

  void add_field(const std::string& name, const Type& t, const SourceLocation& loc) {
    std::vector<sym::Expr> shape;
    for (const Dimension& d : t.dims) {
      if (d.kind == DimensionKind::Local)
        unsupported(loc, "fields with a local dimension ('" + name + "' over '" + d.name + "')");
      // `__f_I_size`; `__out_I_size` for the output `__out`; a suffix if the name is taken.
      std::string base = (name.rfind("__", 0) == 0 ? name : "__" + name) + "_" + d.name + "_size";
      std::string s = base;
      for (int k = 1; sdfg_->symbols.count(s) || sdfg_->has_data(s); ++k) s = base + "_" + std::to_string(k);
      size_symbols_[name][d.name] = s;
      sdfg_->add_symbol(s, ScalarType::Int64);
      shape.push_back(sym::Expr::symbol(s));
    }
    sdfg_->add_array(name, to_sdfg_type(t.dtype), shape, false);
    auto v = std::make_shared<Val>();
    v->kind = Val::Kind::Field;
    v->name = name;
    v->dims = t.dims;
    params_[name] = v;
  }

  void add_param(const TParam& p, const std::set<std::string>& symbols) {
    if (p.type.is_field()) return add_field(p.name, p.type, p.loc);
    if (!p.type.is_scalar())
      unsupported(p.loc, "parameter '" + p.name + "' of type " + to_string(p.type));
    auto v = std::make_shared<Val>();
    v->name = p.name;
    if (symbols.count(p.name)) {
      sdfg_->add_symbol(p.name, to_sdfg_type(p.type.dtype));
      v->kind = Val::Kind::Symbol;
    } else {
      sdfg_->add_scalar(p.name, to_sdfg_type(p.type.dtype), false);
      v->kind = Val::Kind::Scalar;
    }
    params_[p.name] = v;
  }

  // ---------------------------------------------------------------- programs

  static void collect_names(const TExpr& e, std::set<std::string>& out) {
    if (e.kind == TExprKind::Name) out.insert(e.name);
    for (const TExprPtr& a : e.args) collect_names(*a, out);
  }

  sym::Expr bound_expr(const TExpr& e) {
    switch (e.kind) {
      case TExprKind::Literal:
        if (e.literal.kind == ConstantValue::Kind::Int) return sym::Expr(e.literal.int_value);
        break;
      case TExprKind::Name: return sym::Expr::symbol(e.name);
      case TExprKind::Unary:
        if (e.unary_op == UnaryOperator::USub) return -bound_expr(*e.args[0]);
        if (e.unary_op == UnaryOperator::UAdd) return bound_expr(*e.args[0]);
        break;
      case TExprKind::Binary: {
        sym::Expr a = bound_expr(*e.args[0]), b = bound_expr(*e.args[1]);
        switch (e.binary_op) {
          case BinaryOperator::Add: return a + b;
          case BinaryOperator::Sub: return a - b;
          case BinaryOperator::Mult: return a * b;
          case BinaryOperator::FloorDiv: return sym::Expr::floordiv(a, b);
          case BinaryOperator::Mod: return sym::Expr::mod(a, b);
          default: break;
        }
        break;
      }
      default: break;
    }
    unsupported(e.loc, "this domain bound");
  }

  ValuePtr program_arg(const TExprPtr& a) {
    if (a->kind == TExprKind::Name) {
      auto it = params_.find(a->name);
      if (it == params_.end()) unsupported(a->loc, "the argument '" + a->name + "'");
      return it->second;
    }
    if (a->kind == TExprKind::Tuple) {
      auto v = std::make_shared<Val>();
      v->kind = Val::Kind::Tuple;
      for (const TExprPtr& x : a->args) v->elems.push_back(program_arg(x));
      return v;
    }
    return lazy(a, nullptr);  // a literal
  }

  void lower_program() {
    std::set<std::string> symbols;
    for (const ProgramCall& c : def_.calls)
      for (const ProgramCall::Range& r : c.domain) {
        collect_names(*r.lo, symbols);
        collect_names(*r.hi, symbols);
      }
    for (const TParam& p : def_.params) {
      add_param(p, symbols);
      sdfg_->arg_names.push_back(p.name);
    }
    for (std::size_t k = 0; k < def_.calls.size(); ++k) {
      const ProgramCall& c = def_.calls[k];
      if (c.outs.empty()) unsupported(c.loc, "a call without outputs");
      const Type& t0 = c.outs[0].type;
      std::vector<OutField> outs;
      for (const ProgramCall::Out& o : c.outs) {
        if (!(o.type.dims == t0.dims))
          unsupported(c.loc, "outputs over different dimensions in one call");
        outs.push_back({o.name, o.type.dims});
      }
      // The output domain: domain=, else the slices of the first output, else its shape.
      std::vector<Range> ranges;
      const ProgramCall::Out& o0 = c.outs[0];
      for (std::size_t j = 0; j < t0.dims.size(); ++j) {
        const Dimension& d = t0.dims[j];
        sym::Expr size = sym::Expr::symbol(size_symbols_.at(o0.name).at(d.name));
        sym::Expr lo(0), hi = size;
        bool from_domain = false;
        for (const ProgramCall::Range& r : c.domain)
          if (r.dim == d) {
            lo = bound_expr(*r.lo);
            hi = bound_expr(*r.hi);
            from_domain = true;
          }
        if (!from_domain && j < o0.slices.size()) {
          const auto& [sl, sh] = o0.slices[j];
          if (sl) lo = *sl < 0 ? size + sym::Expr(*sl) : sym::Expr(*sl);
          if (sh) hi = *sh < 0 ? size + sym::Expr(*sh) : sym::Expr(*sh);
        }
        ranges.emplace_back(lo, hi - sym::Expr(1));
      }
      std::vector<ValuePtr> args;
      for (const TExprPtr& a : c.args) args.push_back(program_arg(a));
      emit_call(k, *c.callee, args, outs, t0.dims, ranges, c.loc);
    }
    if (def_.calls.empty()) sdfg_->add_state("empty", true);
  }

  // ---------------------------------------------------------------- field operators

  void lower_operator() {
    for (const TParam& p : def_.params) {
      add_param(p, {});
      sdfg_->arg_names.push_back(p.name);
    }
    std::vector<OutField> outs;
    std::vector<Type> leaves;
    if (def_.returns.is_tuple()) {
      for (std::size_t i = 0; i < def_.returns.elements.size(); ++i) {
        const Type& t = def_.returns.elements[i];
        if (!t.is_field()) unsupported(def_.loc, "a tuple result with a non-field element");
        outs.push_back({"__out_" + std::to_string(i), t.dims});
        leaves.push_back(t);
      }
    } else {
      if (!def_.returns.is_field()) unsupported(def_.loc, "a field operator returning " + to_string(def_.returns));
      outs.push_back({"__out", def_.returns.dims});
      leaves.push_back(def_.returns);
    }
    for (std::size_t i = 0; i < outs.size(); ++i) {
      if (!(leaves[i].dims == leaves[0].dims))
        unsupported(def_.loc, "outputs over different dimensions");
      add_field(outs[i].name, leaves[i], def_.loc);
      sdfg_->arg_names.push_back(outs[i].name);
    }
    std::vector<Range> ranges;
    for (const Dimension& d : leaves[0].dims)
      ranges.emplace_back(sym::Expr(0), sym::Expr::symbol(size_symbols_.at(outs[0].name).at(d.name)) - sym::Expr(1));
    std::vector<ValuePtr> args;
    for (const TParam& p : def_.params) args.push_back(params_.at(p.name));
    emit_call(0, def_, args, outs, leaves[0].dims, ranges, def_.loc);
  }

  // ---------------------------------------------------------------- one call: state + map

  void emit_call(std::size_t k, const TypedDefinition& callee, const std::vector<ValuePtr>& args,
                 const std::vector<OutField>& outs, const std::vector<Dimension>& dims,
                 const std::vector<Range>& ranges, const SourceLocation& loc) {
    if (callee.kind != DefinitionKind::FieldOperator)
      unsupported(loc, std::string(to_string(callee.kind)) + " '" + callee.name + "' in a program");
    std::map<std::string, std::string> params;
    std::vector<std::string> param_list;
    for (const Dimension& d : dims) {
      if (d.kind == DimensionKind::Local) unsupported(loc, "outputs with a local dimension");
      params[d.name] = map_param(d);
      param_list.push_back(map_param(d));
    }
    KernelBuilder kb(params);
    kb.set_location(loc);
    ValuePtr res = kb.inline_call(callee, args, loc);
    // The result itself needs no temporary: `__out = (...)`.
    Code result = res->kind == Val::Kind::Lazy ? kb.eval(*res->expr, res->env, {}) : kb.eval_value(res, {});
    std::vector<std::string> leaves;
    std::function<void(const Code&)> flat = [&](const Code& c) {
      if (!c.tuple) leaves.push_back(c.text);
      else for (const Code& x : c.elems) flat(x);
    };
    flat(result);
    if (leaves.size() != outs.size())
      throw Error("lowering: " + std::to_string(leaves.size()) + " results for " +
                  std::to_string(outs.size()) + " outputs");

    std::string code;
    for (const std::string& l : kb.lines()) code += l + "\n";
    std::vector<std::string> out_conns;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      std::string conn = outs.size() == 1 ? "__out" : "__out_" + std::to_string(i);
      if (sdfg_->has_data(conn) || sdfg_->symbols.count(conn)) conn = "__result" + conn.substr(5);
      out_conns.push_back(conn);
      code += out_conns.back() + " = " + leaves[i] + (i + 1 < outs.size() ? "\n" : "");
    }
    std::vector<std::string> in_conns;
    for (const Read& r : kb.reads()) in_conns.push_back(r.conn);

    std::string label = callee.name;
    SDFGState& st = sdfg_->add_state("call_" + std::to_string(k) + "_" + callee.name, k == 0);
    if (last_state_ != kNoBlock) sdfg_->add_edge(last_state_, st.id());
    last_state_ = st.id();

    MapEntry& entry = st.add_map(label + "_map", param_list, Subset(ranges), opts_.map_schedule);
    NodeId entry_id = entry.id(), exit_id = entry.exit;
    Tasklet& t = st.add_tasklet(label, CodeBlock{code, Language::Python}, in_conns, out_conns);
    NodeId tid = t.id();

    // Reads: one access node per container, an outer memlet covering all the reads.
    std::vector<std::string> containers;
    for (const Read& r : kb.reads())
      if (std::find(containers.begin(), containers.end(), r.container) == containers.end())
        containers.push_back(r.container);
    for (const std::string& c : containers) {
      const DataDescriptor& desc = sdfg_->data(c);
      Subset outer;
      if (desc.is_scalar()) {
        outer = Subset({Range::index(0)});
      } else {
        const Val& fv = *params_.at(c);
        std::vector<Range> rs;
        for (std::size_t j = 0; j < fv.dims.size(); ++j) {
          std::int64_t lo = 0, hi = 0;
          bool first = true;
          for (const Read& r : kb.reads())
            if (r.container == c) {
              lo = first ? r.offsets[j] : std::min(lo, r.offsets[j]);
              hi = first ? r.offsets[j] : std::max(hi, r.offsets[j]);
              first = false;
            }
          auto pos = std::find(dims.begin(), dims.end(), fv.dims[j]) - dims.begin();
          const Range& mr = ranges[static_cast<std::size_t>(pos)];
          rs.emplace_back(mr.start + sym::Expr(lo), mr.end + sym::Expr(hi));
        }
        outer = Subset(rs);
      }
      AccessNode& a = st.add_access(c);
      std::string in = "IN_" + c, out = "OUT_" + c;
      entry.in_connectors[in] = std::nullopt;
      entry.out_connectors[out] = std::nullopt;
      st.add_edge(a.id(), "", entry_id, in, Memlet::simple(c, outer));
      for (const Read& r : kb.reads())
        if (r.container == c) {
          std::vector<Range> idx;
          for (const sym::Expr& x : r.index) idx.push_back(Range::index(x));
          st.add_edge(entry_id, out, tid, r.conn, Memlet::simple(c, Subset(idx)));
        }
    }
    if (kb.reads().empty()) st.add_edge(entry_id, "", tid, "", Memlet{});

    // Writes: the map point of every output.
    MapExit& exit = *st.node(exit_id).as<MapExit>();
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const OutField& o = outs[i];
      std::vector<Range> point, whole;
      for (std::size_t j = 0; j < o.dims.size(); ++j) {
        point.push_back(Range::index(sym::Expr::symbol(map_param(o.dims[j]))));
        whole.push_back(ranges[j]);
      }
      std::string in = "IN_" + o.name, out = "OUT_" + o.name;
      if (exit.in_connectors.count(in)) unsupported(loc, "writing '" + o.name + "' twice in one call");
      exit.in_connectors[in] = std::nullopt;
      exit.out_connectors[out] = std::nullopt;
      st.add_edge(tid, out_conns[i], exit_id, in, Memlet::simple(o.name, Subset(point)));
      AccessNode& a = st.add_access(o.name);
      st.add_edge(exit_id, out, a.id(), "", Memlet::simple(o.name, Subset(whole)));
    }
  }

  const TypedDefinition& def_;
  const LoweringOptions& opts_;
  std::unique_ptr<SDFG> sdfg_;
  std::map<std::string, ValuePtr> params_;
  std::map<std::string, std::map<std::string, std::string>> size_symbols_;  // field -> dim -> symbol
  BlockId last_state_ = kNoBlock;
};

}  // namespace

std::unique_ptr<SDFG> lower_to_sdfg(const TypedDefinition& def, const LoweringOptions& options) {
  return ProgramLowering(def, options).run();
}

}  // namespace weir::frontend
