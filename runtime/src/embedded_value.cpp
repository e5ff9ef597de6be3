#include "embedded_value.h"

#include <algorithm>
#include <cmath>

namespace weir::runtime::embedded {

std::string Range::str() const {
  if (is_unbounded()) return "unbounded";
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + ")";
}

FieldVal FieldVal::allocate(ScalarKind dtype, std::vector<Dimension> dims, std::vector<Range> ranges,
                            bool with_valid) {
  FieldVal f;
  f.dtype = dtype;
  f.dims = std::move(dims);
  f.ranges = std::move(ranges);
  f.strides.assign(f.dims.size(), 0);
  std::int64_t n = 1;
  for (std::size_t d = f.dims.size(); d-- > 0;) {
    if (f.ranges[d].is_unbounded()) continue;
    f.strides[d] = n;
    n *= f.ranges[d].size();
  }
  f.data = std::make_shared<std::vector<Num>>(static_cast<std::size_t>(n), Num{0.0});
  if (with_valid)
    f.valid = std::make_shared<std::vector<std::uint32_t>>(static_cast<std::size_t>(n), kDefined);
  return f;
}

FieldVal FieldVal::scalar(ScalarKind dtype, Num v) {
  FieldVal f = allocate(dtype, {}, {});
  (*f.data)[0] = v;
  return f;
}

int FieldVal::find(const Dimension& d) const {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == d) return static_cast<int>(i);
  return -1;
}

std::int64_t FieldVal::offset(const std::vector<std::int64_t>& idx) const {
  std::int64_t off = base;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (strides[d]) off += (idx[d] - ranges[d].lo) * strides[d];
  return off;
}

std::string FieldVal::describe() const {
  std::string s(frontend::to_string(dtype));
  if (dims.empty()) return s + " scalar";
  s += " over (";
  for (std::size_t d = 0; d < dims.size(); ++d) s += (d ? ", " : "") + dims[d].name + ": " + ranges[d].str();
  return s + ")";
}

NumClass num_class(ScalarKind k) {
  if (k == ScalarKind::Bool) return NumClass::Bool;
  if (frontend::is_floating(k)) return NumClass::Float;
  switch (k) {
    case ScalarKind::UInt8:
    case ScalarKind::UInt16:
    case ScalarKind::UInt32:
    case ScalarKind::UInt64: return NumClass::Unsigned;
    default: return NumClass::Signed;
  }
}

Num normalize(ScalarKind k, Num v) {
  switch (k) {
    case ScalarKind::Bool: v.i = v.i != 0; break;
    case ScalarKind::Int8: v.i = static_cast<std::int8_t>(v.i); break;
    case ScalarKind::Int16: v.i = static_cast<std::int16_t>(v.i); break;
    case ScalarKind::Int32: v.i = static_cast<std::int32_t>(v.i); break;
    case ScalarKind::UInt8: v.u = static_cast<std::uint8_t>(v.u); break;
    case ScalarKind::UInt16: v.u = static_cast<std::uint16_t>(v.u); break;
    case ScalarKind::UInt32: v.u = static_cast<std::uint32_t>(v.u); break;
    case ScalarKind::Float32: v.f = static_cast<float>(v.f); break;
    default: break;
  }
  return v;
}

namespace {

// NumPy's conversion of a float to int32/int64 on x86 (cvttsd2si): truncation toward zero, the
// type's minimum for NaN, +-inf and values outside the range (codegen prelude: weir_f2i32/64).
std::int32_t f2i32(double x) {
  return x > -2147483649.0 && x < 2147483648.0 ? static_cast<std::int32_t>(x) : INT32_MIN;
}
std::int64_t f2i64(double x) {
  return x >= -9223372036854775808.0 && x < 9223372036854775808.0 ? static_cast<std::int64_t>(x) : INT64_MIN;
}

}  // namespace

std::uint64_t float_to_int_bits(ScalarKind k, double x) {
  switch (k) {
    case ScalarKind::Int64: return static_cast<std::uint64_t>(f2i64(x));
    case ScalarKind::UInt64:
      if (x >= 9223372036854775808.0)
        return static_cast<std::uint64_t>(f2i64(x - 9223372036854775808.0)) ^ (std::uint64_t{1} << 63);
      return static_cast<std::uint64_t>(f2i64(x));
    case ScalarKind::UInt32:
      if (x >= 2147483648.0)
        return static_cast<std::uint32_t>(f2i32(x - 2147483648.0)) ^ std::uint32_t{0x80000000u};
      return static_cast<std::uint32_t>(f2i32(x));
    default:  // int32, and int8/int16/uint8/uint16 wrapped from the int32 value by normalize()
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(f2i32(x)));
  }
}

Num from_double(ScalarKind k, double d) {
  Num v{0.0};
  switch (num_class(k)) {
    case NumClass::Float: v.f = d; break;
    case NumClass::Unsigned: v.u = float_to_int_bits(k, d); break;
    case NumClass::Bool: v.i = d != 0; break;
    case NumClass::Signed: v.i = static_cast<std::int64_t>(float_to_int_bits(k, d)); break;
  }
  return normalize(k, v);
}

Num from_int(ScalarKind k, std::int64_t i) {
  Num v{0.0};
  switch (num_class(k)) {
    case NumClass::Float: v.f = static_cast<double>(i); break;
    case NumClass::Unsigned: v.u = static_cast<std::uint64_t>(i); break;
    default: v.i = i; break;
  }
  return normalize(k, v);
}

double to_double(ScalarKind k, Num v) {
  switch (num_class(k)) {
    case NumClass::Float: return v.f;
    case NumClass::Unsigned: return static_cast<double>(v.u);
    default: return static_cast<double>(v.i);
  }
}

Num convert(ScalarKind from, ScalarKind to, Num v) {
  NumClass a = num_class(from), b = num_class(to);
  if (b == NumClass::Bool) {
    Num r{0.0};
    r.i = truthy(from, v);
    return r;
  }
  if (a == NumClass::Float) return from_double(to, v.f);
  if (a == NumClass::Unsigned) {
    if (b == NumClass::Float) return from_double(to, static_cast<double>(v.u));
    Num r{0.0};
    r.u = v.u;
    return normalize(to, r);
  }
  return from_int(to, v.i);
}

bool truthy(ScalarKind k, Num v) {
  switch (num_class(k)) {
    case NumClass::Float: return v.f != 0;
    case NumClass::Unsigned: return v.u != 0;
    default: return v.i != 0;
  }
}

void flatten(const Value& v, std::vector<const FieldVal*>& out) {
  if (!v.is_tuple) {
    out.push_back(&v.field);
    return;
  }
  for (const Value& x : v.elements) flatten(x, out);
}

void for_each_point(const FieldVal& f,
                    const std::function<void(const std::vector<std::int64_t>&, std::int64_t)>& fn) {
  std::size_t n = f.dims.size();
  std::vector<std::int64_t> idx(n);
  for (std::size_t d = 0; d < n; ++d) {
    if (f.ranges[d].is_unbounded())
      idx[d] = 0;
    else if (f.ranges[d].size() == 0)
      return;
    else
      idx[d] = f.ranges[d].lo;
  }
  while (true) {
    fn(idx, f.offset(idx));
    bool carried = true;
    for (std::size_t d = n; carried && d-- > 0;) {
      if (f.ranges[d].is_unbounded()) continue;
      if (++idx[d] < f.ranges[d].hi)
        carried = false;
      else
        idx[d] = f.ranges[d].lo;
    }
    if (carried) return;
  }
}

FieldVal elementwise(const std::vector<const FieldVal*>& ins, ScalarKind out,
                     const std::function<Num(const Num*)>& fn) {
  std::vector<Dimension> dims;
  for (const FieldVal* f : ins) dims = frontend::union_dims(dims, f->dims);
  std::vector<Range> ranges(dims.size(), Range::unbounded());
  bool masked = false;
  // where[k][d]: position of result dim d in input k, or -1.
  std::vector<std::vector<int>> where(ins.size(), std::vector<int>(dims.size(), -1));
  for (std::size_t k = 0; k < ins.size(); ++k) {
    masked = masked || ins[k]->valid;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      int p = ins[k]->find(dims[d]);
      where[k][d] = p;
      if (p < 0) continue;
      const Range& r = ins[k]->ranges[static_cast<std::size_t>(p)];
      ranges[d].lo = std::max(ranges[d].lo, r.lo);
      ranges[d].hi = std::min(ranges[d].hi, r.hi);
    }
  }
  for (Range& r : ranges)
    if (r.hi < r.lo) r.hi = r.lo;
  FieldVal res = FieldVal::allocate(out, dims, ranges, masked);
  // Offsets are affine in the result's index: off_k = c[k] + sum_d idx_d * st[k][d] (stride 0
  // where input k lacks dim d or is unbounded along it), so the innermost dimension is a plain
  // strided loop.
  const std::size_t n = ins.size(), nd = dims.size();
  std::vector<std::int64_t> c(n), st(n * nd, 0);
  for (std::size_t k = 0; k < n; ++k) {
    c[k] = ins[k]->base;
    for (std::size_t d = 0; d < nd; ++d) {
      int p = where[k][d];
      if (p < 0) continue;
      auto pu = static_cast<std::size_t>(p);
      st[k * nd + d] = ins[k]->strides[pu];
      c[k] -= ins[k]->ranges[pu].lo * ins[k]->strides[pu];
    }
  }
  for (std::size_t d = 0; d < nd; ++d)
    if (ranges[d].size() == 0) return res;
  std::vector<std::int64_t> idx(nd), o(n);
  for (std::size_t d = 0; d < nd; ++d) idx[d] = ranges[d].is_unbounded() ? 0 : ranges[d].lo;
  // The innermost bounded dimension runs in the inner loop.
  std::size_t inner = nd;
  for (std::size_t d = nd; d-- > 0;)
    if (!ranges[d].is_unbounded()) {
      inner = d;
      break;
    }
  std::int64_t count = inner < nd ? ranges[inner].size() : 1;
  std::vector<Num> args(n);
  Num* rdata = res.data->data();
  while (true) {
    std::int64_t roff = res.offset(idx);
    for (std::size_t k = 0; k < n; ++k) {
      o[k] = c[k];
      for (std::size_t d = 0; d < nd; ++d) o[k] += idx[d] * st[k * nd + d];
    }
    for (std::int64_t i = 0; i < count; ++i) {
      // The first undefined input's mark (its cause) is the result's.
      std::uint32_t why = FieldVal::kDefined;
      for (std::size_t k = 0; k < n; ++k) {
        std::int64_t ok_off = o[k] + (inner < nd ? i * st[k * nd + inner] : 0);
        args[k] = (*ins[k]->data)[static_cast<std::size_t>(ok_off)];
        if (masked && why == FieldVal::kDefined) why = ins[k]->mark(ok_off);
      }
      std::int64_t r = roff + (inner < nd ? i * res.strides[inner] : 0);
      if (why != FieldVal::kDefined)
        res.set_undefined(r, why);
      else
        rdata[r] = normalize(out, fn(args.data()));
    }
    // Next point of the outer dimensions.
    bool carried = true;
    for (std::size_t d = inner; carried && d-- > 0;) {
      if (ranges[d].is_unbounded()) continue;
      if (++idx[d] < ranges[d].hi)
        carried = false;
      else
        idx[d] = ranges[d].lo;
    }
    if (carried) break;
  }
  return res;
}

}  // namespace weir::runtime::embedded
