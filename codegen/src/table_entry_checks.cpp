// Bounds-check elision by proof (docs/adr/0051): the connectivity tables a field-view program
// reads neighbours through are checked once when the program is called (every entry -1, a
// missing neighbour, or an index below the extents it is used in), and the loops then index
// with entries the code never lets be -1 (the lowering's `max(x, 0)` and `x != -1` guards)
// without a check of their own. The translator (python_to_cpp.cpp) finds such indices; this file
// says which tables qualify and emits their checks at the top of weir_run, before any state
// runs, so that the compiled library is safe however it is called (the runtime's check of the
// same tables, runtime/src/connectivity_check.cpp, only covers calls through the runtime).
#include <nlohmann/json.hpp>

#include "codegen_internal.h"

namespace weir::codegen::detail {

namespace {

/// The table names of the lowering's record (SDFG attribute `weir_connectivities`, a list of
/// {"name", "from", "to", "local"}: frontend/src/lowering_program.cpp); none when it is absent
/// or malformed (the runtime reports a malformed record).
std::set<std::string> recorded_tables(const SDFG& sdfg) {
  std::set<std::string> out;
  const std::string* text = sdfg.extra.find("weir_connectivities");
  if (!text) return out;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& e : j)
    if (e.is_object() && e.contains("name") && e["name"].is_string())
      out.insert(e["name"].get<std::string>());
  return out;
}

/// Whether some access node of `data` in `sdfg`'s states is written (has an in-edge).
bool written(const SDFG& sdfg, const std::string& data) {
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes())
      if (auto* a = n->as<AccessNode>(); a && a->data == data)
        for (EdgeId id : st->in_edges(a->id()))
          if (!st->edge(id).memlet.is_empty()) return true;
  return false;
}

}  // namespace

std::set<std::string> entry_checked_tables(const SDFG& sdfg, const CodegenOptions& opts,
                                           const TargetEmitter& target) {
  std::set<std::string> out;
  // Without bounds checks nothing is proven (or needed); on a device the tables are device
  // memory, which weir_run's host code does not read.
  if (!opts.bounds_checks || target.parallel_scopes_on_device()) return out;
  for (const std::string& name : recorded_tables(sdfg)) {
    auto it = sdfg.arrays.find(name);
    if (it == sdfg.arrays.end()) continue;
    const DataDescriptor& d = it->second;
    const ScalarType t = d.dtype.base;
    if (d.transient || d.shape.size() != 2 || d.strides.size() != 2 ||
        (t != ScalarType::Int32 && t != ScalarType::Int64) ||
        (d.storage != StorageType::Default && d.storage != StorageType::CPU_Heap) || written(sdfg, name))
      continue;
    out.insert(name);
  }
  return out;
}

void emit_table_entry_checks(const SDFG& sdfg, const std::vector<TableProof>& proofs, Writer& w) {
  // Per table, each extent once (the check compares with the smallest), in first-proof order.
  std::map<std::string, std::vector<const TableProof*>> by_table;
  for (const TableProof& p : proofs) {
    auto& list = by_table[p.table];
    bool seen = false;
    for (const TableProof* q : list) seen = seen || q->extent == p.extent;
    if (!seen) list.push_back(&p);
  }
  for (const auto& [table, list] : by_table) {
    const DataDescriptor& d = sdfg.arrays.at(table);
    std::string uses;
    for (const TableProof* p : list)
      uses += std::string(uses.empty() ? "" : ", ") + "{\"" + c_escape(p->data) + "\", " +
              std::to_string(p->dim) + ", static_cast<int64_t>(" + p->extent + ")}";
    w.line("// the neighbours read through '" + table +
           "' index without checks: its entries are checked here");
    w.open("{");
    w.line("const weir_table_use weir_uses[] = {" + uses + "};");
    w.line("weir_check_table(\"" + c_escape(table) + "\", " + cpp_ident(table) + ", " + sym_cpp(d.shape[0]) +
           ", " + sym_cpp(d.shape[1]) + ", " + sym_cpp(d.strides[0]) + ", " + sym_cpp(d.strides[1]) +
           ", weir_uses, " + std::to_string(list.size()) + ");");
    w.close();
  }
}

std::vector<std::string> table_proof_notes(const std::vector<TableProof>& proofs) {
  std::map<std::string, std::pair<std::size_t, std::set<std::string>>> by_table;
  for (const TableProof& p : proofs) {
    ++by_table[p.table].first;
    by_table[p.table].second.insert(p.data);
  }
  std::vector<std::string> out;
  for (const auto& [table, uses] : by_table) {
    std::string data;
    for (const std::string& d : uses.second) data += (data.empty() ? "'" : ", '") + d + "'";
    out.push_back("bounds of " + std::to_string(uses.first) + " indices read through table '" + table +
                  "' (into " + data +
                  ") proven by its entry check in weir_run: no check in the loops "
                  "(docs/adr/0051)");
  }
  return out;
}

}  // namespace weir::codegen::detail
