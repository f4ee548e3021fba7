#pragma once
// Wires sources, discovery, collectors, the pipeline (watchdog + rendering) and the HTTP endpoint
// together on one Asio loop, and handles signals: TERM/INT stop, HUP reloads.

#include <memory>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "collectors/registry.hpp"
#include "config/config.hpp"
#include "daemon/cli.hpp"
#include "daemon/collector_runner.hpp"
#include "daemon/pipeline.hpp"
#include "model/asio.hpp"
#include "exporters/http_server.hpp"

namespace fabricmon {

class TopologyDiscovery;
class DemoNode;
class AlertmanagerPusher;
class RecentSamples;
class StatusPage;
struct AlertmanagerTarget;

/// The HTTP server options a config asks for: limits, and TLS and basic auth from
/// web.config_file (read and checked here). An error names the main config's key position.
Result<HttpServerOptions> serverOptions(const Config& config);

class App {
 public:
  /// `config` is loaded and has the flags applied; `cli` is kept to re-apply them on reload.
  App(Config config, CliOptions cli);
  ~App();

  /// Runs until SIGTERM/SIGINT. Returns the process exit code.
  int run();
  /// True if a collector run was left blocked at shutdown (the process must not run static
  /// destructors under it: main() uses _Exit then).
  bool leftThreadsBehind() const { return leftBehind_; }

 private:
  Status startSampling();
  void stopSampling(std::chrono::milliseconds grace);
  /// A server listening on config.web.listen, not yet serving as the daemon's endpoint.
  struct BoundServer {
    std::unique_ptr<HttpServer> server;
    std::string host;
    uint16_t port = 0;
    bool tls = false;
  };
  Result<BoundServer> bindHttp(const Config& config, HttpServerOptions options);
  void adoptHttp(BoundServer bound, const Config& config);
  Status startHttp(HttpServerOptions options);
  void rejectReload(const std::string& why);
  void waitForSignal();
  void reload();
  void shutdown();
  void stopHttpThreads();
  /// Starts, reconfigures or stops the Alertmanager push to match `target` (nullopt = off).
  void applyPush(std::optional<AlertmanagerTarget> target);
  std::shared_ptr<AlertmanagerPusher> pusher() const;

  Config config_;
  CliOptions cli_;
  boost::asio::io_context io_;  // timers, signals, reload
  boost::asio::signal_set signals_;
  // The HTTP server has its own loop and threads, so concurrent scrapes are served in parallel and
  // never queue behind a timer callback or a reload.
  boost::asio::io_context httpIo_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> httpWork_;
  std::vector<std::thread> httpThreads_;
  std::shared_ptr<Store> store_ = std::make_shared<Store>();
  std::shared_ptr<Watchdog> watchdog_;
  std::shared_ptr<TopologyHolder> topology_ = std::make_shared<TopologyHolder>();
  std::unique_ptr<DemoNode> demo_;
  std::unique_ptr<TopologyDiscovery> discovery_;
  Sources sources_;  ///< of the running configuration (makeSources keeps parts across a reload)
  std::unique_ptr<PeriodicTask> discoveryTask_;
  std::unique_ptr<PeriodicTask> textfileTask_;
  std::vector<std::unique_ptr<CollectorRunner>> runners_;
  mutable std::mutex runnersMutex_;  // the pipeline thread reads runners_ for health
  std::unique_ptr<Pipeline> pipeline_;
  std::unique_ptr<HttpServer> http_;
  HttpServerOptions httpOptions_;  // what http_ was built with, to bind it again after a failed reload
  std::shared_ptr<ReloadStatus> reloadStatus_ = std::make_shared<ReloadStatus>();
  /// The recent-sample window; null while window.enabled is false. Swapped by a reload that changes
  /// window.*, read by the pipeline and HTTP threads: under recentMutex_.
  std::shared_ptr<RecentSamples> recent_;
  mutable std::mutex recentMutex_;
  std::shared_ptr<RecentSamples> recent() const;
  void applyWindow(const WindowConfig& window);
  std::shared_ptr<StatusPage> statusPage_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  mutable std::mutex shownConfigMutex_;  // HTTP threads read shownConfig_ for /api/v1/status
  std::shared_ptr<const Config> shownConfig_;
  mutable std::mutex pusherMutex_;  // the pipeline thread reads pusher_
  std::shared_ptr<AlertmanagerPusher> pusher_;
  uint16_t boundPort_ = 0;
  std::string boundListen_;
  std::optional<std::string> boundWebConfig_;
  bool leftBehind_ = false;
  int exitCode_ = 0;
};

}  // namespace fabricmon
