// The embedded backend's run of an orchestration function: the statements in order, each call
// run by the embedded interpreter of its program on the arrays the argument names hold, scalars
// computed with Python's rules (see embedded_orchestration.h).
#include "embedded_orchestration.h"

#include <cmath>
#include <set>
#include <tuple>

#include "embedded_value.h"
#include "weir/frontend/orchestration.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/compile_interrupt.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/embedded.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/scalar_argument.h"
// Python's // and % as generated code computes them (codegen/prelude/weir_numbers.h).
#include "weir_numbers.h"

namespace weir::runtime {
namespace {

using namespace weir::frontend;

// A scalar value: integers (and bools) exactly, floats as double.
struct Num {
  bool is_float = false;
  std::int64_t i = 0;
  double f = 0.0;
  double as_double() const { return is_float ? f : static_cast<double>(i); }
  static Num of_int(std::int64_t v) { return Num{false, v, 0.0}; }
  static Num of_float(double v) { return Num{true, 0, v}; }
};

Num convert(Num v, ScalarKind k) {
  if (k == ScalarKind::Bool) return Num::of_int(v.as_double() != 0.0 ? 1 : 0);
  if (is_floating(k))
    return Num::of_float(k == ScalarKind::Float32 ? static_cast<double>(static_cast<float>(v.as_double()))
                                                  : v.as_double());
  // A float as NumPy converts it on x86 (never C++'s undefined conversion of NaN or inf).
  return Num::of_int(v.is_float ? static_cast<std::int64_t>(embedded::float_to_int_bits(k, v.f)) : v.i);
}

// `conns`: the tables among the parameters, whose absence is said as a single program says it.
void check_signature(const Signature& sig, const std::string& fn, const Arguments& args,
                     const std::vector<ConnectivityParameter>& conns) {
  std::set<std::string> known;
  for (const auto& p : sig.params) known.insert(p.name);
  std::set<std::string> symbols;
  for (const auto& p : sig.params)
    for (const auto& e : p.shape)
      for (const auto& s : e.free_symbols()) symbols.insert(s);
  for (const auto& [n, f] : args.arrays)
    if (!known.count(n)) throw ArgumentError("unknown argument '" + n + "' (function '" + fn + "')");
  for (const auto& [n, v] : args.values)
    if (!known.count(n) && !symbols.count(n))
      throw ArgumentError("unknown argument '" + n + "' (function '" + fn + "')");
  for (const auto& p : sig.params) {
    if (p.kind == Parameter::Kind::Array) {
      auto it = args.arrays.find(p.name);
      if (it == args.arrays.end()) {
        for (const ConnectivityParameter& c : conns)
          if (c.name == p.name)
            throw ArgumentError("missing connectivity table '" + p.name +
                                "' (an int32 or int64 array of shape (n_" + c.from + ", max_neighbours))");
        throw ArgumentError("missing argument '" + p.name + "' (" + std::string(to_string(p.dtype)) +
                            " array)");
      }
      bool table = p.dtype == ScalarType::Int32 &&
                   (it->second.dtype() == ScalarType::Int32 || it->second.dtype() == ScalarType::Int64);
      if ((!table && it->second.dtype() != p.dtype) || it->second.ndim() != p.shape.size())
        throw ArgumentError("argument '" + p.name + "': expected a " + std::string(to_string(p.dtype)) +
                            " field with " + std::to_string(p.shape.size()) + " dimensions, got " +
                            it->second.describe());
    } else if (auto v = args.values.find(p.name); v == args.values.end()) {
      throw ArgumentError("missing argument '" + p.name + "' (" + std::string(to_string(p.dtype)) +
                          " scalar)");
    } else if (p.kind == Parameter::Kind::Scalar) {
      check_scalar_argument(p, v->second);  // as the compiled backends convert it
    }
  }
}

class Orchestrated final : public Program {
 public:
  Orchestrated(FieldViewProgram p, CalleeFactory make, bool atomic,
               std::shared_ptr<Program> compiled = nullptr)
      : program_(std::move(p)),
        o_(*program_.orchestration),
        sig_(field_view_signature(program_)),
        make_(std::move(make)),
        atomic_(atomic),
        compiled_(std::move(compiled)),
        walk_(compiled_ && can_refuse(o_.body) && !reduces(o_.body)) {}

  const std::string& name() const override { return compiled_ ? compiled_->name() : program_.name(); }
  const Signature& signature() const override { return compiled_ ? compiled_->signature() : sig_; }

  void run(Arguments& args) override {
    if (compiled_) return run_compiled(args);
    check_arguments(args);
    State s = initial_state(args);
    // A copy, so that a failing run leaves the caller's arrays as they were (atomic); else the
    // arrays themselves, moved in and back.
    for (const TParam& p : o_.params)
      if (p.type.is_field())
        s.slots.emplace(p.name, atomic_ ? args.arrays.at(p.name).clone() : std::move(args.arrays.at(p.name)));
    for (const auto& c : connectivities_of(program_))
      s.tables.emplace(c.name, atomic_ ? args.arrays.at(c.name).clone() : std::move(args.arrays.at(c.name)));
    // The caller's arrays get each slot's final contents, whatever names point at it now.
    auto give_back = [&] {
      for (const TParam& p : o_.params)
        if (p.type.is_field()) args.arrays.at(p.name) = std::move(s.slots.at(p.name));
      if (!atomic_)
        for (auto& [name, t] : s.tables) args.arrays.at(name) = std::move(t);
    };
    try {
      exec(o_.body, s);
    } catch (...) {
      if (!atomic_) give_back();
      throw;
    }
    give_back();
  }

 private:
  struct State {
    std::map<std::string, Field> slots;          // parameter arrays (copies) and local fields
    std::map<std::string, std::string> binding;  // field variable -> slot
    std::map<std::string, Num> scalars;
    std::map<std::string, Field> tables;
    std::map<const OStmt*, std::string> alloc_slot;
  };
  enum class Flow { Normal, Break, Continue };

  // The checks of the arguments before anything runs (ArgumentError).
  void check_arguments(const Arguments& args) const {
    const std::vector<ConnectivityParameter> conns = connectivities_of(program_);
    check_signature(sig_, o_.name, args, conns);
    check_local_dimension_widths(conns, sig_, args);
  }

  // Scalars and bindings of the parameters (the arrays themselves are the caller's).
  State initial_state(const Arguments& args) const {
    State s;
    for (const TParam& p : o_.params) {
      if (p.type.is_field()) {
        s.binding[p.name] = p.name;
      } else {
        s.scalars[p.name] = convert(number(args.values.at(p.name)), p.type.dtype);
      }
    }
    return s;
  }

  // Whether walking the statements without their calls can refuse anything: a local field's
  // size (negative) or an integer division by zero.
  static bool can_refuse(const TExpr& e) {
    if (e.kind == TExprKind::Binary && !is_floating(e.type.dtype) &&
        (e.binary_op == BinaryOperator::FloorDiv || e.binary_op == BinaryOperator::Mod))
      return true;
    for (const TExprPtr& a : e.args)
      if (a && can_refuse(*a)) return true;
    return false;
  }
  // Whether a Reduce statement computes a scalar from a field: the walk without calls cannot
  // know its value, so a function with one is left to the compiled program's own checks.
  static bool reduces(const std::vector<OStmt>& body) {
    for (const OStmt& st : body)
      if (st.kind == OStmt::Kind::Reduce || reduces(st.body) || reduces(st.orelse)) return true;
    return false;
  }
  static bool can_refuse(const std::vector<OStmt>& body) {
    for (const OStmt& st : body) {
      if (st.kind == OStmt::Kind::Alloc || can_refuse(st.body) || can_refuse(st.orelse)) return true;
      for (const TExprPtr& v : st.values)
        if (v && can_refuse(*v)) return true;
      for (const OArg& a : st.args)
        if (a.scalar && can_refuse(*a.scalar)) return true;
    }
    return false;
  }

  // A compiled backend's run (with_orchestration_checks): the SDFG allocates a local field of
  // a negative size and computes scalars without Python's errors, so the
  // statements are first walked without their calls (they only compute scalars, which no call
  // changes), refusing what the embedded backend refuses with the same message. Arguments that
  // do not fit are left to the compiled program's own checks.
  void run_compiled(Arguments& args) {
    if (walk_) {
      bool fit = true;
      try {
        check_arguments(args);
      } catch (const ArgumentError&) {
        fit = false;
      }
      if (fit) {
        State s = initial_state(args);
        exec(o_.body, s);
      }
    }
    try {
      compiled_->run(args);
    } catch (const ProgramError& e) {
      const std::string said = in_call_terms(e.what());
      if (said.empty()) throw;
      throw ProgramError(said);
    }
  }

  FieldViewProgram program_;
  const Orchestration& o_;
  Signature sig_;
  CalleeFactory make_;
  bool atomic_;
  std::shared_ptr<Program> compiled_;  // set: only walk the statements, then run this
  bool walk_ = false;
  std::map<const TypedDefinition*, std::shared_ptr<Program>> programs_;

  static Num number(const Number& n) {
    if (auto* i = std::get_if<std::int64_t>(&n)) return Num::of_int(*i);
    if (auto* b = std::get_if<bool>(&n)) return Num::of_int(*b ? 1 : 0);
    return Num::of_float(std::get<double>(n));
  }

  Program& program_for(const TypedDefinition* callee) {
    auto it = programs_.find(callee);
    if (it != programs_.end()) return *it->second;
    FieldViewProgram p;
    p.definition = std::shared_ptr<const TypedDefinition>(program_.orchestration, callee);
    p.origin = program_.origin + " (" + callee->name + ")";
    return *programs_.emplace(callee, make_(p)).first->second;
  }

  Num eval(const TExpr& e, const State& s) const {
    switch (e.kind) {
      case TExprKind::Name: return s.scalars.at(e.name);
      case TExprKind::Literal:
        if (e.literal.kind == ConstantValue::Kind::Float) return Num::of_float(e.literal.float_value);
        if (e.literal.kind == ConstantValue::Kind::Bool) return Num::of_int(e.literal.bool_value ? 1 : 0);
        return Num::of_int(e.literal.int_value);
      case TExprKind::Unary: {
        Num a = eval(*e.args[0], s);
        if (e.unary_op == UnaryOperator::Not) return Num::of_int(a.as_double() == 0.0 ? 1 : 0);
        if (e.unary_op == UnaryOperator::USub) return a.is_float ? Num::of_float(-a.f) : Num::of_int(-a.i);
        return a;
      }
      case TExprKind::Binary: {
        if (e.type.dtype == ScalarKind::Bool) {  // `and` / `or` (short-circuit)
          bool a = eval(*e.args[0], s).as_double() != 0.0;
          if (e.binary_op == BinaryOperator::BitAnd)
            return Num::of_int(a && eval(*e.args[1], s).as_double() != 0.0);
          return Num::of_int(a || eval(*e.args[1], s).as_double() != 0.0);
        }
        Num a = eval(*e.args[0], s), b = eval(*e.args[1], s);
        if (is_floating(e.type.dtype)) {
          double x = a.as_double(), y = b.as_double(), r = 0;
          switch (e.binary_op) {
            case BinaryOperator::Add: r = x + y; break;
            case BinaryOperator::Sub: r = x - y; break;
            case BinaryOperator::Mult: r = x * y; break;
            case BinaryOperator::Div: r = x / y; break;
            case BinaryOperator::Pow: r = std::pow(x, y); break;
            case BinaryOperator::FloorDiv: r = weir_ffloordiv(x, y); break;
            case BinaryOperator::Mod: r = weir_fmod(x, y); break;
            default: break;
          }
          return convert(Num::of_float(r), e.type.dtype);
        }
        std::int64_t x = a.i, y = b.i;
        if ((e.binary_op == BinaryOperator::FloorDiv || e.binary_op == BinaryOperator::Mod) && y == 0)
          throw ProgramError(e.loc.str() + ": integer division by zero");
        switch (e.binary_op) {
          case BinaryOperator::Add: return Num::of_int(x + y);
          case BinaryOperator::Sub: return Num::of_int(x - y);
          case BinaryOperator::Mult: return Num::of_int(x * y);
          case BinaryOperator::FloorDiv: return Num::of_int(weir_floordiv(x, y));
          case BinaryOperator::Mod: return Num::of_int(weir_mod(x, y));
          case BinaryOperator::Pow: {
            std::int64_t r = 1;
            for (std::int64_t k = 0; k < y; ++k) r *= x;
            return Num::of_int(r);
          }
          default: break;
        }
        return Num::of_int(0);
      }
      case TExprKind::Compare: {
        Num a = eval(*e.args[0], s), b = eval(*e.args[1], s);
        bool fl = a.is_float || b.is_float;
        auto cmp = [&](auto x, auto y) {
          switch (e.compare_op) {
            case CompareOperator::Eq: return x == y;
            case CompareOperator::NotEq: return x != y;
            case CompareOperator::Lt: return x < y;
            case CompareOperator::LtE: return x <= y;
            case CompareOperator::Gt: return x > y;
            case CompareOperator::GtE: return x >= y;
            default: return false;
          }
        };
        return Num::of_int(fl ? cmp(a.as_double(), b.as_double()) : cmp(a.i, b.i));
      }
      case TExprKind::Ternary:
        return eval(*e.args[0], s).as_double() != 0.0 ? convert(eval(*e.args[1], s), e.type.dtype)
                                                      : convert(eval(*e.args[2], s), e.type.dtype);
      case TExprKind::Builtin: return convert(eval(*e.args[0], s), e.type.dtype);
      default: break;
    }
    throw ProgramError(e.loc.str() + ": cannot evaluate this expression");
  }

  Flow exec(const std::vector<OStmt>& body, State& s) {
    for (const OStmt& st : body) {
      Flow f = step(st, s);
      if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
  }

  Flow step(const OStmt& st, State& s) {
    switch (st.kind) {
      case OStmt::Kind::Assign: {
        std::vector<Num> vals;
        for (const TExprPtr& v : st.values) vals.push_back(eval(*v, s));
        for (std::size_t i = 0; i < vals.size(); ++i)
          s.scalars[st.targets[i]] = convert(vals[i], o_.scalars.at(st.targets[i]).dtype);
        return Flow::Normal;
      }
      case OStmt::Kind::Bind: {
        std::vector<std::string> slots;
        for (const std::string& src : st.sources)
          slots.push_back(src.empty() ? std::string() : s.binding.at(src));
        for (std::size_t i = 0; i < slots.size(); ++i) {
          if (slots[i].empty())
            s.binding.erase(st.targets[i]);
          else
            s.binding[st.targets[i]] = slots[i];
        }
        return Flow::Normal;
      }
      case OStmt::Kind::Alloc: {
        auto it = s.alloc_slot.find(&st);
        std::string slot = it != s.alloc_slot.end()
                               ? it->second
                               : "__local" + std::to_string(s.alloc_slot.size()) + "_" + st.targets[0];
        s.alloc_slot[&st] = slot;
        std::vector<std::int64_t> shape;
        for (std::size_t d = 0; d < st.values.size(); ++d) {
          std::int64_t n = eval(*st.values[d], s).i;
          if (n < 0)
            throw ProgramError(st.loc.str() + ": the size of a local field is negative (" +
                               std::to_string(n) + ")");
          shape.push_back(n);
        }
        if (compiled_) {
          s.binding[st.targets[0]] = slot;
          return Flow::Normal;
        }
        s.slots.insert_or_assign(
            slot, Allocator::cpu().allocate(*scalar_type_from_string(to_string(st.type.dtype)), shape));
        s.binding[st.targets[0]] = slot;
        return Flow::Normal;
      }
      case OStmt::Kind::Call: call(st, s); return Flow::Normal;
      case OStmt::Kind::If: return exec(eval(*st.values[0], s).as_double() != 0.0 ? st.body : st.orelse, s);
      case OStmt::Kind::For: {
        std::int64_t lo = eval(*st.values[0], s).i, hi = eval(*st.values[1], s).i;
        for (std::int64_t i = lo; st.step > 0 ? i < hi : i > hi; i += st.step) {
          s.scalars[st.targets[0]] = Num::of_int(i);
          if (exec(st.body, s) == Flow::Break) break;
        }
        return Flow::Normal;
      }
      case OStmt::Kind::While:
        while (eval(*st.values[0], s).as_double() != 0.0)
          if (exec(st.body, s) == Flow::Break) break;
        return Flow::Normal;
      case OStmt::Kind::Break: return Flow::Break;
      case OStmt::Kind::Continue: return Flow::Continue;
      case OStmt::Kind::Reduce:
        s.scalars[st.targets[0]] = reduce(st, s.slots.at(s.binding.at(st.sources[0])));
        return Flow::Normal;
    }
    return Flow::Normal;
  }

  // A Reduce statement over the points of its slice in row-major order, as the compiled
  // expansion (a sequential map) visits them: max/min exactly (a NaN anywhere is the result, as
  // NumPy's), a sum accumulated in the field's float type (int64 for integers). NumPy refuses
  // max/min of no points; so does this.
  Num reduce(const OStmt& st, const Field& f) const {
    std::vector<std::int64_t> lo(f.ndim()), hi(f.ndim());
    std::int64_t count = 1;
    for (std::size_t d = 0; d < f.ndim(); ++d) {
      std::tie(lo[d], hi[d]) = reduce_range(st, d, f.shape()[d]);
      count *= hi[d] - lo[d];
    }
    const std::string& op = st.reduction;
    if (count == 0 && op != "sum")
      throw ProgramError(st.loc.str() + ": '" + st.sources[0] + "': the " + op + " of no points (the slice " +
                         "is empty)");
    const ScalarType t = f.dtype();
    const bool integral = t != ScalarType::Float32 && t != ScalarType::Float64;
    double best = 0.0, sum = 0.0;
    float sum32 = 0.0F;
    std::int64_t isum = 0;
    std::vector<std::int64_t> idx = lo;
    for (std::int64_t n = 0; n < count; ++n) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * f.strides()[d];
      const double v = st.absolute ? std::abs(f.value_as_double(off)) : f.value_as_double(off);
      // A NaN replaces a number; once `best` is NaN no comparison is true, so it stays.
      const bool nan = v != v && best == best;  // NOLINT(misc-redundant-expression): NaN tests
      if (n == 0 || (op == "max" ? v > best : v < best) || nan) best = v;
      sum += v;
      sum32 += static_cast<float>(v);
      // Only an integer field sums as int64 (a float NaN converted to int64 is undefined).
      if (integral) isum += static_cast<std::int64_t>(v);
      for (std::size_t d = idx.size(); d-- > 0;) {  // the next point, last dimension fastest
        if (++idx[d] < hi[d]) break;
        idx[d] = lo[d];
      }
    }
    if (op != "sum") return integral ? Num::of_int(static_cast<std::int64_t>(best)) : Num::of_float(best);
    if (integral) return Num::of_int(isum);
    return Num::of_float(t == ScalarType::Float32 ? static_cast<double>(sum32) : sum);
  }

  // The name the user wrote for what a call statement calls: a field operator called directly
  // is wrapped into a program of one call (`__f_call0`).
  static std::string user_name(const TypedDefinition& p) {
    const bool wrapped = p.name.rfind("__", 0) == 0 && p.calls.size() == 1 && p.calls[0].callee;
    return wrapped ? p.calls[0].callee->name : p.name;
  }

  static void calls_in(const std::vector<OStmt>& body, std::vector<const OStmt*>& out) {
    for (const OStmt& st : body) {
      if (st.kind == OStmt::Kind::Call && st.callee) out.push_back(&st);
      calls_in(st.body, out);
      calls_in(st.orelse, out);
    }
  }

  // The call statements whose callee the label of a call state or nested SDFG names: the
  // label is the callee's name, then a piece number and a "_k" that keeps labels unique
  // (orchestration_lowering.cpp); the longest callee name that fits wins.
  std::vector<const OStmt*> calls_labelled(const std::string& label) const {
    std::vector<const OStmt*> calls, sites;
    calls_in(o_.body, calls);
    std::size_t longest = 0;
    for (const OStmt* c : calls) {
      const std::string& n = c->callee->name;
      if (label.compare(0, n.size(), n) != 0 || (label.size() > n.size() && label[n.size()] != '_') ||
          n.size() < longest)
        continue;
      if (n.size() > longest) sites.clear();
      longest = n.size();
      sites.push_back(c);
    }
    return sites;
  }

  // A fault of the compiled SDFG names the state of the call it happened in ("state
  // 'call___scale_call0': " + the callee's message) or, located, the call's nested SDFG
  // ("nested SDFG '__scale_call0', ..."): said as the embedded backend says it,
  // "FILE:LINE:COL: in the call of 'scale' (its 'u' is 'lwp'): " + the callee's message, the
  // wrapper a field operator call gets named as the field operator (user32 H5, H11). A callee
  // called by several statements names all of their locations. "" when the message names no call.
  std::string in_call_terms(const std::string& what) const {
    // Located at a call statement already (the lowering puts the call's location on its
    // states and maps): "program 'g' stopped with an error: orch.py:16:5: 'u' is read over ...".
    static const std::string stopped = " stopped with an error: ";
    const std::size_t from =
        what.find(stopped) == std::string::npos ? 0 : what.find(stopped) + stopped.size();
    std::vector<const OStmt*> calls;
    calls_in(o_.body, calls);
    for (const OStmt* c : calls)
      if (const std::string loc = c->loc.str() + ": "; what.compare(from, loc.size(), loc) == 0)
        return loc + "in the call of '" + user_name(*c->callee) + "'" + renamed_fields(*c, nullptr) + ": " +
               what.substr(from + loc.size());
    // Else by the call state a path names ("state 'if_27/then/call_scale_prog'"), dropping a
    // leading "state '...': ", or by the nested SDFG of the call ("nested SDFG '__scale_call0'").
    std::string rest = what, label;
    static const std::string state = "state '", nested = "nested SDFG '";
    for (std::size_t at = what.find(state); at != std::string::npos; at = what.find(state, at + 1)) {
      const std::size_t end = what.find('\'', at + state.size());
      if (end == std::string::npos) break;
      const std::string path = what.substr(at + state.size(), end - at - state.size());
      const std::string last = path.substr(path.rfind('/') + 1);
      if (last.rfind("call_", 0) != 0) continue;
      label = last.substr(5);
      if (what.compare(end, 3, "': ") == 0) rest.erase(at, end + 3 - at);
      break;
    }
    if (label.empty())
      if (std::size_t n = what.find(nested); n != std::string::npos)
        label = what.substr(n + nested.size(), what.find('\'', n + nested.size()) - n - nested.size());
    rest = rest.substr(std::min(from, rest.size()));
    if (label.empty() || label.find('\'') != std::string::npos) return "";
    const std::vector<const OStmt*> sites = calls_labelled(label);
    if (sites.empty()) return "";
    const TypedDefinition& callee = *sites[0]->callee;
    const std::string name = user_name(callee);
    // "nested SDFG '__scale_call0'" in the callee's message: 'scale'.
    for (std::size_t at = rest.find("'" + callee.name); name != callee.name && at != std::string::npos;
         at = rest.find("'" + callee.name, at + 1))
      rest.replace(at + 1, callee.name.size(), name);
    if (sites.size() == 1)
      return sites[0]->loc.str() + ": in the call of '" + name + "'" + renamed_fields(*sites[0], nullptr) +
             ": " + rest;
    std::string where;
    for (const OStmt* c : sites) where += (where.empty() ? "" : ", ") + c->loc.str();
    return "in a call of '" + name + "' (" + where + "): " + rest;
  }

  // The callee's messages name its own parameters: which fields of the function they are here,
  // where the names differ, and which argument's array a name holds after a swap (" (its 'u'
  // is the argument 'v', 'out' is 'v', the argument 'u')").
  // Without a state (a compiled run's fault) only the names, not the arrays they hold.
  std::string renamed_fields(const OStmt& st, const State* s) const {
    std::string out;
    for (std::size_t i = 0; i < st.callee->params.size(); ++i) {
      const TParam& tp = st.callee->params[i];
      if (!tp.type.is_field()) continue;
      // (Variables of inlined functions, `__<callee><n>_<name>`, are no names the user wrote.)
      const std::string& var = st.args[i].field;
      const std::string& slot = s ? s->binding.at(var) : var;
      bool argument = slot != var && o_.fields.count(slot) && slot.rfind("__", 0) != 0;
      std::string is;
      if (var != tp.name && var.rfind("__", 0) != 0) is = "'" + var + "'";
      if (argument) is += (is.empty() ? "" : ", ") + std::string("the argument '") + slot + "'";
      if (!is.empty()) out += (out.empty() ? " (its '" : ", '") + tp.name + "' is " + is;
    }
    return out.empty() ? out : out + ")";
  }

  // The callee runs on the slots its field arguments name (moved in and back out); a slot
  // passed twice is shared through copies, the written one coming back.
  void call(const OStmt& st, State& s) {
    const TypedDefinition& p = *st.callee;
    if (compiled_) {  // only the scalar arguments, which may refuse as the embedded run does
      for (std::size_t i = 0; i < p.params.size(); ++i)
        if (!p.params[i].type.is_field()) eval(*st.args[i].scalar, s);
      return;
    }
    std::set<std::string> written;
    for (const ProgramCall& pc : p.calls)
      for (const auto& o : pc.outs) written.insert(o.name);
    Arguments a;
    std::map<std::string, std::string> owner;  // slot -> the parameter holding the original
    for (std::size_t i = 0; i < p.params.size(); ++i) {
      const TParam& tp = p.params[i];
      if (!tp.type.is_field()) {
        Num v = convert(eval(*st.args[i].scalar, s), tp.type.dtype);
        if (tp.type.dtype == ScalarKind::Bool)
          a.values[tp.name] = v.i != 0;
        else if (is_floating(tp.type.dtype))
          a.values[tp.name] = v.f;
        else
          a.values[tp.name] = v.i;
        continue;
      }
      std::string slot = s.binding.at(st.args[i].field);
      auto o = owner.find(slot);
      if (o == owner.end()) {
        owner[slot] = tp.name;
        a.arrays.emplace(tp.name, std::move(s.slots.at(slot)));
      } else {
        a.arrays.emplace(tp.name, a.arrays.at(o->second).clone());
        if (written.count(tp.name)) o->second = tp.name;
      }
    }
    for (const auto& c : connectivities_of(p)) a.arrays.emplace(c.name, std::move(s.tables.at(c.name)));
    auto restore = [&] {
      for (const auto& [slot, param] : owner) s.slots.at(slot) = std::move(a.arrays.at(param));
      for (const auto& c : connectivities_of(p)) s.tables.at(c.name) = std::move(a.arrays.at(c.name));
    };
    try {
      program_for(&p).run(a);
    } catch (const CompileInterrupted&) {  // Ctrl-C: not the callee's error
      restore();
      throw;
    } catch (const RuntimeError& e) {
      restore();
      throw ProgramError(st.loc.str() + ": in the call of '" + user_name(p) + "'" + renamed_fields(st, &s) +
                         ": " + e.what());
    }
    restore();
  }
};

}  // namespace

std::shared_ptr<Program> make_embedded_orchestration(const FieldViewProgram& program) {
  return std::make_shared<Orchestrated>(program, make_embedded_program, true);
}

std::shared_ptr<Program> make_call_by_call(const FieldViewProgram& program, CalleeFactory make_callee) {
  return std::make_shared<Orchestrated>(program, std::move(make_callee), false);
}

std::shared_ptr<Program> with_orchestration_checks(std::shared_ptr<Program> compiled,
                                                   const FieldViewProgram& program) {
  if (!program.orchestration) return compiled;
  return std::make_shared<Orchestrated>(program, nullptr, false, std::move(compiled));
}

void check_orchestration_arguments(const FieldViewProgram& program, const Arguments& args) {
  Signature sig = field_view_signature(program);
  const std::vector<ConnectivityParameter> conns = connectivities_of(program);
  check_signature(sig, program.name(), args, conns);
  check_local_dimension_widths(conns, sig, args);
}

}  // namespace weir::runtime
