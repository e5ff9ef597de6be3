// The halo-row exchanges of an orchestration function over unstructured programs on a mesh
// partition (docs/adr/0060, section "2026-12-06, session 29"). Its SDFG as lowered (before
// auto-optimize inlines the calls) has one NestedSDFG node per call; each call runs over all
// local rows and keeps the owned ones (halo_rows.h). A call that reads an array at halo rows
// (through a connectivity table) needs them filled from their owners after the last write: the
// placement is the Cartesian one (orchestration_halos.h), an exchange state before every call
// state that reads at halo rows an array some call writes, and one before everything for the
// arrays no call writes. Names are the orchestration's arrays at that call (a swap passes the
// other array of the pair), so the exchange moves the array the name refers to there.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// One call (a NestedSDFG node in `state`) and the orchestration arrays it reads at halo rows
/// that some call writes, each with its entity.
struct CallRows {
  const SDFGState* state = nullptr;
  std::string program;                           ///< the called program's name
  std::map<std::string, std::string> exchanged;  ///< outer array -> entity
};

/// What partitioning an orchestration function needs.
struct OrchestrationRows {
  std::vector<CallRows> calls;                ///< exchanges before calls
  std::map<std::string, std::string> once;    ///< arrays no call writes, exchanged once before all
  std::map<std::string, std::string> entity;  ///< every array a call passes on a partitioned entity
  /// The number of exchange nodes (the entries of `once` and of every call's `exchanged`).
  int count() const;
};

/// Analyses every call of `sdfg` (an orchestration function lowered, not yet optimized) whose
/// arrays have a first dimension in `entities` (the entities of the partition); `tables` are the
/// connectivity tables, never exchanged. Throws weir::Error when a call passes part of an array.
/// Reductions (`np.max(u)`) read only owned rows (row_reductions.h): they need no exchange.
OrchestrationRows analyse_orchestration_rows(const SDFG& sdfg, const std::set<std::string>& entities,
                                             const std::set<std::string>& tables);

/// The scalar arguments of `sdfg` (an orchestration function, lowered) that give extents or
/// domain bounds of its calls along an entity of `entities`, each with that entity: an outer
/// symbol a call maps to a size symbol `__<array>_<Entity>_size` (`n_cells` in
/// `gtx.empty({Cell: n_cells, ...})`) or to a symbol of the range of a map over `__<Entity>`
/// (`horizontal_end` in `domain={Cell: (horizontal_start, horizontal_end)}`). On a part these
/// count local rows: 0 stays 0 and the whole mesh becomes the part's local rows.
std::map<std::string, std::string> entity_bound_symbols(const SDFG& sdfg,
                                                        const std::set<std::string>& entities);

/// Inserts the UnstructuredHaloExchange nodes of `rows` into `sdfg` (the SDFG analysed): a state
/// before every call state of `rows.calls` (add_state_before) and one before the start state for
/// `rows.once`. Returns how many nodes it added.
int insert_call_row_exchanges(SDFG& sdfg, const OrchestrationRows& rows);

}  // namespace weir::distributed
