// Run-time bounds checks of one state function (bounds_checks.cpp): the checks of the outermost
// scopes against the containers' shapes, and what Python tasklet code needs to check the indices
// it computes. One per StateGen, which asks it per top-level node and per tasklet connector.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "codegen_internal.h"

namespace weir::codegen::detail {

class StateGen;
struct Location;

/// "file.py:12:16" of the DaCe DebugInfo in `extra` (an SDFG element's `debuginfo`), or "" when
/// it names no file and line.
std::string debuginfo_location(const UnknownAttributes& extra);

/// The bounds-check family of a state's code generation (CodegenOptions::bounds_checks, ADR 0005,
/// ADR 0014): reads the StateGen it belongs to (its scopes, frames and bindings), writes only
/// the checks.
class BoundsCheckGen {
 public:
  /// `g` must outlive this object (StateGen holds it as a member).
  explicit BoundsCheckGen(const StateGen& g);
  BoundsCheckGen(const BoundsCheckGen&) = delete;
  BoundsCheckGen& operator=(const BoundsCheckGen&) = delete;

  /// Emits the run-time checks of a node at the top of the state (outside maps) against the
  /// containers' shapes: its outer memlets, and for a map the inner ones over its range. In a
  /// nested SDFG's body a violation is recorded and the state returns (weir_bounds_ok); at the
  /// top level it throws. Nothing with CodegenOptions::bounds_checks off, or inside a map.
  void emit_bounds_checks(const Node& n, Writer& w);
  /// Emits the checks of the divides_evenly promises a MapTiling recorded on map entry `n`
  /// (kTilesDivideAttribute, "_meta_weir_tiles_divide"; tiling_promises.cpp): the range's number
  /// of points a multiple of the tile size, else an error naming the map, the range, the tile
  /// size and the script step. Top-level maps of a top-level state only (where the symbols are
  /// known and the code may throw); checked whether or not bounds checks are on, since the
  /// tiled code writes past the range otherwise. Throws CodegenError when the attribute is
  /// malformed.
  void emit_tiling_promises(const Node& n, Writer& w) const;
  /// Run-time checks of the indices Python code computes for pointer connector `conn` of `t`
  /// (at `loc`): sets `v`'s extents and check site (nothing with bounds checks off, or for
  /// subsets with steps other than 1).
  void index_checks(const Tasklet& t, const std::string& conn, const Location& loc, PyVar& v) const;
  /// What a value connector's memlet reads ("E2V[Edge, 1]", map parameters as the error's map
  /// point names them) and where (its memlet's debuginfo), for the errors of index_checks: sets
  /// `v`'s origin and origin_at; nothing for non-integers.
  void value_origin(const DataflowEdge& e, ScalarType type, PyVar& v) const;

 private:
  /// Appends `checks` to `w`; at the top level, checks that read only symbols are skipped while
  /// the symbols keep the values of the last passing checks (a thread_local cache per site).
  void append_checks(const Writer& checks, Writer& w);
  /// Checks of `subset` of container `data`; `map` (may be null): the map whose parameters an
  /// unpropagated subset may use; `node` (may be null): the node whose debuginfo locates the
  /// access when the memlet's does not; `edge` (may be null): the memlet's edge, whose inner
  /// memlets (through map scopes and into a nested SDFG) locate the access and tell a shifted
  /// read when the memlet itself, propagated by a transformation, says neither. `desc` (may be
  /// null): the descriptor to check against when `data` is no longer in the SDFG (an access a
  /// fusion removed, CheckedAccess); `data`'s own descriptor wins when it exists.
  void emit_memlet_checks(const Memlet& m, const std::string& data, const Subset& subset, bool write,
                          const std::string& where, const MapInfo* map, const Node* node,
                          const DataflowEdge* edge, Writer& w, const DataDescriptor* desc = nullptr);
  /// Checks of the accesses a fusion removed from map `me` (its kCheckedAccessesAttribute) into
  /// `checks`; `state_where` is the state's part of the error's location. Throws CodegenError
  /// at the map when the attribute is malformed.
  void removed_access_checks(const MapEntry& me, const std::string& state_where, Writer& checks);
  /// Whether `e` only uses symbols known before the state's top-level scopes run.
  bool checkable(const sym::Expr& e) const;
  /// C++ that is true when the data on connector `conn` of `node` (an in-connector of a map
  /// entry, or with `write` an out-connector of a map exit, inside top-level maps with
  /// parameters `params`) is not accessed at all: `node`'s map has no iterations, or every path
  /// of the memlet tree beyond it runs through a nested map without iterations. "" when it may
  /// be accessed or that cannot be told before the state runs (a nested range that uses
  /// `params` or symbols defined inside). Propagated subsets over an empty map need not be
  /// empty (DaCe's propagation: the hull of `i` and `i + 1` over i in [6, 5] is [6, 6]), so
  /// their checks need this guard.
  std::string idle_through(NodeId node, const std::string& conn, bool write,
                           std::set<std::string> params) const;
  /// The part of idle_through after `node`'s own map: true when every edge on the paired
  /// connector (IN_x -> OUT_x, with `write` OUT_x -> IN_x) reaches only nested maps without
  /// iterations; "" when one may access the data (or there is none).
  std::string idle_beyond(NodeId node, const std::string& conn, bool write,
                          const std::set<std::string>& params) const;
  /// C++ of the lowest / highest value of `e` over `map`'s iterations, nullopt if unknown.
  std::optional<std::string> extreme_over_map(const sym::Expr& e, const MapInfo* map, bool lowest) const;

  const StateGen& g_;
  SdfgGen& sg;
  const SDFGState& st;
  const CodegenOptions& opts;
  /// Dynamic map range inputs of this state (defined inside their map's scope).
  std::set<std::string> dynamic_inputs_;
  bool dynamic_inputs_known_ = false;
  /// Dimensions checked (weir_in tests emitted) since emit_bounds_checks began the current
  /// node's checks: append_checks caches only checks of kCachedChecks dimensions or more.
  std::size_t checked_dims_ = 0;
};

}  // namespace weir::codegen::detail
