// A kernel's thread-block size must fit its parameters (weir/sdfg/gpu_block_size.h): more than
// one thread along a dimension the kernel does not have runs each point that many times (a WCR
// sum would count every term twice), so the CUDA code generator refuses it, as gpu-schedules does.
#include <catch2/catch.hpp>

#include <string>

#include "codegen_test_util.h"
#include "weir/codegen/cuda_codegen.h"

using namespace weir;

namespace {

/// map_program's 1-D copy as a GPU kernel over GPU_Global arrays, with `block` as its gpu_block_size.
std::unique_ptr<SDFG> kernel_1d(std::vector<std::string> block) {
  auto s = test::map_program("b = a + 1", Language::Python, ScheduleType::GPU_Device);
  s->arrays.at("A").storage = StorageType::GPU_Global;
  s->arrays.at("B").storage = StorageType::GPU_Global;
  for (SDFGState* st : s->all_states())
    for (Node* n : st->nodes())
      if (auto* me = n->as<MapEntry>()) me->map->gpu_block_size = block;
  return s;
}

std::string refusal(std::vector<std::string> block) {
  try {
    codegen::generate_cuda(*kernel_1d(std::move(block)));
  } catch (const Error& e) {
    return e.what();
  }
  return "generated";
}

}  // namespace

TEST_CASE("CUDA codegen: a block with threads along a dimension the kernel lacks is refused",
          "[codegen][gpu]") {
  CHECK(refusal({"64", "1", "1"}) == "generated");
  CHECK(refusal({"128"}) == "generated");
  CHECK_THAT(refusal({"64", "2", "1"}),
             Catch::Contains("gpu_block_size: block (64, 2, 1) has 2 threads along y, but map 'm' has 1 "
                             "parameter (i): each point would run 2 times; give 1 there"));
  CHECK_THAT(refusal({"32", "1", "4"}), Catch::Contains("has 4 threads along z"));
  CHECK_THAT(
      refusal({"8", "8", "4", "2"}),
      Catch::Contains("gpu_block_size: block (8, 8, 4, 2) has 4 values; a thread block has three (x, y, z)"));
}
