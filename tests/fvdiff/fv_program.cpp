#include "fv_program.h"

#include <algorithm>
#include <stdexcept>

#include "weir/mesh/triangular_mesh.h"

namespace weir::fvdiff {

std::string dtype_name(DType t) {
  switch (t) {
    case DType::Float64: return "float64";
    case DType::Int32: return "int32";
    case DType::Bool: return "bool";
  }
  return "?";
}

std::uint64_t program_stream(std::uint64_t seed, std::uint64_t number, std::uint64_t mul, std::uint64_t add) {
  std::uint64_t z = seed * mul + number + add;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool Box::empty() const {
  for (int d = 0; d < kNumDims; ++d)
    if (hi[d] <= lo[d]) return true;
  return false;
}

Box Box::shifted(const Index3& by) const {
  Box b = *this;
  for (int d = 0; d < kNumDims; ++d) b.lo[d] += by[d], b.hi[d] += by[d];
  return b;
}

Box Box::intersect(const Box& o) const {
  Box b;
  for (int d = 0; d < kNumDims; ++d) b.lo[d] = std::max(lo[d], o.lo[d]), b.hi[d] = std::min(hi[d], o.hi[d]);
  return b;
}

Index3 Box::extent() const {
  Index3 e{};
  for (int d = 0; d < kNumDims; ++d) e[d] = std::max<std::int64_t>(0, hi[d] - lo[d]);
  return e;
}

std::vector<Box> cond_parts(const Cond& c, const Box& box, bool truth) {
  // The condition as a union of half-open ranges along c.dim.
  constexpr std::int64_t inf = 1 << 30;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  const std::int64_t v = c.value;
  if (c.op == "==")
    ranges = truth ? decltype(ranges){{v, v + 1}} : decltype(ranges){{-inf, v}, {v + 1, inf}};
  else if (c.op == "<")
    ranges = {truth ? std::make_pair(-inf, v) : std::make_pair(v, inf)};
  else if (c.op == "<=")
    ranges = {truth ? std::make_pair(-inf, v + 1) : std::make_pair(v + 1, inf)};
  else if (c.op == ">")
    ranges = {truth ? std::make_pair(v + 1, inf) : std::make_pair(-inf, v + 1)};
  else if (c.op == ">=")
    ranges = {truth ? std::make_pair(v, inf) : std::make_pair(-inf, v)};
  else if (c.op == "in")
    ranges = truth ? decltype(ranges){{v, c.value2}} : decltype(ranges){{-inf, v}, {c.value2, inf}};
  else
    throw std::logic_error("cond op " + c.op);
  std::vector<Box> parts;
  for (auto [lo, hi] : ranges) {
    Box b = box;
    b.lo[c.dim] = std::max(b.lo[c.dim], lo);
    b.hi[c.dim] = std::min(b.hi[c.dim], hi);
    if (!b.empty()) parts.push_back(b);
  }
  return parts;
}

const Input& Universe::input(const std::string& name) const {
  for (const Input& i : inputs)
    if (i.name == name) return i;
  throw std::logic_error("no input " + name);
}

const Table& Universe::table(const std::string& name) const {
  for (const Table& t : tables)
    if (t.name == name) return t;
  throw std::logic_error("no table " + name);
}

const Universe& cartesian_universe() {
  static const Universe u = [] {
    Universe v;
    auto field = [&](std::string n, DType t, unsigned dims, double lo, double hi, bool nz = false) {
      v.inputs.push_back(Input{std::move(n), t, dims, lo, hi, nz, 0, ""});
    };
    field("a0", DType::Float64, kAllDims, -1, 1);
    field("a1", DType::Float64, kAllDims, -1, 1);
    field("a2", DType::Float64, kAllDims, -1, 1);
    field("p", DType::Float64, kAllDims, 0.5, 2);  // positive: bases of fractional powers, divisors
    field("s", DType::Float64, 3, -1, 1);          // over (I, J)
    field("kf", DType::Float64, 4, -1, 1);         // over (K)
    field("n0", DType::Int32, kAllDims, -20, 20);
    field("n1", DType::Int32, kAllDims, -20, 20);
    field("nz", DType::Int32, kAllDims, -7, 7, true);
    field("m0", DType::Bool, kAllDims, 0, 1);
    field("m1", DType::Bool, kAllDims, 0, 1);
    v.inputs.push_back(Input{"alpha", DType::Float64, 0, 0, 0, true, 0.75, ""});
    v.inputs.push_back(Input{"ni", DType::Int32, 0, 0, 0, true, 3, ""});
    v.inputs.push_back(Input{"e2", DType::Int32, 0, 0, 0, true, 2, ""});
    return v;
  }();
  return u;
}

const Universe& mesh_universe() {
  static const Universe u = [] {
    Universe v;
    v.unstructured = true;
    v.dim_names = {"Vertex", "Edge", "KDim"};
    const mesh::TriangularMesh m = mesh::make_triangular_mesh(3, 4);
    v.sizes = {m.num_vertices, m.num_edges, 5};
    auto table = [&](const mesh::Connectivity& c, std::string local, int from, int to) {
      v.tables.push_back(Table{c.name, std::move(local), from, to, c.rows, c.cols, c.data});
      return &v.tables.back();
    };
    Table* e2v = table(m.e2v, "E2VDim", 1, 0);
    // Missing neighbours: the last edge has no end vertex; every vertex lacks one of its last
    // two edges (so direct shifts V2E[0..3] are defined everywhere, V2E[4], V2E[5] are not).
    e2v->data[static_cast<std::size_t>((e2v->rows - 1) * e2v->cols + 1)] = -1;
    Table* v2e = table(m.v2e, "V2EDim", 0, 1);
    for (std::int64_t r = 0; r < v2e->rows; ++r)
      if (r % 3 != 2) v2e->data[static_cast<std::size_t>(r * v2e->cols + 4 + r % 3)] = -1;
    auto field = [&](std::string n, DType t, unsigned dims, double lo, double hi) {
      v.inputs.push_back(Input{std::move(n), t, dims, lo, hi, false, 0, ""});
    };
    field("v0", DType::Float64, 5, -1, 1);
    field("v1", DType::Float64, 5, -1, 1);
    field("e0", DType::Float64, 6, -1, 1);
    field("e1", DType::Float64, 6, -1, 1);
    v.inputs.push_back(Input{"w", DType::Float64, 1, -1, 1, false, 0, "V2EDim"});
    v.inputs.push_back(Input{"we", DType::Float64, 2, -1, 1, false, 0, "E2VDim"});
    v.inputs.push_back(Input{"alpha", DType::Float64, 0, 0, 0, true, 0.75, ""});
    return v;
  }();
  return u;
}

}  // namespace weir::fvdiff
