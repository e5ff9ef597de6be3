// Typed pattern matches (MLIR's OpRewritePattern<SourceOp>): a transformation declares the
// classes of its pattern elements once, as the template arguments of its base,
//   class MapCollapse final : public PatternTransformation<MapEntry, MapEntry> { ... };
// and reads a match through checked accessors (`pattern(ctx, sub).get<1>()` is a MapEntry&)
// instead of indexing the subgraph and down-casting. The base derives the scope (node classes:
// a dataflow pattern; block classes: a control-flow pattern) and the anchor kind from the first
// class, and the framework refuses a match whose elements are of other classes before
// can_apply sees it ("node 5 is not a map entry"), so can_apply and apply only meet elements of
// the declared classes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "weir/sdfg/state.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms {

namespace detail {

template <class T>
inline constexpr bool is_node_class = std::is_base_of_v<Node, T>;

/// "a map entry", "a loop", ...: the element class in refusals.
template <class T>
const char* element_phrase() {
  if constexpr (std::is_same_v<T, MapEntry>)
    return "a map entry";
  else if constexpr (std::is_same_v<T, MapExit>)
    return "a map exit";
  else if constexpr (std::is_same_v<T, AccessNode>)
    return "an access node";
  else if constexpr (std::is_same_v<T, Tasklet>)
    return "a tasklet";
  else if constexpr (std::is_same_v<T, NestedSDFGNode>)
    return "a nested SDFG";
  else if constexpr (std::is_same_v<T, LibraryNode>)
    return "a library node";
  else if constexpr (std::is_same_v<T, SDFGState>)
    return "a state";
  else if constexpr (std::is_same_v<T, LoopRegion>)
    return "a loop";
  else if constexpr (std::is_same_v<T, ConditionalBlock>)
    return "a conditional block";
  else
    return "a block";
}

/// Element `id` of the match's state (node classes) or region (block classes) if it is alive
/// and of class T, else nullptr.
template <class T>
T* element_of(const MatchContext& ctx, std::uint32_t id) {
  if constexpr (is_node_class<T>) {
    if (!ctx.state || !ctx.state->has_node(id)) return nullptr;
    return ctx.state->node(id).template as<T>();
  } else {
    if (!ctx.region.has_block(id)) return nullptr;
    ControlFlowBlock& b = ctx.region.block(id);
    if constexpr (std::is_same_v<T, ControlFlowBlock>)
      return &b;
    else
      return b.template as<T>();
  }
}

}  // namespace detail

/// The elements of a match, checked against the pattern's classes `Elements...` (pattern
/// element k has class Elements[k]). A candidate may be partial (fewer elements than the
/// pattern), so that can_apply can say what is missing.
template <class... Elements>
class PatternMatch {
 public:
  static constexpr std::size_t size = sizeof...(Elements);
  template <std::size_t K>
  using Class = std::tuple_element_t<K, std::tuple<Elements...>>;

  PatternMatch(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph)
      : ctx_(ctx), sub_(subgraph) {}

  /// Whether pattern element K is in the match, alive and of its class.
  template <std::size_t K>
  bool has() const {
    return K < sub_.size() && detail::element_of<Class<K>>(ctx_, sub_[K]) != nullptr;
  }
  /// Pattern element K. Throws TransformError if has<K>() is false.
  template <std::size_t K>
  Class<K>& get() const {
    static_assert(K < size, "the pattern has no element K");
    Class<K>* e = K < sub_.size() ? detail::element_of<Class<K>>(ctx_, sub_[K]) : nullptr;
    if (!e)
      throw TransformError(
          "pattern element " + std::to_string(K) + " is not " + detail::element_phrase<Class<K>>() +
          (K < sub_.size() ? " (" + std::to_string(sub_[K]) + ")" : std::string(" (missing)")));
    return *e;
  }
  /// The id of pattern element K (a NodeId or BlockId).
  template <std::size_t K>
  std::uint32_t id() const {
    static_assert(K < size, "the pattern has no element K");
    return sub_.at(K);
  }
  /// Success if element 0 is there and every element the match has (at most `size`) is alive
  /// and of its class; else the first problem: "node 5 is not a map entry", "block 2 is not a
  /// loop", "the match has 4 elements, the pattern 3".
  MatchResult check() const {
    if (sub_.empty()) return refuse("empty match");
    if (sub_.size() > size)
      return refuse("the match has " + std::to_string(sub_.size()) + " elements, the pattern " +
                    std::to_string(size));
    return check_from<0>();
  }

 private:
  const MatchContext& ctx_;
  const std::vector<std::uint32_t>& sub_;

  template <std::size_t K>
  MatchResult check_from() const {
    if constexpr (K == size) {
      return MatchResult::success();
    } else {
      if (K >= sub_.size()) return MatchResult::success();
      if (!has<K>())
        return refuse(std::string(detail::is_node_class<Class<K>> ? "node " : "block ") +
                      std::to_string(sub_[K]) + " is not " + detail::element_phrase<Class<K>>());
      return check_from<K + 1>();
    }
  }
};

/// What every application of a transformation changes, declared once in its constructor (as
/// DaCe's `modifies()` declares it for passes) instead of an override per transformation.
struct Effects {
  /// Applying it repeatedly always terminates (Transformation::converges).
  bool converges = false;
  /// Changes no container, symbol or argument (Transformation::data_footprint is empty).
  bool no_data = false;
  /// Changes only its matched blocks and the region's edges (Transformation::footprint).
  bool matched_blocks_only = false;
};

/// Base of transformations with a fixed pattern of element classes (see the file comment).
template <class First, class... Rest>
class PatternTransformation : public Transformation {
 public:
  bool converges() const override { return effects_.converges; }
  std::vector<BlockId> footprint(const MatchContext& ctx,
                                 const std::vector<std::uint32_t>& subgraph) const override {
    if (effects_.matched_blocks_only) return subgraph;
    return Transformation::footprint(ctx, subgraph);
  }
  std::optional<std::vector<std::string>> data_footprint(
      const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override {
    if (effects_.no_data) return std::vector<std::string>{};
    return Transformation::data_footprint(ctx, subgraph);
  }
  using Pattern = PatternMatch<First, Rest...>;
  MatchScope scope() const final {
    return detail::is_node_class<First> ? MatchScope::Dataflow : MatchScope::ControlFlow;
  }
  NodeKind anchor_kind() const final {
    if constexpr (detail::is_node_class<First>)
      return First::kKind;
    else
      return NodeKind::MapEntry;  // unused for control flow: every block is an anchor
  }
  MatchResult check_pattern(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const final {
    return Pattern(ctx, subgraph).check();
  }
  /// The match's elements, checked (`pattern(ctx, sub).get<1>()`).
  static Pattern pattern(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) {
    return Pattern(ctx, subgraph);
  }

 protected:
  PatternTransformation(std::string name, std::string description, std::vector<OptionSpec> options = {},
                        Effects effects = {})
      : Transformation(std::move(name), std::move(description), std::move(options)), effects_(effects) {}

 private:
  Effects effects_;
};

}  // namespace weir::transforms
