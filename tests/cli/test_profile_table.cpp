// The profile table `weir run --profile` prints: elements named alike (the two copies of a loop
// body that a swap makes) are told apart by their control-flow path (cli/profile_report.h).
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "profile_report.h"

using weir::cli::ProfileData;
using weir::cli::ProfiledElement;

namespace {

ProfiledElement element(const std::string& kind, const std::string& label, const std::string& path,
                        std::int64_t ns) {
  ProfiledElement e;
  e.info.kind = kind;
  e.info.label = label;
  e.path = path;
  if (ns > 0)
    e.samples.push_back({1, ns, 0});
  else
    e.samples.push_back({0, 0, 0});
  return e;
}

// The table's line of the row whose first cell is `name` ("" when none).
std::string row(const std::string& table, const std::string& name) {
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + " ", 0) == 0) return line;
  return "";
}

}  // namespace

TEST_CASE("profile table: two copies of a loop body are named by their control-flow paths",
          "[cli][profile]") {
  ProfileData d;
  d.call_seconds = {1e-3};
  d.elements.push_back(element("state", "call_heat_step", "for_36/call_heat_step", 400000));
  d.elements.push_back(element("state", "call_heat_step", "for_36/for_36_copy1/then/call_heat_step", 200000));
  d.elements.push_back(element("map", "heat_update_map", "for_36/call_heat_step/heat_update_map", 300000));
  // Alike in label but another kind, or alike and never run: no reason to qualify either.
  d.elements.push_back(element("state", "heat_update_map", "for_36/heat_update_map", 100000));
  d.elements.push_back(element("state", "assign", "for_36/assign", 50000));
  d.elements.push_back(element("state", "assign", "for_36/for_36_copy1/assign", 0));

  CHECK(weir::cli::table_name(d.elements[0], d) == "for_36/call_heat_step");
  CHECK(weir::cli::table_name(d.elements[1], d) == "for_36/for_36_copy1/then/call_heat_step");
  CHECK(weir::cli::table_name(d.elements[2], d) == "heat_update_map");
  CHECK(weir::cli::table_name(d.elements[3], d) == "heat_update_map");
  CHECK(weir::cli::table_name(d.elements[4], d) == "assign");

  std::ostringstream out;
  weir::cli::print_profile_table(d, out);
  const std::string table = out.str();
  INFO(table);
  // Each copy on its own row, with its own median (0.4 ms and 0.2 ms of a 1 ms call: 40% and 20%).
  const std::string first = row(table, "for_36/call_heat_step"),
                    second = row(table, "for_36/for_36_copy1/then/call_heat_step");
  REQUIRE(!first.empty());
  REQUIRE(!second.empty());
  CHECK(first.find("0.4000") != std::string::npos);
  CHECK(first.find("40.0%") != std::string::npos);
  CHECK(second.find("0.2000") != std::string::npos);
  CHECK(second.find("20.0%") != std::string::npos);
  CHECK(!row(table, "assign").empty());
  CHECK(row(table, "call_heat_step").empty());  // never the bare label for the copies
}

TEST_CASE("profile table: a path longer than the name column keeps its end", "[cli][profile]") {
  ProfileData d;
  d.call_seconds = {1e-3};
  const std::string deep = std::string(70, 'a') + "/copy1/then/call_step";
  d.elements.push_back(element("state", "call_step", "loop/call_step", 300000));
  d.elements.push_back(element("state", "call_step", deep, 200000));
  std::ostringstream out;
  weir::cli::print_profile_table(d, out);
  const std::string cut = "..." + deep.substr(deep.size() - 57);
  INFO(out.str());
  CHECK(!row(out.str(), cut).empty());
  CHECK(!row(out.str(), "loop/call_step").empty());
}

TEST_CASE("profile table: a per-thread element inside a map is marked and explained", "[cli][profile]") {
  // user33's J6: under load the map (9.9 ms, waiting for a preempted thread) and its whole body
  // (0.5 ms, the busiest thread's own work) disagree; the table marks the inner one and says why.
  ProfileData d;
  d.call_seconds = {10e-3};
  d.elements.push_back(element("map", "hd4_map", "hd4_map", 9900000));
  d.elements.push_back(element("map", "hd4_map_inner", "hd4_map/hd4_map_inner", 500000));
  d.elements[0].map_level = 1;
  d.elements[1].map_level = 2;
  d.timers_omitted = 3;
  d.load_warning = "the machine is loaded (load 19.00 on 2 CPUs): times below are unreliable";
  std::ostringstream out;
  weir::cli::print_profile_table(d, out);
  const std::string table = out.str();
  INFO(table);
  CHECK(row(table, "hd4_map_inner").find("map*") != std::string::npos);
  CHECK(row(table, "hd4_map").find("map*") == std::string::npos);
  CHECK_THAT(table, Catch::Contains("note: a kind marked * is timed per thread inside a map: the busiest "
                                    "thread's time, without its map's waits"));
  CHECK_THAT(table, Catch::Contains("note: 3 elements inside maps were not timed"));
  CHECK_THAT(table, Catch::Contains("warning: the machine is loaded (load 19.00 on 2 CPUs)"));
  const auto report = weir::cli::profile_report_json(d);
  CHECK(report.at("weir_profile").at("timers_omitted") == 3);
  CHECK(report.at("weir_profile").at("load_warning") == d.load_warning);
}
