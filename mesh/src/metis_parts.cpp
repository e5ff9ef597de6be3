// metis_parts (weir/mesh/partition.h): the graph of the primary entity handed to
// METIS_PartGraphKway (libmetis, Debian's libmetis-dev; optional: WEIR_HAVE_METIS).
#include <algorithm>
#include <set>
#include <stdexcept>

#include "weir/mesh/partition.h"

#if WEIR_HAVE_METIS
#include <metis.h>
#endif

namespace weir::mesh {

bool have_metis() { return WEIR_HAVE_METIS != 0; }

std::vector<int> metis_parts(const std::vector<PartitionTable>& tables, const std::string& primary, int parts,
                             std::int64_t* edge_cut) {
  const std::map<std::string, std::int64_t> counts = entity_counts(tables);
  if (parts < 1)
    throw std::invalid_argument("--parts " + std::to_string(parts) + ": expected at least 1 part");
  if (!counts.count(primary))
    throw std::invalid_argument("no connectivity table names the entity '" + primary + "'");
  const std::int64_t n = counts.at(primary);
  if (parts > n)
    throw std::invalid_argument("--parts " + std::to_string(parts) + ": more parts than the " +
                                std::to_string(n) + " " + primary + " entities to split");
  // Neighbours of every primary entity: those in its rows, and those sharing a row's entry.
  std::vector<std::set<std::int64_t>> adj(static_cast<std::size_t>(n));
  bool any = false;
  for (const auto& t : tables) {
    if (t.from != primary) continue;
    any = true;
    std::map<std::int32_t, std::vector<std::int64_t>> rows_of;  // entry -> rows listing it
    for (std::int64_t r = 0; r < t.rows; ++r)
      for (std::int64_t c = 0; c < t.cols; ++c) {
        const std::int32_t v = t.data[static_cast<std::size_t>(r * t.cols + c)];
        rows_of[v].push_back(r);
        if (t.to == primary && v != r) {
          adj[static_cast<std::size_t>(r)].insert(v);
          adj[static_cast<std::size_t>(v)].insert(r);
        }
      }
    for (const auto& [v, rows] : rows_of)
      for (std::int64_t a : rows)
        for (std::int64_t b : rows)
          if (a != b) adj[static_cast<std::size_t>(a)].insert(b);
  }
  if (!any)
    throw std::invalid_argument("no connectivity table the program reads starts at " + primary +
                                " (the entity of its outputs): nothing to partition it by");
  if (edge_cut) *edge_cut = 0;
  if (parts == 1) return std::vector<int>(static_cast<std::size_t>(n), 0);
#if WEIR_HAVE_METIS
  std::vector<idx_t> xadj{0}, adjncy;
  for (const auto& a : adj) {
    for (std::int64_t b : a) adjncy.push_back(static_cast<idx_t>(b));
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = parts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 0;
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(n), 0);
  const int status = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr,
                                         &nparts, nullptr, nullptr, options, &objval, part.data());
  if (status != METIS_OK)
    throw std::runtime_error("METIS_PartGraphKway failed (status " + std::to_string(status) + ") on " +
                             std::to_string(n) + " " + primary + " entities into " + std::to_string(parts) +
                             " parts");
  std::vector<int> out(part.begin(), part.end());
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(parts), 0);
  for (int p : out) ++sizes[static_cast<std::size_t>(p)];
  for (int p = 0; p < parts; ++p)
    if (sizes[static_cast<std::size_t>(p)] == 0)
      throw std::invalid_argument("METIS left part " + std::to_string(p) + " of " + std::to_string(parts) +
                                  " without " + primary + " entities: use fewer parts or a larger mesh");
  if (edge_cut) *edge_cut = objval;
  return out;
#else
  throw std::runtime_error(
      "weir was built without METIS: partitioning into " + std::to_string(parts) +
      " parts needs it (install Debian's libmetis-dev, scripts/install-deps.sh, and rebuild; -DWEIR_METIS=ON "
      "requires it)");
#endif
}

}  // namespace weir::mesh
