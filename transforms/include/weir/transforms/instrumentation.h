// Hooks around every pass run (MLIR's PassInstrumentation, Halide's "Lowering after ..." log):
// printing the SDFG after named passes and timing each pass. Instrumentations install themselves
// on the current thread for their lifetime; Pass::run calls every installed one, in order of
// installation, for every pass it runs, pipelines and their nested passes included.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms {

class Pass;

class PassInstrumentation {
 public:
  /// Installs this instrumentation on the current thread (until destroyed).
  PassInstrumentation();
  virtual ~PassInstrumentation();
  PassInstrumentation(const PassInstrumentation&) = delete;
  PassInstrumentation& operator=(const PassInstrumentation&) = delete;

  /// Before `pass` runs on `sdfg`.
  virtual void before_pass(const Pass& pass, const SDFG& sdfg);
  /// After it returned `changes`, taking `wall_ms` (before verification and commit).
  virtual void after_pass(const Pass& pass, const SDFG& sdfg, std::size_t changes, double wall_ms);
  /// After it threw (the SDFG is about to be rolled back).
  virtual void after_failed_pass(const Pass& pass);

  /// The instrumentations installed on this thread, oldest first.
  static const std::vector<PassInstrumentation*>& installed();
};

/// Whether `pass` is a Pipeline (a list of passes) rather than a pass that changes the SDFG itself.
bool is_pipeline(const Pass& pass);

/// Prints the SDFG after passes named in `names` (pass names as in pipeline texts: a pipeline's
/// name such as "simplify" prints after the whole pipeline), or after every pass that is not a
/// pipeline with `all`. The output is the SDFG's JSON (DaCe's format, loadable by weir and DaCe),
/// indented by one space, after a line "// SDFG after pass 'NAME' (run K)" (K counts the runs of
/// that pass name, from 1).
class PrintAfter final : public PassInstrumentation {
 public:
  PrintAfter(std::set<std::string> names, bool all, std::ostream& out);
  void after_pass(const Pass& pass, const SDFG& sdfg, std::size_t changes, double wall_ms) override;
  /// Names given that no pass run has had so far (to report typos).
  std::vector<std::string> unseen() const;

 private:
  std::set<std::string> names_, seen_;
  bool all_;
  std::ostream& out_;
  std::map<std::string, std::size_t> runs_;
};

/// Wall time per pass: for every pass name that is not a pipeline, in order of first run, the
/// number of runs, the changes they reported (applications of transformations, or the pass's own
/// count) and their wall time.
class PassTiming final : public PassInstrumentation {
 public:
  struct Row {
    std::string pass;
    std::size_t runs = 0, applications = 0;
    double wall_ms = 0;
  };
  void after_pass(const Pass& pass, const SDFG& sdfg, std::size_t changes, double wall_ms) override;
  const std::vector<Row>& rows() const { return rows_; }
  /// The table: pass, runs, applications, wall ms, share (of the passes' total), then a total row.
  void report(std::ostream& out) const;

 private:
  std::vector<Row> rows_;
};

}  // namespace weir::transforms
