// Evaluation of the Python arithmetic of tasklets and write-conflict lambdas over doubles, for
// the reference interpreter (interpreter.h): + - * / // % **, parentheses, min/max/abs,
// numbers and names bound in a map. Anything else throws std::runtime_error.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace weir::test {

/// Evaluates a Python arithmetic expression over doubles.
class ExprEval {
 public:
  ExprEval(const std::string& text, const std::map<std::string, double>& vars) : s_(text), vars_(vars) {}
  double run() {
    double v = expr();
    skip();
    if (i_ != s_.size()) fail("unexpected text");
    return v;
  }

 private:
  const std::string& s_;
  const std::map<std::string, double>& vars_;
  std::size_t i_ = 0;

  [[noreturn]] void fail(const std::string& m) const {
    throw std::runtime_error("interpreter: " + m + " at " + std::to_string(i_) + " in '" + s_ + "'");
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(const std::string& t) {
    skip();
    if (s_.compare(i_, t.size(), t) == 0) {
      i_ += t.size();
      return true;
    }
    return false;
  }
  double expr() {
    double v = term();
    while (true) {
      if (eat("+"))
        v += term();
      else if (eat("-"))
        v -= term();
      else
        return v;
    }
  }
  double term() {
    double v = unary();
    while (true) {
      skip();
      if (s_.compare(i_, 2, "**") == 0) return v;  // handled in power
      if (eat("//")) {
        double d = unary();
        if (d == 0) fail("division by zero");
        v = std::floor(v / d);
      } else if (eat("*")) {
        v *= unary();
      } else if (eat("/")) {
        double d = unary();
        if (d == 0) fail("division by zero");
        v /= d;
      } else if (eat("%")) {
        double d = unary();
        if (d == 0) fail("modulo by zero");
        v = v - std::floor(v / d) * d;
      } else {
        return v;
      }
    }
  }
  double unary() {
    if (eat("-")) return -unary();
    if (eat("+")) return unary();
    return power();
  }
  double power() {
    double b = atom();
    if (eat("**")) return std::pow(b, unary());
    return b;
  }
  double atom() {
    skip();
    if (eat("(")) {
      double v = expr();
      if (!eat(")")) fail("missing ')'");
      return v;
    }
    if (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) {
      std::size_t j = i_;
      while (j < s_.size() &&
             (std::isdigit(static_cast<unsigned char>(s_[j])) || s_[j] == '.' || s_[j] == 'e'))
        ++j;
      double v = std::stod(s_.substr(i_, j - i_));
      i_ = j;
      return v;
    }
    if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) {
      std::size_t j = i_;
      while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_')) ++j;
      std::string name = s_.substr(i_, j - i_);
      i_ = j;
      if (eat("(")) {
        std::vector<double> args{expr()};
        while (eat(",")) args.push_back(expr());
        if (!eat(")")) fail("missing ')'");
        if ((name == "min" || name == "Min") && !args.empty()) {
          double v = args[0];
          for (double a : args) v = std::min(v, a);
          return v;
        }
        if ((name == "max" || name == "Max") && !args.empty()) {
          double v = args[0];
          for (double a : args) v = std::max(v, a);
          return v;
        }
        if (name == "abs" && args.size() == 1) return std::fabs(args[0]);
        fail("unknown function '" + name + "'");
      }
      auto it = vars_.find(name);
      if (it == vars_.end()) fail("unknown name '" + name + "'");
      return it->second;
    }
    fail("expected a value");
  }
};

}  // namespace weir::test
