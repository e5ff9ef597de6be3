#include "weir/frontend/definition_lookup.h"

#include <vector>

#include "weir/frontend/orchestration.h"
#include "weir/sdfg/suggest.h"
#include "weir/sdfg/text.h"

namespace weir::frontend {

NamedDefinition find_named_definition(const LoadedModule& module, const std::string& name,
                                      const std::string& file) {
  NamedDefinition found;
  std::vector<std::string> defined, candidates;
  for (const auto& d : module.definitions) {
    if (d->name == name) found.definition = d.get();
    defined.push_back(d->name);
  }
  if (found.definition) return found;
  found.plain_function = find_plain_function(module, name);
  if (found.plain_function) return found;
  // A misspelt orchestration function gets its closest name too.
  candidates = defined;
  for (const auto& [n, v] : module.names)
    if (v.plain_function && v.module == &module) candidates.push_back(n);
  throw UnknownNameError(
      file + ": no @program, @field_operator, @scan_operator or orchestration function named '" + name + "'" +
      did_you_mean(name, candidates) +
      (defined.empty() ? std::string(" (the file defines none)") : " (defined: " + join(defined) + ")"));
}

}  // namespace weir::frontend
