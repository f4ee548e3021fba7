#pragma once
// The daemon's HTTP listener: its own io_context and threads (scrapes never queue behind a timer
// or a reload), the server in service, and the one way to change it: bind the next one, then
// commit, or roll back to the one that served. A reload that fails after the listener was
// prepared (the Alertmanager target, say) leaves the endpoint as it was.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/config.hpp"
#include "exporters/http_server.hpp"
#include "model/asio.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// The HTTP server options a config asks for: limits, and TLS and basic auth from
/// web.config_file (read and checked here). An error names the main config's key position.
Result<HttpServerOptions> serverOptions(const Config& config);

class HttpEndpoint {
 public:
  /// The routes of a server built with these options (the status reply says whether TLS and
  /// basic auth are on).
  using MakeHandlers = std::function<HttpHandlers(const HttpServerOptions&)>;
  /// Told each time a server starts serving as the endpoint: "http" or "https", the host as
  /// configured ("" = every address) and the bound port.
  using OnServing =
      std::function<void(std::string_view scheme, const std::string& host, uint16_t port)>;

  /// Starts `threads` threads for the servers; none is listening yet.
  HttpEndpoint(MakeHandlers makeHandlers, std::shared_ptr<RequestDurations> durations, int threads,
               OnServing onServing = {});
  ~HttpEndpoint();
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  /// A change of listener under way. commit() makes the prepared server the endpoint (the one it
  /// replaces stops); dropped uncommitted, it rolls back: the prepared server is closed and, if the
  /// old one had to give up its address, the old one is bound there again.
  class Change {
   public:
    Change(Change&& other) noexcept;
    Change& operator=(Change&&) = delete;
    ~Change();
    /// The port the endpoint will serve on once committed.
    uint16_t port() const;
    void commit();

   private:
    friend class HttpEndpoint;
    Change(HttpEndpoint* endpoint, std::unique_ptr<HttpServer> server, std::string listen,
           std::optional<std::string> webConfig, HttpServerOptions options, std::string host,
           uint16_t port, bool closedOld);
    HttpEndpoint* endpoint_;              ///< null once committed, rolled back or moved from
    std::unique_ptr<HttpServer> server_;  ///< null: the serving server stays
    std::string listen_;
    std::optional<std::string> webConfig_;
    HttpServerOptions options_;
    std::string host_;
    uint16_t port_ = 0;
    bool closedOld_ = false;  ///< the serving server was closed to free its address
  };

  /// Prepares serving `config.web` with `options`. A new address is bound while the old one still
  /// serves; the same address (only TLS or auth may have changed) can only be bound once the old
  /// listener is closed, and is given back to the old server if that fails. Nothing to change (the
  /// same address, and no web-config before or after) prepares a change that keeps the server.
  /// An error means nothing changed.
  Result<Change> prepare(const Config& config, HttpServerOptions options);

  /// The bound port of the serving server (0 before the first commit).
  uint16_t port() const { return port_; }

  /// Stops the server and its threads. Safe to call more than once.
  void stop();

 private:
  struct Bound {
    std::unique_ptr<HttpServer> server;
    std::string host;
    uint16_t port = 0;
  };
  Result<Bound> bind(const std::string& listen, HttpServerOptions options);
  void adopt(std::unique_ptr<HttpServer> server, const std::string& host, uint16_t port,
             std::string listen, std::optional<std::string> webConfig, HttpServerOptions options);
  /// After the old server gave up its address for a change that did not happen: bind it again.
  void restoreOld();

  MakeHandlers makeHandlers_;
  std::shared_ptr<RequestDurations> durations_;
  OnServing onServing_;
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::vector<std::thread> threads_;
  std::unique_ptr<HttpServer> server_;
  std::string listen_;                    ///< web.listen the server was bound for
  std::optional<std::string> webConfig_;  ///< web.config_file it was built from
  HttpServerOptions options_;             ///< what it was built with, to bind it again
  uint16_t port_ = 0;
};

}  // namespace fabricmon
