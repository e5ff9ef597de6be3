// Control-flow regions: blocks and interstate edges in tombstoned vectors (ids are indices and
// are never reused, so ids held by callers stay valid across removals).
#include "weir/sdfg/control_flow.h"

#include <algorithm>
#include <memory>
#include <string_view>

#include "weir/pycode/code.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir {

namespace {

ElementRef ref_of(const ControlFlowBlock& b) {
  ElementRef r;
  if (const SDFG* s = b.sdfg()) r.sdfg = s->name;
  r.block_path = b.path();
  return r;
}

std::string region_name(const ControlFlowBlock& b) {
  return b.kind() == BlockKind::SDFG ? "the SDFG" : "region '" + b.label + "'";
}

}  // namespace

std::string_view to_string(BlockKind k) {
  switch (k) {
    case BlockKind::State: return "SDFGState";
    case BlockKind::Region: return "ControlFlowRegion";
    case BlockKind::Loop: return "LoopRegion";
    case BlockKind::Conditional: return "ConditionalBlock";
    case BlockKind::Break: return "BreakBlock";
    case BlockKind::Continue: return "ContinueBlock";
    case BlockKind::Return: return "ReturnBlock";
    case BlockKind::SDFG: return "SDFG";
  }
  return "<invalid>";
}

// --- ControlFlowBlock ----------------------------------------------------------------------

ControlFlowBlock::~ControlFlowBlock() = default;

ControlFlowRegion* ControlFlowBlock::parent_region() const {
  // A branch body's parent is its ConditionalBlock, which is not a region.
  if (parent_ && ControlFlowRegion::matches(parent_->kind())) return static_cast<ControlFlowRegion*>(parent_);
  return nullptr;
}

SDFG* ControlFlowBlock::sdfg() const {
  // const_cast: the SDFG owns this block; constness of the query does not extend to it.
  for (auto* b = const_cast<ControlFlowBlock*>(this); b; b = b->parent_)
    if (b->kind_ == BlockKind::SDFG) return static_cast<SDFG*>(b);
  return nullptr;
}

std::string ControlFlowBlock::path() const {
  std::vector<const std::string*> labels;
  for (const ControlFlowBlock* b = this; b && b->kind_ != BlockKind::SDFG; b = b->parent_)
    if (!b->label.empty()) labels.push_back(&b->label);  // unnamed branch bodies add nothing
  std::string out;
  for (auto it = labels.rbegin(); it != labels.rend(); ++it) {
    if (!out.empty()) out += '/';
    out += **it;
  }
  return out;
}

void ControlFlowBlock::copy_common_to(ControlFlowBlock& b) const {
  b.label = label;
  b.extra = extra;
  b.id_ = id_;
}

// --- ControlTransferBlock ------------------------------------------------------------------

ControlTransferBlock::ControlTransferBlock(BlockKind k, std::string lbl)
    : ControlFlowBlock(k, std::move(lbl)) {
  if (!matches(k))
    throw IRError({},
                  "ControlTransferBlock needs Break, Continue or Return, got " + std::string(to_string(k)));
}

std::unique_ptr<ControlFlowBlock> ControlTransferBlock::clone() const {
  auto c = std::make_unique<ControlTransferBlock>(kind(), label);
  copy_common_to(*c);
  return c;
}

// --- InterstateEdge ------------------------------------------------------------------------

bool InterstateEdge::is_unconditional() const {
  if (is_blank(condition)) return true;  // empty condition: always taken
  if (condition.language != Language::Python) {
    // C++ is not parsed (ADR 0016): only the literal alone, as DaCe writes it, is always true.
    std::string_view c = condition.code;
    c.remove_prefix(c.find_first_not_of(" \t\r\n"));
    c.remove_suffix(c.size() - 1 - c.find_last_not_of(" \t\r\n"));
    return c == "1" || c == "true";
  }
  // `1`, `True` (in any parentheses) and `true` (which DaCe also reads as always true), on the tree.
  std::shared_ptr<const pycode::Code> tree;
  try {
    tree = condition.parsed();
  } catch (const pycode::SourceError&) {
    return false;  // invalid Python: validate() reports it
  }
  const pycode::Expr* e = tree->expression();
  if (const auto* k = pycode::dyn_cast<pycode::Constant>(e))
    return (k->value_kind == pycode::ConstantKind::Int && k->int_value == 1) ||
           (k->value_kind == pycode::ConstantKind::Bool && k->bool_value);
  const auto* n = pycode::dyn_cast<pycode::Name>(e);
  return n && n->id == "true";
}

// --- ControlFlowRegion ---------------------------------------------------------------------

ControlFlowRegion::ControlFlowRegion(std::string lbl) : ControlFlowBlock(BlockKind::Region, std::move(lbl)) {}
ControlFlowRegion::ControlFlowRegion(BlockKind k, std::string lbl) : ControlFlowBlock(k, std::move(lbl)) {}
ControlFlowRegion::~ControlFlowRegion() = default;

SDFGState& ControlFlowRegion::add_state(std::string label, bool is_start) {
  return static_cast<SDFGState&>(add_block(std::make_unique<SDFGState>(std::move(label)), is_start));
}

LoopRegion& ControlFlowRegion::add_loop(std::string label, std::string loop_variable, std::string init,
                                        std::string condition, std::string update) {
  auto loop = std::make_unique<LoopRegion>(std::move(label));
  loop->loop_variable = std::move(loop_variable);
  loop->init_statement = {std::move(init), Language::Python};
  loop->loop_condition = {std::move(condition), Language::Python};
  loop->update_statement = {std::move(update), Language::Python};
  return static_cast<LoopRegion&>(add_block(std::move(loop)));
}

ConditionalBlock& ControlFlowRegion::add_conditional(std::string label) {
  return static_cast<ConditionalBlock&>(add_block(std::make_unique<ConditionalBlock>(std::move(label))));
}

ControlFlowRegion& ControlFlowRegion::add_region(std::string label) {
  return static_cast<ControlFlowRegion&>(add_block(std::make_unique<ControlFlowRegion>(std::move(label))));
}

ControlFlowBlock& ControlFlowRegion::add_block(std::unique_ptr<ControlFlowBlock> block, bool is_start) {
  if (!block) throw IRError(ref_of(*this), "add_block: null block");
  if (block->kind() == BlockKind::SDFG)
    throw IRError(ref_of(*this), "an SDFG cannot be a block of a region (use a nested SDFG node)");
  block->id_ = static_cast<BlockId>(blocks_.size());
  block->parent_ = this;
  blocks_.push_back(std::move(block));
  in_.emplace_back();
  out_.emplace_back();
  if (is_start) start_ = blocks_.back()->id_;
  return *blocks_.back();
}

ControlFlowEdge& ControlFlowRegion::add_edge(BlockId src, BlockId dst, InterstateEdge data) {
  for (BlockId b : {src, dst})
    if (!has_block(b))
      throw IRError(ref_of(*this), "add_edge: no block " + std::to_string(static_cast<long>(b)) + " in " +
                                       region_name(*this));
  auto id = static_cast<EdgeId>(edges_.size());
  edges_.push_back(ControlFlowEdge{id, src, dst, std::move(data)});
  link(id);
  return *edges_.back();
}

namespace {
void insert_sorted(std::vector<EdgeId>& v, EdgeId e) { v.insert(std::lower_bound(v.begin(), v.end(), e), e); }
void erase_one(std::vector<EdgeId>& v, EdgeId e) {
  auto it = std::lower_bound(v.begin(), v.end(), e);
  if (it != v.end() && *it == e) v.erase(it);
}
}  // namespace

void ControlFlowRegion::link(EdgeId e) {
  const ControlFlowEdge& d = *edges_[e];
  insert_sorted(out_[d.src], e);
  insert_sorted(in_[d.dst], e);
}

void ControlFlowRegion::unlink(EdgeId e) {
  // Endpoints may have been edited through edge(); only valid slots hold the edge.
  const ControlFlowEdge& d = *edges_[e];
  if (d.src < out_.size()) erase_one(out_[d.src], e);
  if (d.dst < in_.size()) erase_one(in_[d.dst], e);
}

void ControlFlowRegion::remove_block(BlockId id) { take_block(id); }

void ControlFlowRegion::remove_edge(EdgeId id) {
  if (id >= edges_.size() || !edges_[id])
    throw IRError(ref_of(*this),
                  "remove_edge: no interstate edge " + std::to_string(id) + " in " + region_name(*this));
  unlink(id);
  edges_[id].reset();
}

void ControlFlowRegion::set_start_block(BlockId id) {
  if (id != kNoBlock && !has_block(id))
    throw IRError(ref_of(*this),
                  "set_start_block: no block " + std::to_string(id) + " in " + region_name(*this));
  start_ = id;
}

std::unique_ptr<ControlFlowBlock> ControlFlowRegion::take_block(BlockId id) {
  if (!has_block(id))
    throw IRError(ref_of(*this),
                  "no block " + std::to_string(static_cast<long>(id)) + " in " + region_name(*this));
  // A detached block cannot keep edges into this region.
  for (EdgeId e : incident_edges(id)) {
    unlink(e);
    edges_[e].reset();
  }
  if (start_ == id) start_ = kNoBlock;
  auto b = std::move(blocks_[id]);
  b->parent_ = nullptr;
  return b;
}

std::vector<ControlFlowBlock*> ControlFlowRegion::blocks() const {
  std::vector<ControlFlowBlock*> out;
  for (const auto& b : blocks_)
    if (b) out.push_back(b.get());
  return out;
}

std::size_t ControlFlowRegion::num_blocks() const {
  return static_cast<std::size_t>(
      std::count_if(blocks_.begin(), blocks_.end(), [](const auto& b) { return b != nullptr; }));
}

ControlFlowBlock& ControlFlowRegion::block(BlockId id) const {
  if (!has_block(id))
    throw IRError(ref_of(*this),
                  "no block " + std::to_string(static_cast<long>(id)) + " in " + region_name(*this));
  return *blocks_[id];
}

bool ControlFlowRegion::has_block(BlockId id) const { return id < blocks_.size() && blocks_[id]; }

std::vector<const ControlFlowEdge*> ControlFlowRegion::edges() const {
  std::vector<const ControlFlowEdge*> out;
  for (const auto& e : edges_)
    if (e) out.push_back(&*e);
  return out;
}

const ControlFlowEdge& ControlFlowRegion::edge(EdgeId id) const {
  if (id >= edges_.size() || !edges_[id])
    throw IRError(ref_of(*this), "no interstate edge " + std::to_string(id) + " in " + region_name(*this));
  return *edges_[id];
}

ControlFlowEdge& ControlFlowRegion::edge(EdgeId id) {
  return const_cast<ControlFlowEdge&>(static_cast<const ControlFlowRegion&>(*this).edge(id));
}

std::vector<const ControlFlowEdge*> ControlFlowRegion::in_edges(BlockId id) const {
  std::vector<const ControlFlowEdge*> out;
  if (id >= in_.size()) return out;
  for (EdgeId e : in_[id])
    if (edges_[e] && edges_[e]->dst == id) out.push_back(&*edges_[e]);
  return out;
}

std::vector<const ControlFlowEdge*> ControlFlowRegion::out_edges(BlockId id) const {
  std::vector<const ControlFlowEdge*> out;
  if (id >= out_.size()) return out;
  for (EdgeId e : out_[id])
    if (edges_[e] && edges_[e]->src == id) out.push_back(&*edges_[e]);
  return out;
}

std::vector<EdgeId> ControlFlowRegion::incident_edges(BlockId id) const {
  std::vector<EdgeId> out;
  if (id >= in_.size()) return out;
  for (EdgeId e : in_[id])
    if (edges_[e] && edges_[e]->dst == id) out.push_back(e);
  for (EdgeId e : out_[id])
    if (edges_[e] && edges_[e]->src == id && edges_[e]->dst != id) out.push_back(e);
  return out;
}

void ControlFlowRegion::truncate(std::size_t blocks, std::size_t edges) {
  for (std::size_t b = blocks; b < blocks_.size(); ++b)
    if (blocks_[b]) take_block(static_cast<BlockId>(b));
  for (std::size_t e = edges; e < edges_.size(); ++e)
    if (edges_[e]) remove_edge(static_cast<EdgeId>(e));
  if (blocks < blocks_.size()) {
    blocks_.resize(blocks);
    in_.resize(blocks);
    out_.resize(blocks);
  }
  if (edges < edges_.size()) edges_.resize(edges);
  if (start_ != kNoBlock && start_ >= blocks_.size()) start_ = kNoBlock;
}

ControlFlowBlock& ControlFlowRegion::put_block(std::unique_ptr<ControlFlowBlock> block, BlockId id) {
  if (!block) throw IRError(ref_of(*this), "put_block: null block");
  if (id >= blocks_.size() || blocks_[id])
    throw IRError(ref_of(*this), "put_block: slot " + std::to_string(static_cast<long>(id)) + " of " +
                                     region_name(*this) + " is not free");
  block->id_ = id;
  block->parent_ = this;
  blocks_[id] = std::move(block);
  return *blocks_[id];
}

void ControlFlowRegion::put_edge(const ControlFlowEdge& e) {
  if (e.id >= edges_.size() || edges_[e.id])
    throw IRError(ref_of(*this),
                  "put_edge: slot " + std::to_string(e.id) + " of " + region_name(*this) + " is not free");
  if (!has_block(e.src) || !has_block(e.dst))
    throw IRError(ref_of(*this), "put_edge: an endpoint of edge " + std::to_string(e.id) +
                                     " is not a block of " + region_name(*this));
  edges_[e.id] = e;
  link(e.id);
}

BlockId ControlFlowRegion::start_block() const {
  // As DaCe's ControlFlowRegion.start_block: a unique source block wins; the stored start only
  // decides when the sources are ambiguous (none, as in a loop back to the start, or several).
  std::vector<char> has_in(blocks_.size(), 0);
  for (const auto& e : edges_)
    if (e) has_in[e->dst] = 1;
  BlockId found = kNoBlock;
  int sources = 0;
  for (const auto& b : blocks_) {
    if (!b || has_in[b->id_]) continue;
    ++sources;
    found = b->id_;
  }
  if (sources == 1) return found;
  if (start_ != kNoBlock && has_block(start_)) return start_;
  return kNoBlock;
}

std::vector<SDFGState*> ControlFlowRegion::all_states() const {
  std::vector<SDFGState*> out;
  for (const auto& b : blocks_) {
    if (!b) continue;
    if (auto* s = b->as<SDFGState>()) {
      out.push_back(s);
    } else if (auto* r = b->as<ControlFlowRegion>()) {
      auto sub = r->all_states();
      out.insert(out.end(), sub.begin(), sub.end());
    } else if (auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches()) {
        if (!br.body) continue;
        auto sub = br.body->all_states();
        out.insert(out.end(), sub.begin(), sub.end());
      }
    }
  }
  return out;
}

std::vector<BlockId> ControlFlowRegion::reverse_post_order() const {
  std::vector<BlockId> post;
  std::vector<char> seen(blocks_.size(), 0);
  // Successors per block. They are pushed in reverse edge order so that the DFS visits the
  // first successor last: after reversing the post-order, earlier edges come first
  // (a diamond s -> a, s -> b, a -> d, b -> d gives s, a, b, d).
  std::vector<std::vector<BlockId>> succ(blocks_.size());
  for (const auto& e : edges_)
    if (e) succ[e->src].push_back(e->dst);
  BlockId start = start_block();
  if (start != kNoBlock) {
    // Iterative DFS: (block, index of the next successor to visit).
    std::vector<std::pair<BlockId, std::size_t>> stack{{start, 0}};
    seen[start] = 1;
    while (!stack.empty()) {
      auto& [b, i] = stack.back();
      const auto& s = succ[b];
      if (i < s.size()) {
        BlockId next = s[s.size() - 1 - i];
        ++i;
        if (!seen[next]) {
          seen[next] = 1;
          stack.emplace_back(next, 0);
        }
      } else {
        post.push_back(b);
        stack.pop_back();
      }
    }
  }
  std::vector<BlockId> order(post.rbegin(), post.rend());
  for (const auto& b : blocks_)  // unreachable blocks, in id order
    if (b && !seen[b->id_]) order.push_back(b->id_);
  return order;
}

void ControlFlowRegion::copy_region_to(ControlFlowRegion& r) const {
  copy_common_to(r);
  r.blocks_.clear();
  r.blocks_.reserve(blocks_.size());
  for (const auto& b : blocks_) {
    if (!b) {
      r.blocks_.push_back(nullptr);  // keep the hole so ids stay the same
      continue;
    }
    auto c = b->clone();
    c->parent_ = &r;
    r.blocks_.push_back(std::move(c));
  }
  r.edges_ = edges_;
  r.in_ = in_;
  r.out_ = out_;
  r.start_ = start_;
  r.dace_class = dace_class;
}

std::unique_ptr<ControlFlowBlock> ControlFlowRegion::clone() const {
  auto c = std::make_unique<ControlFlowRegion>(label);
  copy_region_to(*c);
  return c;
}

// --- LoopRegion ----------------------------------------------------------------------------

LoopRegion::LoopRegion(std::string lbl) : ControlFlowRegion(BlockKind::Loop, std::move(lbl)) {}

std::unique_ptr<ControlFlowBlock> LoopRegion::clone() const {
  auto c = std::make_unique<LoopRegion>(label);
  copy_region_to(*c);
  c->loop_variable = loop_variable;
  c->init_statement = init_statement;
  c->loop_condition = loop_condition;
  c->update_statement = update_statement;
  c->inverted = inverted;
  c->update_before_condition = update_before_condition;
  return c;
}

// --- ConditionalBlock ----------------------------------------------------------------------

ConditionalBlock::ConditionalBlock(std::string lbl)
    : ControlFlowBlock(BlockKind::Conditional, std::move(lbl)) {}
ConditionalBlock::~ConditionalBlock() = default;

ControlFlowRegion& ConditionalBlock::add_branch(std::optional<CodeBlock> condition, std::string label) {
  auto body = std::make_unique<ControlFlowRegion>(std::move(label));
  body->parent_ = this;
  branches_.push_back(Branch{std::move(condition), std::move(body)});
  return *branches_.back().body;
}

std::unique_ptr<ControlFlowBlock> ConditionalBlock::clone() const {
  auto c = std::make_unique<ConditionalBlock>(label);
  copy_common_to(*c);
  for (const auto& br : branches_) {
    std::unique_ptr<ControlFlowRegion> body;
    if (br.body) {
      // clone() of a region returns a region of the same kind.
      body.reset(static_cast<ControlFlowRegion*>(br.body->clone().release()));
      body->parent_ = c.get();
    }
    c->branches_.push_back(Branch{br.condition, std::move(body)});
  }
  return c;
}

}  // namespace weir
