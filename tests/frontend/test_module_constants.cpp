// Module-level constants a climate model computes at import: math and sys, class constants
// built from each other, enums holding computed values, plain helper functions called at module
// level, NumPy's scalar types, and constants imported from another module. Each value is the
// double Debian's CPython 3.11 gives (its repr and float.hex() written here, checked bit for
// bit); what CPython refuses, or weir does not evaluate, is a located error naming it.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

const ConstantValue& constant(const LoadedModule& m, const std::string& name) {
  INFO(name);
  const Value& v = m.names.at(name);
  if (v.kind == ValueKind::Failed) FAIL(name << " failed: " << v.error);
  REQUIRE(v.kind == ValueKind::Constant);
  return v.constant;
}

double number(const LoadedModule& m, const std::string& name) {
  const ConstantValue& c = constant(m, name);
  CHECK(c.kind == ConstantValue::Kind::Float);
  return c.float_value;
}

std::int64_t integer(const LoadedModule& m, const std::string& name) {
  const ConstantValue& c = constant(m, name);
  CHECK(c.kind == ConstantValue::Kind::Int);
  return c.int_value;
}

const LoadedModule& load(ModuleLoader& loader, const std::string& text) {
  return loader.load_source(SourceFile("test.py", text));
}

}  // namespace

TEST_CASE("module constants: math and sys give CPython's doubles", "[loader][constants]") {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = load(loader,
                               "import math\n"
                               "import sys\n"
                               "from math import pi, gamma as g\n"
                               "from sys import float_info\n"
                               "GAMMA_HALF = math.gamma(0.5)\n"
                               "GAMMA_5_5 = g(5.5)\n"
                               "GAMMA_NEG = math.gamma(-2.5)\n"
                               "LGAMMA = math.lgamma(10.3)\n"
                               "LOG10_2 = math.log(2.0, 10)\n"
                               "LOG_1000_10 = math.log(1000, 10)\n"
                               "LOG10_1000 = math.log10(1000)\n"
                               "TINY = math.exp(-30.0)\n"
                               "EPS = sys.float_info.epsilon\n"
                               "EPS2 = float_info.epsilon\n"
                               "AREA = 4.0 * pi * 6.371e6**2 / 20480.0\n"
                               "ERF = math.erf(0.3)\n"
                               "CBRT = math.cbrt(10.0)\n"
                               "DEG = math.degrees(1.0)\n"
                               "FLOOR = math.floor(-2.5)\n"
                               "FACT = math.factorial(20)\n"
                               "MAXSIZE = sys.maxsize\n"
                               "MANT = sys.float_info.mant_dig\n");
  CHECK(number(m, "GAMMA_HALF") == 0x1.c5bf891b4ef6ap+0);   // 1.7724538509055159
  CHECK(number(m, "GAMMA_5_5") == 0x1.a2be0247739f2p+5);    // 52.34277778455352
  CHECK(number(m, "GAMMA_NEG") == -0x1.e3ff812e32181p-1);   // -0.9453087204829417
  CHECK(number(m, "LGAMMA") == 0x1.af6cd868fddcdp+3);       // 13.48203678613836
  CHECK(number(m, "LOG10_2") == 0x1.34413509f79fep-2);      // 0.30102999566398114
  CHECK(number(m, "LOG_1000_10") == 0x1.7ffffffffffffp+1);  // 2.9999999999999996: log(x) / log(b)
  CHECK(number(m, "LOG10_1000") == 3.0);
  CHECK(number(m, "TINY") == 0x1.a56e0c2ac7f75p-44);  // 9.357622968840175e-14
  CHECK(number(m, "EPS") == 0x1p-52);
  CHECK(number(m, "EPS2") == 0x1p-52);
  CHECK(number(m, "AREA") == 0x1.731ee9541e16ap+34);  // 24905491792.47013
  CHECK(number(m, "ERF") == 0x1.50838881dea0fp-2);    // 0.3286267594591274
  CHECK(number(m, "CBRT") == 0x1.13c484138704ep+1);   // 2.1544346900318834
  CHECK(number(m, "DEG") == 0x1.ca5dc1a63c1f8p+5);    // 57.29577951308232
  CHECK(integer(m, "FLOOR") == -3);
  CHECK(integer(m, "FACT") == 2432902008176640000);
  CHECK(integer(m, "MAXSIZE") == 9223372036854775807);
  CHECK(integer(m, "MANT") == 53);
}

TEST_CASE("module constants: float operators, builtins and comparisons as Python's", "[loader][constants]") {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = load(loader,
                               "FD = -7.5 // 2.0\n"
                               "FM = -7.5 % 2.0\n"
                               "FM2 = 7.5 % -2.0\n"
                               "NEG_POW = 2 ** -3\n"
                               "POW = 1.5 ** 2.5\n"
                               "ODD = (-2.0) ** 3\n"
                               "ROUND = round(2.5)\n"
                               "ROUND2 = round(-3.5)\n"
                               "MAX = max(1, 2.5, 2)\n"
                               "MIN = min((3, 1, 2))\n"
                               "ABS = abs(-7)\n"
                               "TDIV = 7 / 2\n"
                               "CMP = 1 < 2.5 <= 2.5\n"
                               "EQ = 3 == 3.0\n"
                               "IN = 2 in (1, 2, 3)\n"
                               "OR = 0 or 4.5\n"
                               "AND = 1 and 0\n"
                               "PICK = 1.0 if 2 > 3 else 2.0\n");
  CHECK(number(m, "FD") == -4.0);
  CHECK(number(m, "FM") == 0.5);
  CHECK(number(m, "FM2") == -0.5);
  CHECK(number(m, "NEG_POW") == 0.125);
  CHECK(number(m, "POW") == 0x1.60b9fd68a4554p+1);  // 2.7556759606310752
  CHECK(number(m, "ODD") == -8.0);
  CHECK(integer(m, "ROUND") == 2);  // half to even
  CHECK(integer(m, "ROUND2") == -4);
  CHECK(number(m, "MAX") == 2.5);
  CHECK(integer(m, "MIN") == 1);
  CHECK(integer(m, "ABS") == 7);
  CHECK(number(m, "TDIV") == 3.5);
  CHECK(constant(m, "CMP").bool_value);
  CHECK(constant(m, "EQ").bool_value);
  CHECK(constant(m, "IN").bool_value);
  CHECK(number(m, "OR") == 4.5);
  CHECK(integer(m, "AND") == 0);
  CHECK(number(m, "PICK") == 2.0);
}

TEST_CASE("module constants: class constants, enums and helpers in a model's style", "[loader][constants]") {
  std::string src =
      kPrelude +
      "import enum\n"                                                      // 11
      "import math\n"                                                      // 12
      "import numpy as np\n"                                               // 13
      "from numpy import int32 as np_int32\n"                              // 14
      "class PhysicsConstants:\n"                                          // 15
      "    rd = 287.04\n"                                                  // 16
      "    cpd = 1004.64\n"                                                // 17
      "    cvd = cpd - rd\n"                                               // 18
      "    rd_o_cvd = rd / cvd\n"                                          // 19
      "    rd_o_cpd = rd / cpd\n"                                          // 20
      "class Coeffs(enum.Enum):\n"                                         // 21
      "    A = math.exp(0.5)\n"                                            // 22
      "    B = 2.0 * math.sqrt(3.0)\n"                                     // 23
      "class Level(enum.IntEnum):\n"                                       // 24
      "    TOP = 0\n"                                                      // 25
      "    SURFACE = 3\n"                                                  // 26
      "KHalf = gtx.Dimension('KHalf', kind=gtx.DimensionKind.VERTICAL)\n"  // 27
      "def staggered(dim):\n"                                              // 28
      "    '''The half-level partner of a vertical dimension.'''\n"        // 29
      "    if dim == K:\n"                                                 // 30
      "        return KHalf\n"                                             // 31
      "    elif dim is KHalf:\n"                                           // 32
      "        return K\n"                                                 // 33
      "    return dim\n"                                                   // 34
      "def saturation(t, scale=1.0, *, offset=0.0):\n"                     // 35
      "    a, b = 17.62, 243.12\n"                                         // 36
      "    x = a * (t - 273.15)\n"                                         // 37
      "    x /= b + (t - 273.15)\n"                                        // 38
      "    return scale * 611.2 * math.exp(x) + offset\n"                  // 39
      "K_PARTNER = staggered(K)\n"                                         // 40
      "I_PARTNER = staggered(dim=I)\n"                                     // 41
      "ES = saturation(300.0, offset=1.0)\n"                               // 42
      "@gtx.field_operator\n"                                              // 43
      "def f(t: Field[[I, K_PARTNER], np.float64], n: np_int32) -> Field[[I, KHalf], float64]:\n"
      "    return t * PhysicsConstants.rd_o_cpd + Coeffs.A.value + astype(n + Level.SURFACE, float64)\n";
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = load(loader, src);
  const EnumClass& pc = *m.names.at("PhysicsConstants").enum_class;
  CHECK(pc.members.at("cvd").constant.float_value == 0x1.66cccccccccccp+9);       // 717.5999999999999
  CHECK(pc.members.at("rd_o_cvd").constant.float_value == 0x1.999999999999bp-2);  // 0.4000000000000001
  const EnumClass& co = *m.names.at("Coeffs").enum_class;
  CHECK(co.members.at("A").constant.float_value == 0x1.a61298e1e069cp+0);  // 1.6487212707001282
  CHECK(co.members.at("B").constant.float_value == 0x1.bb67ae8584caap+1);  // 3.4641016151377544
  CHECK(m.names.at("K_PARTNER").dim.name == "KHalf");
  CHECK(m.names.at("I_PARTNER").dim.name == "I");
  CHECK(number(m, "ES") == 0x1.b8d5ec9eec489p+11);  // 3526.685134374133
  CHECK(check_text(src) ==
        "field_operator f(t: Field[[I, KHalf], float64], n: int32) -> Field[[I, KHalf], float64]\n");
}

TEST_CASE("module constants: constants imported from another module of the package", "[loader][constants]") {
  TempDir d("consts");
  d.write("model/__init__.py", "");
  d.write("model/constants.py",
          "import math\n"
          "class PhysicsConstants:\n"
          "    grav = 9.80665\n"
          "    rgrav = 1.0 / grav\n"
          "EPS = math.sqrt(2.0) * 1e-10\n");
  d.write("model/stencil.py",
          "from .constants import PhysicsConstants, EPS\n"
          "from . import constants as c\n"
          "G2 = PhysicsConstants.rgrav * 2.0\n"
          "E2 = c.EPS + EPS\n");
  ModuleLoader loader(LoaderOptions{{d.str()}, false});
  const LoadedModule& m = loader.load_file(d.str("model/stencil.py"));
  CHECK(number(m, "G2") == 0x1.a1acfea981812p-3);   // 0.20394324259558566
  CHECK(number(m, "E2") == 0x1.36fd255a2213cp-32);  // 2 * sqrt(2) * 1e-10
}

TEST_CASE("module constants: what CPython refuses is a located error where the constant is used",
          "[loader][constants]") {
  auto use = [](const std::string& decl) {
    return kPrelude + "import math\nimport sys\n" + decl +  // 11, 12, 13
           "\n@gtx.field_operator\n"                        // 14
           "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"
           "    return a * X\n";  // 16
  };
  struct Case {
    const char* decl;
    const char* message;
  };
  const Case cases[] = {
      {"X = math.gamma(0.0)", "cannot evaluate 'math.gamma(0.0)': ValueError: math domain error"},
      {"X = math.exp(1000.0)", "cannot evaluate 'math.exp(1000.0)': OverflowError: math range error"},
      {"X = math.log(0)", "ValueError: math domain error"},
      {"X = math.log(8.0, 1.0)", "ZeroDivisionError: float division by zero"},
      {"X = (-8.0) ** (1.0 / 3.0)", "a negative number to a fractional power is a complex number in Python"},
      {"X = 0.0 ** -1", "ZeroDivisionError: 0.0 cannot be raised to a negative power"},
      {"X = 5.0 // 0.0", "ZeroDivisionError: float floor division by zero"},
      {"X = 2 ** 62 * 4", "does not fit in int64"},
      {"X = 2 ** 60 / 3", "an int beyond 2**53 in a float operation"},
      {"X = math.hypot(3.0, 4.0)", "not 'math.hypot'"},
      {"X = sys.path", "not 'sys.path'"},
      {"X = round(2.5, 1)", "weir evaluates round(x), not round(x, ndigits)"},
  };
  for (const Case& c : cases) {
    INFO(c.decl);
    std::string what = expect_error([&] { check_text(use(c.decl)); }, 16, 16, "'X' cannot be used");
    CHECK_THAT(what, Catch::Matchers::Contains(c.message));
    CHECK_THAT(what, Catch::Matchers::Contains("in its definition at test.py:13:"));
  }
}

TEST_CASE("module constants: a helper weir cannot run is a located error naming the statement",
          "[loader][constants]") {
  std::string src = kPrelude +
                    "def total(n):\n"                                          // 11
                    "    s = 0\n"                                              // 12
                    "    for i in range(n):\n"                                 // 13
                    "        s += i\n"                                         // 14
                    "    return s\n"                                           // 15
                    "def forever(n):\n"                                        // 16
                    "    return forever(n + 1)\n"                              // 17
                    "def nothing(n):\n"                                        // 18
                    "    pass\n"                                               // 19
                    "X = total(4)\n"                                           // 20
                    "Y = forever(0)\n"                                         // 21
                    "Z = nothing(0)\n"                                         // 22
                    "W = total(1, 2)\n"                                        // 23
                    "@gtx.field_operator\n"                                    // 24
                    "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 25
                    "    return a * X\n"                                       // 26
                    "@gtx.field_operator\n"                                    // 27
                    "def g(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 28
                    "    return a * Y\n"                                       // 29
                    "@gtx.field_operator\n"                                    // 30
                    "def h(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 31
                    "    return a * Z\n"                                       // 32
                    "@gtx.field_operator\n"                                    // 33
                    "def k(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 34
                    "    return a * W\n";                                      // 35
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = load(loader, src);
  CHECK(m.names.at("X").error ==
        "cannot evaluate the plain function 'total' at module level: its body is not parsed: unsupported "
        "statement "
        "'for' (weir runs assignments, if statements and returns)");
  CHECK(m.names.at("X").defined_at.line == 12);
  CHECK_THAT(m.names.at("Y").error, Catch::Matchers::Contains("calls nested more than 64 deep"));
  CHECK_THAT(m.names.at("Z").error, Catch::Matchers::Contains("'nothing' ends without returning a value"));
  CHECK(m.names.at("Z").defined_at.line == 22);
  CHECK_THAT(m.names.at("W").error,
             Catch::Matchers::Contains("'total' takes 1 positional argument(s), 2 given"));
  TypeChecker checker;
  ModuleCheck r = checker.check_all(m);
  CHECK(r.failed == 4);
  REQUIRE(r.errors.size() == 4);
  CHECK(r.errors[0].location().line == 26);
}

TEST_CASE("module constants: math on a field in a field operator names gt4py's function",
          "[loader][constants]") {
  std::string src = kPrelude +
                    "import math\n"                                            // 11
                    "@gtx.field_operator\n"                                    // 12
                    "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"  // 13
                    "    return math.sqrt(a)\n";                               // 14
  expect_error([&] { check_text(src); }, 14, 12,
               "'math.sqrt' is Python's math function, which a field_operator cannot call: use gt4py.next's "
               "(from gt4py.next import sqrt)");
}

TEST_CASE("module constants: gamma, lgamma and float operators equal CPython's on random arguments",
          "[loader][constants]") {
  // Debian's python3 evaluates each expression (float.hex of the result, or the exception's
  // name); weir loads the same expressions as module-level constants.
  TempDir d("pymath");
  std::string script =
      "import math, random\n"
      "random.seed(34)\n"
      "exprs = []\n"
      "for _ in range(300):\n"
      "    x = random.uniform(-60.0, 60.0)\n"
      "    exprs += [f'math.gamma({x!r})', f'math.lgamma({x!r})']\n"
      "for x in [0.5, 1.5, -0.5, -2.5, 1e-25, -1e-25, 23.0, 24.0, 171.5, 172.0, -171.5, -250.5, 0.0, -3.0]:\n"
      "    exprs += [f'math.gamma({x!r})', f'math.lgamma({x!r})']\n"
      "specials = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, -3.0, 7.5, -7.5, 1e308]\n"
      "for _ in range(600):\n"
      "    x = random.choice(specials) if random.random() < 0.3 else random.uniform(-50.0, 50.0)\n"
      "    y = random.choice(specials) if random.random() < 0.3 else float(random.randint(-5, 5)) if "
      "random.random() < 0.3 else random.uniform(-10.0, 10.0)\n"
      "    exprs.append(f'({x!r}) {random.choice([\"**\", \"//\", \"%\", \"/\"])} ({y!r})')\n"
      "with open('cases.txt', 'w') as f:\n"
      "    for e in exprs:\n"
      "        try:\n"
      "            v = eval(e)\n"
      "            out = 'error:complex' if isinstance(v, complex) else float(v).hex()\n"
      "        except Exception as ex:\n"
      "            out = 'error:' + type(ex).__name__\n"
      "        f.write(e + '\\t' + out + '\\n')\n";
  d.write("gen.py", script);
  REQUIRE(std::system(("cd '" + d.str() + "' && /usr/bin/python3 gen.py").c_str()) == 0);
  std::ifstream in(d.str("cases.txt"));
  std::vector<std::pair<std::string, std::string>> cases;
  std::string module = "import math\n";
  for (std::string line; std::getline(in, line);) {
    auto tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    cases.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    module += "C" + std::to_string(cases.size() - 1) + " = " + cases.back().first + "\n";
  }
  REQUIRE(cases.size() > 900);
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = load(loader, module);
  int mismatches = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [expr, want] = cases[i];
    const Value& v = m.names.at("C" + std::to_string(i));
    bool ok = false;
    if (want.rfind("error:", 0) == 0) {
      ok = v.kind == ValueKind::Failed && v.error.find(want.substr(6)) != std::string::npos;
    } else if (v.kind == ValueKind::Constant && v.constant.kind == ConstantValue::Kind::Float) {
      double w = std::strtod(want.c_str(), nullptr), g = v.constant.float_value;
      ok = (std::isnan(w) && std::isnan(g)) || std::memcmp(&w, &g, sizeof w) == 0;  // sign of zero too
    }
    if (!ok && ++mismatches <= 10)
      FAIL_CHECK(expr << ": CPython " << want << ", weir "
                      << (v.kind == ValueKind::Failed ? v.error : v.describe()));
  }
  CHECK(mismatches == 0);
}
