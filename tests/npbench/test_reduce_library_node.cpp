// DaCe's Reduce library node as DaCe writes it (classpath dace.libraries.standard.nodes.reduce.
// Reduce, wcr `(lambda x, y: (x + y))` and the like, `identity` as a JSON string, `axes` absent
// for all): every reduction DaCe's NumPy frontend writes (sum, product, max, min), over all axes,
// one, several and the last of three, with and without an identity (without one the reduction
// accumulates into the output's values), and an output edge without a connector. Each against
// NumPy at sizes 7x5x3, 1x1x1 and 2x9x4.
#include <catch2/catch.hpp>

#include "library_case.h"

using namespace weir;
using test::check_library_case;
using test::LibraryCase;

namespace {

LibraryCase reduce(LibraryCase c) {
  c.library = "standard";
  c.cls = "reduce.Reduce";
  return c;
}

const char* kSum = "(lambda x, y: (x + y))";
const char* kProd = "(lambda x, y: (x * y))";
const char* kMax = "(lambda x, y: max(x, y))";
const char* kMin = "(lambda x, y: min(x, y))";

}  // namespace

TEST_CASE("reduce: sum over all axes (axes absent) into one element matches NumPy", "[reduce][npbench]") {
  check_library_case(reduce({"sum_all",
                             "",
                             {{"A", {"M", "K"}}, {"r", {"1"}}},
                             {{"_in", "A", "0:M, 0:K"}},
                             {{"_out", "r", "0"}},
                             {{"wcr", kSum}, {"identity", "0"}},
                             "expected['r'] = np.array([inputs['A'].sum()])"}),
                     "");
}

TEST_CASE("reduce: sum over axis 0 and product over axis 1 match NumPy", "[reduce][npbench]") {
  check_library_case(reduce({"sum_axis0",
                             "",
                             {{"A", {"M", "K"}}, {"s", {"K"}}},
                             {{"_in", "A", "0:M, 0:K"}},
                             {{"_out", "s", "0:K"}},
                             {{"wcr", kSum}, {"identity", "0"}, {"axes", "[0]"}},
                             "expected['s'] = inputs['A'].sum(axis=0)"}),
                     "");
  check_library_case(reduce({"prod_axis1",
                             "",
                             {{"A", {"M", "K"}}, {"p", {"M"}}},
                             {{"_in", "A", "0:M, 0:K"}},
                             {{"_out", "p", "0:M"}},
                             {{"wcr", kProd}, {"identity", "1"}, {"axes", "[1]"}},
                             "expected['p'] = inputs['A'].prod(axis=1)"}),
                     "");
}

TEST_CASE("reduce: max over axes [0, 2] and min over all of a 3-D array match NumPy", "[reduce][npbench]") {
  check_library_case(reduce({"max_axes02",
                             "",
                             {{"A", {"M", "K", "N"}}, {"m", {"K"}}},
                             {{"_in", "A", "0:M, 0:K, 0:N"}},
                             {{"_out", "m", "0:K"}},
                             {{"wcr", kMax}, {"identity", "-1.7976931348623157e+308"}, {"axes", "[0, 2]"}},
                             "expected['m'] = inputs['A'].max(axis=(0, 2))"}),
                     "");
  check_library_case(reduce({"min_all",
                             "",
                             {{"A", {"M", "K", "N"}}, {"m", {"1"}}},
                             {{"_in", "A", "0:M, 0:K, 0:N"}},
                             {{"_out", "m", "0"}},
                             {{"wcr", kMin}, {"identity", "1.7976931348623157e+308"}},
                             "expected['m'] = np.array([inputs['A'].min()])"}),
                     "");
}

TEST_CASE("reduce: the last axis of a sub-block matches NumPy", "[reduce][npbench]") {
  check_library_case(reduce({"sum_block_last",
                             "",
                             {{"A", {"M + 1", "K", "N + 2"}}, {"s", {"M", "K"}}},
                             {{"_in", "A", "1:M + 1, 0:K, 2:N + 2"}},
                             {{"_out", "s", "0:M, 0:K"}},
                             {{"wcr", kSum}, {"identity", "0"}, {"axes", "[2]"}},
                             "expected['s'] = inputs['A'][1:, :, 2:].sum(axis=2)"}),
                     "");
}

TEST_CASE("reduce: without an identity the reduction accumulates into the output", "[reduce][npbench]") {
  check_library_case(reduce({"sum_no_identity",
                             "",
                             {{"A", {"M", "K"}}, {"C", {"K"}}},
                             {{"_in", "A", "0:M, 0:K"}},
                             {{"_out", "C", "0:K"}},
                             {{"wcr", kSum}, {"axes", "[0]"}},
                             "expected['C'] = inputs['C'] + inputs['A'].sum(axis=0)"}),
                     "");
  check_library_case(reduce({"max_no_identity",
                             "",
                             {{"A", {"M", "K"}}, {"C", {"M"}}},
                             {{"_in", "A", "0:M, 0:K"}},
                             {{"_out", "C", "0:M"}},
                             {{"wcr", kMax}, {"axes", "[1]"}},
                             "expected['C'] = np.maximum(inputs['C'], inputs['A'].max(axis=1))"}),
                     "");
}

TEST_CASE("reduce: edges without connectors, as DaCe writes them, match NumPy", "[reduce][npbench]") {
  check_library_case(reduce({"sum_no_connectors",
                             "",
                             {{"A", {"M", "K"}}, {"s", {"M"}}},
                             {{"", "A", "0:M, 0:K"}},
                             {{"", "s", "0:M"}},
                             {{"wcr", kSum}, {"identity", "0"}, {"axes", "[1]"}},
                             "expected['s'] = inputs['A'].sum(axis=1)"}),
                     "");
}
