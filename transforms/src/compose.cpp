// Composition of SDFG files into one SDFG (see compose.h).
#include "weir/transforms/compose.h"

#include <filesystem>
#include <functional>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "weir/sdfg/json_text.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/suggest.h"
#include "weir/sdfg/text.h"
#include "weir/sdfg/validate.h"

namespace weir::transforms {
namespace {

using json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw Error(path + ": " + what); }

// A JSON number or string as a symbolic expression.
sym::Expr expr_of(const json& v, const std::string& path) {
  if (v.is_number_integer()) return sym::Expr(v.get<std::int64_t>());
  if (!v.is_string()) fail(path, "expected an integer or an expression text");
  try {
    return sym::Expr::parse(v.get<std::string>());
  } catch (const Error& e) {
    fail(path, e.what());
  }
}

std::string text_of(const json& v, const std::string& path) { return expr_of(v, path).str(); }

ScalarType dtype_of(const json& v, const std::string& path) {
  if (!v.is_string()) fail(path, "expected a dtype name such as \"float64\"");
  auto t = scalar_type_from_string(v.get<std::string>());
  if (!t) fail(path, "unknown dtype '" + v.get<std::string>() + "'");
  return *t;
}

class Composer {
 public:
  Composer(const json& spec, std::string base) : spec_(spec), base_(std::move(base)) {}

  std::unique_ptr<SDFG> run() {
    if (!spec_.is_object()) fail("/", "a composition description is a JSON object");
    for (const auto& [k, v] : spec_.items())
      if (k != "name" && k != "arrays" && k != "scalars" && k != "stages" && k != "sequence")
        fail("/" + k, "unknown key");
    if (spec_.contains("name") && !spec_.at("name").is_string()) fail("/name", "expected the SDFG's name");
    std::string name = spec_.value("name", std::string("composed"));
    out_ = std::make_unique<SDFG>(name);
    if (spec_.contains("arrays")) arrays(spec_.at("arrays"));
    if (spec_.contains("scalars")) {
      if (!spec_.at("scalars").is_object()) fail("/scalars", "expected an object name -> dtype");
      for (const auto& [n, t] : spec_.at("scalars").items()) {
        add(n, DataDescriptor::make_scalar(dtype_of(t, "/scalars/" + n), false), "/scalars/" + n);
        out_->arg_names.push_back(n);
      }
    }
    if (!spec_.contains("stages") || !spec_.at("stages").is_object())
      fail("/stages", "expected an object stage -> SDFG file");
    for (const auto& [n, f] : spec_.at("stages").items()) {
      if (!f.is_string()) fail("/stages/" + n, "expected the path of an SDFG file");
      std::filesystem::path p = f.get<std::string>();
      if (p.is_relative()) p = std::filesystem::path(base_) / p;
      try {
        stages_[n] = load_sdfg(p.string());
      } catch (const Error& e) {
        fail("/stages/" + n, e.what());
      }
    }
    if (!spec_.contains("sequence") || !spec_.at("sequence").is_array())
      fail("/sequence", "expected a list of steps");
    BlockId last = kNoBlock;
    sequence(*out_, spec_.at("sequence"), "/sequence", last);
    if (last == kNoBlock) out_->add_state("empty", true);
    for (const std::string& s : out_->free_symbols())
      if (!out_->symbols.count(s)) out_->add_symbol(s, ScalarType::Int64);
    validate_or_throw(*out_);
    return std::move(out_);
  }

 private:
  const json& spec_;
  std::string base_;
  std::unique_ptr<SDFG> out_;
  std::map<std::string, std::unique_ptr<SDFG>> stages_;
  int calls_ = 0;

  void add(const std::string& n, DataDescriptor d, const std::string& path) {
    try {
      out_->add_data(n, std::move(d));
    } catch (const Error& e) {
      fail(path, e.what());
    }
  }

  void arrays(const json& a) {
    if (!a.is_object()) fail("/arrays", "expected an object name -> {dtype, shape}");
    for (const auto& [n, d] : a.items()) {
      std::string path = "/arrays/" + n;
      if (!d.is_object() || !d.contains("dtype") || !d.contains("shape") || !d.at("shape").is_array())
        fail(path, "expected {\"dtype\": ..., \"shape\": [...]}");
      std::vector<sym::Expr> shape;
      for (std::size_t i = 0; i < d.at("shape").size(); ++i)
        shape.push_back(expr_of(d.at("shape")[i], path + "/shape/" + std::to_string(i)));
      if (d.contains("transient") && !d.at("transient").is_boolean())
        fail(path + "/transient", "expected true or false");
      bool transient = d.value("transient", false);
      for (const sym::Expr& e : shape)
        for (const std::string& s : e.free_symbols()) out_->add_symbol(s, ScalarType::Int64);
      add(n, DataDescriptor::make_array(dtype_of(d.at("dtype"), path + "/dtype"), shape, transient), path);
      if (!transient) out_->arg_names.push_back(n);
    }
  }

  template <class B>
  B& link(ControlFlowRegion& r, BlockId& last, B& b) {
    if (last != kNoBlock) r.add_edge(last, b.id());
    last = b.id();
    return b;
  }

  void sequence(ControlFlowRegion& r, const json& steps, const std::string& path, BlockId& last) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const json& s = steps[i];
      std::string p = path + "/" + std::to_string(i);
      if (s.is_object() && s.contains("call")) {
        call(r, last, s, p);
      } else if (s.is_object() && s.contains("for")) {
        if (!s.at("for").is_string()) fail(p + "/for", "expected the loop variable's name");
        std::string v = s.at("for").get<std::string>();
        const json& range = s.value("range", json());
        if (!range.is_array() || range.size() < 2 || range.size() > 3)
          fail(p + "/range", "expected [start, end] or [start, end, step]");
        std::string lo = text_of(range[0], p + "/range/0"), hi = text_of(range[1], p + "/range/1");
        std::int64_t step = 1;
        if (range.size() == 3) {
          if (!range[2].is_number_integer() || range[2].get<std::int64_t>() == 0)
            fail(p + "/range/2", "the step must be a nonzero integer");
          step = range[2].get<std::int64_t>();
        }
        out_->add_symbol(v, ScalarType::Int64);
        LoopRegion& loop = link(r, last,
                                r.add_loop("for_" + v + std::to_string(calls_++), v, v + " = " + lo,
                                           v + (step > 0 ? " < " : " > ") + hi,
                                           v + " = " + v + " + (" + std::to_string(step) + ")"));
        if (!s.contains("body") || !s.at("body").is_array()) fail(p + "/body", "expected a list of steps");
        BlockId inner = kNoBlock;
        sequence(loop, s.at("body"), p + "/body", inner);
        if (inner == kNoBlock) loop.add_state("empty", true);
      } else {
        fail(p,
             "a step is {\"call\": STAGE, \"bind\": {...}} or {\"for\": VAR, \"range\": [...], \"body\": "
             "[...]}");
      }
    }
  }

  // `bind` names `c`, which is no argument container of the stage: say what it is instead (a
  // symbol is bound under "symbols", docs/compose.md) or the closest container.
  [[noreturn]] void bind_refused(const SDFG& inner, const std::string& stage, const std::string& c,
                                 const std::string& bp) {
    std::set<std::string> free = inner.free_symbols();
    if (inner.symbols.count(c) || free.count(c))
      fail(bp, "'" + c + "' is a symbol of stage '" + stage +
                   "', not a container; \"bind\" takes containers, a symbol is bound under \"symbols\": "
                   "{\"call\": \"" +
                   stage + "\", \"bind\": {...}, \"symbols\": {\"" + c +
                   "\": EXPR}} (EXPR: an integer or a symbol expression of the composed SDFG; a symbol "
                   "not given maps to the symbol of the same name)");
    if (inner.has_data(c))
      fail(bp, "'" + c + "' is a transient of stage '" + stage +
                   "' (the stage's own), not an argument container");
    std::vector<std::string> containers;
    for (const auto& [name, desc] : inner.arrays)
      if (!desc.transient) containers.push_back(name);
    fail(bp, "stage '" + stage + "' has no argument container '" + c + "'" + did_you_mean(c, containers) +
                 " (containers: " + join(containers) + ")");
  }

  // Arrays bound both to a container the stage writes and to another container it reads: the
  // call must read them as they were before it (gt4py's meaning of out=, ADR 0043), but a stage
  // is a black box that may read one point where it wrote another. Each such read container is
  // rebound to a snapshot (a transient copied from the array in a state before the call). Two
  // written containers bound to one array are refused: which write wins depends on the stage.
  // Returns snapshot -> array, for the copy state.
  std::map<std::string, std::string> snapshot_aliased(std::map<std::string, std::string>& outer_of,
                                                      const std::set<std::string>& reads,
                                                      const std::set<std::string>& writes,
                                                      const std::string& stage, const std::string& p,
                                                      int call) {
    std::map<std::string, std::string> written_by;  // outer array -> the container writing it
    for (const auto& [c, o] : outer_of) {
      if (!writes.count(c)) continue;
      auto [it, fresh] = written_by.emplace(o, c);
      if (!fresh)
        fail(p + "/bind/" + c, "'" + o + "' is bound to container '" + it->second + "' as well, and stage '" +
                                   stage + "' writes both '" + it->second + "' and '" + c +
                                   "': bind each output to an array of its own");
    }
    std::map<std::string, std::string> snapshots;  // outer array -> its snapshot
    for (auto& [c, o] : outer_of) {
      auto w = written_by.find(o);
      if (!reads.count(c) || w == written_by.end() || w->second == c) continue;
      if (!snapshots.count(o)) {
        std::string snap = "__" + o + "_before_call" + std::to_string(call);
        DataDescriptor d = out_->data(o);
        d.transient = true;
        add(snap, std::move(d), p + "/bind/" + c);
        snapshots[o] = snap;
      }
      o = snapshots.at(o);
    }
    std::map<std::string, std::string> copies;
    for (const auto& [o, snap] : snapshots) copies[snap] = o;
    return copies;
  }

  void call(ControlFlowRegion& r, BlockId& last, const json& s, const std::string& p) {
    for (const auto& [k, v] : s.items())
      if (k != "call" && k != "bind" && k != "symbols") fail(p + "/" + k, "unknown key");
    if (!s.at("call").is_string() || !stages_.count(s.at("call").get<std::string>()))
      fail(p + "/call", "expected the name of a stage of /stages");
    const int k = calls_++;
    std::string stage = s.at("call").get<std::string>();
    std::unique_ptr<SDFG> inner = stages_.at(stage)->clone_sdfg();
    const json& bind = s.value("bind", json::object());
    if (!bind.is_object()) fail(p + "/bind", "expected an object stage container -> array");
    std::set<std::string> reads, writes;
    for (const SDFGState* is : inner->all_states())
      for (const Node* n : is->nodes())
        if (auto* a = n->as<AccessNode>(); a && inner->has_data(a->data) && !inner->data(a->data).transient) {
          if (!is->out_edges(n->id()).empty()) reads.insert(a->data);
          if (!is->in_edges(n->id()).empty()) writes.insert(a->data);
        }
    std::map<std::string, std::string> outer_of;
    for (const auto& [c, o] : bind.items()) {
      std::string bp = p + "/bind/" + c;
      if (!inner->has_data(c) || inner->data(c).transient) bind_refused(*inner, stage, c, bp);
      if (!o.is_string() || !out_->has_data(o.get<std::string>()))
        fail(bp, "expected an array or scalar of /arrays or /scalars");
      const DataDescriptor &id = inner->data(c), &od = out_->data(o.get<std::string>());
      if (id.dtype.base != od.dtype.base || id.shape.size() != od.shape.size() ||
          id.is_scalar() != od.is_scalar())
        fail(bp, "'" + o.get<std::string>() + "' does not fit container '" + c + "' of stage '" + stage +
                     "' (dtype and number of dimensions must agree)");
      outer_of[c] = o.get<std::string>();
    }
    std::map<std::string, sym::Expr> mapping;
    for (const auto& [c, desc] : inner->arrays) {
      if (desc.transient) continue;
      if (!outer_of.count(c))
        fail(p + "/bind", "container '" + c + "' of stage '" + stage + "' is not bound");
      const DataDescriptor& od = out_->data(outer_of.at(c));
      for (std::size_t d = 0; d < desc.shape.size() && !desc.is_scalar(); ++d)
        if (desc.shape[d].is_symbol()) mapping[desc.shape[d].symbol_name()] = od.shape[d];
    }
    const json& syms = s.value("symbols", json::object());
    if (!syms.is_object()) fail(p + "/symbols", "expected an object stage symbol -> expression");
    for (const auto& [k, v] : syms.items()) mapping[k] = expr_of(v, p + "/symbols/" + k);
    for (const std::string& f : inner->free_symbols())
      if (!mapping.count(f)) {
        mapping[f] = sym::Expr::symbol(f);
        if (!out_->symbols.count(f) && !out_->has_data(f))
          out_->add_symbol(f, inner->symbols.count(f) ? inner->symbols.at(f).base : ScalarType::Int64);
      }
    const std::map<std::string, std::string> copies = snapshot_aliased(outer_of, reads, writes, stage, p, k);
    if (!copies.empty()) {
      SDFGState& cs = link(r, last, r.add_state("call" + std::to_string(k) + "_snapshot"));
      for (const auto& [snap, o] : copies)
        cs.add_edge(cs.add_access(o).id(), "", cs.add_access(snap).id(), "",
                    Memlet::simple(o, Subset::full(out_->data(o).shape)));
    }
    SDFGState& st = link(r, last, r.add_state("call" + std::to_string(k)));
    std::vector<std::string> ins, outs;
    for (const auto& [c, o] : outer_of) {
      if (reads.count(c) || (out_->data(o).is_scalar() && !writes.count(c))) ins.push_back(c);
      if (writes.count(c)) outs.push_back(c);
    }
    NestedSDFGNode& n = st.add_nested_sdfg(stage, std::move(inner), ins, outs, mapping);
    NodeId nid = n.id();
    auto whole = [&](const std::string& o) {
      const DataDescriptor& d = out_->data(o);
      return Memlet::simple(o, d.is_scalar() ? Subset({Range::index(0)}) : Subset::full(d.shape));
    };
    for (const std::string& c : ins)
      st.add_edge(st.add_access(outer_of.at(c)).id(), "", nid, c, whole(outer_of.at(c)));
    for (const std::string& c : outs)
      st.add_edge(nid, c, st.add_access(outer_of.at(c)).id(), "", whole(outer_of.at(c)));
  }
};

}  // namespace

std::unique_ptr<SDFG> compose_sdfgs(const std::string& json_text, const std::string& base_dir,
                                    const std::string& origin) {
  return Composer(parse_ordered_json(json_text, origin), base_dir).run();
}

}  // namespace weir::transforms
