// The registry of transformations and passes: name -> factory, for the CLI (`weir transforms
// list/match`), pipeline texts and JSON records. Built in; no static-initialisation tricks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "weir/transforms/pipeline.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms {

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
