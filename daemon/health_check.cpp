#include "daemon/health_check.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "config/command_line.hpp"
#include "config/config_loader.hpp"
#include "config/duration.hpp"
#include "config/listen_address.hpp"
#include "config/web_config.hpp"
#include "daemon/alertmanager_target.hpp"
#include "daemon/config_schema.hpp"
#include "daemon/slurm_node.hpp"
#include "outbound/http_client.hpp"

namespace fabricmon::health {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kTopologyInfo = "fabricmon_port_topology_info{";

int severityRank(const std::string& s) { return s == "critical" ? 3 : s == "warning" ? 2 : s == "info" ? 1 : 0; }

bool worse(const ActiveFinding& a, const ActiveFinding& b) {
  if (severityRank(a.severity) != severityRank(b.severity)) return severityRank(a.severity) > severityRank(b.severity);
  if (a.sinceUnix != b.sinceUnix) return a.sinceUnix < b.sinceUnix;
  if (a.rule != b.rule) return a.rule < b.rule;
  return a.labels < b.labels;
}

std::string label(const ActiveFinding& f, const char* name) {
  const auto it = f.labels.find(name);
  return it == f.labels.end() ? std::string() : it->second;
}

/// Reads `{a="b",c="d"}` from text at pos (just after '{'); the label values unescaped.
bool readLabels(std::string_view text, size_t& pos, std::map<std::string, std::string>& out) {
  while (pos < text.size() && text[pos] != '}') {
    const auto eq = text.find('=', pos);
    if (eq == std::string_view::npos || eq + 1 >= text.size() || text[eq + 1] != '"') return false;
    std::string name(text.substr(pos, eq - pos));
    std::string value;
    size_t i = eq + 2;
    for (; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) {
        ++i;
        value += text[i] == 'n' ? '\n' : text[i];
      } else {
        value += text[i];
      }
    }
    if (i >= text.size()) return false;
    out[std::move(name)] = std::move(value);
    pos = i + 1;
    if (pos < text.size() && text[pos] == ',') ++pos;
  }
  return pos < text.size();
}

struct Options {
  bool slurm = false;
  bool json = false;
  bool dryRun = false;
  std::optional<std::string> configPath;
};

Result<Options> parseArgs(const std::vector<std::string>& args) {
  Options o;
  FlagReader flags(args);
  while (flags.next()) {
    const std::string& flag = flags.flag();
    if (flag == "--slurm") {
      o.slurm = true;
    } else if (flag == "--json") {
      o.json = true;
    } else if (flag == "--dry-run") {
      o.dryRun = true;
    } else if (flag == "--config") {
      auto value = flags.value();
      if (!value) return value.error();
      o.configPath = std::move(*value);
    } else {
      return Error{"unknown option '" + flag + "' (fabricmon health-check [--slurm [--dry-run]] [--json] [--config FILE])",
                   EINVAL};
    }
  }
  if (o.dryRun && !o.slurm) return Error{"--dry-run only applies to --slurm", EINVAL};
  return o;
}

/// The daemon's base URL: health_check.url, else this node's own listener.
Result<std::string> daemonUrl(const Config& config) {
  if (config.healthCheck.url) return *config.healthCheck.url;
  auto listen = parseListen(config.web.listen);
  if (!listen) return listen.error();
  std::string scheme = "http";
  if (config.web.configFile) {
    auto web = loadWebConfigFile(*config.web.configFile);
    if (!web) return web.error();
    if (web->tls) scheme = "https";
  }
  std::string host = listen->host;
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return scheme + "://" + host + ":" + std::to_string(listen->port);
}

Result<HttpClientOptions> clientOptions(const HealthCheckConfig& h) {
  HttpClientOptions c;
  c.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(h.timeout);
  c.caFile = h.caFile;
  c.certFile = h.certFile;
  c.keyFile = h.keyFile;
  c.insecureSkipVerify = h.insecureSkipVerify;
  if (h.username) {
    auto pw = readSecretFile("health_check.basic_auth.password_file", *h.passwordFile);
    if (!pw) return pw.error();
    c.username = h.username;
    c.password = std::move(*pw);
  }
  if (h.bearerTokenFile) {
    auto token = readSecretFile("health_check.bearer_token_file", *h.bearerTokenFile);
    if (!token) return token.error();
    c.bearerToken = std::move(*token);
  }
  return c;
}

/// Asks the daemon; a verdict of kUnknown with the reason when it cannot.
Verdict askDaemon(const Config& config) {
  Verdict unknown;
  unknown.status = Status::kUnknown;
  const auto deadline = Clock::now() + config.healthCheck.timeout;
  auto base = daemonUrl(config);
  if (!base) {
    unknown.unknownReason = base.error().message;
    return unknown;
  }
  auto client = clientOptions(config.healthCheck);
  if (!client) {
    unknown.unknownReason = client.error().message;
    return unknown;
  }
  auto body = httpGet(*base + "/api/v1/findings", *client);
  if (!body) {
    // The short cause first: the line is cut at max_output characters.
    const int e = body.error().errnum;
    const std::string why = e == ECONNREFUSED ? "connection refused"
                            : e == ETIMEDOUT  ? "timed out after " + formatDuration(config.healthCheck.timeout)
                                              : body.error().message;
    unknown.unknownReason = "fabricmon daemon " + *base + ": " + why;
    return unknown;
  }
  auto findings = parseFindings(*body);
  if (!findings) {
    unknown.unknownReason = *base + "/api/v1/findings: " + findings.error().message;
    return unknown;
  }
  // The rails are a courtesy: without /metrics in the time left the verdict stands without them.
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (!findings->empty() && left > std::chrono::milliseconds(50)) {
    HttpClientOptions quick = *client;
    quick.timeout = left;
    if (auto text = httpGet(*base + "/metrics", quick)) {
      const Rails rails = parseTopologyRails(*text);
      for (ActiveFinding& f : *findings) {
        const std::string device = label(f, "device"), port = label(f, "port"), iface = label(f, "interface");
        if (auto it = rails.byPort.find(device + "/" + port); !device.empty() && it != rails.byPort.end()) {
          f.rail = it->second;
        } else if (auto it2 = rails.byInterface.find(iface); !iface.empty() && it2 != rails.byInterface.end()) {
          f.rail = it2->second;
        }
      }
    }
  }
  return judge(std::move(*findings), config.healthCheck);
}

json findingJson(const ActiveFinding& f) {
  json j{{"rule", f.rule},       {"severity", f.severity}, {"labels", f.labels}, {"since_unix", f.sinceUnix},
         {"summary", f.summary}, {"subject", f.subject()}};
  if (!f.rail.empty()) j["rail"] = f.rail;
  if (!f.jobs.empty()) j["jobs"] = f.jobs;
  return j;
}

}  // namespace

std::string_view statusName(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kProblem: return "problem";
    case Status::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string ActiveFinding::subject() const {
  std::string out = rule;
  const std::string device = label(*this, "device"), port = label(*this, "port"), iface = label(*this, "interface");
  if (!device.empty()) out += " " + device + (port.empty() ? "" : "/" + port);
  if (!iface.empty()) out += " " + iface;
  if (const std::string prio = label(*this, "priority"); !prio.empty()) out += " prio " + prio;
  if (const std::string side = label(*this, "side"); side == "peer") out += " (peer)";
  if (!rail.empty()) out += " rail " + rail;
  return out;
}

Result<std::vector<ActiveFinding>> parseFindings(std::string_view text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("findings") || !j["findings"].is_array()) {
    return Error{"not a findings document ({\"findings\":[...]})", EPROTO};
  }
  std::vector<ActiveFinding> out;
  for (const json& f : j["findings"]) {
    if (!f.is_object() || !f.contains("rule") || !f["rule"].is_string()) return Error{"a finding without a rule", EPROTO};
    ActiveFinding a;
    a.rule = f["rule"].get<std::string>();
    a.severity = f.value("severity", "");
    a.summary = f.value("summary", "");
    if (f.contains("since_unix") && f["since_unix"].is_number_integer()) a.sinceUnix = f["since_unix"].get<int64_t>();
    if (f.contains("labels") && f["labels"].is_object()) {
      for (const auto& [k, v] : f["labels"].items()) {
        if (v.is_string()) a.labels[k] = v.get<std::string>();
      }
    }
    if (f.contains("jobs") && f["jobs"].is_array()) {
      for (const json& job : f["jobs"]) {
        if (job.is_string()) a.jobs.push_back(job.get<std::string>());
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

Rails parseTopologyRails(std::string_view text) {
  Rails rails;
  size_t at = 0;
  while ((at = text.find(kTopologyInfo, at)) != std::string_view::npos) {
    const bool lineStart = at == 0 || text[at - 1] == '\n';
    at += kTopologyInfo.size();
    if (!lineStart) continue;
    std::map<std::string, std::string> labels;
    size_t pos = at;
    if (!readLabels(text, pos, labels)) continue;
    const std::string rail = labels["rail"];
    if (rail.empty()) continue;
    if (!labels["device"].empty() && !labels["port"].empty()) rails.byPort[labels["device"] + "/" + labels["port"]] = rail;
    if (!labels["interface"].empty()) rails.byInterface[labels["interface"]] = rail;
  }
  return rails;
}

Verdict judge(std::vector<ActiveFinding> findings, const HealthCheckConfig& config) {
  Verdict v;
  auto listed = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (ActiveFinding& f : findings) {
    const bool drain = listed(config.drainRules, f.rule) && listed(config.drainSeverities, f.severity);
    (drain ? v.drainWorthy : v.others).push_back(std::move(f));
  }
  std::sort(v.drainWorthy.begin(), v.drainWorthy.end(), worse);
  std::sort(v.others.begin(), v.others.end(), worse);
  v.status = v.drainWorthy.empty() ? Status::kOk : Status::kProblem;
  return v;
}

std::string shorten(std::string text, size_t maxChars) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';  // one line, whatever a label held
  }
  if (text.size() <= maxChars) return text;
  size_t cut = maxChars >= 3 ? maxChars - 3 : 0;
  // Never split a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + std::string("...").substr(0, maxChars - cut);
}

std::string verdictLine(const Verdict& v, unsigned maxChars) {
  std::string line;
  switch (v.status) {
    case Status::kUnknown:
      line = "UNKNOWN: " + v.unknownReason;
      break;
    case Status::kProblem:
      line = v.drainWorthy.front().subject();
      if (v.drainWorthy.size() > 1) line += " (+" + std::to_string(v.drainWorthy.size() - 1) + " more)";
      break;
    case Status::kOk:
      if (v.others.empty()) {
        line = "OK";
      } else {
        line = "OK: " + std::to_string(v.others.size()) + (v.others.size() == 1 ? " finding" : " findings") +
               ", not drain-worthy: " + v.others.front().subject();
      }
      break;
  }
  return shorten(std::move(line), maxChars);
}

int runHealthCheck(const std::vector<std::string>& args) {
  auto opts = parseArgs(args);
  if (!opts) {
    std::fprintf(stderr, "fabricmon health-check: %s\n", opts.error().message.c_str());
    return static_cast<int>(Status::kUnknown);
  }
  Config config;
  if (opts->configPath || std::filesystem::exists(kDefaultConfigPath)) {
    const std::string path = opts->configPath.value_or(std::string(kDefaultConfigPath));
    auto load = loadConfigFile(path, configSchema());
    if (!load.ok()) {
      for (const auto& e : load.errors) std::fprintf(stderr, "%s\n", e.format().c_str());
      std::printf("%s\n", shorten("UNKNOWN: invalid config " + path, config.healthCheck.maxOutput).c_str());
      return static_cast<int>(Status::kUnknown);
    }
    config = std::move(load.config);
  }
  const Verdict verdict = askDaemon(config);
  const std::string line = verdictLine(verdict, config.healthCheck.maxOutput);

  json slurmJson;
  std::string slurmLine;
  if (opts->slurm) {
    const std::string reason = shorten(std::string(kReasonPrefix) + (verdict.drainWorthy.empty() ? line : verdict.drainWorthy.front().subject()),
                                       std::max<size_t>(config.healthCheck.maxOutput, 40));
    std::string node;
    auto decision = applySlurm(config.healthCheck, verdict, reason, opts->dryRun, node);
    slurmJson = json{{"node", node}, {"dry_run", opts->dryRun}};
    if (!decision) {
      slurmJson["error"] = decision.error().message;
      slurmLine = "slurm: " + node + ": " + decision.error().message;
      std::fprintf(stderr, "fabricmon health-check: %s\n", slurmLine.c_str());
    } else {
      slurmJson["action"] = std::string(actionName(decision->action));
      slurmJson["why"] = decision->why;
      if (decision->action == SlurmAction::kDrain) slurmJson["reason"] = decision->reason;
      const std::string verb = decision->action == SlurmAction::kNone ? "no change"
                               : opts->dryRun ? "would " + std::string(actionName(decision->action))
                                              : std::string(decision->action == SlurmAction::kDrain ? "drained" : "resumed");
      slurmLine = "slurm: " + node + ": " + verb + " (" + decision->why + ")";
      if (opts->dryRun && decision->action != SlurmAction::kNone) {
        slurmLine += ": " + config.healthCheck.slurm.scontrol + " update nodename=" + node +
                     (decision->action == SlurmAction::kDrain ? " state=drain reason=\"" + decision->reason + "\""
                                                              : " state=resume");
      }
    }
  }

  if (opts->json) {
    json out{{"status", std::string(statusName(verdict.status))},
             {"exit_code", static_cast<int>(verdict.status)},
             {"summary", line},
             {"drain_worthy", json::array()},
             {"other", json::array()}};
    for (const auto& f : verdict.drainWorthy) out["drain_worthy"].push_back(findingJson(f));
    for (const auto& f : verdict.others) out["other"].push_back(findingJson(f));
    if (verdict.status == Status::kUnknown) out["reason"] = verdict.unknownReason;
    if (opts->slurm) out["slurm"] = slurmJson;
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("%s\n", line.c_str());
    // The second line is for a human (or slurmd's debug log); node-problem-detector runs the
    // command without --slurm and reads one line.
    if (!slurmLine.empty()) std::printf("%s\n", slurmLine.c_str());
  }
  return static_cast<int>(verdict.status);
}

}  // namespace fabricmon::health
