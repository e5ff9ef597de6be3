// Embedding weir in a C++ program: load a gt4py field-view program from a .py file, pick a
// backend, allocate fields with the backend's allocator, call the program and read the result.
//
//   weir_embedding_example PATH/TO/laplacian.py [embedded|cpu]
//
// Runs `laplacian` (the 5-point Laplacian written into out[1:-1, 1:-1]) on f(i, j) = i^2 + j^2/2,
// whose discrete Laplacian is 2 + 1 = 3 everywhere inside, and prints out[:, :, 0].
#include <cstdio>
#include <exception>
#include <string>

#include "weir/runtime/dispatch.h"
#include "weir/runtime/field_view_program.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH/TO/laplacian.py [embedded|cpu]\n", argv[0]);
    return 2;
  }
  const std::string backend_name = argc > 2 ? argv[2] : "embedded";
  try {
    using namespace weir::runtime;
    // 1. The program: parsed and type-checked once; runnable on any backend.
    FieldViewProgram program = load_field_view_program(argv[1], "laplacian");
    // 2. A backend by name (or build a CompiledBackend with your own compiler step).
    std::unique_ptr<Backend> backend = make_backend(backend_name);
    // 3. Arguments by parameter name, allocated where the backend wants them.
    const std::int64_t ni = 5, nj = 4, nk = 1;
    Arguments args;
    Field f = backend->allocator().allocate(weir::ScalarType::Float64, {ni, nj, nk});
    auto* fp = static_cast<double*>(f.data());
    for (std::int64_t i = 0; i < ni; ++i)
      for (std::int64_t j = 0; j < nj; ++j) fp[(i * nj + j) * nk] = double(i * i) + 0.5 * double(j * j);
    args.arrays.emplace("f", std::move(f));
    args.arrays.emplace("out", backend->allocator().allocate(weir::ScalarType::Float64, {ni, nj, nk}));
    // 4. Prepare (compiles on a compiled backend, cached across processes), then call.
    std::shared_ptr<Program> runnable = prepare(*backend, program);
    runnable->run(args);
    // 5. Results are in the argument arrays.
    const auto* out = static_cast<const double*>(args.arrays.at("out").data());
    std::printf("program '%s' on backend '%s'\nout[:, :, 0] =\n", runnable->name().c_str(),
                backend->name().c_str());
    for (std::int64_t i = 0; i < ni; ++i) {
      for (std::int64_t j = 0; j < nj; ++j) std::printf("%s%g", j ? " " : "", out[(i * nj + j) * nk]);
      std::printf("\n");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
