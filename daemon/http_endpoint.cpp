#include "daemon/http_endpoint.hpp"

#include <spdlog/spdlog.h>

#include <utility>

#include "config/listen_address.hpp"
#include "exporters/http_security.hpp"
#include "model/thread_name.hpp"

namespace fabricmon {

namespace {

// How long a change waits for the old listener to close before binding the same address again.
constexpr auto kListenerCloseWait = std::chrono::milliseconds(1000);

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

HttpEndpoint::HttpEndpoint(MakeHandlers makeHandlers, std::shared_ptr<RequestDurations> durations,
                           int threads, OnServing onServing)
    : makeHandlers_(std::move(makeHandlers)),
      durations_(std::move(durations)),
      onServing_(std::move(onServing)) {
  work_.emplace(io_.get_executor());
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      nameThisThread("http");
      io_.run();
    });
  }
}

HttpEndpoint::~HttpEndpoint() { stop(); }

void HttpEndpoint::stop() {
  if (server_) server_->stop();
  work_.reset();
  io_.stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

Result<HttpEndpoint::Bound> HttpEndpoint::bind(const std::string& listen,
                                               HttpServerOptions options) {
  auto addr = parseListen(listen);
  if (!addr) return Error{"web.listen: " + addr.error().message, EINVAL};
  HttpHandlers handlers = makeHandlers_(options);
  options.durations = durations_;
  Bound bound;
  bound.server = std::make_unique<HttpServer>(io_, std::move(handlers), std::move(options));
  // HttpServer::listen names the address in its errors ("listen on :19110: ..."): no more context.
  auto port = bound.server->listen(addr->host, addr->port);
  if (!port) return port.error();
  bound.host = addr->host;
  bound.port = *port;
  return bound;
}

void HttpEndpoint::adopt(std::unique_ptr<HttpServer> server, const std::string& host, uint16_t port,
                         std::string listen, std::optional<std::string> webConfig,
                         HttpServerOptions options) {
  const char* scheme = options.tls ? "https" : "http";
  spdlog::info("serving {}://{}:{}/metrics", scheme, host.empty() ? "0.0.0.0" : host, port);
  if (auto old = std::move(server_)) old->stop();
  server_ = std::move(server);
  port_ = port;
  listen_ = std::move(listen);
  webConfig_ = std::move(webConfig);
  options_ = std::move(options);
  if (onServing_) onServing_(scheme, host, port);
}

void HttpEndpoint::restoreOld() {
  auto back = bind(listen_, options_);
  if (!back) {
    spdlog::error("reload: the previous endpoint could not be bound again: {}",
                  back.error().message);
    server_.reset();
    return;
  }
  adopt(std::move(back->server), back->host, back->port, listen_, webConfig_, options_);
}

Result<HttpEndpoint::Change> HttpEndpoint::prepare(const Config& config,
                                                   HttpServerOptions options) {
  // No server (the first start, or a failed rollback): bind as for a new address.
  const bool listenChanged = server_ == nullptr || config.web.listen != listen_;
  const bool rebuild = listenChanged || config.web.configFile || webConfig_;
  if (!rebuild) {
    return Change(this, nullptr, config.web.listen, config.web.configFile, std::move(options), {},
                  port_, false);
  }
  const bool closeOld = !listenChanged && server_ != nullptr;
  if (closeOld) server_->stop(kListenerCloseWait);
  auto bound = bind(config.web.listen, options);
  if (!bound) {
    if (closeOld) restoreOld();
    return bound.error();
  }
  return Change(this, std::move(bound->server), config.web.listen, config.web.configFile,
                std::move(options), bound->host, bound->port, closeOld);
}

HttpEndpoint::Change::Change(HttpEndpoint* endpoint, std::unique_ptr<HttpServer> server,
                             std::string listen, std::optional<std::string> webConfig,
                             HttpServerOptions options, std::string host, uint16_t port,
                             bool closedOld)
    : endpoint_(endpoint),
      server_(std::move(server)),
      listen_(std::move(listen)),
      webConfig_(std::move(webConfig)),
      options_(std::move(options)),
      host_(std::move(host)),
      port_(port),
      closedOld_(closedOld) {}

HttpEndpoint::Change::Change(Change&& other) noexcept
    : endpoint_(std::exchange(other.endpoint_, nullptr)),
      server_(std::move(other.server_)),
      listen_(std::move(other.listen_)),
      webConfig_(std::move(other.webConfig_)),
      options_(std::move(other.options_)),
      host_(std::move(other.host_)),
      port_(other.port_),
      closedOld_(other.closedOld_) {}

uint16_t HttpEndpoint::Change::port() const { return port_; }

void HttpEndpoint::Change::commit() {
  if (!endpoint_) return;
  HttpEndpoint* endpoint = std::exchange(endpoint_, nullptr);
  if (!server_) return;  // nothing to change: the serving server stays as it is
  endpoint->adopt(std::move(server_), host_, port_, std::move(listen_), std::move(webConfig_),
                  std::move(options_));
}

HttpEndpoint::Change::~Change() {
  if (!endpoint_) return;
  HttpEndpoint* endpoint = std::exchange(endpoint_, nullptr);
  if (server_) {
    server_->stop();
    server_.reset();
  }
  if (closedOld_) endpoint->restoreOld();
}

}  // namespace fabricmon
