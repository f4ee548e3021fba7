#include "triage/sources.hpp"

#include "triage/prometheus_answer.hpp"

namespace fabricmon::triage {

namespace {

Result<std::string> get(const std::string& url, const HttpClientOptions& client) {
  auto r = httpRequest("GET", url, client);
  if (!r) return r.error();
  if (r->status == 401 || r->status == 403) {
    return Error{"GET " + url + ": HTTP " + std::to_string(r->status) +
                     " (give credentials with --username/--password-file or --bearer-token-file)",
                 EACCES};
  }
  if (r->status != 200) {
    std::string why = r->body.substr(0, 300);
    while (!why.empty() && (why.back() == '\n')) why.pop_back();
    return Error{"GET " + url + ": HTTP " + std::to_string(r->status) + (why.empty() ? "" : ": " + why), EIO};
  }
  return std::move(r->body);
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
