// The shared test library (weir_test_main) only compiles tests/support/corpus.cpp; this suite
// compiles the .npy test reader itself.
#include "../support/npy_test.cpp"  // NOLINT(bugprone-suspicious-include)
