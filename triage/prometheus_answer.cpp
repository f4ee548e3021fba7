#include "triage/prometheus_answer.hpp"

#include <nlohmann/json.hpp>

#include <set>

#include "model/families/neighbor.hpp"
#include "triage/checks.hpp"
#include "window/recent_samples.hpp"

namespace fabricmon::triage {

using nlohmann::json;

namespace {

/// Whether `r` is one sample of an instant vector as Prometheus's API documents it
/// (https://prometheus.io/docs/prometheus/latest/querying/api/#instant-vectors):
/// {"metric": {"<label>": "<value>", ...}, "value": [<time>, "<number>"]}.
bool isVectorSample(const json& r) {
  if (!r.is_object()) return false;
  const auto metric = r.find("metric");
  if (metric == r.end() || !metric->is_object()) return false;
  for (const auto& [k, v] : metric->items()) {
    if (!v.is_string()) return false;
  }
  const auto value = r.find("value");
  return value != r.end() && value->is_array() && value->size() == 2 && (*value)[1].is_string();
}

/// An instant query; the result vector. Anything but a vector of well-formed samples is an
/// unexpected answer (the body comes from the network: its shape is checked before it is read).
Result<json> query(const PrometheusGet& get, const std::string& promql) {
  auto body = get(promql);
  if (!body) return body.error();
  const json j = json::parse(*body, nullptr, false);
  const Error unexpected{"Prometheus query " + promql + ": unexpected answer", EPROTO};
  if (!j.is_object()) return unexpected;
  const auto status = j.find("status");
  const auto data = j.find("data");
  if (status == j.end() || *status != "success" || data == j.end() || !data->is_object()) return unexpected;
  const auto result = data->find("result");
  if (result == data->end() || !result->is_array()) return unexpected;
  for (const auto& r : *result) {
    if (!isVectorSample(r)) return unexpected;
  }
  return *result;
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

Result<std::map<std::string, Evidence>> prometheusEvidence(const std::string& matchers, std::chrono::seconds window,
                                                           const PrometheusGet& get) {
  const std::string& m = matchers;
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
  auto up = query(get, "max by (instance) (max_over_time(fabricmon_build_info" + sel("") + range + "))");
  if (!up) return up.error();
  for (const auto& r : *up) node(metricLabels(r));

  auto findings = query(get, "max_over_time(fabricmon_watchdog_active" + sel("") + range + ") == 1");
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
      auto g = query(get, "last_over_time(" + fam + sel("") + range + ")");
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
    auto inc = query(get, "increase(" + fam + sel("") + range + ")");
    if (!inc) return inc.error();
    auto peak = query(get, "max_over_time(rate(" + fam + sel("") + "[1m])[" + std::to_string(window.count()) + "s:15s])");
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
