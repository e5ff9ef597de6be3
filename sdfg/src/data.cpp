// Data descriptors: constructors with DaCe's defaults (C order, no padding).
#include "weir/sdfg/data.h"

namespace weir {

std::string DataType::str() const {
  if (!raw_json.empty()) return raw_json;  // a type weir does not model: show it verbatim
  std::string s(to_string(base));
  s.append(static_cast<std::size_t>(pointer_depth > 0 ? pointer_depth : 0), '*');
  return s;
}

DataDescriptor DataDescriptor::make_scalar(ScalarType t, bool transient) {
  DataDescriptor d;
  d.kind = DataKind::Scalar;
  d.type_name = "Scalar";
  d.dtype = DataType::scalar(t);
  d.shape = {1};
  d.strides = {1};
  d.offset = {0};
  d.total_size = 1;
  d.transient = transient;
  return d;
}

DataDescriptor DataDescriptor::make_array(ScalarType t, std::vector<sym::Expr> shape, bool transient) {
  DataDescriptor d;
  d.kind = DataKind::Array;
  d.type_name = "Array";
  d.dtype = DataType::scalar(t);
  d.strides = row_major_strides(shape);
  d.offset.assign(shape.size(), sym::Expr(0));
  sym::Expr total = 1;
  for (const auto& s : shape) total *= s;
  d.total_size = total;
  d.shape = std::move(shape);
  d.transient = transient;
  return d;
}

std::vector<sym::Expr> DataDescriptor::row_major_strides(const std::vector<sym::Expr>& shape) {
  // strides[i] = shape[i+1] * ... * shape[n-1]; the last dimension is contiguous.
  std::vector<sym::Expr> strides(shape.size(), sym::Expr(1));
  for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = shape[i] * strides[i];
  return strides;
}

std::set<std::string> DataDescriptor::free_symbols() const {
  std::set<std::string> out;
  for (const auto* list : {&shape, &strides, &offset})
    for (const auto& e : *list) out.merge(e.free_symbols());
  out.merge(total_size.free_symbols());
  out.merge(start_offset.free_symbols());
  if (kind == DataKind::Stream) out.merge(buffer_size.free_symbols());
  return out;
}

}  // namespace weir
