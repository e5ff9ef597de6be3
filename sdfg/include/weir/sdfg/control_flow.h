// Control flow: blocks (states, regions, loops, conditionals, break/continue/return) joined by
// interstate edges, as DaCe's ControlFlowRegion hierarchy. Regions are kept as regions, never
// flattened on load (a `--flatten` conversion exists separately).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "weir/sdfg/attributes.h"
#include "weir/sdfg/types.h"

namespace weir {

class SDFG;
class SDFGState;
class ControlFlowRegion;
class LoopRegion;
class ConditionalBlock;

using BlockId = std::uint32_t;
using EdgeId = std::uint32_t;
inline constexpr BlockId kNoBlock = ~BlockId{0};

enum class BlockKind : std::uint8_t { State, Region, Loop, Conditional, Break, Continue, Return, SDFG };
/// DaCe class name of the block kind ("SDFGState", "LoopRegion", ...).
std::string_view to_string(BlockKind k);

class ControlFlowBlock {
 public:
  virtual ~ControlFlowBlock();
  ControlFlowBlock(const ControlFlowBlock&) = delete;
  ControlFlowBlock& operator=(const ControlFlowBlock&) = delete;

  BlockKind kind() const { return kind_; }
  /// Index in the parent region (DaCe's block id after serialization). Stable until removed.
  BlockId id() const { return id_; }
  /// The block that contains this one: its region, or for a branch body its ConditionalBlock;
  /// nullptr for a top-level SDFG.
  ControlFlowBlock* parent_block() const { return parent_; }
  /// The region this block is a node of (nullptr for a top-level SDFG or a branch body).
  ControlFlowRegion* parent_region() const;
  /// The SDFG this block belongs to (itself for an SDFG).
  SDFG* sdfg() const;
  /// Labels from the SDFG down to this block, '/'-separated (for error messages).
  std::string path() const;

  template <class T>
  T* as() {
    return T::matches(kind_) ? static_cast<T*>(this) : nullptr;
  }
  template <class T>
  const T* as() const {
    return T::matches(kind_) ? static_cast<const T*>(this) : nullptr;
  }

  std::string label;
  UnknownAttributes extra;

  /// Deep copy (same ids, same labels), detached from any parent.
  virtual std::unique_ptr<ControlFlowBlock> clone() const = 0;

 protected:
  ControlFlowBlock(BlockKind k, std::string lbl) : label(std::move(lbl)), kind_(k) {}
  void copy_common_to(ControlFlowBlock& b) const;

 private:
  friend class ControlFlowRegion;
  friend class ConditionalBlock;
  friend class SDFG;
  BlockKind kind_;
  BlockId id_ = kNoBlock;
  ControlFlowBlock* parent_ = nullptr;
};

/// BreakBlock, ContinueBlock, ReturnBlock: control transfer without content.
class ControlTransferBlock final : public ControlFlowBlock {
 public:
  explicit ControlTransferBlock(BlockKind k, std::string lbl = {});
  static bool matches(BlockKind k) {
    return k == BlockKind::Break || k == BlockKind::Continue || k == BlockKind::Return;
  }
  std::unique_ptr<ControlFlowBlock> clone() const override;
};

/// Condition and symbol assignments on an edge between blocks (DaCe's InterstateEdge).
/// Assignments happen when the edge is taken, in order; `condition` is Python code ("1" = always)
/// and each assigned value a Python expression, both CodeBlocks (parsed once, on first use).
struct InterstateEdge {
  CodeBlock condition{"1", Language::Python};
  /// (symbol, value) in order; the value is one Python expression (DaCe's `assignments` dict).
  std::vector<std::pair<std::string, CodeBlock>> assignments;
  UnknownAttributes extra;
  bool is_unconditional() const;
  bool operator==(const InterstateEdge&) const = default;
};

struct ControlFlowEdge {
  EdgeId id;
  BlockId src;
  BlockId dst;
  InterstateEdge data;
};

/// A graph of blocks with one start block (DaCe's ControlFlowRegion). Blocks are created only
/// through the add_* builder methods.
class ControlFlowRegion : public ControlFlowBlock {
 public:
  explicit ControlFlowRegion(std::string lbl = {});
  ~ControlFlowRegion() override;
  static bool matches(BlockKind k) {
    return k == BlockKind::Region || k == BlockKind::Loop || k == BlockKind::SDFG;
  }

  // --- builder -------------------------------------------------------------------------
  SDFGState& add_state(std::string label, bool is_start = false);
  LoopRegion& add_loop(std::string label, std::string loop_variable, std::string init, std::string condition,
                       std::string update);
  ConditionalBlock& add_conditional(std::string label);
  ControlFlowRegion& add_region(std::string label);
  /// Adds any block (used by the loader); returns it. Throws IRError for an SDFG block.
  ControlFlowBlock& add_block(std::unique_ptr<ControlFlowBlock> block, bool is_start = false);
  ControlFlowEdge& add_edge(BlockId src, BlockId dst, InterstateEdge data = {});
  /// Removes the block and its edges. Throws IRError if `id` is not a block of this region.
  void remove_block(BlockId id);
  void remove_edge(EdgeId id);
  void set_start_block(BlockId id);
  /// Detaches a block and returns it (for moving blocks between regions).
  std::unique_ptr<ControlFlowBlock> take_block(BlockId id);

  // --- queries -------------------------------------------------------------------------
  /// Live blocks in id order.
  std::vector<ControlFlowBlock*> blocks() const;
  std::size_t num_blocks() const;
  /// Throws IRError if `id` is not a live block.
  ControlFlowBlock& block(BlockId id) const;
  bool has_block(BlockId id) const;
  std::vector<const ControlFlowEdge*> edges() const;
  bool has_edge(EdgeId id) const { return id < edges_.size() && edges_[id].has_value(); }
  const ControlFlowEdge& edge(EdgeId id) const;
  ControlFlowEdge& edge(EdgeId id);
  /// Edges into / out of a block, in edge-id order. O(degree): every block keeps its edge lists.
  std::vector<const ControlFlowEdge*> in_edges(BlockId id) const;
  std::vector<const ControlFlowEdge*> out_edges(BlockId id) const;
  /// The block execution starts at, as DaCe's ControlFlowRegion.start_block: the unique block
  /// without in-edges if there is one, else the explicitly set start; kNoBlock if the region is
  /// empty or the start is ambiguous.
  BlockId start_block() const;
  /// The start set with set_start_block (or loaded from the file), kNoBlock if none.
  BlockId explicit_start() const { return start_; }
  bool has_explicit_start() const { return start_ != kNoBlock; }
  /// All states in this region and nested regions/branches, depth first in id order.
  std::vector<SDFGState*> all_states() const;
  /// Blocks in reverse post-order from the start block (unreachable blocks appended).
  std::vector<BlockId> reverse_post_order() const;

  std::unique_ptr<ControlFlowBlock> clone() const override;

  /// DaCe's class of a plain region when it is one of ControlFlowRegion's subclasses that run
  /// as a plain region (FunctionCallRegion, NamedRegion, UnstructuredControlFlow; their own
  /// attributes are kept in `extra`); empty for ControlFlowRegion itself. Written back as the
  /// block's `type`.
  std::string dace_class;

  // --- transactions (local snapshot and restore, docs/adr/0007) ---------------------------
  /// One past the largest block / edge id ever given out (ids are never reused otherwise).
  std::size_t block_capacity() const { return blocks_.size(); }
  std::size_t edge_capacity() const { return edges_.size(); }
  /// Removes every block with id >= `blocks` (with its edges) and every edge with id >=
  /// `edges`, and shrinks the id counters back, as if they had never been added.
  void truncate(std::size_t blocks, std::size_t edges);
  /// Puts `block` back under the id it had; the slot must be free and < block_capacity().
  /// Throws IRError otherwise.
  ControlFlowBlock& put_block(std::unique_ptr<ControlFlowBlock> block, BlockId id);
  /// Puts an edge back under its id (`e.id`); the slot must be free and < edge_capacity(), its
  /// endpoints live. Throws IRError otherwise.
  void put_edge(const ControlFlowEdge& e);
  /// Ids of the live edges incident to `id` (in-edges then out-edges, a self-loop once).
  std::vector<EdgeId> incident_edges(BlockId id) const;

 protected:
  ControlFlowRegion(BlockKind k, std::string lbl);
  void copy_region_to(ControlFlowRegion& r) const;

 private:
  std::vector<std::unique_ptr<ControlFlowBlock>> blocks_;  // nullptr = removed
  std::vector<std::optional<ControlFlowEdge>> edges_;      // nullopt = removed
  std::vector<std::vector<EdgeId>> in_, out_;              // per block slot, sorted edge ids
  void link(EdgeId e);
  void unlink(EdgeId e);
  BlockId start_ = kNoBlock;
};

/// A loop (DaCe's LoopRegion): `init_statement`; while (`loop_condition`) { body;
/// `update_statement` }. `inverted` makes it a do-while. `loop_variable` may be empty for
/// while loops.
class LoopRegion final : public ControlFlowRegion {
 public:
  explicit LoopRegion(std::string lbl);
  static bool matches(BlockKind k) { return k == BlockKind::Loop; }
  std::string loop_variable;
  CodeBlock init_statement{"", Language::Python};
  CodeBlock loop_condition{"True", Language::Python};
  CodeBlock update_statement{"", Language::Python};
  bool inverted = false;
  bool update_before_condition = true;
  std::unique_ptr<ControlFlowBlock> clone() const override;
};

/// if / elif / else (DaCe's ConditionalBlock): the first branch whose condition holds runs;
/// a branch without condition is the else branch.
class ConditionalBlock final : public ControlFlowBlock {
 public:
  explicit ConditionalBlock(std::string lbl);
  ~ConditionalBlock() override;
  static bool matches(BlockKind k) { return k == BlockKind::Conditional; }
  struct Branch {
    std::optional<CodeBlock> condition;
    std::unique_ptr<ControlFlowRegion> body;
  };
  /// Adds a branch with the given condition (nullopt = else) and returns its body.
  ControlFlowRegion& add_branch(std::optional<CodeBlock> condition, std::string label = {});
  const std::vector<Branch>& branches() const { return branches_; }
  std::vector<Branch>& branches() { return branches_; }
  std::unique_ptr<ControlFlowBlock> clone() const override;

 private:
  std::vector<Branch> branches_;
};

}  // namespace weir
