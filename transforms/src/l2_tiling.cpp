// Tiling of a stencil map's J dimension for the L2 cache (see the header).
#include "l2_tiling.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dataflow_util.h"
#include "map_propagation.h"

namespace weir::transforms::detail {

namespace {

/// "1024K", "1M", "1048576" (sysfs' cache sizes) in bytes; 0 when unreadable.
long long parse_cache_size(const std::string& text) {
  long long n = 0;
  std::size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && n < (1LL << 40); ++i)
    n = n * 10 + (text[i] - '0');
  if (i == 0) return 0;
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) return n << 10;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) return n << 20;
  return n;
}

/// Whether `param` indexes the last dimension of some memlet leaving `e` inside as `param + c`.
bool last_dimension_unit_stride(const SDFGState& st, const MapEntry& e, const std::string& param) {
  const sym::Expr p = sym::Expr::symbol(param);
  for (EdgeId id : st.out_edges(e.id())) {
    const Memlet& m = st.edge(id).memlet;
    if (m.is_empty() || m.subset.dims() == 0) continue;
    const Range& r = m.subset[m.subset.dims() - 1];
    if (r.start == r.end && (r.start - p).as_integer()) return true;
  }
  return false;
}

/// The reuse window's bytes per point of J (the map's second parameter): for every array read
/// inside `e` at constant offsets along the first parameter I spanning two or more rows, the
/// rows times the points of the third and further parameters times the element size, summed.
/// nullopt when some read indexes with I other than as `I + c` (no stencil of this kind) or
/// no array spans two rows.
std::optional<sym::Expr> window_column_bytes(const SDFGState& st, const MapEntry& e) {
  const MapInfo& m = *e.map;
  const std::string& i = m.params[0];
  const sym::Expr ip = sym::Expr::symbol(i);
  std::map<std::string, std::pair<long long, long long>> rows;  // lowest, highest offset
  for (EdgeId id : st.out_edges(e.id())) {
    const Memlet& mm = st.edge(id).memlet;
    if (mm.is_empty()) continue;
    for (std::size_t d = 0; d < mm.subset.dims(); ++d) {
      const Range& r = mm.subset[d];
      if (!r.start.free_symbols().count(i) && !r.end.free_symbols().count(i)) continue;
      const std::optional<long long> off = (r.start - ip).as_integer();
      if (!off || !(r.end == r.start)) return std::nullopt;
      auto [it, fresh] = rows.emplace(mm.data, std::pair{*off, *off});
      it->second = {std::min(it->second.first, *off), std::max(it->second.second, *off)};
    }
  }
  sym::Expr points(1);
  for (std::size_t d = 2; d < m.params.size(); ++d) points = points * (m.range[d].end - m.range[d].start + 1);
  const auto& arrays = st.sdfg()->arrays;
  std::optional<sym::Expr> column;
  for (const auto& [name, span] : rows) {
    const long long n = span.second - span.first + 1;
    auto a = arrays.find(name);
    if (n < 2 || a == arrays.end()) continue;
    const DataType& t = a->second.dtype;
    const long long bytes = t.pointer_depth > 0 ? 8 : static_cast<long long>(size_of(t.base));
    const sym::Expr plane = sym::Expr(n * bytes) * points;
    column = column ? *column + plane : plane;
  }
  return column;
}

/// Tiles `e` (see tile_j_for_l2) when its window exceeds `budget` bytes; whether it did.
bool tile_map(SDFGState& st, MapEntry& e, long long budget) {
  MapInfo& m = *e.map;
  if (m.params.size() < 3 || m.range.dims() != m.params.size() || m.collapse > 1) return false;
  if (m.schedule != ScheduleType::Default && m.schedule != ScheduleType::CPU_Multicore) return false;
  for (const Range& r : m.range.ranges())
    if (!(r.step == sym::Expr(1))) return false;
  if (!dynamic_inputs(e).empty() || !last_dimension_unit_stride(st, e, m.params.back())) return false;
  const std::optional<sym::Expr> column = window_column_bytes(st, e);
  if (!column) return false;
  const Range j = m.range[1];
  const sym::Expr nj = j.end - j.start + 1;
  if (const auto w = (*column * nj).as_integer(); w && *w <= budget) return false;
  // The fewest tiles of at most `most` points, J spread evenly over them.
  const sym::Expr most = sym::Expr::max(sym::Expr(1), sym::Expr::floordiv(sym::Expr(budget), *column));
  const sym::Expr t = sym::Expr::ceildiv(nj, sym::Expr::ceildiv(nj, most));
  if (const auto ti = t.as_integer(), n = nj.as_integer(); ti && n && *ti >= *n) return false;
  std::string tp = fresh_param(*st.sdfg(), st, "tile_" + m.params[1]);
  const sym::Expr ts = sym::Expr::symbol(tp);
  const Range i = m.range[0];
  // [tile_J, I] around [J] around [K...]: the innermost map is the one cpu-schedules' split would
  // make (a SIMD loop whose rows the code generator may stream).
  std::vector<std::string> inner_params(m.params.begin() + 2, m.params.end());
  std::vector<Range> inner_ranges(m.range.ranges().begin() + 2, m.range.ranges().end());
  const std::string jp = m.params[1];
  m.params = {tp, m.params[0]};
  m.range = Subset({Range(j.start, j.end, t, j.tile), i});
  MapEntry& jmap =
      st.add_map(m.label + "_l2tile", {jp},
                 Subset({Range(ts, sym::Expr::min(j.end, ts + t - sym::Expr(1)), j.step, j.tile)}),
                 ScheduleType::Default);
  MapEntry& inner = st.add_map(m.label + "_inner", std::move(inner_params), Subset(std::move(inner_ranges)),
                               ScheduleType::Default);
  insert_map_inside(st, e, jmap);
  insert_map_inside(st, jmap, inner);
  propagate_map(st, inner);
  propagate_map(st, jmap);
  propagate_map(st, e);
  return true;
}

}  // namespace

long long machine_l2_bytes() {
#ifdef _SC_LEVEL2_CACHE_SIZE
  if (const long v = sysconf(_SC_LEVEL2_CACHE_SIZE); v > 0) return v;
#endif
  for (int k = 0; k < 16; ++k) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(k) + "/";
    std::ifstream level_in(dir + "level"), type_in(dir + "type"), size_in(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_in >> level) || !(type_in >> type) || !(size_in >> size)) continue;
    if (level == 2 && type != "Instruction")
      if (const long long n = parse_cache_size(size); n > 0) return n;
  }
  return 1LL << 20;
}

std::size_t tile_j_for_l2(SDFGState& st, long long l2_bytes) {
  const ScopeTree tree = st.scope_tree();
  std::vector<MapEntry*> top;
  for (Node* n : st.nodes())
    if (auto* e = n->as<MapEntry>(); e && tree.parent[e->id()] == kNoNode) top.push_back(e);
  std::size_t tiled = 0;
  for (MapEntry* e : top) tiled += tile_map(st, *e, l2_bytes / 2) ? 1 : 0;
  return tiled;
}

}  // namespace weir::transforms::detail
