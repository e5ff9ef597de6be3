// Connectors of DaCe's vector types ("connector-vector-type"). DaCe's Vectorization transformation
// (dace/transformation/dataflow/vectorization.py) gives a map's innermost tasklet connectors of
// type `{"type": "vector", "dtype": ..., "elements": "4"}`, sets the map's step to the vector
// length and widens the memlets to ranges of that many elements; DaCe's code generator then runs
// the tasklet's code on `dace::vec<T, N>` values, whose operators act lane by lane. weir models
// no vector type: its code generator would run the code on scalars and fail ("cannot assign to
// '__out'") or, worse, compute one lane of each group. They are refused here, named, with
// weir's own way to the same code: MapVectorization of the map before DaCe's transformation
// (docs/adr/0053, "2026-12-07, session 31").
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "validate_internal.h"

namespace weir::detail {

namespace {

/// "float64 x 4" for a DaCe vector type written as JSON, "" for any other type.
std::string vector_type_text(const DataType& t) {
  if (t.raw_json.empty()) return "";
  const nlohmann::json j = nlohmann::json::parse(t.raw_json, nullptr, false);
  if (!j.is_object() || j.value("type", "") != "vector") return "";
  std::string dtype = "?", elements = "?";
  if (auto d = j.find("dtype"); d != j.end()) dtype = d->is_string() ? d->get<std::string>() : d->dump();
  if (auto e = j.find("elements"); e != j.end())
    elements = e->is_string() ? e->get<std::string>() : e->dump();
  return dtype + " x " + elements;
}

}  // namespace

void check_vector_connectors(Validator& v, const SDFGState& st, const Node& n) {
  std::set<std::string> names, types;
  for (const ConnectorMap* conns : {&n.in_connectors, &n.out_connectors}) {
    for (const auto& [name, type] : *conns) {
      if (!type) continue;
      const std::string vec = vector_type_text(*type);
      if (vec.empty()) continue;
      names.insert(name);
      types.insert(vec);
    }
  }
  if (names.empty()) return;
  std::string type_text;
  for (const std::string& t : types) type_text += (type_text.empty() ? "" : ", ") + t;
  v.report("connector-vector-type",
           describe_node(n) + " has connector" + (names.size() == 1 ? " " : "s ") + quoted_list(names) +
               " of DaCe's vector type" + (types.size() == 1 ? " " : "s ") + type_text +
               " (written by DaCe's Vectorization), which weir does not compile; vectorize the map with "
               "weir's MapVectorization instead, on the SDFG before DaCe's Vectorization",
           v.at_node(st, n));
}

}  // namespace weir::detail
