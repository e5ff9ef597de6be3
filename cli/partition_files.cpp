// write_partition and read_part (partition_files.h): partition.json and the per-part .npy files.
#include "partition_files.h"

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "weir/runtime/allocator.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/output_file.h"

namespace weir::cli {
namespace {

namespace fs = std::filesystem;
using runtime::Field;

void write_ints(const fs::path& file, const std::vector<std::int32_t>& v, std::vector<std::int64_t> shape) {
  Field f = runtime::Allocator::cpu().allocate(ScalarType::Int32, std::move(shape));
  if (!v.empty()) std::memcpy(f.data(), v.data(), v.size() * sizeof(std::int32_t));
  runtime::write_npy(file, f);
}

std::vector<std::int32_t> read_ints(const fs::path& file, std::int64_t rows, std::int64_t cols) {
  if (!fs::exists(file)) throw Error(file.string() + ": missing file of the partition");
  Field f = runtime::read_npy(file);
  const std::vector<std::int64_t> want =
      cols ? std::vector<std::int64_t>{rows, cols} : std::vector<std::int64_t>{rows};
  if (f.dtype() != ScalarType::Int32 || f.shape() != want)
    throw Error(file.string() + ": expected int32 of " + std::to_string(rows) +
                (cols ? " x " + std::to_string(cols) : "") + " entries as partition.json says, got " +
                f.describe());
  std::vector<std::int32_t> v(static_cast<std::size_t>(f.size()));
  if (!v.empty()) std::memcpy(v.data(), f.data(), f.nbytes());
  return v;
}

fs::path part_dir(const fs::path& dir, int p) { return dir / ("part" + std::to_string(p)); }

// Every entry of `v` (read from `file`) in [lo, hi), else a located error naming `what`.
void check_range(const fs::path& file, const std::vector<std::int32_t>& v, std::int64_t cols, std::int64_t lo,
                 std::int64_t hi, const std::string& what) {
  for (std::size_t k = 0; k < v.size(); ++k)
    if (v[k] < lo || v[k] >= hi) {
      const std::string at = cols ? "row " + std::to_string(static_cast<std::int64_t>(k) / cols) +
                                        ", column " + std::to_string(static_cast<std::int64_t>(k) % cols)
                                  : "entry " + std::to_string(k);
      throw Error(file.string() + ": " + at + ": " + std::to_string(v[k]) + " is not " + what + " [" +
                  std::to_string(lo) + ", " + std::to_string(hi) + ")");
    }
}

// The lists of part `p` with peer `q` along `entity`: sent rows owned, received rows halo, and
// as many received as `q` sends (its file's length), so that no rank waits for rows never sent.
mesh::PeerLists read_lists(const fs::path& dir, int p, int q, const std::string& entity,
                           const mesh::PartEntity& e) {
  const fs::path s = part_dir(dir, p) / ("send_" + entity + "_to_" + std::to_string(q) + ".npy");
  const fs::path v = part_dir(dir, p) / ("recv_" + entity + "_from_" + std::to_string(q) + ".npy");
  mesh::PeerLists l;
  l.peer = q;
  if (q == p) throw Error((fs::exists(s) ? s : v).string() + ": a part exchanges no rows with itself");
  if (fs::exists(s)) l.send = read_ints(s, runtime::read_npy(s).shape().at(0), 0);
  if (fs::exists(v)) l.recv = read_ints(v, runtime::read_npy(v).shape().at(0), 0);
  const auto local = static_cast<std::int64_t>(e.global.size());
  check_range(s, l.send, 0, 0, e.owned, "an owned " + entity + " row of the part");
  check_range(v, l.recv, 0, e.owned, local, "a halo " + entity + " row of the part");
  const fs::path peer = part_dir(dir, q) / ("send_" + entity + "_to_" + std::to_string(p) + ".npy");
  const std::int64_t sent = fs::exists(peer) ? runtime::read_npy(peer).shape().at(0) : 0;
  if (sent != static_cast<std::int64_t>(l.recv.size()))
    throw Error(v.string() + ": " + std::to_string(l.recv.size()) + " rows to receive, but " + peer.string() +
                " sends " + std::to_string(sent) + " (the lists of the two parts disagree)");
  return l;
}

}  // namespace

void write_partition(const fs::path& dir, const mesh::MeshPartition& m, const std::string& program) {
  nlohmann::json j;
  j["format"] = "weir-mesh-partition";
  j["version"] = 1;
  j["parts"] = m.parts.size();
  j["primary"] = m.primary;
  j["program"] = program;
  j["halo"] = m.every_entity ? "every entity" : "primary";
  // The calls whose chains made an orchestration's halo (what check_partition follows).
  if (!m.calls.empty()) {
    j["calls"] = nlohmann::json::array();
    for (const auto& c : m.calls) j["calls"].push_back({{"writes", c.writes}, {"tables", c.tables}});
  }
  j["entities"] = m.counts;
  j["edge_cut"] = m.edge_cut;
  j["tables"] = nlohmann::json::object();
  j["owned"] = nlohmann::json::array();
  j["local"] = nlohmann::json::array();
  for (std::size_t p = 0; p < m.parts.size(); ++p) {
    const mesh::Part& part = m.parts[p];
    const fs::path pd = part_dir(dir, static_cast<int>(p));
    fs::create_directories(pd);
    nlohmann::json owned = nlohmann::json::object(), local = nlohmann::json::object();
    for (const auto& [name, t] : part.tables) {
      j["tables"][name] = {{"from", t.from}, {"to", t.to}, {"cols", t.cols}};
      write_ints(pd / (name + ".npy"), t.data, {t.rows, t.cols});
    }
    for (const auto& [entity, e] : part.entities) {
      owned[entity] = e.owned;
      local[entity] = e.global.size();
      write_ints(pd / ("global_" + entity + ".npy"), e.global, {static_cast<std::int64_t>(e.global.size())});
      for (const auto& l : e.peers) {
        const std::string q = std::to_string(l.peer);
        write_ints(pd / ("send_" + entity + "_to_" + q + ".npy"), l.send,
                   {static_cast<std::int64_t>(l.send.size())});
        write_ints(pd / ("recv_" + entity + "_from_" + q + ".npy"), l.recv,
                   {static_cast<std::int64_t>(l.recv.size())});
      }
    }
    j["owned"].push_back(owned);
    j["local"].push_back(local);
  }
  write_file_atomically(dir / "partition.json", j.dump(1) + "\n");
}

LoadedPart read_part(const fs::path& dir, int p) {
  const fs::path header = dir / "partition.json";
  std::ifstream in(header);
  protect_input_file(header);
  if (!in)
    throw Error(header.string() + ": no partition here (write one with 'weir mesh --parts N --out " +
                dir.string() + "')");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
    LoadedPart r;
    if (j.at("format") != "weir-mesh-partition") throw Error("not a weir mesh partition");
    r.parts = j.at("parts").get<int>();
    r.primary = j.at("primary").get<std::string>();
    r.program = j.at("program").get<std::string>();
    // Partitions written before session 29 have no "halo": their chains start at the primary.
    r.every_entity = j.value("halo", std::string("primary")) == "every entity";
    r.counts = j.at("entities").get<std::map<std::string, std::int64_t>>();
    if (p < 0 || p >= r.parts)
      throw Error("part " + std::to_string(p) + " is not one of its " + std::to_string(r.parts) + " parts");
    const nlohmann::json& owned = j.at("owned").at(static_cast<std::size_t>(p));
    const nlohmann::json& local = j.at("local").at(static_cast<std::size_t>(p));
    const fs::path pd = part_dir(dir, p);
    for (const auto& [entity, n] : local.items()) {
      mesh::PartEntity& e = r.part.entities[entity];
      e.owned = owned.at(entity).get<std::int64_t>();
      e.global = read_ints(pd / ("global_" + entity + ".npy"), n.get<std::int64_t>(), 0);
      if (e.owned < 0 || e.owned > static_cast<std::int64_t>(e.global.size()))
        throw Error(header.string() + ": part " + std::to_string(p) + " owns " + std::to_string(e.owned) +
                    " " + entity + " entities of its " + std::to_string(e.global.size()));
      check_range(pd / ("global_" + entity + ".npy"), e.global, 0, 0, r.counts.at(entity),
                  "one of the mesh's " + entity + " entities");
      for (int q = 0; q < r.parts; ++q) {
        const fs::path s = pd / ("send_" + entity + "_to_" + std::to_string(q) + ".npy");
        const fs::path v = pd / ("recv_" + entity + "_from_" + std::to_string(q) + ".npy");
        if (fs::exists(s) || fs::exists(v)) e.peers.push_back(read_lists(dir, p, q, entity, e));
      }
    }
    for (const auto& [name, t] : j.at("tables").items()) {
      mesh::PartitionTable lt;
      lt.name = name;
      lt.from = t.at("from").get<std::string>();
      lt.to = t.at("to").get<std::string>();
      lt.cols = t.at("cols").get<std::int64_t>();
      lt.rows = static_cast<std::int64_t>(r.part.entities.at(lt.from).global.size());
      lt.data = read_ints(pd / (name + ".npy"), lt.rows, lt.cols);
      check_range(pd / (name + ".npy"), lt.data, lt.cols, 0,
                  static_cast<std::int64_t>(r.part.entities.at(lt.to).global.size()),
                  "a local " + lt.to + " index of the part");
      r.part.tables.emplace(name, std::move(lt));
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(header.string() + ": malformed partition description (" + e.what() + ")");
  } catch (const std::out_of_range& e) {
    throw Error(header.string() + ": malformed partition description (" + e.what() + ")");
  }
}

}  // namespace weir::cli
