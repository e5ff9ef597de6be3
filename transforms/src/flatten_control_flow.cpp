// flatten_control_flow: lowers LoopRegion / ConditionalBlock / ControlFlowRegion and the
// Break/Continue/Return blocks to plain states and interstate edges.
//
// Regions are flattened bottom-up: a block's inner regions are flattened first, so that when a
// block is inlined into its parent region, its body holds only states and control-transfer
// blocks. A loop resolves the Break/Continue blocks left directly in its flattened body (they
// are its own: inner loops resolved theirs, and conditionals/regions pass theirs up). Return
// blocks travel up to the SDFG's top region, where they become empty sink states.
//
// Everything that can make the pass fail is checked before the SDFG is changed.
#include "weir/transforms/flatten_control_flow.h"

#include "weir/pycode/conditions.h"
#include "weir/pycode/names.h"
#include "weir/pycode/unparse.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/names.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "weir/sdfg/control_flow.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/nodes.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::transforms {

namespace {

using Assignments = std::vector<std::pair<std::string, CodeBlock>>;

// --- conditions and statements on their syntax trees ----------------------------------------

std::string where(const ControlFlowBlock& b) {
  std::string s = std::string(to_string(b.kind())) + " '" + b.path() + "'";
  if (const SDFG* g = b.sdfg()) s += " in SDFG '" + g->name + "'";
  return s;
}

/// A copy of the expression of the Python condition `c` (its cached tree); `1` when it is empty
/// (always true). Throws an Error naming `what` (the block it belongs to) when it is not one
/// Python expression; precheck_region() asks this of every condition the pass composes, before
/// any change.
pycode::ExprPtr condition_expr(const CodeBlock& c, const std::string& what) {
  auto fail = [&](const std::string& why) {
    return Error("flatten_control_flow: " + what + ": cannot negate the condition '" + c.code + "': " + why);
  };
  if (c.language != Language::Python)
    throw fail("it is " + std::string(to_string(c.language)) + ", not Python");
  std::shared_ptr<const pycode::Code> tree;
  try {
    tree = c.parsed();
  } catch (const pycode::SourceError& e) {
    throw fail("not valid Python: " + e.message());
  }
  if (tree->body().empty()) return pycode::int_constant(1);
  if (const pycode::Expr* e = tree->expression()) return pycode::clone(e);
  throw fail("not one expression");
}

/// The expression of a Python condition from its cached tree, or null when there is none (an
/// empty condition, another language, text that is not one valid expression). `keep` holds the
/// tree the result points into.
const pycode::Expr* expression_of(const CodeBlock& c, std::shared_ptr<const pycode::Code>& keep) {
  try {
    keep = c.parsed();
  } catch (const pycode::SourceError&) {
    keep = nullptr;
  }
  return keep ? keep->expression() : nullptr;
}

/// Names an assigned value may read (an over-approximation: function names are included), from
/// its cached tree; nullopt when it is not one expression.
std::optional<std::set<std::string>> names_in(const CodeBlock& value) {
  std::shared_ptr<const pycode::Code> tree;
  const pycode::Expr* e = expression_of(value, tree);
  if (!e) return std::nullopt;
  pycode::NameUse use = pycode::names_used(*e);
  std::set<std::string> out = use.data();
  out.merge(use.called);
  return out;
}

/// Whether one of the edges is always taken when the block ends: one is unconditional, or two
/// of them are a condition and its negation (on their trees: "not (x > 0)" and "x > 0").
bool evidently_exhaustive(const std::vector<const ControlFlowEdge*>& outs) {
  for (const auto* e : outs)
    if (e->data.is_unconditional()) return true;
  for (const auto* a : outs) {
    std::shared_ptr<const pycode::Code> ta, tb;
    const pycode::Expr* ca = expression_of(a->data.condition, ta);
    if (!ca) continue;
    for (const auto* b : outs) {
      const pycode::Expr* cb = a != b ? expression_of(b->data.condition, tb) : nullptr;
      if (cb && pycode::is_negation_of(*cb, *ca)) return true;
    }
  }
  return false;
}

/// A condition block of the composed tree `c`.
CodeBlock condition_block(const pycode::ConditionBuilder& b, pycode::ExprPtr c) {
  CodeBlock out;
  out.set_parsed(b.code(std::move(c)));
  return out;
}

/// The condition under which none of the edges is taken: "not (c)" / "not ((c1) or (c2))".
CodeBlock none_taken(const ControlFlowBlock& block, const std::vector<const ControlFlowEdge*>& outs) {
  pycode::ConditionBuilder b;
  pycode::ExprList taken;
  for (const auto* e : outs) taken.push_back(condition_expr(e->data.condition, where(block)));
  pycode::ExprPtr any = b.any_of(std::move(taken));
  return condition_block(b, b.negation(std::move(any)));
}

/// Whether `extra` can be appended to `first` (assignments of one edge) with the same meaning
/// whether the edge's assignments run in order or simultaneously: `extra` neither writes nor
/// reads a name that `first` writes.
bool can_append(const Assignments& first, const Assignments& extra) {
  std::set<std::string> written;
  for (const auto& [k, v] : first) written.insert(k);
  for (const auto& [k, v] : extra) {
    if (written.count(k)) return false;
    auto names = names_in(v);
    if (!names) return false;
    for (const auto& n : *names)
      if (written.count(n)) return false;
  }
  return true;
}

std::string describe_loop(const LoopRegion& loop) {
  std::string s = "loop '" + loop.path() + "'";
  if (const SDFG* g = loop.sdfg()) s += " in SDFG '" + g->name + "'";
  return s;
}

/// The value of an assignment as an interstate assignment value: a code block of its tree
/// (a copy), printed by unparse() ("t = (t + 1)" gives "t + 1").
CodeBlock value_block(const pycode::Expr& value) {
  auto st = std::make_unique<pycode::ExprStmt>(value.loc);
  st->value = pycode::clone(&value);
  pycode::StmtList body;
  body.push_back(std::move(st));
  CodeBlock out;
  out.set_parsed(pycode::Code::from_statements(std::move(body)));
  return out;
}

/// Reads "x = expr" statements (separated by ';' or newlines) from their syntax tree.
Assignments parse_statements(const CodeBlock& code, const LoopRegion& loop, const char* what) {
  auto fail = [&](const std::string& stmt, const std::string& why) -> Error {
    return Error("flatten_control_flow: " + describe_loop(loop) + ": " + what + " '" + code.code +
                 "': " + why + (stmt.empty() ? "" : " (in '" + stmt + "')"));
  };
  if (code.language != Language::Python && !is_blank(code))
    throw fail("", "only Python statements can be flattened, not " + std::string(to_string(code.language)));
  std::shared_ptr<const pycode::Code> tree;
  try {
    tree = code.parsed();
  } catch (const pycode::SourceError& e) {
    throw fail("", "not valid Python: " + e.message());
  }
  Assignments out;
  if (!tree) return out;
  for (const pycode::StmtPtr& stmt : tree->body()) {
    const auto* st = pycode::dyn_cast<pycode::Assign>(stmt.get());
    if (!st || st->targets.size() != 1) {
      pycode::StmtList one;
      one.push_back(pycode::clone(stmt.get()));
      throw fail(pycode::unparse(one), "expected assignments of the form 'name = expression'");
    }
    const auto* target = pycode::dyn_cast<pycode::Name>(st->targets[0].get());
    if (!target)
      throw fail(pycode::unparse(*st->targets[0]) + " = " + pycode::unparse(*st->value),
                 "the left-hand side '" + pycode::unparse(*st->targets[0]) +
                     "' is not a symbol name (expected 'name = expression')");
    out.emplace_back(target->id, value_block(*st->value));
  }
  return out;
}

// --- checks before any change --------------------------------------------------------------

void precheck_sdfg(const SDFG& sdfg);

void require_unique_start(const ControlFlowRegion& r, const ControlFlowBlock& owner) {
  if (r.num_blocks() != 0 && r.start_block() == kNoBlock)
    throw Error("flatten_control_flow: " + where(owner) + ": a region to inline has no unique start block");
}

/// `inlined`: the region's blocks will be moved into an enclosing region. `in_loop`: a loop of
/// the same SDFG encloses the region.
void precheck_region(const ControlFlowRegion& r, bool inlined, bool in_loop) {
  for (const ControlFlowBlock* b : r.blocks()) {
    // A block whose out-edges may all fail gets a fall-through edge with the negated
    // conditions when its region is inlined (the block that replaces a region inherits them).
    auto outs = r.out_edges(b->id());
    if (inlined && !ControlTransferBlock::matches(b->kind()) && !outs.empty() && !evidently_exhaustive(outs))
      for (const auto* e : outs) condition_expr(e->data.condition, where(*b));
    switch (b->kind()) {
      case BlockKind::State: {
        for (const Node* n : b->as<SDFGState>()->nodes())
          if (const auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) precheck_sdfg(*ns->sdfg);
        break;
      }
      case BlockKind::Loop: {
        const auto& loop = *b->as<LoopRegion>();
        parse_statements(loop.init_statement, loop, "init_statement");
        parse_statements(loop.update_statement, loop, "update_statement");
        condition_expr(loop.loop_condition, describe_loop(loop));
        require_unique_start(loop, loop);
        precheck_region(loop, true, true);
        break;
      }
      case BlockKind::Region: {
        const auto& reg = *b->as<ControlFlowRegion>();
        require_unique_start(reg, reg);
        precheck_region(reg, true, in_loop);
        break;
      }
      case BlockKind::Conditional: {
        const auto& cb = *b->as<ConditionalBlock>();
        for (const auto& br : cb.branches()) {
          if (br.condition) condition_expr(*br.condition, where(cb));
          if (!br.body) continue;
          require_unique_start(*br.body, cb);
          precheck_region(*br.body, true, in_loop);
        }
        break;
      }
      case BlockKind::Break:
      case BlockKind::Continue:
        if (!in_loop) throw Error("flatten_control_flow: " + where(*b) + " is not inside a loop");
        break;
      case BlockKind::Return:
      case BlockKind::SDFG: break;
    }
  }
}

void precheck_sdfg(const SDFG& sdfg) { precheck_region(sdfg, false, false); }

// --- the pass ------------------------------------------------------------------------------

/// An edge of the region that touched a block being replaced (copied before the removal).
struct IncidentEdge {
  BlockId src, dst;
  InterstateEdge data;
};

/// What move_body() leaves in the parent region (ids in the parent).
struct Body {
  BlockId start = kNoBlock;
  std::vector<BlockId> sinks;                              // states without out-edges
  std::vector<std::pair<BlockId, CodeBlock>> fallthrough;  // state, "none of its edges taken"
  std::vector<BlockId> breaks, continues;
};

class Flattener {
 public:
  Flattener(SDFG& sdfg, std::size_t& removed) : sdfg_(sdfg), removed_(removed) {}

  void run() {
    count_labels(sdfg_);
    flatten_region(sdfg_);
    unique_labels();
    // Return blocks that reached the top become empty sink states: the SDFG ends there.
    for (ControlFlowBlock* b : sdfg_.blocks())
      if (b->kind() == BlockKind::Return) materialize(sdfg_, b->id(), "return_state");
    sdfg_.using_explicit_control_flow = false;
  }

 private:
  SDFG& sdfg_;
  std::size_t& removed_;
  std::map<std::string, int> labels_;  // label -> number of blocks carrying it
  /// Blocks whose out-edges always fire (created by the pass, or given a fall-through edge).
  std::unordered_set<const ControlFlowBlock*> exhaustive_;

  /// Labels are unique per region, so states moved up from different regions (the call
  /// regions of an orchestrated program each hold a state of the callee's name) may share one
  /// in the flat graph: every later one gets a fresh label ("<label>_1", ...).
  void unique_labels() {
    std::set<std::string> seen;
    for (ControlFlowBlock* b : sdfg_.blocks()) {
      if (seen.insert(b->label).second) continue;
      release(b->label);
      b->label = fresh(b->label);
      seen.insert(b->label);
    }
  }

  void count_labels(const ControlFlowRegion& r) {
    for (const ControlFlowBlock* b : r.blocks()) {
      ++labels_[b->label];
      if (const auto* sub = b->as<ControlFlowRegion>()) count_labels(*sub);
      if (const auto* cb = b->as<ConditionalBlock>())
        for (const auto& br : cb->branches())
          if (br.body) {
            ++labels_[br.body->label];
            count_labels(*br.body);
          }
    }
  }

  std::string fresh(std::string base) {
    if (base.empty()) base = "state";
    std::string cand = base;
    for (int i = 1; labels_[cand] > 0; ++i) cand = base + "_" + std::to_string(i);
    ++labels_[cand];
    return cand;
  }

  void release(const std::string& label) {
    auto it = labels_.find(label);
    if (it != labels_.end() && it->second > 0) --it->second;
  }

  BlockId new_state(ControlFlowRegion& r, const std::string& base, bool always_exits) {
    SDFGState& s = r.add_state(fresh(base));
    if (always_exits) exhaustive_.insert(&s);
    return s.id();
  }

  static bool has_edge(const ControlFlowRegion& r, BlockId src, BlockId dst) {
    for (const auto* e : r.out_edges(src))
      if (e->dst == dst) return true;
    return false;
  }

  /// Adds src -> dst carrying `data` followed by the assignments `extra`. Goes through a fresh
  /// state (labelled from `via`) when an edge src -> dst exists already (DaCe's graphs have no
  /// parallel edges) or when appending `extra` to data's assignments could change their meaning.
  void connect(ControlFlowRegion& r, BlockId src, BlockId dst, InterstateEdge data, const Assignments& extra,
               const std::string& via) {
    if (!has_edge(r, src, dst) && can_append(data.assignments, extra)) {
      data.assignments.insert(data.assignments.end(), extra.begin(), extra.end());
      r.add_edge(src, dst, std::move(data));
      return;
    }
    BlockId mid = new_state(r, via, true);
    r.add_edge(src, mid, std::move(data));
    InterstateEdge tail;
    tail.assignments = extra;
    r.add_edge(mid, dst, std::move(tail));
  }

  static std::vector<IncidentEdge> incident_edges(const ControlFlowRegion& r, BlockId id) {
    std::vector<IncidentEdge> out;
    for (const auto* e : r.edges())
      if (e->src == id || e->dst == id) out.push_back({e->src, e->dst, e->data});
    return out;
  }

  /// Replaces the control-transfer block `id` by an empty state with its label and in-edges.
  BlockId materialize(ControlFlowRegion& r, BlockId id, const std::string& base) {
    ControlFlowBlock& b = r.block(id);
    std::string label = b.label.empty() ? base : b.label;
    release(b.label);
    bool was_start = r.start_block() == id;
    std::vector<IncidentEdge> ins;
    for (const auto* e : r.in_edges(id))
      if (e->src != id) ins.push_back({e->src, e->dst, e->data});
    r.remove_block(id);
    ++removed_;
    BlockId s = new_state(r, label, true);
    for (auto& e : ins) r.add_edge(e.src, s, std::move(e.data));
    if (was_start) r.set_start_block(s);
    return s;
  }

  /// Resolves a Break/Continue block of a loop body: control goes to `target` with the
  /// assignments `extra`. Returns the state that replaced it, or kNoBlock if its in-edges were
  /// redirected to `target` directly.
  BlockId resolve_transfer(ControlFlowRegion& r, BlockId id, BlockId target, const Assignments& extra,
                           bool is_body_start, const std::string& base) {
    if (is_body_start) {
      BlockId s = materialize(r, id, base);
      connect(r, s, target, {}, extra, base);
      return s;
    }
    ControlFlowBlock& b = r.block(id);
    std::string via = b.label.empty() ? base : b.label;
    release(b.label);
    std::vector<IncidentEdge> ins;
    for (const auto* e : r.in_edges(id))
      if (e->src != id) ins.push_back({e->src, e->dst, e->data});
    r.remove_block(id);
    ++removed_;
    for (auto& e : ins) connect(r, e.src, target, std::move(e.data), extra, via);
    return kNoBlock;
  }

  /// Moves the blocks and edges of `body` (already flattened) into `r`.
  Body move_body(ControlFlowRegion& r, ControlFlowRegion& body) {
    Body out;
    BlockId start = body.start_block();
    std::vector<IncidentEdge> edges;
    for (const auto* e : body.edges()) edges.push_back({e->src, e->dst, e->data});
    std::vector<BlockId> sinks, breaks, continues;
    std::vector<std::pair<BlockId, CodeBlock>> fallthrough;
    std::vector<ControlFlowBlock*> blocks = body.blocks();
    for (ControlFlowBlock* b : blocks) {
      switch (b->kind()) {
        case BlockKind::State: {
          auto outs = body.out_edges(b->id());
          if (outs.empty())
            sinks.push_back(b->id());
          else if (!exhaustive_.count(b) && !evidently_exhaustive(outs))
            fallthrough.emplace_back(b->id(), none_taken(*b, outs));
          break;
        }
        case BlockKind::Break: breaks.push_back(b->id()); break;
        case BlockKind::Continue: continues.push_back(b->id()); break;
        default: break;
      }
    }
    std::map<BlockId, BlockId> ids;
    for (ControlFlowBlock* b : blocks) {
      BlockId old = b->id();
      ids[old] = r.add_block(body.take_block(old)).id();
    }
    for (auto& e : edges) r.add_edge(ids.at(e.src), ids.at(e.dst), std::move(e.data));
    if (start != kNoBlock) out.start = ids.at(start);
    for (BlockId s : sinks) out.sinks.push_back(ids.at(s));
    for (auto& [s, c] : fallthrough) out.fallthrough.emplace_back(ids.at(s), std::move(c));
    for (BlockId s : breaks) out.breaks.push_back(ids.at(s));
    for (BlockId s : continues) out.continues.push_back(ids.at(s));
    return out;
  }

  /// Connects every normal end of a moved body (sinks; fall-through of states whose edges may
  /// all fail) to `target`, adding `extra` assignments.
  void connect_ends(ControlFlowRegion& r, const Body& body, BlockId target, const Assignments& extra,
                    const std::string& via) {
    for (const auto& [s, cond] : body.fallthrough) {
      InterstateEdge e;
      e.condition = cond;
      connect(r, s, target, std::move(e), extra, via);
      exhaustive_.insert(&r.block(s));
    }
    for (BlockId s : body.sinks) connect(r, s, target, {}, extra, via);
  }

  /// Re-attaches the recorded edges of the removed block `old`: its in-edges now enter `entry`
  /// (after the assignments `init`), its out-edges leave `exit`.
  void reattach(ControlFlowRegion& r, BlockId old, std::vector<IncidentEdge> incident, BlockId entry,
                BlockId exit, const Assignments& init, bool was_start, const std::string& base) {
    // The init assignments need a state of their own where the block is the start, where
    // they cannot be appended to an incoming edge, or where there is no incoming edge (an
    // unreachable loop still defines its variable).
    bool init_state = false;
    if (!init.empty()) {
      init_state = was_start;
      bool entered = false;
      for (const auto& e : incident) {
        if (e.dst != old) continue;
        entered = true;
        if (!can_append(e.data.assignments, init)) init_state = true;
      }
      if (!entered) init_state = true;
    }
    BlockId target = entry;
    Assignments extra = init;
    if (init_state) {
      target = new_state(r, base + "_init", true);
      InterstateEdge e;
      e.assignments = init;
      r.add_edge(target, entry, std::move(e));
      extra.clear();
    }
    for (auto& e : incident) {
      BlockId src = e.src == old ? exit : e.src;
      BlockId dst = e.dst == old ? target : e.dst;
      connect(r, src, dst, std::move(e.data), e.dst == old ? extra : Assignments{}, base + "_init");
    }
    if (was_start) r.set_start_block(target);
  }

  void flatten_nested(SDFGState& st) {
    for (Node* n : st.nodes())
      if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) {
        Flattener inner(*ns->sdfg, removed_);
        inner.run();
      }
  }

  /// Flattens every region inside `r`; afterwards `r` holds only states and the
  /// control-transfer blocks that belong to enclosing loops (or Return blocks).
  void flatten_region(ControlFlowRegion& r) {
    bool structured = false;
    std::vector<BlockId> ids;
    for (ControlFlowBlock* b : r.blocks()) {
      ids.push_back(b->id());
      if (auto* st = b->as<SDFGState>())
        flatten_nested(*st);
      else
        structured = true;
    }
    if (!structured) return;
    // Pin the start: new blocks without in-edges must not make it ambiguous.
    if (BlockId s = r.start_block(); s != kNoBlock) r.set_start_block(s);
    // Edges out of Break/Continue/Return blocks are never taken: drop them now, so that a
    // block only they lead to is seen as unreachable (and, for a loop, keeps its init state).
    for (const ControlFlowEdge* e : r.edges())
      if (ControlTransferBlock::matches(r.block(e->src).kind())) r.remove_edge(e->id);
    for (BlockId id : ids) {
      if (!r.has_block(id)) continue;
      ControlFlowBlock& b = r.block(id);
      if (auto* loop = b.as<LoopRegion>())
        inline_loop(r, *loop);
      else if (auto* cb = b.as<ConditionalBlock>())
        inline_conditional(r, *cb);
      else if (b.kind() == BlockKind::Region)
        inline_region(r, *b.as<ControlFlowRegion>());
    }
  }

  void inline_loop(ControlFlowRegion& r, LoopRegion& loop) {
    flatten_region(loop);
    const std::string base = loop.label.empty() ? "loop" : loop.label;
    const Assignments init = parse_statements(loop.init_statement, loop, "init_statement");
    const Assignments update = parse_statements(loop.update_statement, loop, "update_statement");
    // The body is entered under the condition as written, left under its negation.
    const CodeBlock cond =
        is_blank(loop.loop_condition) ? CodeBlock{"1", Language::Python} : loop.loop_condition;
    pycode::ConditionBuilder negated;
    CodeBlock exit_cond =
        condition_block(negated, negated.negation(condition_expr(cond, describe_loop(loop))));
    const bool inverted = loop.inverted;
    const bool update_first = loop.update_before_condition;

    const BlockId old = loop.id();
    const bool was_start = r.start_block() == old;
    auto incident = incident_edges(r, old);
    Body body = move_body(r, loop);
    r.remove_block(old);
    ++removed_;

    BlockId guard = new_state(r, base + "_guard", true);
    BlockId end = new_state(r, base + "_end", false);
    if (body.start == kNoBlock) {
      body.start = new_state(r, base + "_body", false);
      body.sinks.push_back(body.start);
    }
    // The back edge into the guard carries the update, unless a do-while loop checks its
    // condition before the update (then the update is on the guard's edge into the body).
    const Assignments latch = (!inverted || update_first) ? update : Assignments{};
    for (BlockId c : body.continues) {
      BlockId s = resolve_transfer(r, c, guard, latch, c == body.start, "continue_state");
      if (c == body.start) body.start = s;
    }
    for (BlockId b : body.breaks) {
      BlockId s = resolve_transfer(r, b, end, {}, b == body.start, "break_state");
      if (b == body.start) body.start = s;
    }
    connect_ends(r, body, guard, latch, base + "_latch");

    InterstateEdge enter;
    enter.condition = cond;
    if (inverted && !update_first) enter.assignments = update;
    r.add_edge(guard, body.start, std::move(enter));
    InterstateEdge leave;
    leave.condition = std::move(exit_cond);
    r.add_edge(guard, end, std::move(leave));

    reattach(r, old, std::move(incident), inverted ? body.start : guard, end, init, was_start, base);
  }

  void inline_region(ControlFlowRegion& r, ControlFlowRegion& region) {
    flatten_region(region);
    const std::string base = region.label.empty() ? "region" : region.label;
    const BlockId old = region.id();
    const bool was_start = r.start_block() == old;
    auto incident = incident_edges(r, old);
    Body body = move_body(r, region);
    r.remove_block(old);
    ++removed_;
    if (body.start == kNoBlock) {
      body.start = new_state(r, base, false);
      body.sinks.push_back(body.start);
    }
    BlockId exit;
    if (body.sinks.size() == 1 && body.fallthrough.empty()) {
      exit = body.sinks[0];
    } else {
      exit = new_state(r, base + "_end", false);
      connect_ends(r, body, exit, {}, base + "_exit");
    }
    reattach(r, old, std::move(incident), body.start, exit, {}, was_start, base);
  }

  void inline_conditional(ControlFlowRegion& r, ConditionalBlock& cb) {
    for (auto& br : cb.branches())
      if (br.body) flatten_region(*br.body);
    const std::string base = cb.label.empty() ? "conditional" : cb.label;
    const BlockId old = cb.id();
    const bool was_start = r.start_block() == old;
    auto incident = incident_edges(r, old);

    BlockId guard = new_state(r, base + "_guard", true);
    BlockId end = new_state(r, base + "_end", false);
    // A branch is taken when its condition holds and none of the earlier ones does.
    pycode::ExprList earlier;  // conditions of the earlier branches
    auto none_earlier = [&](pycode::ConditionBuilder& b) {
      pycode::ExprList parts;
      for (const auto& c : earlier) parts.push_back(b.negation(pycode::clone(c.get())));
      return parts;
    };
    bool has_else = false;
    for (auto& br : cb.branches()) {
      InterstateEdge e;
      if (earlier.empty() && br.condition && !is_blank(*br.condition)) {
        e.condition = *br.condition;  // the first condition as written
      } else {
        pycode::ConditionBuilder b;
        pycode::ExprList parts = none_earlier(b);
        if (br.condition) parts.push_back(condition_expr(*br.condition, where(cb)));
        e.condition = condition_block(b, b.all_of(std::move(parts)));
      }
      earlier.push_back(br.condition ? condition_expr(*br.condition, where(cb)) : pycode::int_constant(1));
      has_else = has_else || !br.condition;
      if (!br.body || br.body->num_blocks() == 0) {
        connect(r, guard, end, std::move(e), {}, base + "_branch");
        continue;
      }
      Body body = move_body(r, *br.body);
      connect(r, guard, body.start, std::move(e), {}, base + "_branch");
      connect_ends(r, body, end, {}, base + "_join");
    }
    if (!has_else) {
      pycode::ConditionBuilder b;
      InterstateEdge e;
      e.condition = condition_block(b, b.all_of(none_earlier(b)));
      connect(r, guard, end, std::move(e), {}, base + "_else");
    }
    r.remove_block(old);
    ++removed_;
    reattach(r, old, std::move(incident), guard, end, {}, was_start, base);
  }
};

}  // namespace

std::size_t flatten_control_flow(SDFG& sdfg) {
  precheck_sdfg(sdfg);
  std::size_t removed = 0;
  Flattener(sdfg, removed).run();
  return removed;
}

}  // namespace weir::transforms
