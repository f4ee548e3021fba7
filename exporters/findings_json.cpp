#include "exporters/findings_json.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "exporters/utf8.hpp"

namespace fabricmon {
namespace {

void appendNumber(std::string& out, double value) {
  // JSON has no NaN or Infinity (RFC 8259 §6).
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buf[32];
  // Shortest form that reads back as the same double; "1e+20" is valid JSON.
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, res.ptr);
}

void appendRfc3339(std::string& out, std::chrono::system_clock::time_point tp) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(
      std::chrono::floor<std::chrono::seconds>(tp));
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  out += '"';
  out.append(buf, n);
  out += '"';
}

}  // namespace

void appendJsonString(std::string& out, std::string_view s) {
  const std::string fixed = isValidUtf8(s) ? std::string() : toValidUtf8(s);
  if (!fixed.empty()) s = fixed;
  out += '"';
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

std::string renderFindingsJson(std::span<const Finding> findings) {
  std::string out = "{\"findings\":[";
  bool firstFinding = true;
  for (const Finding& f : findings) {
    if (!firstFinding) out += ',';
    firstFinding = false;
    out += "{\"rule\":";
    appendJsonString(out, f.rule);
    out += ",\"severity\":";
    appendJsonString(out, severityName(f.severity));
    out += ",\"labels\":{";
    bool first = true;
    for (const auto& [name, value] : f.labels) {
      if (!first) out += ',';
      first = false;
      appendJsonString(out, name);
      out += ':';
      appendJsonString(out, value);
    }
    out += "},\"since\":";
    appendRfc3339(out, f.since);
    out += ",\"since_unix\":";
    out += std::to_string(
        std::chrono::floor<std::chrono::seconds>(f.since.time_since_epoch()).count());
    out += ",\"summary\":";
    appendJsonString(out, f.summary);
    out += ",\"evidence\":{";
    first = true;
    for (const auto& [name, value] : f.evidence) {
      if (!first) out += ',';
      first = false;
      appendJsonString(out, name);
      out += ':';
      appendNumber(out, value);
    }
    out += '}';
    if (!f.jobs.empty()) {
      out += ",\"jobs\":[";
      for (size_t i = 0; i < f.jobs.size(); ++i) {
        if (i > 0) out += ',';
        appendJsonString(out, f.jobs[i]);
      }
      out += ']';
    }
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace fabricmon
