#include "triage/command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "config/command_line.hpp"
#include "config/duration.hpp"
#include "triage/report.hpp"
#include "triage/scope.hpp"
#include "triage/sources.hpp"

namespace fabricmon::triage {
namespace {

constexpr const char* kDefaultNode = "http://127.0.0.1:19110";

struct Options {
  std::string node = kDefaultNode;
  std::optional<std::string> prometheus;
  std::string selector = "{job=\"fabricmon\"}";
  std::chrono::seconds since{300};
  bool json = false;
  HttpClientOptions client;
  std::optional<std::string> passwordFile, bearerTokenFile;
};

Result<Options> parse(const std::vector<std::string>& args) {
  Options o;
  o.client.timeout = std::chrono::seconds(10);
  bool nodeGiven = false, selectorGiven = false;
  FlagReader flags(args);
  while (flags.next()) {
    const std::string& flag = flags.flag();
    if (flag == "--json") {
      o.json = true;
      continue;
    }
    if (flag == "--insecure-skip-verify") {
      o.client.insecureSkipVerify = true;
      continue;
    }
    auto next = flags.value();
    if (!next) return next.error();
    const std::string value = std::move(*next);
    if (flag == "--node") {
      o.node = value;
      nodeGiven = true;
    } else if (flag == "--prometheus") {
      o.prometheus = value;
    } else if (flag == "--selector") {
      o.selector = value;
      selectorGiven = true;
    } else if (flag == "--since") {
      auto d = parseDuration(value);
      if (!d || *d < std::chrono::seconds(1)) return Error{"--since: a duration of at least 1s (30s, 5m, 1h)", EINVAL};
      o.since = std::chrono::duration_cast<std::chrono::seconds>(*d);
    } else if (flag == "--timeout") {
      auto d = parseDuration(value);
      if (!d) return Error{"--timeout: " + d.error().message, EINVAL};
      o.client.timeout = *d;
    } else if (flag == "--ca-file") {
      o.client.caFile = value;
    } else if (flag == "--cert-file") {
      o.client.certFile = value;
    } else if (flag == "--key-file") {
      o.client.keyFile = value;
    } else if (flag == "--username") {
      o.client.username = value;
    } else if (flag == "--password-file") {
      o.passwordFile = value;
    } else if (flag == "--bearer-token-file") {
      o.bearerTokenFile = value;
    } else {
      return Error{"unknown option '" + flag + "'", EINVAL};
    }
  }
  if (o.prometheus && nodeGiven) return Error{"--node and --prometheus exclude each other", EINVAL};
  if (!o.prometheus && selectorGiven) return Error{"--selector needs --prometheus", EINVAL};
  for (const std::string* url : {&o.node, o.prometheus ? &*o.prometheus : &o.node}) {
    if (!url->starts_with("http://") && !url->starts_with("https://")) {
      return Error{"expected an http:// or https:// URL, got '" + *url + "'", EINVAL};
    }
  }
  if (o.prometheus) {
    if (auto m = selectorMatchers(o.selector); !m) return m.error();
  }
  if (o.client.username.has_value() != o.passwordFile.has_value()) {
    return Error{"--username and --password-file go together", EINVAL};
  }
  if (o.passwordFile) {
    auto pw = readSecretFile("--password-file", *o.passwordFile);
    if (!pw) return pw.error();
    o.client.password = *pw;
  }
  if (o.bearerTokenFile) {
    auto token = readSecretFile("--bearer-token-file", *o.bearerTokenFile);
    if (!token) return token.error();
    o.client.bearerToken = *token;
  }
  if (o.prometheus && o.since > std::chrono::hours(24 * 7)) return Error{"--since: at most 7 days", EINVAL};
  if (!o.prometheus && o.since > std::chrono::hours(1)) {
    return Error{"--since: a node keeps at most its recent minutes (1h is the limit; see /api/v1/window)", EINVAL};
  }
  return o;
}

bool colourWanted() { return ::isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr; }

}  // namespace

std::string triageUsage() {
  return R"(Usage:
  fabricmon triage [--node URL] [--since DUR] [--json] [client options]
  fabricmon triage --prometheus URL [--selector '{...}'] [--since DUR] [--json] [client options]

Walks the runbook (docs/runbook.md): PFC pause and storms, ECN/CNP, QoS configuration, link
errors and flaps, RoCE loss, InfiniBand congestion; prints the most likely cause first.
  --node URL               a fabricmon daemon (default http://127.0.0.1:19110)
  --prometheus URL         a Prometheus that scrapes fabricmon; ranks the selected nodes
  --selector SEL           PromQL selector of the nodes (default {job="fabricmon"})
  --since DUR              window to judge (default 5m; a node keeps at most its recent minutes)
  --json                   JSON for tools instead of text
  --timeout DUR            per request (default 10s)
  --ca-file, --cert-file, --key-file, --insecure-skip-verify     TLS
  --username U --password-file F | --bearer-token-file F         auth
Exit codes: 0 nothing wrong, 1 something is, 2 bad usage or no source answered.
)";
}

int runTriage(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--help") != args.end()) {
    std::fputs(triageUsage().c_str(), stdout);
    return 0;
  }
  auto opts = parse(args);
  if (!opts) {
    std::fprintf(stderr, "fabricmon triage: %s (see fabricmon triage --help)\n", opts.error().message.c_str());
    return 2;
  }
  const bool colour = !opts->json && colourWanted();
  if (!opts->prometheus) {
    auto ev = fetchNode(opts->node, opts->since, opts->client);
    if (!ev) {
      std::fprintf(stderr, "fabricmon triage: no answer from the node: %s\n", ev.error().message.c_str());
      return 2;
    }
    const Verdict v = judge(*ev);
    const std::string out = opts->json ? renderJson(v) : renderText(v, colour);
    std::fputs(out.c_str(), stdout);
    return v.wrong ? 1 : 0;
  }
  auto nodes = fetchPrometheus(*opts->prometheus, opts->selector, opts->since, opts->client);
  if (!nodes) {
    std::fprintf(stderr, "fabricmon triage: no answer from Prometheus: %s\n", nodes.error().message.c_str());
    return 2;
  }
  if (nodes->empty()) {
    std::fprintf(stderr, "fabricmon triage: Prometheus at %s has no fabricmon series matching %s in the last %llds\n",
                 opts->prometheus->c_str(), opts->selector.c_str(), static_cast<long long>(opts->since.count()));
    return 2;
  }
  FleetVerdict fleet;
  fleet.source = *opts->prometheus + " " + opts->selector;
  fleet.windowSeconds = double(opts->since.count());
  fleet.nodes = nodes->size();
  for (const auto& [instance, ev] : *nodes) fleet.ranked.push_back(judge(ev));
  // Sick nodes first, by how fundamental their top problem is, then how severe.
  std::stable_sort(fleet.ranked.begin(), fleet.ranked.end(), [](const Verdict& a, const Verdict& b) {
    if (a.wrong != b.wrong) return a.wrong;
    if (!a.wrong) return false;
    const auto& ca = a.ranked.front();
    const auto& cb = b.ranked.front();
    if (ca.severity != cb.severity) return ca.severity > cb.severity;
    return ca.causeRank < cb.causeRank;
  });
  setScope(fleet, *nodes);
  const std::string out = opts->json ? renderJson(fleet) : renderText(fleet, colour);
  std::fputs(out.c_str(), stdout);
  return fleet.wrong() ? 1 : 0;
}

}  // namespace fabricmon::triage
