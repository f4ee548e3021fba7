#include "daemon/app.hpp"

#include <cstdlib>
#include <spdlog/spdlog.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/resource.h>

#include <algorithm>

#include "collectors/sources/sysfs.hpp"
#include "collectors/topology_discovery.hpp"
#include "config/config_loader.hpp"
#include "config/listen_address.hpp"
#include "daemon/alertmanager_target.hpp"
#include "daemon/config_schema.hpp"
#include "daemon/demo_node.hpp"
#include "daemon/status_json.hpp"
#include "exporters/status_page.hpp"
#include "exporters/window_json.hpp"
#include "window/recent_samples.hpp"
#include "daemon/logging.hpp"
#include "daemon/systemd_notify.hpp"
#include "daemon/version.hpp"
#include "exporters/http_security.hpp"
#include "exporters/textfile_writer.hpp"

namespace fabricmon {

namespace {

// SIGTERM must end the process within 2 s (issue #2); a stuck collector gets what is left of it.
constexpr auto kStopGrace = std::chrono::milliseconds(1500);
// One per core of the machines we run on; each response is a memcpy of a prerendered payload.
constexpr int kHttpThreads = 2;
// How long a reload waits for the old listener to close before binding the same address again.
constexpr auto kListenerCloseWait = std::chrono::milliseconds(1000);

Duration intervalFor(const CollectorEntry& entry, const Config& config) {
  if (const auto* c = config.collector(entry.name); c != nullptr && c->interval) return *c->interval;
  if (entry.ownInterval.count() > 0) return entry.ownInterval;
  return entry.cadence == Cadence::kFast ? config.poll.interval : config.poll.slowInterval;
}

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

PipelineOptions pipelineOptions(const Config& config) {
  return PipelineOptions{config.poll.interval, config.poll.staleAfter};
}

// sources.max_open_files, but never more than half the soft RLIMIT_NOFILE: the other half is for
// HTTP connections, netlink and ioctl sockets and the files read whole.
size_t keptFileCap(unsigned configured) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return configured;
  return std::min<size_t>(configured, limit.rlim_cur / 2);
}

}  // namespace

Result<HttpServerOptions> serverOptions(const Config& config) {
  HttpServerOptions options;
  options.maxConnections = config.web.maxConnections;
  options.headerTimeout = config.web.headerTimeout;
  options.idleTimeout = config.web.idleTimeout;
  if (config.web.configFile) {
    if (Status st = configureWebSecurity(*config.web.configFile, options); !st) {
      // Name the key that pointed to the file too: the operator may not know which file it is.
      const std::string& origin = config.web.configFileOrigin.text;
      const std::string where = origin.empty() ? "" : origin + ": ";
      return Error{where + "web.config_file: " + st.error().message, EINVAL};
    }
  }
  return options;
}

namespace {

}  // namespace

App::App(Config config, CliOptions cli)
    : config_(std::move(config)), cli_(std::move(cli)), signals_(io_, SIGINT, SIGTERM, SIGHUP) {
  watchdog_ = std::make_shared<Watchdog>(config_.watchdog, config_.qos);
}

App::~App() = default;

Status App::startSampling() {
  CounterFile::setMaxKeptFiles(keptFileCap(config_.sources.maxOpenFiles));
  // The previous configuration's sources hand over what must outlive a reload (the kernel log's
  // reader: records logged while the daemon reloads are read, not lost).
  Sources sources = makeSources(config_.sources, &sources_);
  sources_ = sources;
  if (demo_) sources.mad = demo_->madSource(sources.sysfs);
  discovery_ = std::make_unique<TopologyDiscovery>(sources.sysfs, config_.devices, config_.netdev);
  // The first scan runs before any collector so that the first snapshot is complete.
  if (auto topo = discovery_->scan(); topo) {
    topology_->set(*topo);
    if ((*topo)->devices.empty()) {
      spdlog::warn("no RDMA devices below {}/class/infiniband; serving health metrics only",
                   config_.sources.sysfsRoot);
    } else {
      spdlog::info("found {} RDMA device(s) and {} network interface(s)", (*topo)->devices.size(),
                   (*topo)->netdevs.size());
    }
  } else {
    spdlog::warn("device discovery: {}", topo.error().message);
  }
  discoveryTask_ = std::make_unique<PeriodicTask>(
      io_, "discovery", config_.poll.discoveryInterval,
      [discovery = discovery_.get(), holder = topology_] {
        auto topo = discovery->scan();
        if (!topo) {
          spdlog::debug("device discovery: {}", topo.error().message);
          return;
        }
        const auto previous = holder->get();
        if ((*topo)->generation != previous->generation) {
          spdlog::info("topology changed: {} RDMA device(s), {} network interface(s)",
                       (*topo)->devices.size(), (*topo)->netdevs.size());
          holder->set(*topo);
        }
      });

  std::vector<std::unique_ptr<CollectorRunner>> runners;
  for (const auto& entry : collectorRegistry()) {
    const auto* c = config_.collector(entry.name);
    if (c != nullptr && !c->enabled) {
      spdlog::info("collector {} disabled by config", entry.name);
      store_->remove(std::string(entry.name));
      continue;
    }
    runners.push_back(std::make_unique<CollectorRunner>(
        io_, entry.make(sources, config_), intervalFor(entry, config_), store_, topology_,
        [this] {
          if (pipeline_) pipeline_->notify();
        }));
  }
  {
    std::lock_guard lock(runnersMutex_);
    runners_ = std::move(runners);
  }
  if (config_.textfile.path) {
    // The write fsyncs, so it runs on a thread of its own, never on the loop. The payload is
    // rendered here if no scrape has rendered this snapshot yet (and shared with scrapes if one has).
    textfileTask_ = std::make_unique<PeriodicTask>(
        io_, "textfile", config_.textfile.interval,
        [path = *config_.textfile.path, pipeline = pipeline_.get(),
         failing = std::make_shared<bool>(false)] {
          const auto payload = pipeline->payload();
          if (!payload) return;
          const Status st = writeTextfile(path, payload->text);
          if (!st && !*failing) spdlog::warn("textfile: {}", st.error().message);
          if (st && *failing) spdlog::info("textfile: {} is written again", path);
          *failing = !st.ok();
        });
  }
  discoveryTask_->start();
  for (auto& r : runners_) r->start();
  if (textfileTask_) textfileTask_->start();
  return {};
}

void App::stopSampling(std::chrono::milliseconds grace) {
  const auto deadline = PeriodicTask::Clock::now() + grace;
  if (discoveryTask_) discoveryTask_->requestStop();
  if (textfileTask_) textfileTask_->requestStop();
  for (auto& r : runners_) r->requestStop();
  for (auto& r : runners_) leftBehind_ |= !r->join(deadline);
  if (discoveryTask_) leftBehind_ |= !discoveryTask_->join(deadline);
  if (textfileTask_) leftBehind_ |= !textfileTask_->join(deadline);
  textfileTask_.reset();
  std::lock_guard lock(runnersMutex_);
  runners_.clear();
  discoveryTask_.reset();
  // discovery_ may still be used by a detached discovery run: keep it alive until exit.
  if (!leftBehind_) discovery_.reset();
  else (void)discovery_.release();
}

Result<App::BoundServer> App::bindHttp(const Config& config, HttpServerOptions options) {
  auto addr = parseListen(config.web.listen);
  if (!addr) return Error{"web.listen: " + addr.error().message, EINVAL};
  BoundServer bound;
  bound.tls = options.tls != nullptr;
  HttpHandlers handlers;
  handlers.metrics = [this] { return pipeline_->payload(); };
  handlers.health = [this] { return pipeline_->health(); };
  handlers.findingsJson = [this] { return pipeline_->findingsJson(); };
  handlers.window = [this](std::string_view query) -> HttpReply {
    auto q = parseWindowQuery(query);
    if (!q) return {400, "text/plain; charset=utf-8", "bad query: " + q.error().message + "\n"};
    const auto recent = this->recent();
    if (!recent) return {404, "text/plain; charset=utf-8", std::string(kWindowOffReason) + "\n"};
    return {200, "application/json", renderWindowJson(*recent, *q)};
  };
  handlers.status = [this, tls = options.tls != nullptr, auth = options.basicAuth != nullptr]() -> HttpReply {
    StatusInputs in;
    in.version = std::string(kVersion);
    in.revision = std::string(kRevision);
    in.started = started_;
    std::shared_ptr<const Config> shown;
    {
      std::lock_guard lock(shownConfigMutex_);
      shown = shownConfig_;
    }
    in.config = shown.get();
    in.tls = tls;
    in.auth = auth;
    {
      std::lock_guard lock(runnersMutex_);
      for (const auto& r : runners_) in.collectors.push_back(r->health());
    }
    const auto recent = this->recent();  // kept alive for the render
    in.recent = recent.get();
    if (const SnapshotPtr snap = store_->snapshot()) {
      const auto it = snap->batches.find("nic_driver_log");
      if (it != snap->batches.end()) in.driverLog = it->second;
    }
    in.findingsJson = pipeline_->findingsJson();
    return {200, "application/json", renderStatusJson(in)};
  };
  handlers.page = [page = statusPage_] {
    HttpReply r = page->page();
    return r;
  };
  handlers.asset = [page = statusPage_](std::string_view name) { return page->asset(name); };
  options.durations = pipeline_->requestDurations();
  bound.server = std::make_unique<HttpServer>(httpIo_, std::move(handlers), std::move(options));
  // HttpServer::listen names the address in its errors ("listen on :19110: ..."): no more context.
  auto port = bound.server->listen(addr->host, addr->port);
  if (!port) return port.error();
  bound.host = addr->host;
  bound.port = *port;
  return bound;
}

void App::adoptHttp(BoundServer bound, const Config& config) {
  const char* scheme = bound.tls ? "https" : "http";
  const std::string shownHost = bound.host.empty() ? "0.0.0.0" : bound.host;
  spdlog::info("serving {}://{}:{}/metrics", scheme, shownHost, bound.port);
  if (demo_) {
    fmt::print("fabricmon demo ({} scenario): {}://{}:{}/metrics\n", cli_.demo.scenario, scheme,
               bound.host.empty() ? "127.0.0.1" : bound.host, bound.port);
    std::fflush(stdout);
  }
  http_ = std::move(bound.server);
  boundPort_ = bound.port;
  boundListen_ = config.web.listen;
  boundWebConfig_ = config.web.configFile;
}

Status App::startHttp(HttpServerOptions options) {
  auto bound = bindHttp(config_, std::move(options));
  if (!bound) return bound.error();
  adoptHttp(std::move(*bound), config_);
  return {};
}

int App::run() {
  spdlog::info("fabricmon {} ({}) starting", kVersion, kRevision);
  if (cli_.command == Command::kDemo) {
    auto demo = DemoNode::create(io_, cli_.demo, config_.poll.interval);
    if (!demo) {
      spdlog::error("demo: {}", demo.error().message);
      return demo.error().errnum == EINVAL ? 2 : 1;
    }
    demo_ = std::move(*demo);
    demo_->applyTo(config_);
  }

  watchdog_->useStateFile(statePath(config_), config_.state.interval);

  pipeline_ = std::make_unique<Pipeline>(
      store_, watchdog_,
      SelfMetrics(std::string(kVersion), std::string(kRevision), std::make_shared<RequestDurations>(),
                  reloadStatus_),
      [this] {
        std::vector<CollectorHealth> health;
        std::lock_guard lock(runnersMutex_);
        health.reserve(runners_.size());
        for (const auto& r : runners_) health.push_back(r->health());
        return health;
      },
      pipelineOptions(config_), topology_);
  if (auto keepAlive = watchdogKeepAliveInterval()) {
    spdlog::info("systemd watchdog enabled: keep-alive every {} ms", keepAlive->count() / 1000);
    pipeline_->setAfterPass([last = std::make_shared<std::chrono::steady_clock::time_point>(),
                             interval = *keepAlive] {
      const auto now = std::chrono::steady_clock::now();
      if (now - *last >= interval) {
        notifyWatchdog();
        *last = now;
      }
    });
  }

  applyWindow(config_.window);
  statusPage_ = std::make_shared<StatusPage>();
  {
    std::lock_guard lock(shownConfigMutex_);
    shownConfig_ = std::make_shared<const Config>(config_);
  }
  pipeline_->addPassHook([this](const Snapshot& fresh, const std::vector<Finding>&,
                                std::chrono::system_clock::time_point) {
    if (auto recent = this->recent()) recent->ingest(fresh);
  });
  pipeline_->addBatchSource([this] { return RecentSamples::usageBatch(recent().get(), std::chrono::steady_clock::now()); });
  pipeline_->addPassHook([this](const Snapshot&, const std::vector<Finding>& findings,
                                 std::chrono::system_clock::time_point wallNow) {
    if (auto p = pusher()) p->update(findings, wallNow);
  });
  pipeline_->addBatchSource([this]() -> BatchPtr {
    auto p = pusher();
    return p ? p->metricsBatch() : nullptr;
  });

  if (auto st = startSampling(); !st) {
    spdlog::error("{}", st.error().message);
    return 1;
  }
  pipeline_->start();
  httpWork_.emplace(httpIo_.get_executor());
  for (int i = 0; i < kHttpThreads; ++i) httpThreads_.emplace_back([this] { httpIo_.run(); });
  auto options = serverOptions(config_);
  if (options) httpOptions_ = *options;
  Status st = options ? startHttp(std::move(*options)) : Status(options.error());
  if (!st) {
    spdlog::error("{}", st.error().message);
    stopHttpThreads();
    stopSampling(kStopGrace);
    pipeline_->stop();
    return st.error().errnum == EINVAL ? 2 : 1;
  }
  if (config_.alertmanager.enabled()) {
    auto target = alertmanagerTarget(config_, boundPort_);
    if (!target) {
      spdlog::error("{}", target.error().message);
      stopHttpThreads();
      stopSampling(kStopGrace);
      pipeline_->stop();
      return 2;
    }
    applyPush(std::move(*target));
  }
  notifyReady();
  waitForSignal();
  io_.run();
  return exitCode_;
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
    spdlog::info("Alertmanager push stopped");  // after the thread ended: its time says how long that took
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

void App::stopHttpThreads() {
  if (http_) http_->stop();
  httpWork_.reset();
  httpIo_.stop();
  for (auto& t : httpThreads_) t.join();
  httpThreads_.clear();
}

void App::shutdown() {
  notifyStopping();
  applyPush(std::nullopt);
  stopHttpThreads();
  stopSampling(kStopGrace);
  if (pipeline_) pipeline_->stop();
  // The pipeline thread has ended: the watchdog is ours to write out.
  watchdog_->flushState();
  if (demo_) demo_->stop();
  signals_.cancel();
  io_.stop();
  spdlog::info("stopped");
}

std::shared_ptr<RecentSamples> App::recent() const {
  std::lock_guard lock(recentMutex_);
  return recent_;
}

// A changed window.* starts a new, empty window (its length is the store's shape); an unchanged
// one keeps its history across a reload.
void App::applyWindow(const WindowConfig& window) {
  std::lock_guard lock(recentMutex_);
  if (!window.on()) {
    recent_.reset();
    return;
  }
  if (!recent_ || recent_->length() != window.length) recent_ = std::make_shared<RecentSamples>(window.length);
}

void App::rejectReload(const std::string& why) {
  spdlog::error("reload rejected: {}; the running configuration stays in force", why);
  reloadStatus_->failed();
  if (pipeline_) pipeline_->notify();  // the next snapshot shows the failure
  notifyReady();
}

// A reload is a transaction: everything that can fail (reading and validating the config and the
// web-config, building the TLS context, binding a new listen address) happens before anything
// running is touched, so a failed reload leaves the daemon exactly as it was.
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
  // The flags stay in force over the new file: together they must still pass the cross-field checks.
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

  // A new address is bound while the old one still serves; the same address (only TLS or auth
  // changed) can only be bound once the old listener is closed, and is given back to the old
  // server if that fails.
  const bool listenChanged = next.web.listen != boundListen_;
  const bool restartHttp = listenChanged || next.web.configFile || boundWebConfig_;
  std::optional<BoundServer> fresh;
  if (listenChanged) {
    auto bound = bindHttp(next, *options);
    if (!bound) {
      rejectReload(bound.error().message);
      return;
    }
    fresh = std::move(*bound);
  } else if (restartHttp) {
    if (http_) http_->stop(kListenerCloseWait);
    auto bound = bindHttp(next, *options);
    if (!bound) {
      auto back = bindHttp(config_, httpOptions_);
      if (back) {
        adoptHttp(std::move(*back), config_);
      } else {
        spdlog::error("reload: the previous endpoint could not be bound again: {}",
                      back.error().message);
        http_.reset();
      }
      rejectReload(bound.error().message);
      return;
    }
    fresh = std::move(*bound);
  }

  std::optional<AlertmanagerTarget> pushTarget;
  if (next.alertmanager.enabled()) {
    auto target = alertmanagerTarget(next, fresh ? fresh->port : boundPort_);
    if (!target) {
      if (fresh && restartHttp && !listenChanged) {
        // The old listener was closed to rebind the same address: give it back.
        fresh.reset();
        if (auto back = bindHttp(config_, httpOptions_)) adoptHttp(std::move(*back), config_);
      }
      rejectReload(target.error().message);
      return;
    }
    pushTarget = std::move(*target);
  }

  spdlog::info("reloading configuration from {}", path);
  setLogLevel(next.log.level);
  stopSampling(std::chrono::milliseconds(1000));
  config_ = std::move(next);
  watchdog_->reconfigure(config_.watchdog, config_.qos);
  applyWindow(config_.window);
  pipeline_->setOptions(pipelineOptions(config_));
  if (auto st = startSampling(); !st) spdlog::error("reload: {}", st.error().message);
  if (fresh) {
    if (auto old = std::move(http_)) old->stop();
    httpOptions_ = std::move(*options);
    adoptHttp(std::move(*fresh), config_);
  }
  applyPush(std::move(pushTarget));
  {
    std::lock_guard lock(shownConfigMutex_);
    shownConfig_ = std::make_shared<const Config>(config_);
  }
  reloadStatus_->succeeded();
  pipeline_->notify();
  notifyReady();
}

}  // namespace fabricmon
