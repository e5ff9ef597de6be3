// Control flow: regions become structured C++ where their shape allows (sequences, LoopRegion
// -> for / do-while, ConditionalBlock -> if / else if / else, Break/Continue/Return), and
// `goto` between labelled blocks otherwise, which is correct for any graph of blocks and
// interstate edges (old-style SDFGs). Interstate assignments update symbol variables.
#include <functional>
#include <map>

#include "codegen_internal.h"
#include "loop_check_hoisting.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/symbolic_tree.h"

namespace weir::codegen::detail {

namespace {

class RegionGen {
 public:
  RegionGen(SdfgGen& sg, const ControlFlowRegion& r) : sg_(sg), r_(r), ctx_(sg.interstate_context()) {}

  void emit(Writer& w) {
    if (r_.num_blocks() == 0) return;
    BlockId start = r_.start_block();
    if (start == kNoBlock) throw CodegenError(sg_.ref(&r_), "the region has no unique start block");
    std::vector<BlockId> chain;
    if (is_chain(start, chain)) {
      for (std::size_t i = 0; i < chain.size(); ++i) {
        emit_block(r_.block(chain[i]), w);
        auto outs = r_.out_edges(chain[i]);
        if (!outs.empty()) emit_assignments(*outs[0], w);
      }
      return;
    }
    // Structured if/else and while loops where the graph has those shapes; gotos otherwise.
    analyse_graph(start);
    std::set<BlockId> seen;
    if (structured(start, kNoBlock, nullptr, seen)) {
      seen.clear();
      structured(start, kNoBlock, &w, seen);
      return;
    }
    emit_goto(start, w);
  }

 private:
  /// A path start -> ... -> end of unconditional edges covering every block of the region.
  bool is_chain(BlockId start, std::vector<BlockId>& chain) const {
    std::set<BlockId> seen;
    BlockId cur = start;
    for (;;) {
      chain.push_back(cur);
      seen.insert(cur);
      auto outs = r_.out_edges(cur);
      if (outs.empty()) break;
      if (outs.size() > 1 || !outs[0]->data.is_unconditional()) return false;
      BlockId next = outs[0]->dst;
      if (seen.count(next) || r_.in_edges(next).size() != 1) return false;
      cur = next;
    }
    return chain.size() == r_.num_blocks();
  }

  // --- structured emission of interstate-edge graphs ----------------------------------------
  // Blocks reachable from the start, their dominators (for loop headers: targets of back edges)
  // and post-dominators (for the merge block of an if/else).
  std::vector<BlockId> nodes_;
  std::map<BlockId, std::size_t> index_;
  std::vector<std::vector<bool>> dom_, pdom_;
  std::vector<bool> header_;

  void analyse_graph(BlockId start) {
    std::function<void(BlockId)> dfs = [&](BlockId b) {
      if (index_.count(b)) return;
      index_[b] = nodes_.size();
      nodes_.push_back(b);
      for (const auto* e : r_.out_edges(b)) dfs(e->dst);
    };
    dfs(start);
    std::size_t n = nodes_.size();
    // Dominators (index 0 is the start).
    dom_.assign(n, std::vector<bool>(n, true));
    dom_[0].assign(n, false);
    dom_[0][0] = true;
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 1; i < n; ++i) {
        std::vector<bool> d(n, true);
        for (const auto* e : r_.in_edges(nodes_[i])) {
          auto p = index_.find(e->src);
          if (p == index_.end()) continue;
          for (std::size_t k = 0; k < n; ++k) d[k] = d[k] && dom_[p->second][k];
        }
        d[i] = true;
        if (d != dom_[i]) {
          dom_[i] = d;
          changed = true;
        }
      }
    }
    // Post-dominators, with a virtual exit at index n after every block without successors.
    pdom_.assign(n + 1, std::vector<bool>(n + 1, true));
    pdom_[n].assign(n + 1, false);
    pdom_[n][n] = true;
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<bool> d(n + 1, true);
        auto outs = r_.out_edges(nodes_[i]);
        if (outs.empty()) d = pdom_[n];
        for (const auto* e : outs) {
          std::size_t s = index_.at(e->dst);
          for (std::size_t k = 0; k <= n; ++k) d[k] = d[k] && pdom_[s][k];
        }
        d[i] = true;
        if (d != pdom_[i]) {
          pdom_[i] = d;
          changed = true;
        }
      }
    }
    header_.assign(n, false);
    for (std::size_t i = 0; i < n; ++i)
      for (const auto* e : r_.out_edges(nodes_[i])) {
        std::size_t t = index_.at(e->dst);
        if (dom_[i][t]) header_[t] = true;  // back edge i -> t
      }
  }

  /// The immediate post-dominator of block i (kNoBlock for the region's end or if none).
  std::optional<BlockId> ipdom(std::size_t i) const {
    std::size_t n = nodes_.size();
    auto count = [&](std::size_t k) {
      std::size_t c = 0;
      for (bool b : pdom_[k]) c += b;
      return c;
    };
    std::size_t want = count(i) - 1;
    for (std::size_t k = 0; k <= n; ++k)
      if (k != i && pdom_[i][k] && count(k) == want) return k == n ? kNoBlock : nodes_[k];
    return std::nullopt;
  }

  /// Whether the two out-edges' conditions are each other's negation.
  static bool complementary(const ControlFlowEdge& a, const ControlFlowEdge& b) {
    if (a.data.condition.language != Language::Python || b.data.condition.language != Language::Python)
      return false;
    try {
      return sym::Expr::logical_not(sym::from_code(a.data.condition)) == sym::from_code(b.data.condition);
    } catch (const Error&) {
      return false;
    }
  }

  /// Whether block `from` can reach block `to` without passing through `avoid`.
  bool reaches(BlockId from, BlockId to, BlockId avoid) const {
    std::set<BlockId> seen;
    std::vector<BlockId> todo{from};
    while (!todo.empty()) {
      BlockId b = todo.back();
      todo.pop_back();
      if (b == to) return true;
      if (b == avoid || !seen.insert(b).second) continue;
      for (const auto* e : r_.out_edges(b)) todo.push_back(e->dst);
    }
    return false;
  }

  /// Emits (w != nullptr) or checks (w == nullptr) blocks from b until `stop` as sequences,
  /// if/else and loops. Returns false where the graph has another shape.
  bool structured(BlockId b, BlockId stop, Writer* w, std::set<BlockId>& seen) {
    for (;;) {
      if (b == stop) return true;
      if (b == kNoBlock) return false;
      if (!seen.insert(b).second) return false;
      std::size_t i = index_.at(b);
      auto outs = r_.out_edges(b);
      if (header_[i]) {
        // A loop: the header runs, then one edge continues into the body (which comes back to the
        // header) and the complementary one leaves.
        if (outs.size() != 2 || !complementary(*outs[0], *outs[1])) return false;
        const ControlFlowEdge* in = outs[0];
        const ControlFlowEdge* out = outs[1];
        if (!reaches(in->dst, b, kNoBlock) || in->dst == b) std::swap(in, out);
        if (!reaches(in->dst, b, kNoBlock) || reaches(out->dst, b, kNoBlock) || in->dst == b) return false;
        const auto* st = r_.block(b).as<SDFGState>();
        bool plain = st && st->num_nodes() == 0 && in->data.assignments.empty();
        if (w) {
          std::string c = condition(in->data.condition, edge_ref(*in));
          if (sg_.prog.opts.emit_comments)
            w->line("// loop of interstate edges at '" + r_.block(b).label + "'");
          if (plain) {
            w->open("while (" + c + ") {");
            poll_interrupt(*w);
          } else {
            w->open("for (;;) {");
            poll_interrupt(*w);
            emit_block(r_.block(b), *w);
            w->line("if (!(" + c + ")) break;");
            emit_assignments(*in, *w);
          }
        }
        if (!structured(in->dst, b, w, seen)) return false;
        if (w) {
          w->close();
          emit_assignments(*out, *w);
        }
        b = out->dst;
        if (b != stop && b != kNoBlock && !header_[index_.at(b)] && r_.in_edges(b).size() != 1) return false;
        continue;
      }
      if (w) emit_block(r_.block(b), *w);
      if (outs.empty()) return stop == kNoBlock;
      if (outs.size() == 1 && outs[0]->data.is_unconditional()) {
        if (w) emit_assignments(*outs[0], *w);
        BlockId next = outs[0]->dst;
        if (next != stop && !header_[index_.at(next)] && r_.in_edges(next).size() != 1) return false;
        b = next;
        continue;
      }
      if (outs.size() == 2 && complementary(*outs[0], *outs[1])) {
        auto merge = ipdom(i);
        if (!merge) return false;
        if (*merge != stop && *merge != kNoBlock && seen.count(*merge)) return false;
        if (w) {
          w->open("if (" + condition(outs[0]->data.condition, edge_ref(*outs[0])) + ") {");
          emit_assignments(*outs[0], *w);
        }
        if (!structured(outs[0]->dst, *merge, w, seen)) return false;
        if (w) {
          w->dedent();
          w->line("} else {");
          w->indent();
          emit_assignments(*outs[1], *w);
        }
        if (!structured(outs[1]->dst, *merge, w, seen)) return false;
        if (w) w->close();
        if (*merge == kNoBlock) return stop == kNoBlock;
        b = *merge;  // the merge block continues this sequence
        continue;
      }
      return false;
    }
  }

  std::string condition(const CodeBlock& c, const ElementRef& where) const {
    if (c.language != Language::Python)
      throw CodegenError(where, "condition in " + std::string(to_string(c.language)) + " is not supported");
    try {
      return translate_expression(c, ctx_);
    } catch (const Error& e) {
      throw CodegenError(where, std::string("condition `") + c.code + "`: " + e.what());
    }
  }

  void emit_assignments(const ControlFlowEdge& e, Writer& w) const {
    for (const auto& [target, value] : e.data.assignments) {
      ElementRef where = edge_ref(e);
      auto it = ctx_.vars.find(target);
      if (it == ctx_.vars.end() || !it->second.writable)
        throw CodegenError(where, "interstate assignment to '" + target + "', which is not a symbol");
      try {
        w.line(it->second.cpp + " = " + translate_expression(value, ctx_) + ";");
      } catch (const Error& ex) {
        throw CodegenError(where,
                           "interstate assignment `" + target + " = " + value.code + "`: " + ex.what());
      }
    }
  }

  ElementRef edge_ref(const ControlFlowEdge& e) const {
    ElementRef where = sg_.ref(&r_);
    where.edge = static_cast<long>(e.id);
    return where;
  }

  void emit_goto(BlockId start, Writer& w) {
    int id = sg_.next_label();
    // Reachable blocks in reverse post-order (the start first).
    std::vector<BlockId> order;
    {
      std::set<BlockId> reach;
      std::function<void(BlockId)> dfs = [&](BlockId b) {
        if (!reach.insert(b).second) return;
        for (const auto* e : r_.out_edges(b)) dfs(e->dst);
      };
      dfs(start);
      for (BlockId b : r_.reverse_post_order())
        if (reach.count(b)) order.push_back(b);
    }
    auto label = [&](BlockId b) { return "__weir_b" + std::to_string(id) + "_" + std::to_string(b); };
    std::string end_label = "__weir_end" + std::to_string(id);
    // First the jumps of every block, to know which labels are used.
    std::set<std::string> used;
    std::vector<Writer> tails(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      BlockId next = i + 1 < order.size() ? order[i + 1] : kNoBlock;
      bool ended = false;
      for (const auto* e : r_.out_edges(order[i])) {
        Writer body;
        emit_assignments(*e, body);
        bool fall = e->dst == next && e->data.is_unconditional();
        if (!fall) {
          body.line("goto " + label(e->dst) + ";");
          used.insert(label(e->dst));
        }
        if (e->data.is_unconditional()) {
          tails[i].append(body);
          ended = true;
          break;
        }
        if (body.empty()) body.line(";");
        tails[i].open("if (" + condition(e->data.condition, edge_ref(*e)) + ") {");
        tails[i].append(body);
        tails[i].close();
      }
      if (!ended && next != kNoBlock) {
        tails[i].line("goto " + end_label + ";");
        used.insert(end_label);
      }
    }
    if (sg_.prog.opts.emit_comments)
      w.line("// control flow of region '" + r_.label + "' as labelled blocks (goto)");
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (used.count(label(order[i]))) w.line(label(order[i]) + ":;");
      emit_block(r_.block(order[i]), w);
      w.append(tails[i]);
    }
    if (used.count(end_label)) w.line(end_label + ":;");
  }

  void emit_block(const ControlFlowBlock& b, Writer& w) {
    bool comments = sg_.prog.opts.emit_comments;
    if (auto* st = b.as<SDFGState>()) {
      std::string call = sg_.state_call(*st);
      if (!call.empty()) w.line(call);
      return;
    }
    if (auto* loop = b.as<LoopRegion>()) return emit_loop(*loop, w);
    if (auto* cond = b.as<ConditionalBlock>()) {
      if (comments) w.line("// conditional '" + cond->label + "'");
      bool first = true;
      bool open = false;
      for (const auto& br : cond->branches()) {
        std::string head;
        if (br.condition) {
          std::string c = condition(*br.condition, sg_.ref(cond));
          head = (first ? "if (" : "} else if (") + c + ") {";
        } else {
          head = first ? "{" : "} else {";
        }
        if (open) w.dedent();
        w.line(head);
        w.indent();
        open = true;
        if (br.body) emit_region(sg_, *br.body, w);
        first = false;
        if (!br.condition) break;
      }
      if (open) w.close();
      return;
    }
    if (auto* reg = b.as<ControlFlowRegion>()) {
      if (comments) w.line("// region '" + reg->label + "'");
      w.open("{");
      emit_region(sg_, *reg, w);
      w.close();
      return;
    }
    switch (b.kind()) {
      case BlockKind::Break: w.line("break;"); return;
      case BlockKind::Continue: w.line("continue;"); return;
      case BlockKind::Return: w.line(sg_.return_statement()); return;
      default: break;
    }
    throw CodegenError(sg_.ref(&b), "unsupported control-flow block " + std::string(to_string(b.kind())));
  }

  void emit_loop(const LoopRegion& loop, Writer& w) {
    ElementRef where = sg_.ref(&loop);
    auto statements = [&](const CodeBlock& c, const char* what) {
      if (c.language != Language::Python)
        throw CodegenError(
            where, std::string(what) + " in " + std::string(to_string(c.language)) + " is not supported");
      try {
        return translate_assignments(c, ctx_);
      } catch (const Error& e) {
        throw CodegenError(where, std::string(what) + " `" + c.code + "`: " + e.what());
      }
    };
    std::string init = statements(loop.init_statement, "loop init statement");
    std::string update = statements(loop.update_statement, "loop update statement");
    std::string cond = "true";
    if (!is_blank(loop.loop_condition)) cond = condition(loop.loop_condition, where);
    if (sg_.prog.opts.emit_comments) {
      std::string desc = "// loop '" + loop.label + "'";
      if (!loop.loop_variable.empty()) desc += " over " + loop.loop_variable;
      w.line(desc + (loop.inverted ? " (do-while)" : ""));
    }
    if (!loop.inverted) {
      emit_hoisted_loop_checks(sg_, loop, w);
      w.open("for (" + init + "; " + cond + "; " + update + ") {");
      poll_interrupt(w);
      emit_region(sg_, loop, w);
      w.close();
      return;
    }
    if (!init.empty()) w.line(init + ";");
    w.open("do {");
    poll_interrupt(w);
    emit_region(sg_, loop, w);
    if (update.empty())
      w.close("} while (" + cond + ");");
    else if (loop.update_before_condition)
      w.close("} while ((" + update + "), (" + cond + "));");
    else
      w.close("} while ((" + cond + ") && ((" + update + "), true));");
  }

  // Ctrl-C stops a run between two iterations of a loop of the top-level SDFG (ADR 0038,
  // session 34). Not in a nested SDFG's loop, which may run inside a parallel map where nothing
  // may throw (a top-level loop of states runs on the host, also in a CUDA program).
  void poll_interrupt(Writer& w) const {
    if (!sg_.top_level) return;
    w.line("weir_poll_interrupt();");
    note_interrupt_poll();
  }

  SdfgGen& sg_;
  const ControlFlowRegion& r_;
  PyContext ctx_;
};

}  // namespace

void emit_region(SdfgGen& sg, const ControlFlowRegion& r, Writer& w) {
  RegionGen g(sg, r);
  g.emit(w);
}

}  // namespace weir::codegen::detail
