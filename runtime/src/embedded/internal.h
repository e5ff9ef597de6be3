// Internals of the embedded evaluator shared by its parts in runtime/src/embedded/: scalar
// operations on Num (num_ops.cpp) and helpers on FieldVal (field_helpers.cpp). The Evaluator
// itself is declared in embedded_eval.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../embedded_eval.h"

namespace weir::runtime::embedded {

using frontend::BinaryOperator;
using frontend::CompareOperator;
using frontend::ShiftStep;
using frontend::TExpr;
using frontend::TExprKind;
using frontend::TStmt;
using frontend::TypedDefinition;
using frontend::UnaryOperator;

// ----------------------------------------------------------------------------- scalar operations

/// `a op b` in the number class of `k` (integer division and modulo as Python's, floor; errors
/// located at `e`).
Num binop(BinaryOperator op, ScalarKind k, Num a, Num b, const TExpr& e);
/// -1, 0 or 1 as `a` is less than, equal to or greater than `b` in the number class of `k`.
int compare3(ScalarKind k, Num a, Num b);
/// NumPy's maximum/minimum: NaN in either argument gives NaN; otherwise `a` where it is strictly
/// larger (smaller), else `b` (maximum(-0.0, 0.0) is 0.0, maximum(0.0, -0.0) is -0.0).
Num maximum(ScalarKind k, Num a, Num b);
Num minimum(ScalarKind k, Num a, Num b);
/// Whether a three-way comparison result `c` satisfies `op`.
bool compare(CompareOperator op, int c);
Num bool_num(bool b);
/// The one-argument math builtin `n` (sin, sqrt, ...) at `x`.
double math1(const std::string& n, double x);

// ----------------------------------------------------------------------------- field helpers

/// Puts dims (and their ranges and strides) into canonical order.
void canonicalize(FieldVal& f);
/// Position of each of `dims` in `f` (-1 where f lacks it).
std::vector<int> positions(const FieldVal& f, const std::vector<Dimension>& dims);
/// The sub-index of `f` for the point `idx` over the dims `pos` was computed for.
void project(const std::vector<int>& pos, const std::vector<std::int64_t>& idx,
             std::vector<std::int64_t>& sub);
bool covers(const FieldVal& f, const std::vector<std::int64_t>& sub);
/// Drops the validity mask when every value is defined.
void drop_full_mask(FieldVal& f);
/// The field of `v`; fails at `e` when `v` is a tuple.
const FieldVal& leaf(const Value& v, const TExpr& e);

/// `fn` applied to every field leaf of `v` (a tuple keeps its shape).
template <class F>
Value map_leaves(const Value& v, F&& fn) {
  if (!v.is_tuple) return Value::of(fn(v.field));
  std::vector<Value> out;
  for (const Value& x : v.elements) out.push_back(map_leaves(x, fn));
  return Value::tuple(std::move(out));
}

}  // namespace weir::runtime::embedded
