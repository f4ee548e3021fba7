#pragma once
// The daemon: composes sampling (daemon/sampler.hpp), the HTTP endpoint (daemon/http_endpoint.hpp),
// the status report and the Alertmanager push on one Asio loop, and handles signals: TERM/INT
// stop, HUP reloads the configuration as one transaction.

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "config/config.hpp"
#include "daemon/cli.hpp"
#include "daemon/http_endpoint.hpp"
#include "model/asio.hpp"

namespace fabricmon {

class AlertmanagerPusher;
class DemoNode;
class ReloadStatus;
class Sampler;
class StatusPage;
class StatusReport;
struct AlertmanagerTarget;

class App {
 public:
  /// `config` is loaded and has the flags applied; `cli` is kept to re-apply them on reload.
  App(Config config, CliOptions cli);
  ~App();

  /// Runs until SIGTERM/SIGINT. Returns the process exit code.
  int run();
  /// True if a collector run was left blocked at shutdown (the process must not run static
  /// destructors under it: main() uses _Exit then).
  bool leftThreadsBehind() const;

 private:
  /// The routes of a server built with `options`.
  HttpHandlers routes(const HttpServerOptions& options);
  /// Stops what run() started, after a start that failed.
  int abandonStart(const Error& error, int exitCode);
  void rejectReload(const std::string& why);
  void waitForSignal();
  void reload();
  void shutdown();
  /// Starts, reconfigures or stops the Alertmanager push to match `target` (nullopt = off).
  void applyPush(std::optional<AlertmanagerTarget> target);
  std::shared_ptr<AlertmanagerPusher> pusher() const;

  Config config_;
  CliOptions cli_;
  boost::asio::io_context io_;  // timers, signals, reload
  boost::asio::signal_set signals_;
  std::shared_ptr<ReloadStatus> reloadStatus_;
  std::unique_ptr<DemoNode> demo_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<StatusReport> status_;
  std::shared_ptr<StatusPage> statusPage_;
  std::unique_ptr<HttpEndpoint> http_;
  mutable std::mutex pusherMutex_;  // the pipeline thread reads pusher_
  std::shared_ptr<AlertmanagerPusher> pusher_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  int exitCode_ = 0;
};

}  // namespace fabricmon
