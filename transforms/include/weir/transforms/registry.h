// The registry of transformations and passes: name -> factory, for the CLI (`weir transforms
// list/match`), pipeline texts and JSON records. Built from one table in registry.cpp (no
// static-initialisation tricks); a new transformation or pass is one row there.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weir/transforms/pipeline.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms {

/// One row of the registry: a transformation (`name` is its class name, `transformation` its
/// factory; it also runs as the pass pass_name_of(name)), or a pass or pipeline (`name` is its
/// pass name, `pass` its factory).
struct RegistryEntry {
  std::string name;
  std::function<std::unique_ptr<Transformation>()> transformation;
  std::function<std::unique_ptr<Pass>()> pass;
};

/// Every row, in listing order: the built-in table, then passes added by register_pass.
const std::vector<RegistryEntry>& registry();

/// Adds a pass (or pipeline) at run time, after the built-in rows: for test binaries' test-only
/// passes and tools with passes of their own; weir's own passes are rows of the built-in table.
/// Throws TransformError if the name is taken.
void register_pass(std::string name, std::function<std::unique_ptr<Pass>()> make);

/// Class names of all registered transformations, in listing order.
std::vector<std::string> transformation_names();
/// A fresh instance with default options for a class name or its pass name ("MapFusion",
/// "map-fusion"), or nullptr for an unknown name.
std::unique_ptr<Transformation> make_transformation(const std::string& name);

/// Kebab-case pass name of a transformation class name: "MapTiling" -> "map-tiling"; an acronym
/// is one word: "OTFMapFusion" -> "otf-map-fusion".
std::string pass_name_of(const std::string& class_name);

/// Names of all passes (one per transformation, plus named pipelines such as "simplify").
std::vector<std::string> pass_names();
/// A fresh pass for a pass name or a transformation class name, or nullptr if unknown.
std::unique_ptr<Pass> make_pass(const std::string& name);

}  // namespace weir::transforms
