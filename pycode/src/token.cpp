// Token kind names and token descriptions for messages.
#include "weir/pycode/token.h"

namespace weir::pycode {

std::string_view to_string(TokenKind kind) {
  switch (kind) {
    case TokenKind::Name: return "name";
    case TokenKind::Number: return "number";
    case TokenKind::String: return "string";
    case TokenKind::FString: return "f-string";
    case TokenKind::Op: return "operator";
    case TokenKind::Newline: return "newline";
    case TokenKind::Indent: return "indent";
    case TokenKind::Dedent: return "dedent";
    case TokenKind::EndOfFile: return "end of file";
  }
  return "token";
}

std::string Token::describe() const {
  switch (kind) {
    case TokenKind::Name:
    case TokenKind::Number:
    case TokenKind::Op: return "'" + std::string(text) + "'";
    case TokenKind::String: return "string literal";
    case TokenKind::FString: return "f-string";
    case TokenKind::Newline: return "end of line";
    case TokenKind::Indent: return "indent";
    case TokenKind::Dedent: return "dedent";
    case TokenKind::EndOfFile: return "end of file";
  }
  return "token";
}

}  // namespace weir::pycode
