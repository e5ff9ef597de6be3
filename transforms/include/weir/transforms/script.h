// Optimization scripts and transformation history: apply a list of steps (a transformation, its
// options and where to apply it) to an SDFG, record every application in the SDFG as DaCe does
// (`transformation_hist` entries plus the untransformed `orig_sdfg`), and replay such a record.
// The script format is documented in docs/transformation-scripts.md.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms {

/// A script or history that cannot be applied. what() is located: "<origin>:<line>:<column>:
/// <message>" for malformed JSON, "<origin>: step <k> (<name>): <message>" for a step (k is
/// 1-based), "history entry <k> (<name>): <message>" for a replayed record.
class ScriptError : public TransformError {
 public:
  ScriptError(const std::string& what, long step = -1, std::string name = {});
  /// 1-based step or history entry the error is about; -1 if none.
  long step() const { return step_; }
  /// The step's transformation or pass name (empty if none).
  const std::string& name() const { return name_; }

 private:
  long step_;
  std::string name_;
};

/// Where a script step applies.
enum class StepWhere : unsigned char {
  MatchId,  ///< one match, by the id `weir transforms match` prints ("0.1.3,7")
  Labels,   ///< the one applicable match whose elements have these labels, in pattern order
  All,      ///< every match found before the step starts (each re-checked before it applies)
};

/// One step of a script.
struct ScriptStep {
  /// A transformation class name ("MapTiling"), or a pipeline text when `is_pass`.
  std::string name;
  bool is_pass = false;
  /// Option name -> JSON text of its value.
  std::vector<std::pair<std::string, std::string>> options;
  StepWhere where = StepWhere::All;
  std::string match_id;
  std::vector<std::string> labels;
  /// With StepWhere::All: repeat until nothing applies (a fixed point).
  bool repeat = false;
};

/// Parses a script: a JSON list of steps (or {"steps": [...]}). Checks names and options
/// against the registry. Throws ScriptError (located; `origin` names the text).
std::vector<ScriptStep> parse_script(const std::string& json_text, const std::string& origin = "<script>");

/// Applies the steps in order and records every application in the SDFG's history. A step that
/// applies nowhere (a match id or labels that do not apply, `all` with no match) throws
/// ScriptError naming the step and the refusal reason. The SDFG may be partly transformed when
/// it throws: callers that must not lose the input work on a copy. Returns the number of
/// applications.
std::size_t apply_script(SDFG& sdfg, const std::vector<ScriptStep>& steps,
                         const std::string& origin = "<script>");

/// Runs a pass or pipeline with every pattern application recorded in the SDFG's history;
/// passes that are not made of transformations are recorded as one `{"type": "Pass", "pass":
/// "<text>"}` entry when they change something. Returns the pass's number of changes.
std::size_t run_recorded(SDFG& sdfg, Pass& pass);

/// The SDFG attribute that holds weir's history entries (ADR 0012). DaCe rebuilds every
/// `transformation_hist` entry as one of its own transformation classes (by name, DaCe's
/// pattern node order and properties), which weir's records are not, so weir keeps them where
/// DaCe's loader skips attributes without a word: `set_properties_from_json` ignores names that
/// start with `_meta`. In memory the key is `weir_transformation_hist`; files spell it
/// `_meta_weir_transformation_hist`, as every weir attribute (private_attributes.h).
inline constexpr const char* kWeirHistoryAttribute = "weir_transformation_hist";

/// The SDFG's history as JSON texts: the entries DaCe recorded (`transformation_hist`), then
/// weir's (kWeirHistoryAttribute); empty if it has none. Throws ScriptError if either is not a
/// list.
std::vector<std::string> transformation_history(const SDFG& sdfg);
/// Whether the SDFG carries an `orig_sdfg` to replay from.
bool has_history(const SDFG& sdfg);

/// Replays the history of `transformed` on its `orig_sdfg`: every entry is matched again
/// (match_from_json), checked and applied in order; the result carries the same history.
/// Throws ScriptError naming the entry (1-based index and name) that no longer applies.
std::unique_ptr<SDFG> replay_history(const SDFG& transformed);

}  // namespace weir::transforms
