// Source locations outside the generated code (ADR 0061): the table of one generation, the
// tokens that stand for its entries in the code, and their expansion.
#include "weir/codegen/source_locations.h"

#include <functional>
#include <map>

#include "location_table.h"

namespace weir::codegen {

namespace {

constexpr std::string_view kTokenHead = "@weirloc";

// The locations of the generation running on this thread, with their tokens' indices.
struct LocationTable {
  std::vector<std::string> entries;
  std::map<std::string, std::size_t> index;  // location -> its token's index
};

thread_local LocationTable* active_table = nullptr;

// Runs `generate` with a fresh table active on the thread; `locations` receives it. What goes
// to the user directly (errors, notes) is expanded.
GeneratedCode with_location_table(const std::function<GeneratedCode()>& generate,
                                  std::vector<std::string>& locations) {
  LocationTable table;
  struct Activate {  // a generation inside another (none so far) has a table of its own
    LocationTable* outer;
    ~Activate() { active_table = outer; }
  } activate{active_table};
  active_table = &table;
  try {
    GeneratedCode out = generate();
    for (std::string& note : out.notes) note = expand_locations(note, table.entries);
    locations = std::move(table.entries);
    return out;
  } catch (const CodegenError& e) {
    throw CodegenError(e.where(), expand_locations(e.message(), table.entries));
  }
}

}  // namespace

std::string location_token(std::size_t index) {
  return std::string(kTokenHead) + std::to_string(index) + "@";
}

std::string expand_locations(std::string_view text, const std::vector<std::string>& table) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t p = text.find(kTokenHead); p != std::string_view::npos; p = text.find(kTokenHead, p + 1)) {
    const std::size_t digits = p + kTokenHead.size();
    std::size_t end = digits, index = 0;
    while (end < text.size() && end - digits < 9 && text[end] >= '0' && text[end] <= '9')
      index = index * 10 + static_cast<std::size_t>(text[end++] - '0');
    if (end == digits || end >= text.size() || text[end] != '@' || index >= table.size()) continue;
    out.append(text.substr(from, p - from));
    out += table[index];
    from = end + 1;
    p = end;
  }
  out.append(text.substr(from));
  return out;
}

GeneratedCode generate_cpu_with_location_table(const SDFG& sdfg, const CodegenOptions& options,
                                               std::vector<std::string>& locations) {
  return with_location_table([&] { return generate_cpu(sdfg, options); }, locations);
}

GeneratedCode generate_cuda_with_location_table(const SDFG& sdfg, const CodegenOptions& options,
                                                std::vector<std::string>& locations) {
  return with_location_table([&] { return generate_cuda(sdfg, options); }, locations);
}

std::string detail::table_location(const std::string& location) {
  LocationTable* t = active_table;
  if (!t || location.empty()) return location;
  auto [it, added] = t->index.emplace(location, t->entries.size());
  if (added) t->entries.push_back(location);
  return location_token(it->second);
}

}  // namespace weir::codegen
