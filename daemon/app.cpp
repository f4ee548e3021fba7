#include "daemon/app.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "config/config_loader.hpp"
#include "daemon/alertmanager_target.hpp"
#include "daemon/config_schema.hpp"
#include "daemon/demo_node.hpp"
#include "daemon/logging.hpp"
#include "daemon/sampler.hpp"
#include "daemon/status_report.hpp"
#include "daemon/systemd_notify.hpp"
#include "daemon/version.hpp"
#include "exporters/alertmanager_pusher.hpp"
#include "exporters/status_page.hpp"
#include "exporters/window_json.hpp"
#include "window/recent_samples.hpp"

namespace fabricmon {

namespace {

// SIGTERM must end the process within 2 s (issue #2); a stuck collector gets what is left of it,
// and the last state file write whatever the collectors left of kStopDeadline.
constexpr auto kStopGrace = std::chrono::milliseconds(1500);
constexpr auto kStopDeadline = std::chrono::milliseconds(1800);
// One per core of the machines we run on; each response is a memcpy of a prerendered payload.
constexpr int kHttpThreads = 2;

// state.path, or the state directory systemd made for the unit (StateDirectory=, passed as
// $STATE_DIRECTORY; several directories are separated by ':'), or none.
std::string statePath(const Config& config) {
  if (config.state.path) return *config.state.path;
  const char* dirs = std::getenv("STATE_DIRECTORY");
  if (dirs == nullptr || *dirs == '\0') return {};
  std::string dir(dirs);
  dir = dir.substr(0, dir.find(':'));
  return dir.empty() ? std::string() : dir + "/state.json";
}

}  // namespace

App::App(Config config, CliOptions cli)
    : config_(std::move(config)),
      cli_(std::move(cli)),
      signals_(io_, SIGINT, SIGTERM, SIGHUP),
      reloadStatus_(std::make_shared<ReloadStatus>()) {}

App::~App() = default;

bool App::leftThreadsBehind() const { return sampler_ && sampler_->leftThreadsBehind(); }

HttpHandlers App::routes(const HttpServerOptions& options) {
  Pipeline& pipeline = sampler_->pipeline();
  HttpHandlers handlers;
  handlers.metrics = [&pipeline] { return pipeline.payload(); };
  handlers.health = [&pipeline] { return pipeline.health(); };
  handlers.findingsJson = [&pipeline] { return pipeline.findingsJson(); };
  handlers.window = [sampler = sampler_.get()](std::string_view query) -> HttpReply {
    auto q = parseWindowQuery(query);
    if (!q) return {400, "text/plain; charset=utf-8", "bad query: " + q.error().message + "\n"};
    const auto recent = sampler->recent();
    if (!recent) return {404, "text/plain; charset=utf-8", std::string(kWindowOffReason) + "\n"};
    return {200, "application/json", renderWindowJson(*recent, *q)};
  };
  handlers.status = [status = status_.get(), tls = options.tls != nullptr,
                     auth = options.basicAuth != nullptr]() -> HttpReply {
    return {200, "application/json", status->render(tls, auth)};
  };
  handlers.page = [page = statusPage_] { return page->page(); };
  handlers.asset = [page = statusPage_](std::string_view name) { return page->asset(name); };
  return handlers;
}

int App::run() {
  spdlog::info("fabricmon {} ({}) starting", kVersion, kRevision);
  Sampler::MadOverride mad;
  if (cli_.command == Command::kDemo) {
    auto demo = DemoNode::create(io_, cli_.demo, config_.poll.interval);
    if (!demo) {
      spdlog::error("demo: {}", demo.error().message);
      return demo.error().errnum == EINVAL ? 2 : 1;
    }
    demo_ = std::move(*demo);
    demo_->applyTo(config_);
    mad = [demo = demo_.get()](std::shared_ptr<const SysfsRoot> sysfs) {
      return demo->madSource(std::move(sysfs));
    };
  }

  sampler_ =
      std::make_unique<Sampler>(io_, config_,
                                SelfMetrics(std::string(kVersion), std::string(kRevision),
                                            std::make_shared<RequestDurations>(), reloadStatus_),
                                statePath(config_), std::move(mad));
  Pipeline& pipeline = sampler_->pipeline();
  if (auto keepAlive = watchdogKeepAliveInterval()) {
    spdlog::info("systemd watchdog enabled: keep-alive every {} ms", keepAlive->count() / 1000);
    pipeline.setAfterPass(
        [last = std::make_shared<std::chrono::steady_clock::time_point>(), interval = *keepAlive] {
          const auto now = std::chrono::steady_clock::now();
          if (now - *last >= interval) {
            notifyWatchdog();
            *last = now;
          }
        });
  }
  statusPage_ = std::make_shared<StatusPage>();
  status_ = std::make_unique<StatusReport>(*sampler_, started_);
  status_->show(config_);
  pipeline.addPassHook([this](const Snapshot&, const std::vector<Finding>& findings,
                              std::chrono::system_clock::time_point wallNow) {
    if (auto p = pusher()) p->update(findings, wallNow);
  });
  pipeline.addBatchSource([this]() -> BatchPtr {
    auto p = pusher();
    return p ? p->metricsBatch() : nullptr;
  });

  sampler_->start();
  http_ = std::make_unique<HttpEndpoint>(
      [this](const HttpServerOptions& options) { return routes(options); },
      pipeline.requestDurations(), kHttpThreads,
      [this](std::string_view scheme, const std::string& host, uint16_t port) {
        if (!demo_) return;
        fmt::print("fabricmon demo ({} scenario): {}://{}:{}/metrics\n", cli_.demo.scenario, scheme,
                   host.empty() ? "127.0.0.1" : host, port);
        std::fflush(stdout);
      });
  auto options = serverOptions(config_);
  if (!options) return abandonStart(options.error(), options.error().errnum == EINVAL ? 2 : 1);
  auto change = http_->prepare(config_, std::move(*options));
  if (!change) return abandonStart(change.error(), change.error().errnum == EINVAL ? 2 : 1);
  change->commit();
  if (config_.alertmanager.enabled()) {
    auto target = alertmanagerTarget(config_, http_->port());
    if (!target) return abandonStart(target.error(), 2);
    applyPush(std::move(*target));
  }
  notifyReady();
  waitForSignal();
  io_.run();
  return exitCode_;
}

int App::abandonStart(const Error& error, int exitCode) {
  spdlog::error("{}", error.message);
  http_->stop();
  sampler_->stop(kStopGrace);
  return exitCode;
}

std::shared_ptr<AlertmanagerPusher> App::pusher() const {
  std::lock_guard lock(pusherMutex_);
  return pusher_;
}

void App::applyPush(std::optional<AlertmanagerTarget> target) {
  std::shared_ptr<AlertmanagerPusher> old;
  {
    std::lock_guard lock(pusherMutex_);
    if (target && pusher_) {
      pusher_->reconfigure(std::move(*target));
      return;
    }
    old = std::move(pusher_);
    if (target) {
      spdlog::info("pushing findings to Alertmanager at {}", fmt::join(target->urls, ", "));
      pusher_ = std::make_shared<AlertmanagerPusher>(std::move(*target));
      pusher_->start();
    }
  }
  if (old) {
    old->stop();
    spdlog::info(
        "Alertmanager push stopped");  // after the thread ended: its time says how long that took
  }
}

void App::waitForSignal() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    if (signo == SIGHUP) {
      reload();
      waitForSignal();
      return;
    }
    spdlog::info("received signal {}; stopping", signo);
    shutdown();
  });
}

void App::shutdown() {
  const auto start = std::chrono::steady_clock::now();
  notifyStopping();
  applyPush(std::nullopt);
  if (http_) http_->stop();
  if (sampler_) {
    // Both budgets count from the signal, not from this line: stopping the push and the listener
    // before it takes time too.
    const auto graceLeft = std::chrono::duration_cast<std::chrono::milliseconds>(
        start + kStopGrace - std::chrono::steady_clock::now());
    sampler_->stop(std::max(graceLeft, std::chrono::milliseconds(0)));
    // The pipeline thread has ended: the watchdog is ours to write out, within the stop deadline
    // (an fsync on a busy disk can take longer than the whole budget).
    sampler_->flushState(start + kStopDeadline);
  }
  if (demo_) demo_->stop();
  signals_.cancel();
  io_.stop();
  spdlog::info("stopped");
}

void App::rejectReload(const std::string& why) {
  spdlog::error("reload rejected: {}; the running configuration stays in force", why);
  reloadStatus_->failed();
  sampler_->pipeline().notify();  // the next snapshot shows the failure
  notifyReady();
}

// A reload is a transaction: everything that can fail (reading and validating the config and the
// web-config, building the TLS context, binding the listener, the Alertmanager target) happens
// before anything running is touched, so a failed reload leaves the daemon exactly as it was.
void App::reload() {
  notifyReloading();
  const std::string path = cli_.configPath.value_or(std::string(kDefaultConfigPath));
  ConfigLoad load;
  if (cli_.configPath || std::filesystem::exists(path)) {
    load = loadConfigFile(path, configSchema());
  }
  if (!load.ok()) {
    std::string why = std::to_string(load.errors.size()) + " error(s) in " + path + ": ";
    for (size_t i = 0; i < load.errors.size(); ++i) {
      why += (i == 0 ? "" : "; ") + load.errors[i].format();
    }
    rejectReload(why);
    return;
  }
  Config next = std::move(load.config);
  applyOverrides(cli_.overrides, next);
  if (demo_) demo_->applyTo(next);
  // The flags stay in force over the new file: together they must still pass the cross-field
  // checks.
  if (Status st = checkOverridden(next, configSchema()); !st) {
    rejectReload(st.error().message);
    return;
  }
  // The web-config file is re-read on every reload; a broken one rejects the whole reload.
  auto options = serverOptions(next);
  if (!options) {
    rejectReload(options.error().message);
    return;
  }
  auto prepared = http_->prepare(next, std::move(*options));
  if (!prepared) {
    rejectReload(prepared.error().message);
    return;
  }
  std::optional<HttpEndpoint::Change> listener(std::move(*prepared));
  std::optional<AlertmanagerTarget> pushTarget;
  if (next.alertmanager.enabled()) {
    auto target = alertmanagerTarget(next, listener->port());
    if (!target) {
      listener.reset();  // rolls the listener back before the rejection is reported
      rejectReload(target.error().message);
      return;
    }
    pushTarget = std::move(*target);
  }

  spdlog::info("reloading configuration from {}", path);
  setLogLevel(next.log.level);
  config_ = std::move(next);
  sampler_->reconfigure(config_);
  listener->commit();
  applyPush(std::move(pushTarget));
  status_->show(config_);
  reloadStatus_->succeeded();
  sampler_->pipeline().notify();
  notifyReady();
}

}  // namespace fabricmon
