#pragma once
// A small blocking HTTP(S) client (libcurl, loaded on first use: outbound/curl_library.hpp) for the outgoing requests of the daemon and the CLI:
// pushes to Alertmanager and `fabricmon triage` queries. Every request has a deadline; nothing is
// retried here (callers decide), and proxies from the environment are ignored, as Prometheus'
// HTTP clients do unless a proxy_url is configured.

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

#include "model/result.hpp"

namespace fabricmon {

/// How to reach a server: the same knobs as Prometheus' http_config (tls_config, basic_auth,
/// authorization). Secrets are values here; the config keeps file names and reads them.
struct HttpClientOptions {
  std::chrono::milliseconds timeout{10000};  ///< whole request, connect included
  std::optional<std::string> caFile;         ///< PEM bundle that signs the server's certificate
  std::optional<std::string> certFile;       ///< client certificate (mutual TLS) ...
  std::optional<std::string> keyFile;        ///< ... and its key
  bool insecureSkipVerify = false;
  std::optional<std::string> username;  ///< basic auth when set
  std::string password;
  std::optional<std::string> bearerToken;  ///< `Authorization: Bearer ...` when set

  bool operator==(const HttpClientOptions&) const = default;
};

struct HttpResponse {
  long status = 0;
  std::string body;
};

/// One request. A transport failure (refused, timed out, TLS) is an error naming the URL; any
/// HTTP status is a response. The body is capped at `maxBody` bytes (an error beyond it). When
/// `cancel` becomes true the request is abandoned within 50 ms (shutdown).
Result<HttpResponse> httpRequest(const std::string& method, const std::string& url,
                                 const HttpClientOptions& options, const std::string& body = {},
                                 const std::string& contentType = {},
                                 size_t maxBody = size_t{64} << 20,
                                 const std::atomic<bool>* cancel = nullptr);

/// GET `url`: the body of a 200 answer; any other status is an error naming the URL, the status and
/// the start of the answer's text (EACCES for 401 and 403, so a caller can say which credentials
/// to give; EIO otherwise). What `fabricmon triage` and `fabricmon health-check` ask a node or
/// Prometheus.
Result<std::string> httpGet(const std::string& url, const HttpClientOptions& options,
                            size_t maxBody = size_t{64} << 20);

/// A password or bearer-token file as Prometheus reads one (prometheus/common's http_config):
/// the whole file, surrounding whitespace trimmed; empty is an error. `key` (the config key or
/// the flag that named the file) prefixes the messages.
Result<std::string> readSecretFile(const std::string& key, const std::string& path);

/// URL-encodes a query parameter value (RFC 3986 §2.1).
std::string urlEncode(std::string_view value);

}  // namespace fabricmon
