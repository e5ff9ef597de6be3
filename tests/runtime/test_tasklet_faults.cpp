// A fault declared in the SDFG (weir/sdfg/tasklet_fault.h): a tasklet sets an integer connector
// to a message number and another to the value the message shows; the generated code raises the
// message after the state. The LAPACK expansions use it for info != 0; any tasklet can.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "corpus.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/tasklet_fault.h"
#include "weir/transforms/memlet_propagation.h"

using namespace weir;

namespace {

/// prog(A[N] int64, F[N] int64, G[N] int64): a Sequential map over i whose tasklet "t" writes
/// f = a // 7 (the message number) and g = a (its argument), declaring `fault` when given.
std::unique_ptr<SDFG> faulting_program(const std::optional<TaskletFault>& fault, ScalarType code_type) {
  auto s = std::make_unique<SDFG>("prog");
  const sym::Expr n = sym::Expr::symbol("N");
  s->add_array("A", ScalarType::Int64, {n});
  s->add_array("F", code_type, {n});
  s->add_array("G", ScalarType::Int64, {n});
  s->add_symbol("N", ScalarType::Int64);
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& f = st.add_access("F");
  auto& g = st.add_access("G");
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:N"), ScheduleType::Sequential);
  auto& t = st.add_tasklet("t", {"f = a // 7\ng = a", Language::Python}, {"a"}, {"f", "g"});
  if (fault) declare_fault(t, *fault);
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i")), "", "a");
  st.add_memlet_path({t.id(), m.exit, f.id()}, Memlet::simple("F", Subset::parse("i")), "f", "");
  st.add_memlet_path({t.id(), m.exit, g.id()}, Memlet::simple("G", Subset::parse("i")), "g", "");
  transforms::propagate_memlets(*s);  // the map's outer memlets, as a file has them
  return s;
}

/// Runs `s` on the cpu backend with A = `a`; the error's text, "" when it ran.
std::string run_error(std::unique_ptr<SDFG> s, const std::vector<std::int64_t>& a) {
  runtime::Arguments args;
  const auto size = static_cast<std::int64_t>(a.size());
  for (const char* name : {"A", "F", "G"}) {
    runtime::Field x = runtime::Allocator::cpu().allocate(ScalarType::Int64, {size});
    for (std::size_t i = 0; i < a.size(); ++i) static_cast<std::int64_t*>(x.data())[i] = a[i];
    args.arrays.emplace(name, std::move(x));
  }
  args.values["N"] = size;
  runtime::CompilableProgram program{std::shared_ptr<const SDFG>(std::move(s)), {}, "prog"};
  auto backend = runtime::make_cpu_backend();
  try {
    runtime::run(*backend, program, args);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string codegen_message(const SDFG& s) {
  try {
    codegen::generate_cpu(s);
  } catch (const codegen::CodegenError& e) {
    return e.what();
  }
  return "no error";
}

const TaskletFault kFault{"f", "g", {"value {} of A is {}% of seven or more"}};

}  // namespace

TEST_CASE("tasklet faults: the declared message with its argument, raised after the state",
          "[runtime][tasklet_faults]") {
  auto dir = test::scratch_dir("tasklet-faults-run");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // a // 7 is 0 for 0..6: no fault.
  CHECK(run_error(faulting_program(kFault, ScalarType::Int64), {0, 3, 6}) == "");
  // 7 // 7 = 1 first at i = 3 (a Sequential map: the first fault is the first recorded): message 1
  // with g = 7 in both places, '%' kept.
  std::string what = run_error(faulting_program(kFault, ScalarType::Int64), {0, 3, 6, 7, 9});
  INFO(what);
  CHECK(what.find("value 7 of A is 7% of seven or more") != std::string::npos);
  // 14 // 7 = 2, a number the declaration has no message for.
  what = run_error(faulting_program(kFault, ScalarType::Int64), {1, 14, 8});
  INFO(what);
  CHECK(what.find("tasklet 't' reported fault 2") != std::string::npos);
  // The same tasklet without the declaration: no fault, the outputs written.
  CHECK(run_error(faulting_program(std::nullopt, ScalarType::Int64), {0, 3, 6, 7, 9}) == "");
}

TEST_CASE("tasklet faults: the declaration is JSON that a file keeps", "[runtime][tasklet_faults]") {
  auto s = faulting_program(kFault, ScalarType::Int64);
  const std::string text = sdfg_to_json_text(*s);
  CHECK(text.find("\"_meta_weir_fault\"") != std::string::npos);  // where DaCe skips it silently
  auto back = sdfg_from_json_text(text);
  const Tasklet* t = nullptr;
  for (const Node* n : back->all_states()[0]->nodes())
    if (const auto* x = n->as<Tasklet>()) t = x;
  REQUIRE(t);
  auto f = declared_fault(*t);
  REQUIRE(f);
  CHECK(f->code == "f");
  CHECK(f->argument == "g");
  CHECK(f->messages == kFault.messages);
}

TEST_CASE("tasklet faults: a bad declaration is an error at the tasklet", "[runtime][tasklet_faults]") {
  auto with_attribute = [](const std::string& json) {
    auto s = faulting_program(std::nullopt, ScalarType::Int64);
    for (Node* n : s->all_states()[0]->nodes())
      if (auto* t = n->as<Tasklet>()) t->extra.set(kTaskletFaultAttribute, json);
    return s;
  };
  struct Bad {
    std::string json, message;
  };
  const std::vector<Bad> cases = {
      {"[1]", "attribute 'weir_fault' must be an object"},
      {R"({"messages": ["x"]})", "needs \"code\", the name of an integer output connector"},
      {R"({"code": "f", "messages": []})", "needs \"messages\", a non-empty list of strings"},
      {R"({"code": "f", "messages": ["value {}"]})", "message 1 shows \"{}\" but no \"argument\" connector"},
      {R"({"code": "h", "messages": ["x"]})", "the fault's code connector 'h' is not an output connector"},
  };
  for (const Bad& b : cases) {
    INFO(b.json);
    const std::string msg = codegen_message(*with_attribute(b.json));
    CHECK(msg.find("node 5 ('t')") != std::string::npos);
    CHECK(msg.find(b.message) != std::string::npos);
  }
  // A code connector that is not an integer.
  const std::string msg = codegen_message(*faulting_program(kFault, ScalarType::Float64));
  CHECK(msg.find("the fault's code connector 'f' must be an integer value connector, not float64") !=
        std::string::npos);
}
