// Passes and pipelines (MLIR's textual pipelines): whole-graph passes, transformation passes
// driven by a worklist, and pipelines with a textual form
//   "simplify,map-collapse,map-tiling{tile_sizes=32,8}"
// parsed into a list of named passes with options and printed back.
//
// Grammar:  pipeline := pass (',' pass)* ;  pass := name ['{' option* '}']
//           option   := key '=' value   (options separated by spaces; a value is a
//                       comma-separated list for list options)
// Names are the kebab-case names of the registry ("map-tiling"); a transformation's class name
// ("MapTiling") is accepted too and printed in kebab case.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "weir/transforms/analysis.h"
#include "weir/transforms/transaction.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms {

/// A malformed pipeline text: unknown pass or option, bad value, syntax error. `column()` is
/// 1-based; what() reads "<message> at column <c> in '<text>'".
class PipelineParseError : public TransformError {
 public:
  PipelineParseError(const std::string& message, const std::string& text, std::size_t column);
  std::size_t column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
  std::size_t column_;
};

/// A named whole-SDFG pass with options. The base owns the name, description and options;
/// a pass implements run_pass and makes every change through the transaction it is given (see
/// transaction.h), which keeps the analyses current and rolls the SDFG back if it throws.
class Pass {
 public:
  virtual ~Pass();
  Pass(const Pass&) = delete;
  Pass& operator=(const Pass&) = delete;
  /// Kebab-case name ("map-tiling"), as written in pipeline texts.
  const std::string& name() const { return name_; }
  /// One line for `weir transforms list`.
  const std::string& description() const { return description_; }
  virtual Options& options() { return options_; }
  virtual const Options& options() const { return options_; }
  /// Runs the pass over the whole SDFG in a Transaction: on an exception the SDFG is restored
  /// as it was before the outermost pass run and the exception propagates. Around run_pass the
  /// installed PassInstrumentations are called (instrumentation.h); with verify_each() the SDFG
  /// is validated after every pass that is not a pipeline, and a problem throws
  /// PassVerificationError (rolled back too). Returns the number of changes (0 = nothing
  /// changed).
  std::size_t run(SDFG& sdfg, AnalysisCache& cache);
  /// "name" or "name{opt=v ...}" with the options that differ from their defaults.
  std::string str() const;

 protected:
  Pass(std::string name, std::string description, std::vector<OptionSpec> options = {});
  /// The pass itself: changes `sdfg` only through tx.modify_state / tx.modify_all (or
  /// apply_transactional, which opens its own transaction inside this one).
  virtual std::size_t run_pass(SDFG& sdfg, Transaction& tx) = 0;

 private:
  std::string name_, description_;
  Options options_;
};

/// A pass left the SDFG invalid (found by verify-each): names the pass and the validator's
/// first problems; the SDFG was rolled back.
class PassVerificationError : public TransformError {
 public:
  PassVerificationError(const std::string& pass, const std::string& problems);
  const std::string& pass() const { return pass_; }

 private:
  std::string pass_;
};

/// Whether Pass::run validates after every pass: set_verify_each's value if it was called,
/// else the environment's WEIR_VERIFY_EACH ("1" on, "0" off; the test suites set it), else on
/// in debug builds (NDEBUG not defined) and off otherwise.
bool verify_each();
void set_verify_each(bool on);

/// Runs one transformation over the whole SDFG. Transformations that converge() are applied by
/// a worklist to a fixed point: after an application only the state (or region) it changed is
/// matched again, never the whole graph. Others are applied once per match found before the
/// first application, each re-checked just before it is applied (ids are stable, so matches
/// found up front stay meaningful), the regions' matches last region first (an application that
/// adds or removes a nested SDFG shifts the positions of the regions after its own only).
class TransformationPass final : public Pass {
 public:
  explicit TransformationPass(std::unique_ptr<Transformation> t);
  /// The transformation's options (the pass has none of its own).
  Options& options() override { return t_->options(); }
  const Options& options() const override { return t_->options(); }
  Transformation& transformation() { return *t_; }
  /// Upper bound on applications per run (guards against a rewrite that undoes another).
  std::size_t max_applications = 100000;

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;

 private:
  std::unique_ptr<Transformation> t_;
};

/// An ordered list of passes; with `fixed_point`, the list is repeated until a round changes
/// nothing (or `max_rounds` is reached).
class Pipeline final : public Pass {
 public:
  Pipeline(std::string name, std::vector<std::unique_ptr<Pass>> passes, bool fixed_point = false,
           std::string description = {});
  using Pass::run;
  /// Convenience: runs with a fresh cache.
  std::size_t run(SDFG& sdfg);
  std::vector<std::unique_ptr<Pass>>& passes() { return passes_; }
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }
  bool fixed_point() const { return fixed_point_; }
  std::size_t max_rounds = 100;
  /// The pipeline's passes in textual form: "a,b{x=1}" (not its own name).
  std::string str_passes() const;
  /// Rounds run by the last run().
  std::size_t rounds_run() const { return rounds_; }

 protected:
  /// Runs each pass in order (each in its own nested transaction), repeated for fixed points.
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  bool fixed_point_;
  std::size_t rounds_ = 0;
};

/// Parses a pipeline text into a (not fixed-point) Pipeline named "pipeline". Throws
/// PipelineParseError with the column of the offending name, option or value.
std::unique_ptr<Pipeline> parse_pipeline(const std::string& text);

}  // namespace weir::transforms
