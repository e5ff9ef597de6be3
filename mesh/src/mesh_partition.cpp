// partition_mesh and entity_counts (weir/mesh/partition.h): the halo of each part from the
// chains of connectivity tables, the local numbering and the send/receive lists.
#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>

#include "weir/mesh/partition.h"

namespace weir::mesh {
namespace {

std::string where(const PartitionTable& t) { return "connectivity table '" + t.name + "'"; }

using Sets = std::map<std::string, std::set<std::int32_t>>;

// Adds to `reach` everything the rows `rows` of entity `entity` reach along chains of tables not
// in `used` (each table once per chain).
void follow(const std::vector<PartitionTable>& tables, const std::string& entity,
            const std::set<std::int32_t>& rows, std::vector<bool>& used, Sets& reach) {
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const PartitionTable& tab = tables[t];
    if (used[t] || tab.from != entity) continue;
    std::set<std::int32_t> next;
    for (std::int32_t r : rows)
      for (std::int64_t c = 0; c < tab.cols; ++c)
        next.insert(tab.data[static_cast<std::size_t>(r * tab.cols + c)]);
    reach[tab.to].insert(next.begin(), next.end());
    used[t] = true;
    follow(tables, tab.to, next, used, reach);
    used[t] = false;
  }
}

}  // namespace

std::map<std::string, std::int64_t> entity_counts(const std::vector<PartitionTable>& tables) {
  std::map<std::string, std::int64_t> rows;
  for (const auto& t : tables) {
    if (t.rows < 0 || t.cols < 1 || static_cast<std::int64_t>(t.data.size()) != t.rows * t.cols)
      throw std::invalid_argument(where(t) + ": expected a 2-d table of rows x neighbours, got " +
                                  std::to_string(t.data.size()) + " entries for shape (" +
                                  std::to_string(t.rows) + ", " + std::to_string(t.cols) + ")");
    auto [it, fresh] = rows.emplace(t.from, t.rows);
    if (!fresh && it->second != t.rows)
      throw std::invalid_argument(where(t) + " has " + std::to_string(t.rows) + " rows of " + t.from +
                                  ", but another table has " + std::to_string(it->second));
  }
  std::map<std::string, std::int64_t> counts = rows;
  for (const auto& t : tables) {
    const auto known = rows.find(t.to);
    std::int64_t largest = -1;
    for (std::size_t k = 0; k < t.data.size(); ++k) {
      const std::int32_t v = t.data[k];
      const std::string at = " at row " + std::to_string(static_cast<std::int64_t>(k) / t.cols) +
                             ", column " + std::to_string(static_cast<std::int64_t>(k) % t.cols);
      if (v < 0)
        throw std::invalid_argument(where(t) + at + ": " + std::to_string(v) +
                                    " (a missing neighbour); partitioning needs every neighbour present");
      if (known != rows.end() && v >= known->second)
        throw std::invalid_argument(where(t) + at + ": " + std::to_string(v) + " is not one of the " + t.to +
                                    " entities" + " (there are " + std::to_string(known->second) + ")");
      largest = std::max<std::int64_t>(largest, v);
    }
    if (known == rows.end()) counts[t.to] = std::max(counts[t.to], largest + 1);
  }
  return counts;
}

MeshPartition partition_mesh(const std::vector<PartitionTable>& tables, const std::string& primary,
                             const std::vector<int>& owner, int parts, bool every_entity,
                             const std::vector<CallChains>& calls) {
  MeshPartition m;
  m.primary = primary;
  m.every_entity = every_entity;
  if (every_entity) m.calls = calls;
  m.counts = entity_counts(tables);
  for (const CallChains& c : m.calls) {
    for (const std::string& t : c.tables)
      if (std::none_of(tables.begin(), tables.end(), [&](const PartitionTable& x) { return x.name == t; }))
        throw std::invalid_argument("a call reads connectivity table '" + t +
                                    "', which is not among the tables");
    for (const std::string& e : c.writes)
      if (!m.counts.count(e))
        throw std::invalid_argument("a call writes a field on " + e + ", which no connectivity table names");
  }
  if (!m.counts.count(primary))
    throw std::invalid_argument("no connectivity table names the entity '" + primary + "'");
  if (static_cast<std::int64_t>(owner.size()) != m.counts.at(primary))
    throw std::invalid_argument("the parts of " + std::to_string(owner.size()) + " " + primary +
                                " entities were given for " + std::to_string(m.counts.at(primary)));
  for (int p : owner)
    if (p < 0 || p >= parts)
      throw std::invalid_argument("part " + std::to_string(p) + " is not one of 0.." +
                                  std::to_string(parts - 1));
  m.owner_of_primary = owner;
  std::vector<Sets> local(static_cast<std::size_t>(parts));
  for (int p = 0; p < parts; ++p) {
    std::set<std::int32_t> own;
    for (std::size_t g = 0; g < owner.size(); ++g)
      if (owner[g] == p) own.insert(static_cast<std::int32_t>(g));
    Sets& reach = local[static_cast<std::size_t>(p)];
    reach[primary] = own;
    std::vector<bool> used(tables.size(), false);
    follow(tables, primary, own, used, reach);
  }
  // Owners: METIS's for the primary, the lowest part holding it otherwise.
  std::map<std::string, std::vector<int>> owner_of;
  for (const auto& [entity, n] : m.counts) {
    std::vector<int>& o = owner_of[entity];
    if (entity == primary) {
      o = owner;
      continue;
    }
    o.assign(static_cast<std::size_t>(n), -1);
    for (int p = parts - 1; p >= 0; --p)
      for (std::int32_t g : local[static_cast<std::size_t>(p)][entity]) o[static_cast<std::size_t>(g)] = p;
  }
  // Every entity's owned rows computed on their part (an orchestration's calls write fields on
  // every entity): the chains start at the owned entities of each entity too. An entity no
  // chain from a primary reaches is part 0's.
  if (every_entity) {
    // Owner of a non-primary entity: the lowest part owning a primary one table away from it
    // (a cell's edges, an edge's cells), so each part owns what lies around its own primaries;
    // the lowest part holding it when no table joins the two entities.
    for (auto& [entity, o] : owner_of) {
      if (entity == primary) continue;
      std::vector<int> near(o.size(), parts);
      for (const auto& t : tables) {
        if (t.from == primary && t.to == entity)
          for (std::int64_t r = 0; r < t.rows; ++r)
            for (std::int64_t c = 0; c < t.cols; ++c) {
              int& n = near[static_cast<std::size_t>(t.data[static_cast<std::size_t>(r * t.cols + c)])];
              n = std::min(n, owner[static_cast<std::size_t>(r)]);
            }
        if (t.from == entity && t.to == primary)
          for (std::int64_t r = 0; r < t.rows; ++r)
            for (std::int64_t c = 0; c < t.cols; ++c) {
              int& n = near[static_cast<std::size_t>(r)];
              n = std::min(n,
                           owner[static_cast<std::size_t>(t.data[static_cast<std::size_t>(r * t.cols + c)])]);
            }
      }
      for (std::size_t g = 0; g < o.size(); ++g)
        if (near[g] < parts) {
          o[g] = near[g];
          local[static_cast<std::size_t>(near[g])][entity].insert(static_cast<std::int32_t>(g));
        }
    }
    for (auto& [entity, o] : owner_of)
      for (std::size_t g = 0; g < o.size(); ++g)
        if (o[g] < 0) {
          o[g] = 0;
          local[0][entity].insert(static_cast<std::int32_t>(g));
        }
    for (int p = 0; p < parts; ++p) {
      Sets& reach = local[static_cast<std::size_t>(p)];
      std::map<std::string, std::set<std::int32_t>> own;
      for (const auto& [entity, o] : owner_of)
        for (std::size_t g = 0; g < o.size(); ++g)
          if (o[g] == p) own[entity].insert(static_cast<std::int32_t>(g));
      if (m.calls.empty()) {
        for (const auto& [entity, rows] : own) {
          std::vector<bool> used(tables.size(), false);
          follow(tables, entity, rows, used, reach);
        }
        continue;
      }
      // Only what the calls read: the owned rows, and each call's chains from the rows it owns
      // of the entities it writes (its other tables count as used).
      reach = own;
      for (const CallChains& c : m.calls)
        for (const std::string& entity : c.writes) {
          std::vector<bool> used(tables.size());
          for (std::size_t t = 0; t < tables.size(); ++t) used[t] = !c.tables.count(tables[t].name);
          follow(tables, entity, own[entity], used, reach);
        }
    }
  }
  // Local numbering: owned, then halo, each by increasing global id.
  m.parts.resize(static_cast<std::size_t>(parts));
  std::vector<std::map<std::string, std::map<std::int32_t, std::int32_t>>> index(
      static_cast<std::size_t>(parts));
  for (int p = 0; p < parts; ++p)
    for (const auto& [entity, n] : m.counts) {
      PartEntity& e = m.parts[static_cast<std::size_t>(p)].entities[entity];
      const std::set<std::int32_t>& held = local[static_cast<std::size_t>(p)][entity];
      const std::vector<int>& o = owner_of.at(entity);
      for (std::int32_t g : held)
        if (o[static_cast<std::size_t>(g)] == p) e.global.push_back(g);
      e.owned = static_cast<std::int64_t>(e.global.size());
      for (std::int32_t g : held)
        if (o[static_cast<std::size_t>(g)] != p) e.global.push_back(g);
      auto& ix = index[static_cast<std::size_t>(p)][entity];
      for (std::size_t k = 0; k < e.global.size(); ++k) ix.emplace(e.global[k], static_cast<std::int32_t>(k));
    }
  // Send/receive lists: part p receives its halo entry g from g's owner q, which sends it.
  for (int p = 0; p < parts; ++p)
    for (auto& [entity, e] : m.parts[static_cast<std::size_t>(p)].entities) {
      std::map<int, PeerLists> by_peer;
      const std::vector<int>& o = owner_of.at(entity);
      for (std::size_t k = static_cast<std::size_t>(e.owned); k < e.global.size(); ++k) {
        const int q = o[static_cast<std::size_t>(e.global[k])];
        by_peer[q].peer = q;
        by_peer[q].recv.push_back(static_cast<std::int32_t>(k));
        by_peer[q].send.push_back(index[static_cast<std::size_t>(q)][entity].at(e.global[k]));
      }
      // One entry per pair of parts on each side: p receives, q sends, in p's order.
      auto entry = [](std::vector<PeerLists>& peers, int peer) -> PeerLists& {
        auto it =
            std::find_if(peers.begin(), peers.end(), [&](const PeerLists& l) { return l.peer == peer; });
        return it == peers.end() ? peers.emplace_back(PeerLists{peer, {}, {}}) : *it;
      };
      for (auto& [q, lists] : by_peer) {
        entry(e.peers, q).recv = lists.recv;
        entry(m.parts[static_cast<std::size_t>(q)].entities[entity].peers, p).send = lists.send;
      }
    }
  for (auto& part : m.parts)
    for (auto& [entity, e] : part.entities)
      std::sort(e.peers.begin(), e.peers.end(),
                [](const PeerLists& a, const PeerLists& b) { return a.peer < b.peer; });
  // Local tables.
  for (int p = 0; p < parts; ++p) {
    Part& part = m.parts[static_cast<std::size_t>(p)];
    for (const auto& t : tables) {
      PartitionTable lt{t.name, t.from, t.to, 0, t.cols, {}};
      const PartEntity& rows = part.entities.at(t.from);
      const auto& to_ix = index[static_cast<std::size_t>(p)][t.to];
      lt.rows = static_cast<std::int64_t>(rows.global.size());
      lt.data.reserve(static_cast<std::size_t>(lt.rows * t.cols));
      for (std::int32_t g : rows.global)
        for (std::int64_t c = 0; c < t.cols; ++c) {
          auto it = to_ix.find(t.data[static_cast<std::size_t>(g * t.cols + c)]);
          lt.data.push_back(it == to_ix.end() ? 0 : it->second);
        }
      part.tables.emplace(t.name, std::move(lt));
    }
  }
  return m;
}

}  // namespace weir::mesh
