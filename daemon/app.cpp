#include "daemon/app.hpp"

#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include "collectors/topology_discovery.hpp"
#include "config/config_loader.hpp"
#include "config/listen_address.hpp"
#include "daemon/demo_node.hpp"
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

Duration intervalFor(const CollectorEntry& entry, const Config& config) {
  if (const auto* c = config.collector(entry.name); c != nullptr && c->interval) return *c->interval;
  return entry.cadence == Cadence::kFast ? config.poll.interval : config.poll.slowInterval;
}

PipelineOptions pipelineOptions(const Config& config) {
  return PipelineOptions{config.poll.interval, config.poll.staleAfter};
}

/// Plain HTTP, or TLS and/or basic auth when web.config_file asks for them.
Result<HttpServerOptions> serverOptions(const Config& config) {
  HttpServerOptions options;
  if (config.web.configFile) {
    if (Status st = configureWebSecurity(*config.web.configFile, options); !st) {
      return Error{"web.config_file: " + st.error().message, EINVAL};
    }
  }
  return options;
}

}  // namespace

App::App(Config config, CliOptions cli)
    : config_(std::move(config)), cli_(std::move(cli)), signals_(io_, SIGINT, SIGTERM, SIGHUP) {
  watchdog_ = std::make_shared<Watchdog>(config_.watchdog, config_.qos);
}

App::~App() = default;

Status App::startSampling() {
  Sources sources = makeSources(config_.sources);
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

Status App::startHttp(HttpServerOptions options) {
  auto addr = parseListen(config_.web.listen);
  if (!addr) return Error{"web.listen: " + addr.error().message, EINVAL};
  const char* scheme = options.tls ? "https" : "http";
  HttpHandlers handlers;
  handlers.metrics = [this] { return pipeline_->payload(); };
  handlers.health = [this] { return pipeline_->health(); };
  handlers.findingsJson = [this] { return pipeline_->findingsJson(); };
  options.durations = pipeline_->requestDurations();
  auto server = std::make_unique<HttpServer>(httpIo_, std::move(handlers), std::move(options));
  auto port = server->listen(addr->host, addr->port);
  if (!port) return Error{"listen on " + config_.web.listen + ": " + port.error().message, port.error().errnum};
  const std::string shownHost = addr->host.empty() ? "0.0.0.0" : addr->host;
  spdlog::info("serving {}://{}:{}/metrics", scheme, shownHost, *port);
  if (demo_) {
    fmt::print("fabricmon demo ({} scenario): {}://{}:{}/metrics\n", cli_.scenario, scheme,
               addr->host.empty() ? "127.0.0.1" : addr->host, *port);
    std::fflush(stdout);
  }
  http_ = std::move(server);
  boundListen_ = config_.web.listen;
  boundWebConfig_ = config_.web.configFile;
  return {};
}

int App::run() {
  spdlog::info("fabricmon {} ({}) starting", kVersion, kRevision);
  if (cli_.command == Command::kDemo) {
    auto demo = DemoNode::create(io_, cli_.scenario, config_.poll.interval, cli_.vendor);
    if (!demo) {
      spdlog::error("demo: {}", demo.error().message);
      return demo.error().errnum == EINVAL ? 2 : 1;
    }
    demo_ = std::move(*demo);
    demo_->applyTo(config_);
  }

  pipeline_ = std::make_unique<Pipeline>(
      store_, watchdog_, SelfMetrics(std::string(kVersion), std::string(kRevision),
                                    std::make_shared<RequestDurations>()),
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

  if (auto st = startSampling(); !st) {
    spdlog::error("{}", st.error().message);
    return 1;
  }
  pipeline_->start();
  httpWork_.emplace(httpIo_.get_executor());
  for (int i = 0; i < kHttpThreads; ++i) httpThreads_.emplace_back([this] { httpIo_.run(); });
  auto options = serverOptions(config_);
  Status st = options ? startHttp(std::move(*options)) : Status(options.error());
  if (!st) {
    spdlog::error("{}", st.error().message);
    stopHttpThreads();
    stopSampling(kStopGrace);
    pipeline_->stop();
    return st.error().errnum == EINVAL ? 2 : 1;
  }
  notifyReady();
  waitForSignal();
  io_.run();
  return exitCode_;
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
  stopHttpThreads();
  stopSampling(kStopGrace);
  if (pipeline_) pipeline_->stop();
  if (demo_) demo_->stop();
  signals_.cancel();
  io_.stop();
  spdlog::info("stopped");
}

void App::reload() {
  notifyReloading();
  const std::string path = cli_.configPath.value_or(std::string(kDefaultConfigPath));
  ConfigLoad load;
  if (cli_.configPath || std::filesystem::exists(path)) {
    load = loadConfigFile(path);
  }
  if (!load.ok()) {
    for (const auto& e : load.errors) spdlog::error("reload rejected: {}", e.format());
    spdlog::error("reload rejected: {} error(s) in {}; the running configuration stays in force",
                  load.errors.size(), path);
    notifyReady();
    return;
  }
  Config next = std::move(load.config);
  applyOverrides(cli_.overrides, next);
  if (demo_) demo_->applyTo(next);
  // The web-config file is re-read on every reload; a broken one rejects the whole reload.
  auto options = serverOptions(next);
  if (!options) {
    spdlog::error("reload rejected: {}; the running configuration stays in force", options.error().message);
    notifyReady();
    return;
  }
  spdlog::info("reloading configuration from {}", path);

  setLogLevel(next.log.level);
  stopSampling(std::chrono::milliseconds(1000));
  const bool restartHttp = next.web.listen != boundListen_ || next.web.configFile || boundWebConfig_;
  config_ = std::move(next);
  watchdog_->reconfigure(config_.watchdog, config_.qos);
  pipeline_->setOptions(pipelineOptions(config_));
  if (auto st = startSampling(); !st) spdlog::error("reload: {}", st.error().message);
  if (restartHttp) {
    auto old = std::move(http_);
    old->stop();
    if (auto st = startHttp(std::move(*options)); !st) {
      spdlog::error("reload: {}; the endpoint is down until a good reload", st.error().message);
    }
  }
  pipeline_->notify();
  notifyReady();
}

}  // namespace fabricmon
