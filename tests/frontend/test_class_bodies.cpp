// Class bodies at module level: plain classes as namespaces of constants (later attributes
// computed from earlier ones), Enum subclasses with auto() and expression values, methods and
// properties ignored.
#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

TEST_CASE("classes: attributes see earlier ones and are usable as constants", "[loader][classes]") {
  std::string src = kPrelude +
                    "import enum\n"                                            // 11
                    "class Consts:\n"                                          // 12
                    "    '''doc'''\n"                                          // 13
                    "    A = 2.0\n"                                            // 14
                    "    B = A * 0.25\n"                                       // 15
                    "    C: float = B + A\n"                                   // 16
                    "    @property\n"                                          // 17
                    "    def twice(self):\n"                                   // 18
                    "        return [self.A for _ in range(2)]\n"              // 19
                    "class Mode(enum.IntEnum):\n"                              // 20
                    "    FIRST = enum.auto()\n"                                // 21
                    "    SECOND = enum.auto()\n"                               // 22
                    "    BIG = 1 << 4\n"                                       // 23
                    "    AFTER = enum.auto()\n"                                // 24
                    "    def label(self):\n"                                   // 25
                    "        return self.name\n"                               // 26
                    "D = Consts.B * 4\n"                                       // 27
                    "@gtx.field_operator\n"                                    // 28
                    "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 29
                    "    return a * Consts.B + Consts.C + D\n";                // 30
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_source(SourceFile("test.py", src));
  const EnumClass& consts = *m.names.at("Consts").enum_class;
  CHECK_FALSE(consts.is_enum);
  CHECK(consts.members.at("B").constant.float_value == 0.5);
  CHECK(consts.members.at("C").constant.float_value == 2.5);
  CHECK(consts.members.count("twice") == 0);
  const EnumClass& mode = *m.names.at("Mode").enum_class;
  CHECK(mode.is_enum);
  CHECK(mode.members.at("FIRST").constant.int_value == 1);
  CHECK(mode.members.at("SECOND").constant.int_value == 2);
  CHECK(mode.members.at("BIG").constant.int_value == 16);
  CHECK(mode.members.at("AFTER").constant.int_value == 17);
  CHECK(mode.members.count("label") == 0);
  CHECK(m.names.at("D").constant.float_value == 2.0);
  CHECK(check_text(src) == "field_operator f(a: Field[[I], float64]) -> Field[[I], float64]\n");
}

TEST_CASE("classes: a missing attribute is a located error", "[loader][classes]") {
  std::string src = kPrelude +
                    "class Consts:\n"                                          // 11
                    "    A = 2.0\n"                                            // 12
                    "@gtx.field_operator\n"                                    // 13
                    "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 14
                    "    return a * Consts.Z\n";                               // 15
  expect_error([&] { check_text(src); }, 15, 23, "class 'Consts' has no attribute 'Z'");
  // An attribute that fails to evaluate is an error where it is used, naming its definition.
  std::string bad = kPrelude +
                    "class Consts:\n"                                          // 11
                    "    A = undefined_name * 2\n"                             // 12
                    "@gtx.field_operator\n"                                    // 13
                    "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 14
                    "    return a * Consts.A\n";                               // 15
  std::string what = expect_error([&] { check_text(bad); }, 15, 23, "'Consts.A' cannot be used");
  CHECK_THAT(what, Catch::Matchers::Contains("unknown name 'undefined_name'"));
}

TEST_CASE("classes: NamedTuple and dataclass collections of fields", "[loader][classes]") {
  std::string src = kPrelude + "Ioff = gtx.FieldOffset('Ioff', source=I, target=(I,))\n" +
                    "from typing import NamedTuple\n"                                                   // 11
                    "import dataclasses\n"                                                              // 12
                    "class State(NamedTuple):\n"                                                        // 13
                    "    u: Field[[I], float64]\n"                                                      // 14
                    "    n: int32\n"                                                                    // 15
                    "@dataclasses.dataclass(frozen=True)\n"                                             // 16
                    "class Pair:\n"                                                                     // 17
                    "    a: Field[[I], float64]\n"                                                      // 18
                    "    b: Field[[I], float64]\n"                                                      // 19
                    "@gtx.field_operator\n"                                                             // 20
                    "def f(s: State) -> Pair:\n"                                                        // 21
                    "    return Pair(s.u * astype(s.n, float64), b=s.u(Ioff[1]))\n"                     // 22
                    "@gtx.program\n"                                                                    // 23
                    "def p(u: Field[[I], float64], x: Field[[I], float64], y: Field[[I], float64]):\n"  // 24
                    "    f(State(u, 2), out=(x, y))\n";                                                 // 25
  CHECK(check_text(src) ==
        "field_operator f(s: State(u: Field[[I], float64], n: int32)) -> Pair(a: Field[[I], float64], b: "
        "Field[[I], float64])\n"
        "program p(u: Field[[I], float64], x: Field[[I], float64], y: Field[[I], float64])\n");
  std::string bad = src.substr(0, src.find("@gtx.field_operator")) +
                    "@gtx.field_operator\n"                      // 20
                    "def f(s: State) -> Field[[I], float64]:\n"  // 21
                    "    return s.w\n";                          // 22
  expect_error([&] { check_text(bad); }, 23, 14,
               "has no attribute 'w'");  // one line below the comments' count (Ioff)
  std::string wrong = src.substr(0, src.find("@gtx.field_operator")) +
                      "@gtx.field_operator\n"         // 20
                      "def f(s: State) -> Pair:\n"    // 21
                      "    return Pair(s.u, s.n)\n";  // 22
  expect_error([&] { check_text(wrong); }, 23, 22,
               "element 'b' of 'Pair' must be Field[[I], float64], got int32");
}
