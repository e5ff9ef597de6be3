// The run-time checks of MapTiling's divides_evenly promises (user31 G10): a tiled map whose
// inner ranges have no Min writes past the range when the tile size does not divide it. Where the
// number of points was not known when tiling, MapTiling recorded the promise on the outer map
// ("weir_tiles_divide", in files "_meta_weir_tiles_divide"; map_tiling.h: kTilesDivideAttribute); the state
// checks it before the map runs and names the promise, instead of a bounds error whose hint
// ("pass a larger output") blames the arguments.
#include <nlohmann/json.hpp>

#include "bounds_check_gen.h"
#include "state_codegen.h"

namespace weir::codegen::detail {

namespace {

/// `s` as text inside a printf format: '%' doubled.
std::string format_text(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

}  // namespace

void BoundsCheckGen::emit_tiling_promises(const Node& n, Writer& w) const {
  const auto* me = n.as<MapEntry>();
  if (!me || !sg.top_level || !g_.frames_.empty()) return;
  const std::string* text = me->map->extra.find("weir_tiles_divide");
  if (!text) return;
  const nlohmann::json promises = nlohmann::json::parse(*text, nullptr, false);
  auto malformed = [&](const std::string& why) {
    return CodegenError(g_.ref(*me),
                        "map attribute _meta_weir_tiles_divide (MapTiling's divides_evenly "
                        "promises): " +
                            why);
  };
  if (!promises.is_array()) throw malformed("expected a JSON list, found " + *text);
  for (const nlohmann::json& p : promises) {
    if (!p.is_object() || !p.contains("points") || !p["points"].is_string() || !p.contains("tile") ||
        !p["tile"].is_number_integer() || p["tile"].get<long long>() < 1)
      throw malformed("expected {\"points\": TEXT, \"tile\": N >= 1, ...}, found " + p.dump());
    sym::Expr points;
    try {
      points = sym::Expr::parse(p["points"].get<std::string>());
    } catch (const std::exception& e) {
      throw malformed(std::string("'points': ") + e.what());
    }
    // Symbols only (no map parameters, no dynamic range inputs): known when the state starts.
    bool known = true;
    for (const auto& s : points.free_symbols())
      known = known && sg.symbols.count(s) && !sg.sdfg.arrays.count(s) && !me->in_connectors.count(s);
    if (!known) continue;
    // A recorded text, as printf format text ('%' doubled).
    auto field = [&](const char* key, const std::string& otherwise) {
      return format_text(p.contains(key) && p[key].is_string() ? p[key].get<std::string>() : otherwise);
    };
    const std::string tile = std::to_string(p["tile"].get<long long>());
    const std::string value = "static_cast<long long>(" + sym_cpp(points) + ")";
    const std::string message =
        "map '" + field("map", me->map->label) + "': MapTiling's divides_evenly=true (" +
        field("step", "a MapTiling step or pass") + ") promised that tile size " + tile + " divides " +
        field("param", "its range") + "=" + field("range", "?") +
        ", which has %lld points here (%lld tiles of " + tile +
        " and %lld left over); tile with divides_evenly=false or with a size that divides the range";
    w.line("if (" + value + " > 0 && " + value + " % " + tile + " != 0) weir_throw(\"" + c_escape(message) +
           "\", " + value + ", " + value + " / " + tile + ", " + value + " % " + tile + ");");
  }
}

}  // namespace weir::codegen::detail
