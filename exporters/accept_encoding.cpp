#include "exporters/accept_encoding.hpp"

#include <cctype>
#include <optional>

namespace fabricmon {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )  (RFC 9110 §12.4.2).
// Only "is it above zero" matters here; nullopt for a malformed value.
std::optional<bool> qAboveZero(std::string_view q) {
  if (q.empty() || (q[0] != '0' && q[0] != '1')) return std::nullopt;
  bool nonzero = q[0] == '1';
  if (q.size() > 1) {
    if (q[1] != '.' || q.size() > 5) return std::nullopt;
    for (char c : q.substr(2)) {
      if (c < '0' || c > '9') return std::nullopt;
      if (c != '0') {
        if (q[0] == '1') return std::nullopt;
        nonzero = true;
      }
    }
  }
  return nonzero;
}

// Whether one list element ("gzip;q=0.5") is acceptable; malformed parameters count as not acceptable,
// since identity is always a safe answer.
bool elementAcceptable(std::string_view params) {
  while (!params.empty()) {
    const size_t semi = params.find(';');
    std::string_view param = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    const size_t eq = param.find('=');
    if (eq == std::string_view::npos) continue;
    if (equalsIgnoreCase(trim(param.substr(0, eq)), "q")) {
      return qAboveZero(trim(param.substr(eq + 1))).value_or(false);
    }
  }
  return true;
}

}  // namespace

bool acceptsGzip(std::string_view header) {
  std::optional<bool> gzip;
  std::optional<bool> wildcard;
  while (!header.empty()) {
    const size_t comma = header.find(',');
    std::string_view element = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    const size_t semi = element.find(';');
    const std::string_view coding = trim(element.substr(0, semi));
    const std::string_view params =
        semi == std::string_view::npos ? std::string_view() : element.substr(semi + 1);
    if (equalsIgnoreCase(coding, "gzip") || equalsIgnoreCase(coding, "x-gzip")) {
      gzip = elementAcceptable(params);
    } else if (coding == "*") {
      wildcard = elementAcceptable(params);
    }
  }
  if (gzip) return *gzip;
  return wildcard.value_or(false);
}

}  // namespace fabricmon
