#include "triage/sources.hpp"

#include "triage/prometheus_answer.hpp"

namespace fabricmon::triage {

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
  return prometheusEvidence(*matchers, window, [&](const std::string& promql) {
    return get(base + "/api/v1/query?query=" + urlEncode(promql), client);
  });
}

}  // namespace fabricmon::triage
