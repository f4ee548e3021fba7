#include "exporters/http_server.hpp"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <future>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "exporters/accept_encoding.hpp"
#include "exporters/basic_auth.hpp"
#include "exporters/tls_stream.hpp"

namespace fabricmon {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kTextContentType = "text/plain; charset=utf-8";
constexpr std::string_view kAllowedMethods = "GET, HEAD";
constexpr std::string_view kAuthChallenge = "Basic realm=\"fabricmon\"";
// After a failed accept (EMFILE, ENFILE, ENOBUFS) the next accept would fail at once; wait a little
// instead of spinning on the io_context.
constexpr std::chrono::milliseconds kAcceptRetryDelay{100};
// A response body at least this large (a whole node's /api/v1/window: megabytes at 128 ports) is
// freed once written, not kept for the connection's next request, and the free pages go back to
// the system, as after a render (exporters/payload.cpp): its JSON and the temporaries that built
// it were freed into this thread's malloc arena, which glibc keeps.
constexpr size_t kReleaseBodyBytes = 1 << 20;

constexpr std::string_view kIndexHtml =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fabricmon</title></head>\n"
    "<body><h1>fabricmon</h1>\n<ul>\n"
    "<li><a href=\"/metrics\">/metrics</a> &mdash; Prometheus metrics</li>\n"
    "<li><a href=\"/healthz\">/healthz</a> &mdash; sampling loop health</li>\n"
    "<li><a href=\"/api/v1/findings\">/api/v1/findings</a> &mdash; active watchdog findings "
    "(JSON)</li>\n</ul></body></html>\n";

Error toError(std::string context, const boost::system::error_code& ec) {
  if (ec.category() == boost::system::system_category()) return sysError(std::move(context), ec.value());
  return Error{std::move(context) + ": " + ec.message(), 0};
}

// Beast in Boost 1.74 takes boost::string_view, which does not convert from std::string_view.
beast::string_view bsv(std::string_view s) { return {s.data(), s.size()}; }

bool isHttpParseError(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_target).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

}  // namespace

using PlainStream = beast::tcp_stream;

/// What the server keeps of a connection, whatever its stream.
class SessionBase {
 public:
  virtual ~SessionBase() = default;
  virtual void start() = 0;
  /// Posts the close to the connection's strand; safe from any thread.
  virtual void closeAsync() = 0;
};

/// What the server knows of a connection for choosing whom to evict.
struct SessionEntry {
  std::weak_ptr<SessionBase> session;
  bool waiting = true;  ///< no complete request received since `since`
  std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
};

namespace detail {

struct HttpServerState {
  HttpServerState(net::io_context& ioContext, HttpHandlers h, HttpServerOptions o)
      : io(ioContext), handlers(std::move(h)), options(o) {}

  net::io_context& io;
  const HttpHandlers handlers;
  const HttpServerOptions options;

  mutable std::mutex mutex;
  bool stopped = false;
  bool refusing = false;  // logged once when refusals start, once when they end
  bool evicting = false;  // likewise for evictions
  uint64_t evicted = 0;
  std::vector<std::shared_ptr<tcp::acceptor>> acceptors;
  std::unordered_map<SessionBase*, SessionEntry> sessions;

  /// Marks a connection as waiting for a request (evictable) or busy with one.
  void setWaiting(SessionBase* session, bool waiting) {
    std::lock_guard lock(mutex);
    auto it = sessions.find(session);
    if (it == sessions.end()) return;
    it->second.waiting = waiting;
    if (waiting) it->second.since = std::chrono::steady_clock::now();
  }
};

}  // namespace detail

using State = detail::HttpServerState;

/// One connection: (TLS handshake,) read a request, (authenticate,) answer it, repeat while
/// keep-alive, under one deadline per step. `Stream` is PlainStream or TlsStream.
template <typename Stream>
class HttpSession : public SessionBase, public std::enable_shared_from_this<HttpSession<Stream>> {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;
  using std::enable_shared_from_this<HttpSession<Stream>>::shared_from_this;

 public:
  HttpSession(std::shared_ptr<State> state, tcp::socket socket) requires(!kTls)
      : state_(std::move(state)), stream_(std::move(socket)) {}
  HttpSession(std::shared_ptr<State> state, tcp::socket socket) requires(kTls)
      : state_(std::move(state)), stream_(state_->options.tls->wrap(std::move(socket))) {}

  ~HttpSession() override {
    std::lock_guard lock(state_->mutex);
    state_->sessions.erase(this);
  }

  void start() override {
    net::dispatch(tcpStream().get_executor(), [self = shared_from_this()] {
      if constexpr (kTls) {
        self->handshake();
      } else {
        self->readRequest();
      }
    });
  }

  void closeAsync() override {
    net::post(tcpStream().get_executor(), [self = shared_from_this()] { self->close(); });
  }

 private:
  beast::tcp_stream& tcpStream() { return beast::get_lowest_layer(stream_); }

  // The handshake costs the server an asymmetric-key operation and holds a connection slot, so it
  // runs under the same deadline as a request: a client that connects and stalls is dropped.
  void handshake() {
    tcpStream().expires_after(state_->options.headerTimeout);
    stream_.async_handshake(beast::bind_front_handler(&HttpSession::onHandshake, shared_from_this()));
  }

  void onHandshake(beast::error_code ec) {
    if (ec) {
      // Scanners and clients that distrust the certificate end here; not worth more than debug.
      spdlog::debug("http: TLS handshake failed: {}", ec.message());
      close();
      return;
    }
    readRequest();
  }

  void readRequest() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(state_->options.maxRequestBytes));
    parser_->body_limit(state_->options.maxRequestBytes);
    // A connection waiting for a request holds a slot for nothing: a short deadline for the first
    // request, a longer one between the requests of a kept-alive scraper; both are evictable.
    tcpStream().expires_after(served_ == 0 ? state_->options.headerTimeout
                                           : state_->options.idleTimeout);
    if (served_ > 0) state_->setWaiting(this, true);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&HttpSession::onRead, shared_from_this()));
  }

  // exporter-toolkit checks credentials before routing, so an unauthenticated client learns
  // nothing, not even which paths exist.
  void authenticate(const http::request<http::string_body>& req) {
    BasicAuth& auth = *state_->options.basicAuth;
    const auto header = req[http::field::authorization];
    auto credentials = parseBasicAuthorization(std::string_view(header.data(), header.size()));
    if (!credentials) {
      unauthorized(req);
      return;
    }
    if (auth.cachedValid(*credentials)) {
      route(req);
      return;
    }
    // bcrypt takes ~50-100 ms: run it on the authenticator's worker and come back on this
    // connection's strand, so other connections are served meanwhile.
    auth.verifyAsync(std::move(*credentials), [self = shared_from_this()](bool ok) mutable {
      auto executor = self->tcpStream().get_executor();
      // Hand the only reference to the strand: the worker must not end up destroying the session.
      net::post(executor, [self = std::move(self), ok] {
        const auto& request = self->parser_->get();
        if (ok) {
          self->route(request);
        } else {
          self->unauthorized(request);
        }
      });
    });
  }

  void unauthorized(const http::request<http::string_body>& req) {
    response_ = {};
    response_.set(http::field::www_authenticate, bsv(kAuthChallenge));
    send(req.version(), req.keep_alive(), req.method() == http::verb::head,
         http::status::unauthorized, kTextContentType, ownBody("Unauthorized\n"));
  }

  void onRead(beast::error_code ec, std::size_t /*bytes*/) {
    started_ = std::chrono::steady_clock::now();
    handler_ = RequestDurations::Handler::kOther;
    state_->setWaiting(this, false);
    ++served_;
    if (ec) {
      if (!isHttpParseError(ec)) {
        close();  // timeout, client went away, or stop()
        return;
      }
      http::status status = http::status::bad_request;
      if (ec == http::error::header_limit) status = http::status::request_header_fields_too_large;
      if (ec == http::error::body_limit) status = http::status::payload_too_large;
      reply(11, false, false, status, kTextContentType, std::string(http::obsolete_reason(status)) + "\n");
      return;
    }
    if (state_->options.basicAuth) {
      authenticate(parser_->get());
      return;
    }
    route(parser_->get());
  }

  void route(const http::request<http::string_body>& req) {
    std::string_view target(req.target().data(), req.target().size());
    const size_t queryAt = target.find('?');
    const std::string_view query = queryAt == std::string_view::npos ? std::string_view() : target.substr(queryAt + 1);
    target = target.substr(0, queryAt);
    const unsigned version = req.version();
    const bool keepAlive = req.keep_alive();
    const bool head = req.method() == http::verb::head;

    handler_ = RequestDurations::handlerFor(target);
    enum class Route { kIndex, kMetrics, kHealth, kFindings, kWindow, kStatus, kStatic };
    Route which;
    const HttpHandlers& h = state_->handlers;
    if (target == "/") {
      which = Route::kIndex;
    } else if (target == "/metrics") {
      which = Route::kMetrics;
    } else if (target == "/healthz") {
      which = Route::kHealth;
    } else if (target == "/api/v1/findings") {
      which = Route::kFindings;
    } else if (target == "/api/v1/window" && h.window) {
      which = Route::kWindow;
    } else if (target == "/api/v1/status" && h.status) {
      which = Route::kStatus;
    } else if (target.starts_with("/static/") && h.asset) {
      which = Route::kStatic;
    } else {
      reply(version, keepAlive, head, http::status::not_found, kTextContentType, "not found\n");
      return;
    }
    if (req.method() != http::verb::get && !head) {
      response_ = {};
      response_.set(http::field::allow, bsv(kAllowedMethods));
      send(version, keepAlive, head, http::status::method_not_allowed, kTextContentType,
           ownBody("method not allowed\n"));
      return;
    }

    // Handlers belong to other components; an exception escaping here would unwind io_context::run.
    try {
      switch (which) {
        case Route::kIndex:
          if (h.page) {
            replyWith(version, keepAlive, head, h.page());
          } else {
            reply(version, keepAlive, head, http::status::ok, "text/html; charset=utf-8",
                  std::string(kIndexHtml));
          }
          return;
        case Route::kWindow:
          replyWith(version, keepAlive, head, h.window(query));
          return;
        case Route::kStatus:
          replyWith(version, keepAlive, head, h.status());
          return;
        case Route::kStatic:
          replyWith(version, keepAlive, head, h.asset(target.substr(std::string_view("/static/").size())));
          return;
        case Route::kMetrics:
          serveMetrics(req, version, keepAlive, head);
          return;
        case Route::kHealth: {
          auto [ok, reason] = state_->handlers.health ? state_->handlers.health()
                                                      : std::pair<bool, std::string>{true, {}};
          reply(version, keepAlive, head, ok ? http::status::ok : http::status::service_unavailable,
                kTextContentType, ok ? std::string("ok\n") : reason + "\n");
          return;
        }
        case Route::kFindings:
          reply(version, keepAlive, head, http::status::ok, "application/json",
                state_->handlers.findingsJson ? state_->handlers.findingsJson()
                                              : std::string("{\"findings\":[]}"));
          return;
      }
    } catch (const std::exception& e) {
      spdlog::error("http: handler for {} failed: {}", target, e.what());
      reply(version, keepAlive, head, http::status::internal_server_error, kTextContentType,
            "internal error\n");
    }
  }

  void replyWith(unsigned version, bool keepAlive, bool head, HttpReply r) {
    response_ = {};
    // The page and its data are the node's own, never framed or sniffed into another type
    // (docs/security.md).
    response_.set("X-Content-Type-Options", "nosniff");
    response_.set(http::field::cache_control, "no-store");
    response_.set("X-Frame-Options", "DENY");
    send(version, keepAlive, head, static_cast<http::status>(r.status), r.contentType,
         ownBody(std::move(r.body)));
  }

  void serveMetrics(const http::request<http::string_body>& req, unsigned version, bool keepAlive,
                    bool head) {
    payload_ = state_->handlers.metrics ? state_->handlers.metrics() : nullptr;
    if (!payload_) {
      reply(version, keepAlive, head, http::status::service_unavailable, kTextContentType,
            "no metrics snapshot yet\n");
      return;
    }
    response_ = {};
    response_.set(http::field::vary, "Accept-Encoding");
    const auto accept = req[http::field::accept_encoding];
    // Compressed on the first request that accepts gzip, once per snapshot (Payload::gzip).
    const bool gzip = acceptsGzip(std::string_view(accept.data(), accept.size())) &&
                      !payload_->gzip().empty();
    const std::string& bytes = gzip ? payload_->gzip() : payload_->text;
    if (gzip) response_.set(http::field::content_encoding, "gzip");
    send(version, keepAlive, head, http::status::ok, kMetricsContentType,
         std::span<const char>(bytes.data(), bytes.size()));
  }

  std::span<const char> ownBody(std::string body) {
    body_ = std::move(body);
    return {body_.data(), body_.size()};
  }

  void reply(unsigned version, bool keepAlive, bool head, http::status status,
             std::string_view contentType, std::string body) {
    response_ = {};
    send(version, keepAlive, head, status, contentType, ownBody(std::move(body)));
  }

  // The body must stay alive until the write completes: it lives in body_ or payload_.
  void send(unsigned version, bool keepAlive, bool head, http::status status,
            std::string_view contentType, std::span<const char> body) {
    response_.version(version);
    response_.result(status);
    response_.keep_alive(keepAlive);
    response_.set(http::field::server, "fabricmon");
    response_.set(http::field::content_type, bsv(contentType));
    response_.content_length(body.size());
    // HEAD: the same headers, Content-Length of the GET body, no body (RFC 9110 §9.3.2).
    response_.body() = head ? std::span<const char>() : body;
    tcpStream().expires_after(state_->options.requestTimeout);
    http::async_write(stream_, response_,
                      beast::bind_front_handler(&HttpSession::onWrite, shared_from_this()));
  }

  void onWrite(beast::error_code ec, std::size_t /*bytes*/) {
    if (state_->options.durations) {
      state_->options.durations->observe(
          handler_, std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
    }
    const bool keepAlive = response_.keep_alive();
    payload_.reset();
    if (body_.capacity() >= kReleaseBodyBytes) {
      std::string().swap(body_);
      ::malloc_trim(0);
    } else {
      body_.clear();
    }
    if (ec) {
      close();
      return;
    }
    if (!keepAlive) {
      closeGracefully();
      return;
    }
    readRequest();
  }

  // After the last response: TLS sends close_notify first (RFC 8446 §6.1) so the client can tell
  // the end of the stream from a truncation; bounded by the deadline like everything else.
  void closeGracefully() {
    if constexpr (kTls) {
      tcpStream().expires_after(state_->options.requestTimeout);
      stream_.async_shutdown([self = shared_from_this()](beast::error_code) { self->close(); });
    } else {
      close();
    }
  }

  void close() {
    beast::error_code ignored;
    tcpStream().socket().shutdown(tcp::socket::shutdown_send, ignored);
    tcpStream().close();
  }

  std::shared_ptr<State> state_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::span_body<const char>> response_;
  std::string body_;
  std::shared_ptr<const Payload> payload_;
  std::chrono::steady_clock::time_point started_;
  RequestDurations::Handler handler_ = RequestDurations::Handler::kOther;
  uint64_t served_ = 0;  // requests read on this connection
};

namespace {

void acceptNext(std::shared_ptr<State> state, std::shared_ptr<tcp::acceptor> acceptor);

std::shared_ptr<SessionBase> makeSession(const std::shared_ptr<State>& state, tcp::socket socket) {
  if (state->options.tls) return std::make_shared<HttpSession<TlsStream>>(state, std::move(socket));
  return std::make_shared<HttpSession<PlainStream>>(state, std::move(socket));
}

// The connection that has waited longest for a request, or nullptr when every one is busy.
std::shared_ptr<SessionBase> takeEvictable(State& state, bool& freed) {
  freed = false;
  auto oldest = state.sessions.end();
  for (auto it = state.sessions.begin(); it != state.sessions.end(); ++it) {
    if (it->second.waiting && (oldest == state.sessions.end() || it->second.since < oldest->second.since)) {
      oldest = it;
    }
  }
  if (oldest == state.sessions.end()) return nullptr;
  auto session = oldest->second.session.lock();
  state.sessions.erase(oldest);
  freed = true;  // its slot is free now; the close follows on its strand
  return session;
}

void admit(const std::shared_ptr<State>& state, tcp::socket socket) {
  auto session = makeSession(state, std::move(socket));
  bool admitted = false;
  std::shared_ptr<SessionBase> evicted;
  {
    std::lock_guard lock(state->mutex);
    if (state->stopped) {
      // refused below
    } else {
      if (state->sessions.size() >= state->options.maxConnections) {
        bool freed = false;
        evicted = takeEvictable(*state, freed);
        if (freed) {
          ++state->evicted;
          if (!state->evicting) {
            state->evicting = true;
            spdlog::warn("http: {} connections open; closing those that sent no request, oldest "
                         "first, to admit new ones",
                         state->options.maxConnections);
          }
        }
      } else if (state->evicting && state->sessions.size() * 2 < state->options.maxConnections) {
        state->evicting = false;
        spdlog::info("http: connections below the limit again; {} evicted in all", state->evicted);
      }
      if (state->sessions.size() >= state->options.maxConnections) {
        if (!state->refusing) {
          state->refusing = true;
          spdlog::warn("http: {} connections busy with requests, refusing new ones until some "
                       "finish",
                       state->sessions.size());
        }
      } else {
        if (state->refusing) {
          state->refusing = false;
          spdlog::info("http: accepting connections again");
        }
        state->sessions.emplace(session.get(), SessionEntry{session});
        admitted = true;
      }
    }
  }
  // Outside the lock: a session's destructor takes it (a refused one closes its socket there).
  if (evicted) evicted->closeAsync();
  if (admitted) session->start();
}

void onAccept(std::shared_ptr<State> state, std::shared_ptr<tcp::acceptor> acceptor,
              beast::error_code ec, tcp::socket socket) {
  if (ec == net::error::operation_aborted || !acceptor->is_open()) return;
  if (ec) {
    spdlog::warn("http: accept failed: {}", ec.message());
    auto timer = std::make_shared<net::steady_timer>(acceptor->get_executor(), kAcceptRetryDelay);
    timer->async_wait([state, acceptor, timer](beast::error_code) {
      if (acceptor->is_open()) acceptNext(state, acceptor);
    });
    return;
  }
  admit(state, std::move(socket));
  acceptNext(std::move(state), std::move(acceptor));
}

void acceptNext(std::shared_ptr<State> state, std::shared_ptr<tcp::acceptor> acceptor) {
  // Every connection gets its own strand, so the server is correct with several io threads.
  auto& io = state->io;
  acceptor->async_accept(net::make_strand(io),
                         [state = std::move(state), acceptor](beast::error_code ec,
                                                              tcp::socket socket) mutable {
                           onAccept(std::move(state), std::move(acceptor), ec, std::move(socket));
                         });
}

// Candidate endpoints for a listen address, in the order to try them.
Result<std::vector<tcp::endpoint>> endpointsFor(net::io_context& io, std::string host,
                                                uint16_t port) {
  if (host.empty()) {
    return std::vector<tcp::endpoint>{tcp::endpoint(net::ip::address_v6::any(), port),
                                      tcp::endpoint(net::ip::address_v4::any(), port)};
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  beast::error_code ec;
  const net::ip::address address = net::ip::make_address(host, ec);
  if (!ec) return std::vector<tcp::endpoint>{tcp::endpoint(address, port)};
  // A name: resolved once at startup, where blocking on the resolver is acceptable.
  tcp::resolver resolver(io);
  const auto results = resolver.resolve(host, std::to_string(port), ec);
  if (ec) return toError("resolve " + host, ec);
  std::vector<tcp::endpoint> endpoints;
  for (const auto& entry : results) endpoints.push_back(entry.endpoint());
  return endpoints;
}

}  // namespace

HttpServer::HttpServer(net::io_context& io, HttpHandlers handlers, HttpServerOptions options)
    : state_(std::make_shared<State>(io, std::move(handlers), options)) {}

HttpServer::~HttpServer() { stop(); }

Result<uint16_t> HttpServer::listen(const std::string& host, uint16_t port) {
  const std::string where = (host.find(':') != std::string::npos && host.front() != '['
                                 ? "[" + host + "]"
                                 : host) +
                            ":" + std::to_string(port);
  auto endpoints = endpointsFor(state_->io, host, port);
  if (!endpoints) return endpoints.error();

  std::optional<Error> lastError;
  for (const tcp::endpoint& endpoint : *endpoints) {
    auto acceptor = std::make_shared<tcp::acceptor>(net::make_strand(state_->io));
    beast::error_code ec;
    acceptor->open(endpoint.protocol(), ec);
    if (!ec && endpoint.address().is_v6() && endpoint.address().is_unspecified()) {
      // Dual stack: [::] also takes IPv4 clients as v4-mapped addresses.
      acceptor->set_option(net::ip::v6_only(false), ec);
    }
    if (!ec) acceptor->set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      lastError = toError("listen on " + where, ec);
      continue;
    }
    const uint16_t bound = acceptor->local_endpoint(ec).port();
    if (ec) return toError("listen on " + where, ec);
    {
      std::lock_guard lock(state_->mutex);
      if (state_->stopped) return Error{"listen on " + where + ": server stopped", 0};
      state_->acceptors.push_back(acceptor);
    }
    acceptNext(state_, acceptor);
    return bound;
  }
  return lastError.value_or(Error{"listen on " + where + ": no address", 0});
}

void HttpServer::stop(std::chrono::milliseconds waitForListeners) {
  std::vector<std::shared_ptr<tcp::acceptor>> acceptors;
  std::vector<std::shared_ptr<SessionBase>> sessions;
  {
    std::lock_guard lock(state_->mutex);
    state_->stopped = true;
    acceptors.swap(state_->acceptors);
    for (auto& [raw, entry] : state_->sessions) {
      if (auto session = entry.session.lock()) sessions.push_back(std::move(session));
    }
  }
  // Each acceptor is closed on its own strand (Asio objects are not thread-safe); the promises
  // let a caller that rebinds the address wait for the closes.
  std::vector<std::future<void>> closed;
  for (auto& acceptor : acceptors) {
    auto done = std::make_shared<std::promise<void>>();
    closed.push_back(done->get_future());
    net::post(acceptor->get_executor(), [acceptor, done] {
      beast::error_code ignored;
      acceptor->close(ignored);
      done->set_value();
    });
  }
  for (auto& session : sessions) session->closeAsync();
  if (waitForListeners.count() > 0) {
    const auto deadline = std::chrono::steady_clock::now() + waitForListeners;
    for (auto& f : closed) f.wait_until(deadline);
  }
}

uint64_t HttpServer::evictedCount() const {
  std::lock_guard lock(state_->mutex);
  return state_->evicted;
}

size_t HttpServer::connectionCount() const {
  std::lock_guard lock(state_->mutex);
  return state_->sessions.size();
}

}  // namespace fabricmon
