#include "triage/evidence.hpp"

#include <nlohmann/json.hpp>

namespace fabricmon::triage {

using nlohmann::json;

namespace {

std::string labelOf(const std::map<std::string, std::string>& labels, const std::string& name) {
  auto it = labels.find(name);
  return it == labels.end() ? std::string() : it->second;
}

double number(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

/// The string at `key`, or `fallback` when it is absent or not a string (json::value() throws on a
/// present value of another type: a body from the network must not decide that).
std::string text(const json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::map<std::string, std::string> labelsOf(const json& j) {
  std::map<std::string, std::string> out;
  if (auto it = j.find("labels"); it != j.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      if (v.is_string()) out[k] = v.get<std::string>();
    }
  }
  return out;
}

}  // namespace

std::string SeriesStat::label(const std::string& name) const { return labelOf(labels, name); }
std::string FindingSeen::label(const std::string& name) const { return labelOf(labels, name); }

std::vector<const SeriesStat*> Evidence::family(const std::string& name) const {
  std::vector<const SeriesStat*> out;
  for (const auto& s : series) {
    if (s.name == name) out.push_back(&s);
  }
  return out;
}

bool Evidence::has(const std::string& name) const {
  for (const auto& s : series) {
    if (s.name == name) return true;
  }
  return false;
}

Result<Evidence> parseNodeEvidence(const std::string& windowJson, const std::string& findingsJson) {
  Evidence ev;
  const json w = json::parse(windowJson, nullptr, false);
  if (w.is_discarded() || !w.is_object() || !w.contains("series") || !w["series"].is_array()) {
    return Error{"/api/v1/window: not the window JSON of docs/contract.md", EPROTO};
  }
  ev.windowSeconds = number(w, "covered_seconds");
  for (const auto& s : w["series"]) {
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string()) continue;
    SeriesStat st;
    st.name = s["name"].get<std::string>();
    st.labels = labelsOf(s);
    st.counter = text(s, "type", "counter") == "counter";
    st.increase = number(s, "increase");
    st.rate = number(s, "rate");
    st.peakRate = number(s, "peak_rate");
    st.last = number(s, "last");
    ev.series.push_back(std::move(st));
  }
  const json f = json::parse(findingsJson, nullptr, false);
  if (f.is_discarded() || !f.is_object() || !f.contains("findings") || !f["findings"].is_array()) {
    return Error{"/api/v1/findings: not the findings JSON of docs/contract.md", EPROTO};
  }
  for (const auto& x : f["findings"]) {
    if (!x.is_object()) continue;
    FindingSeen fs;
    fs.rule = text(x, "rule", "");
    fs.severity = text(x, "severity", "");
    fs.summary = text(x, "summary", "");
    fs.labels = labelsOf(x);
    if (auto it = x.find("evidence"); it != x.end() && it->is_object()) {
      for (const auto& [k, v] : it->items()) {
        if (v.is_number()) fs.evidence.emplace_back(k, v.get<double>());
      }
    }
    if (auto it = x.find("jobs"); it != x.end() && it->is_array()) {
      for (const auto& j : *it) {
        if (j.is_string()) fs.jobs.push_back(j.get<std::string>());
      }
    }
    ev.findings.push_back(std::move(fs));
  }
  return ev;
}

}  // namespace fabricmon::triage
