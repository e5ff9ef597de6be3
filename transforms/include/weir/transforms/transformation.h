// Pattern transformations: the framework every rewrite of an SDFG is built on (DaCe's
// PatternTransformation, with MLIR's "say why it did not match").
//
// A transformation declares
//  * its scope: a dataflow pattern inside one state (nodes) or a control-flow pattern inside one
//    region (blocks);
//  * its anchor: for dataflow patterns the NodeKind of pattern node 0 (matching starts only at
//    nodes of that kind, found through the per-state kind index of the AnalysisCache); for
//    control-flow patterns every block of a region is an anchor;
//  * `expand`: the candidate subgraphs grown from one anchor (pattern index -> node/block id);
//  * `can_apply`: success, or a refusal with a human-readable reason;
//  * `apply`: the rewrite, done only through the IR's builder methods.
// It has a stable name ("MapTiling"), options with defaults, and a JSON record of options plus
// match location in DaCe's format (`to_json`). Application goes through `apply_transactional`,
// which leaves the SDFG exactly as before if the rewrite throws (see docs/adr/0007).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "weir/sdfg/errors.h"
#include "weir/sdfg/sdfg.h"

namespace weir::transforms {

class AnalysisCache;

/// A bad transformation/pass request: unknown name or option, ill-typed option value, a match
/// record that does not fit the SDFG. Located where a text is involved (see PipelineParseError).
class TransformError : public weir::Error {
 public:
  using weir::Error::Error;
};

/// The answer of an applicability check: success, or a refusal carrying the reason
/// ("map ranges differ in dimension 2"), as MLIR's notifyMatchFailure.
class MatchResult {
 public:
  static MatchResult success() { return MatchResult(); }
  static MatchResult failure(std::string reason) { return MatchResult(std::move(reason)); }
  bool ok() const { return !reason_; }
  explicit operator bool() const { return ok(); }
  /// The refusal reason; empty on success.
  const std::string& reason() const {
    static const std::string empty;
    return reason_ ? *reason_ : empty;
  }

 private:
  MatchResult() = default;
  explicit MatchResult(std::string r) : reason_(std::move(r)) {}
  std::optional<std::string> reason_;
};

/// Shorthand for MatchResult::failure inside can_apply.
inline MatchResult refuse(std::string reason) { return MatchResult::failure(std::move(reason)); }

/// An option value: boolean, integer, list of integers or string.
using OptionValue = std::variant<bool, long long, std::vector<long long>, std::string>;

/// Text of an option value as the pipeline syntax writes it: "true", "32", "32,8", "abc".
std::string option_value_text(const OptionValue& v);

/// A declared option: its name, default (which also fixes its type), a one-line description and,
/// for integers and integer lists, the smallest value it takes (a tile size of -4 is an error,
/// not a transformation that silently matches nothing).
struct OptionSpec {
  std::string name;
  OptionValue default_value;
  std::string description;
  std::optional<long long> minimum = std::nullopt;
};

/// Current option values of a transformation or pass, checked against its specs.
class Options {
 public:
  Options() = default;
  explicit Options(std::vector<OptionSpec> specs);
  const std::vector<OptionSpec>& specs() const { return specs_; }
  bool has(const std::string& name) const;
  /// Sets an option; throws TransformError for an unknown name, a value of the wrong type or an
  /// integer below the spec's minimum ("option 'tile_sizes' must be at least 1, not -4").
  void set(const std::string& name, OptionValue value);
  /// Parses `text` as the option's type ("32,8" for a list, "true"/"false", integers) and sets
  /// it; throws TransformError naming the option and the expected type.
  void set_text(const std::string& name, const std::string& text);
  const OptionValue& get(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  long long get_int(const std::string& name) const;
  const std::vector<long long>& get_int_list(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  /// Options whose value differs from the default, in spec order ("tile_sizes=32,8").
  std::vector<std::pair<std::string, OptionValue>> non_default() const;

 private:
  std::vector<OptionSpec> specs_;
  std::map<std::string, OptionValue> values_;
  const OptionSpec& spec(const std::string& name) const;
};

/// Whether a pattern lives in a state's dataflow graph or in a region's control flow.
enum class MatchScope : std::uint8_t { Dataflow, ControlFlow };

/// Where a match is: the control-flow region (`cfg_id`, an index into cfg_list(root)), the state
/// in it (`state_id`, a block id; kNoBlock for control-flow patterns) and the matched elements
/// (`subgraph[k]` = id of the node or block that plays pattern node k). Ids are the IR's stable
/// ids, which equal DaCe's dense indices on a freshly loaded SDFG.
struct Match {
  std::size_t cfg_id = 0;
  BlockId state_id = kNoBlock;
  std::vector<std::uint32_t> subgraph;
  /// A stable textual id, "<cfg>.<state>.<id>,<id>" ("0.1.3,7"; "0.-.2,3" for control flow).
  std::string id() const;
  bool operator==(const Match&) const = default;
};

/// Every control-flow region of `root` in a fixed pre-order (DaCe's cfg_list): the SDFG itself
/// first (cfg_id 0), then, per block in id order, loops/regions and conditional branch bodies
/// and, per state, the SDFGs of nested SDFG nodes in node-id order, each followed by its own
/// regions.
std::vector<ControlFlowRegion*> cfg_list(const SDFG& root);

/// What a transformation sees while matching or applying.
struct MatchContext {
  SDFG& root;                 ///< the top-level SDFG
  SDFG& sdfg;                 ///< the SDFG that contains `region` (root or a nested SDFG)
  ControlFlowRegion& region;  ///< the region of the match
  SDFGState* state;           ///< the state of a dataflow match; nullptr for control flow
  AnalysisCache& cache;
};

/// Base class of pattern transformations. Subclasses are small: the base owns name,
/// description and options (given to its constructor); a subclass has anchor, expand, can_apply
/// and apply (see the file comment). Transformations with a fixed pattern derive from
/// PatternTransformation (pattern.h), which types the match.
class Transformation {
 public:
  virtual ~Transformation();
  Transformation(const Transformation&) = delete;
  Transformation& operator=(const Transformation&) = delete;

  /// Stable DaCe-style class name ("MapTiling"); also the `transformation` key of its JSON.
  virtual std::string name() const { return name_; }
  /// One line for `weir transforms list`.
  virtual std::string description() const { return description_; }
  virtual MatchScope scope() const = 0;
  /// Kind of pattern node 0 for dataflow patterns (ignored for control flow).
  virtual NodeKind anchor_kind() const { return NodeKind::MapEntry; }
  /// Whether applying it repeatedly always terminates (cleanups that shrink the graph). Passes
  /// run such transformations to a fixed point; others once per match found up front.
  virtual bool converges() const { return false; }

  /// Candidate subgraphs that start at `anchor` (a NodeId of ctx.state or a BlockId of
  /// ctx.region). A candidate may be partial (only the anchor) when the rest of the pattern is
  /// missing, so that can_apply can say why it does not apply.
  virtual std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                         std::uint32_t anchor) const = 0;
  /// Whether the candidate's elements have the classes of the pattern (PatternTransformation
  /// checks them; others accept any). Called before can_apply, which only sees candidates this
  /// accepted.
  virtual MatchResult check_pattern(const MatchContext& ctx,
                                    const std::vector<std::uint32_t>& subgraph) const;
  /// Success, or the reason the candidate cannot be transformed. Must not change anything.
  virtual MatchResult can_apply(const MatchContext& ctx,
                                const std::vector<std::uint32_t>& subgraph) const = 0;
  /// Rewrites the match. Called only after can_apply succeeded on the same graph. May throw;
  /// callers use apply_transactional to get rollback.
  virtual void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) = 0;

  /// Blocks of ctx.region the application may change, snapshotted by apply_transactional.
  /// Default: the state for dataflow patterns, every block of the region for control-flow
  /// patterns. A control-flow transformation that changes only its matched blocks (and the
  /// region's edges) returns just those, so its snapshot stays small.
  virtual std::vector<BlockId> footprint(const MatchContext& ctx,
                                         const std::vector<std::uint32_t>& subgraph) const;
  /// Containers of ctx.sdfg the application may add, change or remove; nullopt (the default)
  /// for "any container, symbol or argument". apply_transactional copies just these descriptors
  /// instead of all of the SDFG's (O(containers) per application), so a transformation that
  /// knows what it touches should say so; returning a list promises that no other container,
  /// no symbol and not the argument list change.
  virtual std::optional<std::vector<std::string>> data_footprint(
      const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const;

  Options& options() { return options_; }
  const Options& options() const { return options_; }

 protected:
  explicit Transformation(std::vector<OptionSpec> specs = {}) : options_(std::move(specs)) {}
  Transformation(std::string name, std::string description, std::vector<OptionSpec> specs = {})
      : name_(std::move(name)), description_(std::move(description)), options_(std::move(specs)) {}

 private:
  std::string name_, description_;
  Options options_;
};

/// check_pattern, then (if it accepts) can_apply: what every match of `t` is judged by.
MatchResult judge(const Transformation& t, const MatchContext& ctx,
                  const std::vector<std::uint32_t>& subgraph);

/// A candidate found by find_matches: its location and whether it applies (and why not).
struct Candidate {
  Match match;
  MatchResult result = MatchResult::success();
};

/// Every candidate of `t` in `root` (all regions, states and nested SDFGs), applicable or not,
/// in cfg/state/anchor order. Matching starts only at anchor nodes (kind index), no copies.
std::vector<Candidate> find_matches(SDFG& root, const Transformation& t, AnalysisCache& cache);
/// Candidates of `t` anchored in one state (dataflow) or one region (control flow).
std::vector<Candidate> find_matches_in(SDFG& root, std::size_t cfg_id, BlockId state_id,
                                       const Transformation& t, AnalysisCache& cache);

/// Candidates of `t` grown from one anchor (a node of state `state_id`, or a block of the
/// region for control-flow patterns); empty if the anchor is gone or of another kind. The unit
/// of the pass driver's worklist: its cost is what `expand` and `can_apply` look at.
std::vector<Candidate> find_matches_at(SDFG& root, std::size_t cfg_id, BlockId state_id, std::uint32_t anchor,
                                       const Transformation& t, AnalysisCache& cache);

/// Re-checks `m` on the current graph: refuses with a reason if an element is gone.
MatchResult check_match(SDFG& root, const Transformation& t, const Match& m, AnalysisCache& cache);

/// Applies `t` at `m` transactionally: checks can_apply (throws TransformError with the
/// reason if it refuses), snapshots what the transformation declares it may touch (footprint
/// blocks, their interstate edges, the data footprint), applies, and on any exception restores
/// the snapshot in place, ids included (sdfg_difference(before, after) is empty), and rethrows.
/// Costs the footprint, not the SDFG. Invalidates the affected analyses in `cache`.
void apply_transactional(SDFG& root, Transformation& t, const Match& m, AnalysisCache& cache);

/// Observes applications while it lives (on this thread): after every successful
/// apply_transactional, `sink` gets DaCe's record of the application (match_to_json, taken just
/// before the rewrite, so its dense ids address the graph the transformation saw). Recorders
/// nest; the innermost one receives the records. Used to build `transformation_hist`.
class ApplicationRecorder {
 public:
  explicit ApplicationRecorder(std::function<void(const std::string& record)> sink);
  ~ApplicationRecorder();
  ApplicationRecorder(const ApplicationRecorder&) = delete;
  ApplicationRecorder& operator=(const ApplicationRecorder&) = delete;

 private:
  std::function<void(const std::string&)> sink_;
  ApplicationRecorder* previous_;
  friend void apply_transactional(SDFG&, Transformation&, const Match&, AnalysisCache&);
};

/// DaCe's record of a transformation: {"type": "PatternTransformation", "transformation":
/// name, <options>..., "cfg_id": c, "state_id": s (-1 for control flow), "_subgraph": {"0": id}}.
/// Ids are dense indices as in the saved file (internal ids are translated).
std::string match_to_json(const SDFG& root, const Transformation& t, const Match& m);
/// A parsed record: transformation name, options (raw JSON text per key) and the match with
/// dense ids translated back to internal ids of `root`. Throws TransformError.
struct MatchRecord {
  std::string transformation;
  std::map<std::string, std::string> options_json;
  Match match;
};
MatchRecord match_from_json(const SDFG& root, const std::string& json_text);
/// Sets the options in `rec` on `t`; throws TransformError for unknown/ill-typed ones.
void set_options_from_record(Transformation& t, const MatchRecord& rec);

/// A short description of the elements a match touches: "3 (MapEntry 'outer'), 5 (MapEntry 'inner')".
std::string describe_match(SDFG& root, const Transformation& t, const Match& m);

}  // namespace weir::transforms
