#include "triage/sources.hpp"

#include <nlohmann/json.hpp>

#include <set>

#include "model/families/neighbor.hpp"
#include "triage/checks.hpp"
#include "window/recent_samples.hpp"

namespace fabricmon::triage {

using nlohmann::json;

namespace {

Result<std::string> get(const std::string& url, const HttpClientOptions& client) {
  auto body = httpGet(url, client);
  if (!body && body.error().errnum == EACCES) {
    return Error{body.error().message + " (give credentials with --username/--password-file or --bearer-token-file)",
                 EACCES};
  }
  return body;
}

std::string trimSlash(std::string url) {
  while (url.ends_with('/')) url.pop_back();
  return url;
}

/// An instant query; the result vector.
Result<json> query(const std::string& base, const std::string& promql, const HttpClientOptions& client) {
  auto body = get(base + "/api/v1/query?query=" + urlEncode(promql), client);
  if (!body) return body.error();
  json j = json::parse(*body, nullptr, false);
  if (j.is_discarded() || j.value("status", "") != "success" || !j.contains("data")) {
    return Error{"Prometheus query " + promql + ": unexpected answer", EPROTO};
  }
  return j["data"]["result"];
}

std::map<std::string, std::string> metricLabels(const json& r) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : r["metric"].items()) out[k] = v.get<std::string>();
  return out;
}

double valueOf(const json& r) {
  try {
    return std::stod(r["value"][1].get<std::string>());
  } catch (...) {
    return 0;
  }
}

}  // namespace

Result<std::string> selectorMatchers(const std::string& selector) {
  std::string s = selector;
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') {
    return Error{"--selector must be a PromQL label selector in braces, e.g. '{instance=~\"gpu0[1-8]:19110\"}'", EINVAL};
  }
  return s.substr(1, s.size() - 2);
}

Result<Evidence> fetchNode(const std::string& baseUrl, std::chrono::seconds window, const HttpClientOptions& client) {
  const std::string base = trimSlash(baseUrl);
  auto w = get(base + "/api/v1/window?seconds=" + std::to_string(window.count()), client);
  if (!w) return w.error();
  auto f = get(base + "/api/v1/findings", client);
  if (!f) return f.error();
  auto ev = parseNodeEvidence(*w, *f);
  if (!ev) return Error{base + ev.error().message, ev.error().errnum};
  ev->source = base;
  return ev;
}

Result<std::map<std::string, Evidence>> fetchPrometheus(const std::string& baseUrl, const std::string& selector,
                                                        std::chrono::seconds window, const HttpClientOptions& client) {
  const std::string base = trimSlash(baseUrl);
  auto matchers = selectorMatchers(selector);
  if (!matchers) return matchers.error();
  const std::string m = *matchers;
  const std::string range = "[" + std::to_string(window.count()) + "s]";
  auto sel = [&](const std::string& extra) {
    std::string inner = m;
    if (!extra.empty()) inner += (inner.empty() ? "" : ",") + extra;
    return "{" + inner + "}";
  };
  std::map<std::string, Evidence> nodes;
  auto node = [&](const std::map<std::string, std::string>& labels) -> Evidence& {
    auto it = labels.find("instance");
    const std::string instance = it == labels.end() ? "" : it->second;
    Evidence& e = nodes[instance];
    e.source = instance;
    e.windowSeconds = double(window.count());
    return e;
  };

  // Every node the selector names, healthy ones included: scope is a share of these.
  auto up = query(base, "max by (instance) (max_over_time(fabricmon_build_info" + sel("") + range + "))", client);
  if (!up) return up.error();
  for (const auto& r : *up) node(metricLabels(r));

  auto findings = query(base, "max_over_time(fabricmon_watchdog_active" + sel("") + range + ") == 1", client);
  if (!findings) return findings.error();
  for (const auto& r : *findings) {
    auto labels = metricLabels(r);
    FindingSeen f;
    f.rule = labels["rule"];
    f.severity = labels["severity"];
    for (const char* k : {"device", "port", "interface", "priority", "reason"}) {
      if (!labels[k].empty()) f.labels[k] = labels[k];
    }
    f.summary = "active in Prometheus within the window";
    node(labels).findings.push_back(std::move(f));
  }

  // The raw series the checks read: the families of the checks, from the kept list.
  std::set<std::string> families;
  for (const Check& c : checks()) {
    for (auto f : c.families) families.insert(std::string(f));
  }
  for (const FamilyDef* f : RecentSamples::keptFamilies()) families.insert(std::string(f->name));
  // Where each port sits and what it faces: the scope of a fleet's problems (triage/scope.hpp).
  families.insert(std::string(families::neighbor::kPortNeighborInfo.name));
  families.insert("fabricmon_port_topology_info");
  for (const std::string& fam : families) {
    const bool counter = fam.ends_with("_total");
    if (!counter) {
      auto g = query(base, "last_over_time(" + fam + sel("") + range + ")", client);
      if (!g) return g.error();
      for (const auto& r : *g) {
        SeriesStat s;
        s.name = fam;
        s.labels = metricLabels(r);
        s.counter = false;
        s.last = valueOf(r);
        node(s.labels).series.push_back(std::move(s));
      }
      continue;
    }
    // Increase over the window, and the highest 1 m rate inside it (a subquery at 15 s steps):
    // the closest Prometheus gets to the node's own peaks.
    auto inc = query(base, "increase(" + fam + sel("") + range + ")", client);
    if (!inc) return inc.error();
    auto peak = query(base, "max_over_time(rate(" + fam + sel("") + "[1m])[" + std::to_string(window.count()) + "s:15s])", client);
    if (!peak) return peak.error();
    std::map<std::map<std::string, std::string>, double> peaks;
    for (const auto& r : *peak) peaks[metricLabels(r)] = valueOf(r);
    for (const auto& r : *inc) {
      SeriesStat s;
      s.name = fam;
      s.labels = metricLabels(r);
      s.increase = valueOf(r);
      s.rate = s.increase / double(window.count());
      auto p = peaks.find(s.labels);
      s.peakRate = p == peaks.end() ? s.rate : p->second;
      node(s.labels).series.push_back(std::move(s));
    }
  }
  return nodes;
}

}  // namespace fabricmon::triage
