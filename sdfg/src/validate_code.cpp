// The last check of validate(): every Python code block parses (pycode's parser, the one the
// code generator translates with), and is Python where only Python is read.
#include "validate_internal.h"
#include "weir/pycode/code.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/source.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/control_flow.h"
#include "weir/sdfg/nodes.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::detail {

namespace {

class CodeCheck {
 public:
  explicit CodeCheck(std::vector<Diagnostic>& out) : out_(out) {}

  void sdfg(const SDFG& s, const std::string& path) { region(s, path); }

 private:
  std::vector<Diagnostic>& out_;

  static ElementRef at(const std::string& sdfg, const ControlFlowBlock* b) {
    ElementRef r;
    r.sdfg = sdfg;
    if (b && b->kind() != BlockKind::SDFG) r.block_path = b->path();
    return r;
  }

  void report(const std::string& code, const std::string& message, const ElementRef& where) {
    out_.push_back({code, message, where});
  }

  /// Parses `c` as an expression (`statements` false) or statements; reports what fails.
  void python(const CodeBlock& c, bool statements, const std::string& what, const std::string& code,
              const ElementRef& where) {
    if (c.language != Language::Python) {
      if (code != "tasklet-syntax")
        report("code-language", what + " is " + std::string(to_string(c.language)) + ", not Python", where);
      return;
    }
    if (is_blank(c)) return;
    try {
      // Parsed once, into the tree the passes and the code generator read.
      auto tree = c.parsed();
      // Not one expression: parse_expression reports why, with its location.
      if (!statements && !tree->expression()) pycode::parse_expression(c.code);
    } catch (const pycode::SourceError& e) {
      report(code, what + " `" + c.code + "` does not parse as Python: " + e.message(), where);
    }
  }

  void region(const ControlFlowRegion& r, const std::string& path) {
    for (const ControlFlowEdge* e : r.edges()) {
      ElementRef where = at(path, &r);
      where.edge = static_cast<long>(e->id);
      python(e->data.condition, false, "interstate condition", "code-syntax", where);
      for (const auto& [target, value] : e->data.assignments)
        python(value, false, "interstate assignment " + target + " =", "code-syntax", where);
    }
    for (const ControlFlowBlock* b : r.blocks()) {
      if (const auto* st = b->as<SDFGState>()) state(*st, path);
      if (const auto* loop = b->as<LoopRegion>()) {
        python(loop->init_statement, true, "loop init statement", "code-syntax", at(path, b));
        python(loop->loop_condition, false, "loop condition", "code-syntax", at(path, b));
        python(loop->update_statement, true, "loop update statement", "code-syntax", at(path, b));
      }
      if (const auto* sub = b->as<ControlFlowRegion>()) region(*sub, path);
      if (const auto* cond = b->as<ConditionalBlock>()) {
        for (const auto& br : cond->branches()) {
          if (br.condition) python(*br.condition, false, "branch condition", "code-syntax", at(path, b));
          if (br.body) region(*br.body, path);
        }
      }
    }
  }

  void state(const SDFGState& st, const std::string& path) {
    for (const Node* n : st.nodes()) {
      ElementRef where = at(path, &st);
      where.node = static_cast<long>(n->id());
      where.node_label = n->label;
      if (const auto* t = n->as<Tasklet>())
        python(t->code, true, "the code of tasklet '" + t->label + "'", "tasklet-syntax", where);
      if (const auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg)
        sdfg(*ns->sdfg, path + "/" + ns->sdfg->name);
    }
  }
};

}  // namespace

void validate_code_into(const SDFG& sdfg, std::vector<Diagnostic>& out) {
  CodeCheck(out).sdfg(sdfg, sdfg.name);
}

}  // namespace weir::detail
