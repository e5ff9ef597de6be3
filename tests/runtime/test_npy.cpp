// .npy reading and writing: round trips, NumPy-written files (format 1.0/2.0/3.0, every dtype),
// files NumPy reads back, and clear errors for broken files.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "corpus.h"
#include "runtime_test_util.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/npy.h"

namespace fs = std::filesystem;
using namespace weir::runtime;
using weir::ScalarType;

namespace {

Field iota(ScalarType t, std::vector<std::int64_t> shape) {
  Field f = Allocator::cpu().allocate(t, std::move(shape));
  auto* p = static_cast<unsigned char*>(f.data());
  for (std::size_t i = 0; i < f.nbytes(); ++i) p[i] = static_cast<unsigned char>(i * 7 + 3);
  if (t == ScalarType::Bool)
    for (std::int64_t i = 0; i < f.size(); ++i) p[i] = i % 3 == 0;
  return f;
}

bool same(const Field& a, const Field& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

std::string write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

const ScalarType kAll[] = {ScalarType::Float64, ScalarType::Float32, ScalarType::Int64,  ScalarType::Int32,
                           ScalarType::Int16,   ScalarType::Int8,    ScalarType::UInt64, ScalarType::UInt32,
                           ScalarType::UInt16,  ScalarType::UInt8,   ScalarType::Bool};

}  // namespace

TEST_CASE("npy: every dtype and shape round-trips through our writer and reader", "[runtime][npy]") {
  auto dir = weir::test::scratch_dir("npy-roundtrip");
  for (auto t : kAll) {
    for (auto shape : std::vector<std::vector<std::int64_t>>{{}, {0}, {5}, {3, 4}, {2, 3, 4}, {1, 1, 7}}) {
      INFO(weir::to_string(t) << " " << shape_str(shape));
      Field f = iota(t, shape);
      auto bytes = to_npy_bytes(f);
      // The data starts at a multiple of 64 bytes, as NumPy writes it.
      std::size_t hl = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
      CHECK((10 + hl) % 64 == 0);
      CHECK(same(parse_npy(bytes, "mem"), f));
      auto p = dir / "a.npy";
      write_npy(p, f);
      Field g = read_npy(p);
      CHECK(same(g, f));
      CHECK(reinterpret_cast<std::uintptr_t>(g.data()) % 64 == 0);
    }
  }
}

TEST_CASE("npy: reads every input and expected file of the DaCe corpus", "[runtime][npy][corpus]") {
  int n = 0;
  for (const char* kernel : {"laplace2d", "jacobi_2d", "hdiff"}) {
    for (const char* sub : {"inputs", "expected"}) {
      auto dir = weir::test::dace_corpus_dir() / kernel / sub;
      REQUIRE(fs::is_directory(dir));
      for (const auto& e : fs::directory_iterator(dir)) {
        INFO(e.path().string());
        Field f = read_npy(e.path());
        CHECK(f.dtype() == ScalarType::Float64);
        CHECK(f.ndim() >= 2);
        CHECK(f.size() > 0);
        ++n;
      }
    }
  }
  CHECK(n >= 9);
  // Spot check against what the corpus README says: hdiff in_field is (I+4, J+4, K) = (20, 20, 8).
  Field in = read_npy(weir::test::dace_corpus_dir() / "hdiff" / "inputs" / "in_field.npy");
  CHECK(in.shape() == std::vector<std::int64_t>{20, 20, 8});
  // Seeded uniform [0, 1).
  for (std::int64_t i = 0; i < in.size(); ++i) {
    double v = in.value_as_double(i);
    REQUIRE((v >= 0.0 && v < 1.0));
  }
}

TEST_CASE("npy: files NumPy writes (formats 1.0, 2.0, 3.0, all dtypes, big-endian) read correctly",
          "[runtime][npy][numpy]") {
  auto dir = weir::test::scratch_dir("npy-numpy-written");
  // Each file holds arange(n) in its dtype (mod 2 for bool) in a 2x3x2 or given shape.
  int rc = weir::test::run_python(dir, R"PY(
import numpy.lib.format as fmt
d = ')PY" + dir.string() + R"PY('
dtypes = ['<f8', '<f4', '<i8', '<i4', '<i2', '|i1', '<u8', '<u4', '<u2', '|u1', '|b1', '>f8', '>i4']
for dt in dtypes:
    a = (np.arange(12) % 2 if dt == '|b1' else np.arange(12)).astype(np.dtype(dt)).reshape(2, 3, 2)
    name = dt.replace('<', 'le_').replace('>', 'be_').replace('|', 'na_')
    np.save(d + '/' + name + '.npy', a)
for v in [(1, 0), (2, 0), (3, 0)]:
    with open(d + '/v%d.npy' % v[0], 'wb') as f:
        fmt.write_array(f, np.linspace(0.0, 1.0, 15).reshape(3, 5), version=v)
np.save(d + '/scalar.npy', np.float64(2.5))
np.save(d + '/empty.npy', np.zeros((0, 4), dtype=np.int32))
np.save(d + '/fortran.npy', np.asfortranarray(np.ones((3, 4))))
np.save(d + '/complex.npy', np.array([1 + 2j, -3.5j, 4], dtype=np.complex128))
np.save(d + '/complex_be.npy', np.array([1 + 2j, -3.5j, 4], dtype='>c16'))
np.save(d + '/complex64.npy', np.array([1 + 2j, -3.5j, 4], dtype=np.complex64))
np.save(d + '/dates.npy', np.array(['2020-01-01'], dtype='datetime64[D]'))
)PY");
  REQUIRE(rc == 0);
  struct Want {
    std::string file;
    ScalarType t;
  };
  for (const auto& w : std::vector<Want>{{"le_f8", ScalarType::Float64},
                                         {"le_f4", ScalarType::Float32},
                                         {"le_i8", ScalarType::Int64},
                                         {"le_i4", ScalarType::Int32},
                                         {"le_i2", ScalarType::Int16},
                                         {"na_i1", ScalarType::Int8},
                                         {"le_u8", ScalarType::UInt64},
                                         {"le_u4", ScalarType::UInt32},
                                         {"le_u2", ScalarType::UInt16},
                                         {"na_u1", ScalarType::UInt8},
                                         {"na_b1", ScalarType::Bool},
                                         {"be_f8", ScalarType::Float64},
                                         {"be_i4", ScalarType::Int32}}) {
    INFO(w.file);
    Field f = read_npy(dir / (w.file + ".npy"));
    CHECK(f.dtype() == w.t);
    CHECK(f.shape() == std::vector<std::int64_t>{2, 3, 2});
    for (std::int64_t i = 0; i < 12; ++i)
      CHECK(f.value_as_double(i) == (w.t == ScalarType::Bool ? i % 2 : i));
  }
  for (int v : {1, 2, 3}) {
    INFO("format version " << v);
    Field f = read_npy(dir / ("v" + std::to_string(v) + ".npy"));
    CHECK(f.shape() == std::vector<std::int64_t>{3, 5});
    CHECK(f.value_as_double(14) == 1.0);
    CHECK(f.value_as_double(7) == Approx(0.5));
  }
  Field s = read_npy(dir / "scalar.npy");
  CHECK(s.ndim() == 0);
  CHECK(s.value_as_double(0) == 2.5);
  Field e = read_npy(dir / "empty.npy");
  CHECK(e.shape() == std::vector<std::int64_t>{0, 4});
  CHECK_THROWS_WITH(
      read_npy(dir / "fortran.npy"),
      Catch::Contains("fortran.npy") && Catch::Contains("Fortran-order arrays are not supported"));
  // Complex numbers (npbench's mandelbrot1 returns complex128): real and imaginary parts in
  // the file's byte order each.
  for (const char* file : {"complex.npy", "complex_be.npy", "complex64.npy"}) {
    INFO(file);
    Field c = read_npy(dir / file);
    CHECK(c.shape() == std::vector<std::int64_t>{3});
    std::vector<double> parts;
    for (std::int64_t i = 0; i < 6; ++i) {
      if (c.dtype() == ScalarType::Complex128) {
        double v;
        std::memcpy(&v, static_cast<const char*>(c.data()) + i * 8, 8);
        parts.push_back(v);
      } else {
        REQUIRE(c.dtype() == ScalarType::Complex64);
        float v;
        std::memcpy(&v, static_cast<const char*>(c.data()) + i * 4, 4);
        parts.push_back(v);
      }
    }
    CHECK(parts == std::vector<double>{1, 2, 0, -3.5, 4, 0});
  }
  CHECK_THROWS_WITH(read_npy(dir / "dates.npy"),
                    Catch::Contains("dates.npy") && Catch::Contains("unsupported dtype '<M8[D]'"));
}

TEST_CASE("npy: NumPy reads what weir writes", "[runtime][npy][numpy]") {
  auto dir = weir::test::scratch_dir("npy-numpy-reads");
  for (auto t : kAll) {
    auto d = npy_descr(t);
    REQUIRE(d);
    Field f = Allocator::cpu().allocate(t, {3, 4});
    for (std::int64_t i = 0; i < f.size(); ++i) {
      auto* p = static_cast<unsigned char*>(f.data()) + i * f.itemsize();
      switch (t) {
        case ScalarType::Float64: {
          double v = i * 0.5;
          std::memcpy(p, &v, 8);
          break;
        }
        case ScalarType::Float32: {
          float v = static_cast<float>(i) * 0.5f;
          std::memcpy(p, &v, 4);
          break;
        }
        case ScalarType::Bool: *p = i % 2; break;
        default: std::memcpy(p, &i, f.itemsize()); break;  // little-endian low bytes
      }
    }
    write_npy(dir / (std::string(weir::to_string(t)) + ".npy"), f);
  }
  write_npy(dir / "zero_d.npy", Allocator::cpu().allocate(ScalarType::Int32, {}));
  int rc = weir::test::run_python(dir, R"PY(
d = ')PY" + dir.string() + R"PY('
ok = True
for name, scale in [('float64', .5), ('float32', .5), ('int64', 1), ('int32', 1), ('int16', 1), ('int8', 1),
                    ('uint64', 1), ('uint32', 1), ('uint16', 1), ('uint8', 1), ('bool', None)]:
    a = np.load(d + '/' + name + '.npy')
    want = (np.arange(12) % 2).astype(bool) if scale is None else np.arange(12) * scale
    if a.dtype != np.dtype(name if name != 'bool' else '?') or a.shape != (3, 4) or not np.array_equal(a.ravel(), want):
        print('mismatch', name, a.dtype, a.shape, a.ravel()); ok = False
z = np.load(d + '/zero_d.npy')
if z.shape != () or z.dtype != np.int32: print('zero_d', z.shape, z.dtype); ok = False
sys.exit(0 if ok else 1)
)PY");
  CHECK(rc == 0);
}

TEST_CASE("npy: broken files give errors that name the file", "[runtime][npy]") {
  auto dir = weir::test::scratch_dir("npy-broken");
  std::string good = to_npy_bytes(iota(ScalarType::Float64, {4, 4}));
  CHECK_THROWS_WITH(read_npy(dir / "missing.npy"),
                    Catch::EndsWith("missing.npy: cannot open: No such file or directory"));
  CHECK_THROWS_AS(read_npy(dir / "missing.npy"), NpyError);
  std::filesystem::create_directories(dir / "dir.npy");
  CHECK_THROWS_WITH(read_npy(dir / "dir.npy"), Catch::Contains("dir.npy: is a directory"));
  CHECK_THROWS_WITH(write_npy(dir / "dir.npy", iota(ScalarType::Float64, {2})),
                    Catch::Contains("dir.npy: cannot write: is a directory"));
  CHECK_THROWS_WITH(read_npy(write_bytes(dir / "empty.npy", "")), Catch::Contains("empty.npy: empty file"));
  CHECK_THROWS_WITH(read_npy(write_bytes(dir / "text.npy", "hello world, not numpy")),
                    Catch::Contains("text.npy: not a .npy file"));
  CHECK_THROWS_WITH(read_npy(write_bytes(dir / "trunc_data.npy", good.substr(0, good.size() - 8))),
                    Catch::Contains("trunc_data.npy: truncated") && Catch::Contains("needs 128 bytes"));
  CHECK_THROWS_WITH(read_npy(write_bytes(dir / "trunc_header.npy", good.substr(0, 40))),
                    Catch::Contains("trunc_header.npy: truncated"));
  CHECK_THROWS_WITH(read_npy(write_bytes(dir / "extra.npy", good + "xxxxxxxx")),
                    Catch::Contains("extra.npy: corrupt: 8 bytes after the data"));
  std::string bad_header = good;
  bad_header.replace(bad_header.find("'shape'"), 7, "'shapx'");
  CHECK_THROWS_WITH(read_npy(write_bytes(dir / "no_shape.npy", bad_header)),
                    Catch::Contains("no_shape.npy: corrupt .npy header: no 'shape' key"));
  std::string garbage = good;
  garbage.replace(garbage.find("(4, 4)"), 6, "(4, x)");
  CHECK_THROWS_WITH(read_npy(write_bytes(dir / "garbage.npy", garbage)),
                    Catch::Contains("garbage.npy: corrupt .npy header"));
  // Found by fuzz_npy (CI, stop 56): an extent 0 before extents whose product overflows passed
  // the size check and overflowed the strides. NumPy refuses this header ("array is too big").
  auto v1_file = [](const std::string& shape, const std::string& data) {  // NumPy's padding to 64
    std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
    dict.append(64 - (10 + dict.size() + 1) % 64, ' ');
    dict += '\n';
    return std::string("\x93NUMPY\x01\x00", 8) + char(dict.size() & 0xff) + char(dict.size() >> 8) + dict +
           data;
  };
  CHECK_THROWS_WITH(
      read_npy(write_bytes(dir / "empty_huge.npy", v1_file("(0, 888888888888888882, 3, 08)", ""))),
      Catch::Contains("empty_huge.npy: corrupt .npy header: shape (0, 888888888888888882, 3, 8) "
                      "has more bytes than any array"));
  CHECK(read_npy(write_bytes(dir / "empty_ok.npy", v1_file("(0, 99)", ""))).shape() ==
        std::vector<std::int64_t>{0, 99});
  CHECK(read_npy(write_bytes(dir / "v1_ok.npy", v1_file("(2,)", std::string(16, '\0')))).size() == 2);
  std::string v9 = good;
  v9[6] = 9;
  CHECK_THROWS_WITH(read_npy(write_bytes(dir / "v9.npy", v9)),
                    Catch::Contains("v9.npy: unsupported .npy format version 9.0"));
  CHECK_THROWS_WITH(write_npy(dir / "no_such_dir" / "x.npy", iota(ScalarType::Int32, {2})),
                    Catch::Contains("x.npy: cannot write"));
  // A format 2.0 header padded to 10,048 bytes (valid, but longer than NumPy's
  // max_header_size of 10,000, which NumPy also refuses), before the 128 data bytes.
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 4), }";
  dict.append(10048 - 12 - dict.size() - 1, ' ');
  dict += '\n';
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8);
  const auto len = static_cast<std::uint32_t>(dict.size());
  for (int i = 0; i < 4; ++i) v2 += static_cast<char>((len >> (8 * i)) & 0xff);
  v2 += dict + good.substr(good.size() - 128);
  CHECK_THROWS_WITH(
      read_npy(write_bytes(dir / "long_header.npy", v2)),
      Catch::Contains("long_header.npy: corrupt .npy header: 10036 bytes, more than the limit of "
                      "10000 (NumPy's max_header_size)"));
  // The same array with the header cut to NumPy's own padding reads.
  CHECK(read_npy(write_bytes(dir / "good.npy", good)).size() == 16);
}
