// Prefetch of gathered rows (docs/adr/0041, "prefetch of gathered rows"). The K loop of an
// unstructured stencil reads, per cell, a few neighbour columns through a table; the columns are
// short and in other pages, so the hardware prefetcher does not fetch them ahead, and the loop
// over cells waits for memory once per cell (the out-of-order window holds one cell's loop, not
// the next). Before the K loop of cell p, the generated code evaluates the loop's invariant part
// (the table reads and index computations that hoisting put before the loop) for cell
// p + weir_prefetch_distance and prefetches the rows that cell will read
// (codegen/prelude/weir_prefetch.h). That evaluation shadows the cell's parameter and the index
// check: an index outside its extent is clamped, never recorded as a fault (the cell ahead runs
// later, with its checks); values and faults of the program are unchanged.
#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

#include "stream_gen.h"

namespace weir::codegen::detail {

namespace {

/// At most this many rows per iteration are prefetched; a loop that gathers more is left to the
/// hardware. Each row costs a prefetch per cache line and its share of the look-ahead, and a
/// loop that gathers many rows per point does enough work per iteration to wait less: nabla
/// (12 rows of pp per vertex, 50 operations and two divisions per point) ran 1.2x slower with
/// the prefetch, cell_laplacian (4 rows, 7 operations per point) 1.3x faster (docs/adr/0041).
constexpr std::size_t kMaxPrefetchRows = 4;

bool unit_step(const MapInfo& m) {
  for (const Range& r : m.range.ranges())
    if (!(r.step.is_integer() && r.step.value() == 1)) return false;
  return true;
}

/// A hoisted line or declaration as a declaration the prefetch block may repeat (with
/// [[maybe_unused]]); "" for a check alone (`(void)weir_index(...)`, skipped); nullopt for a
/// line of another shape (no prefetch then).
std::optional<std::string> repeatable(const std::string& line) {
  if (line.rfind("(void)", 0) == 0) return std::string();
  static const char* const kTypes[] = {"auto ",     "const ",    "double ",  "float ",   "bool ",
                                       "int8_t ",   "int16_t ",  "int32_t ", "int64_t ", "uint8_t ",
                                       "uint16_t ", "uint32_t ", "uint64_t "};
  const bool declaration =
      line.find(" = ") != std::string::npos && !line.empty() && line.back() == ';' &&
      std::any_of(std::begin(kTypes), std::end(kTypes), [&](const char* t) { return line.rfind(t, 0) == 0; });
  if (!declaration) return std::nullopt;
  return "[[maybe_unused]] " + line;
}

}  // namespace

void StreamGen::emit_gather_prefetch(const MapEntry& e, const StateGen::HoistPlan& plan, Writer& w) {
  if (!g_.opts.gather_prefetch || plan.loops.rows.empty() || plan.loops.rows.size() > kMaxPrefetchRows ||
      g_.frames_.empty() || g_.sg.prog.target.parallel_scopes_on_device() || !unit_step(*e.map))
    return;
  const Node& outer_node = g_.st.node(g_.frames_.back().entry);
  const auto* outer = outer_node.as<MapEntry>();
  if (!outer || outer->map->params.size() != 1 || !unit_step(*outer->map)) return;
  std::vector<std::string> repeated;
  const std::vector<std::string>* const parts[] = {&plan.declarations, &plan.loops.lines};
  for (const std::vector<std::string>* part : parts)
    for (const std::string& line : *part) {
      std::optional<std::string> r = repeatable(line);
      if (!r) return;
      if (!r->empty()) repeated.push_back(*r);
    }
  const std::string p = cpp_ident(outer->map->params[0]);
  const std::string end = sym_cpp(outer->map->range[0].end);
  const std::string ahead = g_.fresh("__weir_ahead");
  if (g_.opts.emit_comments)
    w.line("// prefetch: the rows the iteration weir_prefetch_distance ahead on '" + outer->map->params[0] +
           "' gathers (docs/adr/0041)");
  w.open("if (" + p + " + weir_prefetch_distance <= " + end + ") {");
  w.line("const int64_t " + ahead + " = " + p + " + weir_prefetch_distance;");
  w.open("{");
  w.line("[[maybe_unused]] const int64_t " + p + " = " + ahead + ";");
  w.line(
      "[[maybe_unused]] auto weir_index = [](int64_t i, int64_t n, auto&&...) -> int64_t { return i >= 0 && "
      "i < n "
      "? i : 0; };");
  for (const std::string& line : repeated) w.line(line);
  for (const LoopHoist::Row& row : plan.loops.rows)
    w.line("weir_prefetch_row(" + row.start + ", static_cast<int64_t>(" + row.elements +
           ") * static_cast<int64_t>(sizeof(" + std::string(cpp_name(row.type)) + ")));");
  w.close();
  w.close();
  note_prefetches();
}

}  // namespace weir::codegen::detail
