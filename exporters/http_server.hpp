#pragma once
// The HTTP endpoint (docs/contract.md §3): Boost.Beast on the caller's io_context, plain HTTP or
// TLS, with optional basic auth (web.config_file). Debian 12's civetweb crashes when given a TLS
// certificate, so the server is Beast (docs/architecture.md, "Why Boost.Beast and not civetweb").

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "model/asio.hpp"
#include "exporters/payload.hpp"
#include "exporters/request_durations.hpp"
#include "model/result.hpp"

namespace fabricmon {

class BasicAuth;
class TlsServer;

namespace detail {
struct HttpServerState;
}  // namespace detail

/// A whole response of a handler that can fail (400 for a bad query, 404 for an unknown asset).
struct HttpReply {
  unsigned status = 200;
  std::string contentType = "application/json";
  std::string body;
};

/// What the routes serve. Every handler is called on an io_context thread for each request, so it
/// must be cheap, never block and be safe to call from every thread that runs the io_context.
struct HttpHandlers {
  std::function<std::shared_ptr<const Payload>()> metrics;  ///< latest payload; nullptr = none yet (503)
  std::function<std::pair<bool, std::string>()> health;    ///< ok?, reason when not ok
  std::function<std::string()> findingsJson;                 ///< body of /api/v1/findings
  /// /api/v1/window?QUERY (the query string without '?'); unset = 404.
  std::function<HttpReply(std::string_view query)> window;
  std::function<HttpReply()> status;  ///< /api/v1/status; unset = 404
  /// GET / (the status page); unset = a list of the endpoints.
  std::function<HttpReply()> page;
  /// /static/NAME (the page's scripts and styles); unset = 404.
  std::function<HttpReply(std::string_view name)> asset;
};

struct HttpServerOptions {
  /// Open connections at most. At the limit a new connection evicts the connection that has waited
  /// longest without sending a complete request (idle keep-alive, slowloris, a stalled TLS
  /// handshake); only when every connection is busy with a request is the new one refused.
  size_t maxConnections = 64;
  /// Deadline for the first request of a new connection (TLS handshake included) to arrive whole.
  std::chrono::milliseconds headerTimeout{5000};
  /// Deadline for the next request on a kept-alive connection to arrive whole.
  std::chrono::milliseconds idleTimeout{60000};
  /// Deadline for writing one response (and for the TLS close_notify at the end).
  std::chrono::milliseconds requestTimeout{10000};
  size_t maxRequestBytes = 8192;  ///< header limit and body limit of a request
  /// TLS for every connection (applyWebSecurity, through fabricmon-tls.so); nullptr = plain HTTP.
  /// The TLS handshake runs under headerTimeout, so a client that never finishes it is dropped.
  std::shared_ptr<TlsServer> tls;
  /// Basic auth on every path, /healthz included, as exporter-toolkit does; nullptr = no auth.
  /// Missing or wrong credentials get 401 with `WWW-Authenticate: Basic realm="fabricmon"`.
  std::shared_ptr<BasicAuth> basicAuth;
  /// Where each request's handling time is recorded; nullptr = not recorded.
  std::shared_ptr<RequestDurations> durations;
};

/// Routes: GET|HEAD /metrics, /healthz, /api/v1/findings, /api/v1/window, /api/v1/status, /,
/// /static/*; other methods 405, other paths 404.
/// HTTP/1.1 keep-alive; /metrics is sent gzip-encoded when Accept-Encoding allows it. With basic
/// auth, authentication comes first: an unauthenticated request gets 401 whatever its path.
class HttpServer {
 public:
  /// `io` must outlive the server; the caller runs it (one or more threads).
  HttpServer(boost::asio::io_context& io, HttpHandlers handlers, HttpServerOptions options = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Starts accepting on host:port and returns the bound port. host "" = every address ([::] dual
  /// stack where IPv6 exists, else 0.0.0.0); "[::1]" and names are accepted; port 0 = any free port.
  /// May be called more than once to listen on several addresses.
  Result<uint16_t> listen(const std::string& host, uint16_t port);

  /// Closes every acceptor and every open connection. Safe to call from any thread, more than once.
  /// With `waitForListeners` > 0 it also waits (up to that long) until the listening sockets are
  /// closed, so the same address can be bound again at once; never call that form from a thread
  /// that runs the server's io_context.
  void stop(std::chrono::milliseconds waitForListeners = std::chrono::milliseconds(0));

  /// Connections open right now.
  size_t connectionCount() const;
  /// Connections closed so far to make room for a new one (see maxConnections).
  uint64_t evictedCount() const;

 private:
  // Shared with every connection and pending accept, so they stay valid after the server is gone.
  std::shared_ptr<detail::HttpServerState> state_;
};

}  // namespace fabricmon
