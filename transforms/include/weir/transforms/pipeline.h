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

/// A named whole-SDFG pass with options.
class Pass {
 public:
  virtual ~Pass();
  /// Kebab-case name ("map-tiling"), as written in pipeline texts.
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual Options& options() = 0;
  virtual const Options& options() const = 0;
  /// Runs over the whole SDFG; returns the number of changes (0 = nothing changed).
  virtual std::size_t run(SDFG& sdfg, AnalysisCache& cache) = 0;
  /// "name" or "name{opt=v ...}" with the options that differ from their defaults.
  std::string str() const;
};

/// Runs one transformation over the whole SDFG. Transformations that converge() are applied by
/// a worklist to a fixed point: after an application only the state (or region) it changed is
/// matched again, never the whole graph. Others are applied once per match found before the
/// first application, each re-checked just before it is applied (ids are stable, so matches
/// found up front stay meaningful).
class TransformationPass final : public Pass {
 public:
  explicit TransformationPass(std::unique_ptr<Transformation> t);
  std::string name() const override;
  std::string description() const override;
  Options& options() override { return t_->options(); }
  const Options& options() const override { return t_->options(); }
  std::size_t run(SDFG& sdfg, AnalysisCache& cache) override;
  Transformation& transformation() { return *t_; }
  /// Upper bound on applications per run (guards against a rewrite that undoes another).
  std::size_t max_applications = 100000;

 private:
  std::unique_ptr<Transformation> t_;
};

/// An ordered list of passes; with `fixed_point`, the list is repeated until a round changes
/// nothing (or `max_rounds` is reached).
class Pipeline final : public Pass {
 public:
  Pipeline(std::string name, std::vector<std::unique_ptr<Pass>> passes, bool fixed_point = false,
           std::string description = {});
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  Options& options() override { return options_; }
  const Options& options() const override { return options_; }
  std::size_t run(SDFG& sdfg, AnalysisCache& cache) override;
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

 private:
  std::string name_, description_;
  std::vector<std::unique_ptr<Pass>> passes_;
  bool fixed_point_;
  Options options_;
  std::size_t rounds_ = 0;
};

/// Parses a pipeline text into a (not fixed-point) Pipeline named "pipeline". Throws
/// PipelineParseError with the column of the offending name, option or value.
std::unique_ptr<Pipeline> parse_pipeline(const std::string& text);

}  // namespace weir::transforms
