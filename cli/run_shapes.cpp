// Shapes named when a domain is not covered (run_shapes.h).
#include "run_shapes.h"

#include <vector>

#include "run_sizes.h"

namespace weir::cli {

using namespace weir::runtime;

std::string larger_output_note(const Signature& sig, const Arguments& args) {
  struct Given {
    const Parameter* p;
    const Field* f;
    std::vector<std::string> dims;  // per array dimension; "" where not a field dimension
  };
  std::vector<Given> outs, ins;
  for (const auto& p : sig.params) {
    auto a = args.arrays.find(p.name);
    if (p.kind != Parameter::Kind::Array || a == args.arrays.end() || a->second.ndim() != p.shape.size())
      continue;
    Given g{&p, &a->second, {}};
    bool field = false;
    for (const auto& e : p.shape) {
      g.dims.push_back(size_dimension(e.str()));
      field = field || !g.dims.back().empty();
    }
    if (field) (p.written ? outs : ins).push_back(std::move(g));
  }
  auto shape = [](const Field& f) {
    std::string s;
    for (auto n : f.shape()) s += (s.empty() ? "" : ", ") + std::to_string(n);
    return "(" + s + (f.ndim() == 1 ? ",)" : ")");
  };
  auto dims = [](const Given& g) {
    std::string s;
    for (const auto& d : g.dims) s += (s.empty() ? "" : ", ") + (d.empty() ? "?" : d);
    return "(" + s + ")";
  };
  for (const auto& o : outs)
    for (const auto& i : ins) {
      std::string larger;
      for (std::size_t a = 0; a < o.dims.size(); ++a)
        for (std::size_t b = 0; b < i.dims.size(); ++b)
          if (!o.dims[a].empty() && o.dims[a] == i.dims[b] && o.f->shape()[a] > i.f->shape()[b])
            larger += (larger.empty() ? "" : ", ") + o.dims[a];
      if (larger.empty()) continue;
      return "\n  '" + o.p->name + "' is " + shape(*o.f) + " but '" + i.p->name + "' is " + shape(*i.f) +
             (o.dims == i.dims ? " over " + dims(o) : " (" + dims(o) + " and " + dims(i) + ")") +
             ": the output is larger along " + larger;
    }
  return "";
}

std::string short_table_note(const std::vector<ConnectivityParameter>& connectivities, const Signature& sig,
                             const Arguments& args) {
  for (const auto& c : connectivities) {
    auto t = args.arrays.find(c.name);
    if (t == args.arrays.end() || t->second.ndim() != 2) continue;
    const std::int64_t rows = t->second.shape()[0];
    for (const auto& p : sig.params) {
      auto a = args.arrays.find(p.name);
      if (p.kind != Parameter::Kind::Array || a == args.arrays.end() || a->second.ndim() != p.shape.size())
        continue;
      for (std::size_t d = 0; d < p.shape.size(); ++d)
        if (size_dimension(p.shape[d].str()) == c.from && a->second.shape()[d] > rows)
          return "\n  connectivity table '" + c.name + "' has " + std::to_string(rows) + " rows, but '" +
                 p.name + "' has " + std::to_string(a->second.shape()[d]) + " along " + c.from +
                 " (a row for every " + c.from + ")";
    }
  }
  return "";
}

}  // namespace weir::cli
