#include "weir/distributed/domain_bounds.h"

#include <algorithm>
#include <set>

#include "weir/distributed/halo_analysis.h"
#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

bool is_size_symbol(const std::string& s) {
  return s.size() > 7 && s.rfind("__", 0) == 0 && s.compare(s.size() - 5, 5, "_size") == 0;
}

// The scalar arguments among `e`'s symbols; `top` false when another symbol (a map parameter:
// the memlet is inside a scope) is among them.
std::set<std::string> scalars_of(const SDFG& sdfg, const sym::Expr& e, bool& top) {
  std::set<std::string> out;
  for (const auto& s : e.free_symbols()) {
    if (is_size_symbol(s)) continue;
    if (!sdfg.symbols.count(s)) top = false;
    out.insert(s);
  }
  return out;
}

std::string value_text(const runtime::Number& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
  return std::get<bool>(v) ? "True" : "False";
}

}  // namespace

std::vector<ScalarBound> scalar_bounds(const SDFG& sdfg, const std::vector<std::string>& dims) {
  std::vector<ScalarBound> out;
  for (const SDFGState* st : sdfg.all_states())
    for (const DataflowEdge* e : st->edges()) {
      const auto* src = dynamic_cast<const AccessNode*>(&st->node(e->src));
      const auto* dst = dynamic_cast<const AccessNode*>(&st->node(e->dst));
      const std::string& data = e->memlet.data;
      if (e->memlet.is_empty()) continue;
      const bool read = src && src->data == data, written = dst && dst->data == data;
      auto a = sdfg.arrays.find(data);
      if ((!read && !written) || a == sdfg.arrays.end() || a->second.transient) continue;
      for (std::size_t k = 0; k < e->memlet.subset.dims() && k < a->second.shape.size(); ++k) {
        const std::string dim = axis_dimension(sdfg, data, k);
        if (std::find(dims.begin(), dims.end(), dim) == dims.end()) continue;
        const Range& r = e->memlet.subset.ranges()[k];
        bool top = true;
        std::set<std::string> s = scalars_of(sdfg, r.start, top);
        s.merge(scalars_of(sdfg, r.end, top));
        if (!top || s.empty()) continue;
        out.push_back(ScalarBound{data, dim, r.start, r.end + 1, written && !read,
                                  node_location(written && !read ? *dst : *src)});
      }
    }
  // The writes (the domain= itself) before the reads it implies: refusals name the write.
  std::stable_partition(out.begin(), out.end(), [](const ScalarBound& b) { return b.written; });
  return out;
}

std::string describe(const ScalarBound& b) {
  std::set<std::string> s = b.start.free_symbols();
  s.merge(b.end.free_symbols());
  std::string names;
  for (const auto& n : s)
    if (!is_size_symbol(n)) names += (names.empty() ? "" : ", ") + n;
  // (An orchestration's call bounds name no array: the range a call maps the scalar to.)
  const std::string what =
      b.array.empty() ? "a call's range" : "'" + b.array + "' is " + (b.written ? "written" : "read");
  return b.where + what + " over " + b.dimension + " [" + b.start.str() + ", " + b.end.str() +
         "), bounded by the scalar argument" + (names.find(',') == std::string::npos ? " " : "s ") + names;
}

std::map<std::string, runtime::Number> localize_partition_bounds(
    const std::vector<ScalarBound>& bounds, const std::map<std::string, runtime::Number>& global,
    const std::map<std::string, std::int64_t>& global_counts,
    const std::map<std::string, std::int64_t>& local_rows) {
  std::map<std::string, runtime::Number> out;
  std::map<std::string, std::string> set_by;  // scalar -> the entity whose count it takes
  auto value = [&](const ScalarBound& b, const std::string& s) -> std::int64_t {
    auto it = global.find(s);
    const auto* i = it == global.end() ? nullptr : std::get_if<std::int64_t>(&it->second);
    if (!i)
      throw Error(describe(b) + ": '" + s + "' is " +
                  (it == global.end() ? "not given (--set " + s + "=N)"
                                      : "not an integer (" + value_text(it->second) + ")"));
    return *i;
  };
  for (const ScalarBound& b : bounds) {
    auto gc = global_counts.find(b.dimension);
    auto lr = local_rows.find(b.dimension);
    if (gc == global_counts.end() || lr == local_rows.end())
      throw Error(describe(b) + ": the partition holds no " + b.dimension + " entities");
    const std::int64_t n = gc->second;
    std::map<std::string, long long> v;
    for (const auto& e : {b.start, b.end})
      for (const auto& s : e.free_symbols()) v[s] = value(b, s);
    const auto lo = b.start.try_evaluate(v), hi = b.end.try_evaluate(v);
    const std::string covers = ": --parts keeps such a bound only when the range covers every " +
                               b.dimension + " entity from 0 to a scalar set to their count (" +
                               std::to_string(n) +
                               "): a part numbers its rows locally, so a range inside the entities "
                               "(or a bound computed from a scalar) names other entities on a part";
    if (!lo || !hi || *lo != 0 || *hi != n || !b.end.is_symbol())
      throw Error(describe(b) + " = [" + (lo ? std::to_string(*lo) : "?") + ", " +
                  (hi ? std::to_string(*hi) : "?") + ")" + covers);
    const std::string& s = b.end.symbol_name();
    auto [it, fresh] = set_by.emplace(s, b.dimension);
    if (!fresh && it->second != b.dimension && local_rows.at(it->second) != local_rows.at(b.dimension))
      throw Error(describe(b) + ": '" + s + "' also bounds a range over " + it->second +
                  ", whose part has another number of rows: one value cannot serve both");
    out[s] = runtime::Number(lr->second);
  }
  return out;
}

}  // namespace weir::distributed
