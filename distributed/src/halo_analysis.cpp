#include "weir/distributed/halo_analysis.h"

#include <algorithm>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "weir/distributed/domain_bounds.h"
#include "weir/sdfg/cfg_list.h"
#include "weir/sdfg/control_flow.h"
#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

// Every size symbol stands for this extent: large enough that no frame or shift reaches it.
constexpr long long kExtent = 1LL << 30;

struct Reach {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  bool any() const { return lo <= hi; }
  void add(std::int64_t a, std::int64_t b) {
    lo = std::min(lo, a);
    hi = std::max(hi, b);
  }
};

std::optional<long long> value_at_extent(const sym::Expr& e) {
  std::map<std::string, long long> v;
  for (const auto& s : e.free_symbols()) {
    if (s.rfind("__", 0) != 0 || s.size() < 7 || s.substr(s.size() - 5) != "_size") return std::nullopt;
    v[s] = kExtent;
  }
  return e.try_evaluate(v);
}

}  // namespace

std::string node_location(const Node& n) {
  const std::string* text = n.extra.find("debuginfo");
  nlohmann::json j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!j.is_object() || !j.contains("start_line")) return "";
  return j.value("filename", std::string()) + ":" + std::to_string(j.value("start_line", 0)) + ":" +
         std::to_string(j.value("start_column", 0)) + ": ";
}

std::string axis_dimension(const SDFG& sdfg, const std::string& name, std::size_t k) {
  auto it = sdfg.arrays.find(name);
  if (it == sdfg.arrays.end() || k >= it->second.shape.size()) return {};
  const std::string s = it->second.shape[k].str();
  const std::string prefix = "__" + name + "_", suffix = "_size";
  if (s.size() <= prefix.size() + suffix.size() || s.rfind(prefix, 0) != 0 ||
      s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0)
    return {};
  return s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
}

ProgramHalos analyse_halos(const SDFG& sdfg, const std::vector<std::string>& dims) {
  // A domain= bounded by scalar arguments: the frame and the widths would depend on values the
  // user gives for the whole grid, which on a rank describe another range.
  if (const std::vector<ScalarBound> b = scalar_bounds(sdfg, dims); !b.empty()) {
    throw Error(
        describe(b.front()) + ": program '" + sdfg.name + "' cannot be decomposed along " +
        b.front().dimension + ": its domain there must be the fields' extent less a frame (an out= slice " +
        "such as out=out[1:-1, 1:-1], or the whole field), not a domain= bound by a scalar, whose value " +
        "is the whole grid's and not a rank's");
  }
  // Per container and dimension: the reach of reads and of writes at the states' top level.
  std::map<std::string, std::map<std::string, Reach>> reads, writes;
  std::map<std::string, std::map<std::string, std::string>> read_where;  // of the widest read
  std::map<std::string, std::map<std::string, std::size_t>> axes;
  for (const auto& [name, d] : sdfg.arrays) {
    if (d.transient || d.is_scalar() || d.is_view()) continue;
    for (std::size_t k = 0; k < d.shape.size(); ++k) {
      std::string dim = axis_dimension(sdfg, name, k);
      if (std::find(dims.begin(), dims.end(), dim) != dims.end()) axes[name][dim] = k;
    }
  }
  for (const SDFGState* st : sdfg.all_states()) {
    const ScopeTree scopes = st->scope_tree();
    for (const DataflowEdge* e : st->edges()) {
      const auto* src = dynamic_cast<const AccessNode*>(&st->node(e->src));
      const auto* dst = dynamic_cast<const AccessNode*>(&st->node(e->dst));
      const std::string& data = e->memlet.data;
      if (e->memlet.is_empty() || !axes.count(data)) continue;
      const bool read = src && src->data == data, written = dst && dst->data == data;
      if (!read && !written) continue;
      // Inside a scope the top-level memlet covers the access.
      if (scopes.parent.at(read ? e->src : e->dst) != kNoNode) continue;
      for (const auto& [dim, k] : axes.at(data)) {
        if (k >= e->memlet.subset.dims()) continue;
        const Range& r = e->memlet.subset.ranges()[k];
        auto a = value_at_extent(r.start), b = value_at_extent(r.end);
        // A rank's part is the field's whole extent less a fixed frame: a range fixed by
        // numbers (domain={I: (0, 8)}) is not split by a frame (scalar bounds: refused above).
        if (!a || !b || *a > kExtent / 2 || *b < kExtent / 2)
          throw Error(node_location(read ? *src : *dst) + "program '" + sdfg.name + "': '" + data + "' is " +
                      (read ? "read" : "written") + " over " + dim + ": [" + r.start.str() + ", " +
                      (r.end + 1).str() + "), a range not relative to its size: a decomposition splits " +
                      "each field's whole extent less a fixed frame (out= slices such as out[1:-1]), so " +
                      "give the domain as the field's size or run on one rank");
        Reach& reach = (read ? reads : writes)[data][dim];
        if (read && (!reach.any() || *a < reach.lo || *b + 1 > reach.hi))
          read_where[data][dim] = node_location(*src);
        reach.add(*a, *b + 1);
      }
    }
  }
  ProgramHalos h;
  std::map<std::string, Reach> domain;
  for (const auto& [name, by_dim] : writes) {
    h.outputs[name] = axes.at(name);
    for (const auto& [dim, w] : by_dim) {
      Reach& d = domain[dim];
      if (d.any() && (d.lo != w.lo || d.hi != w.hi))
        throw Error("program '" + sdfg.name + "': its outputs are written over different domains along " +
                    dim + " (one of them '" + name + "'), which one decomposition cannot split");
      d = w;
    }
  }
  for (const auto& dim : dims) {
    if (!domain.count(dim))
      throw Error("program '" + sdfg.name + "' writes no field along dimension " + dim + " to decompose");
    h.frame[dim] = Margin{domain[dim].lo, kExtent - domain[dim].hi};
  }
  for (const auto& [name, by_dim] : reads) {
    InputHalo in{name, axes.at(name), {}, {}};
    for (const auto& [dim, r] : by_dim) {
      const Reach& d = domain[dim];
      Margin m{std::max<std::int64_t>(0, d.lo - r.lo), std::max<std::int64_t>(0, r.hi - d.hi)};
      if (m.lo > h.frame[dim].lo || m.hi > h.frame[dim].hi)
        throw Error("program '" + sdfg.name + "': '" + name + "' is read " + std::to_string(m.lo) +
                    " before and " + std::to_string(m.hi) + " after the output domain along " + dim +
                    ", beyond the frame its outputs leave (" + std::to_string(h.frame[dim].lo) + " and " +
                    std::to_string(h.frame[dim].hi) + ")");
      in.width[dim] = m;
      if (const std::string& w = read_where[name][dim]; !w.empty()) in.where[dim] = w;
    }
    h.inputs.push_back(std::move(in));
  }
  return h;
}

void check_parallel_along(const SDFG& sdfg, const std::vector<std::string>& dims) {
  for (ControlFlowRegion* region : cfg_list(sdfg)) {
    const auto* loop = region->as<LoopRegion>();
    if (!loop || loop->loop_variable.empty()) continue;
    const SDFG& owner = *region->sdfg();
    for (const SDFGState* st : region->all_states())
      for (const DataflowEdge* e : st->edges()) {
        if (e->memlet.is_empty()) continue;
        const std::size_t n = e->memlet.subset.dims();
        for (std::size_t k = 0; k < n; ++k) {
          const std::string dim = axis_dimension(owner, e->memlet.data, k);
          if (std::find(dims.begin(), dims.end(), dim) == dims.end()) continue;
          if (!e->memlet.subset.ranges()[k].start.free_symbols().count(loop->loop_variable) &&
              !e->memlet.subset.ranges()[k].end.free_symbols().count(loop->loop_variable))
            continue;
          throw Error("program '" + owner.name + "': the loop '" + loop->label + "' runs along " + dim +
                      " one point after the other (a scan_operator's axis, or a loop over '" +
                      loop->loop_variable + "' indexing '" + e->memlet.data +
                      "'); its steps depend on each other, so " + dim +
                      " cannot be split over ranks: decompose the horizontal dimensions only");
        }
      }
  }
}

}  // namespace weir::distributed
