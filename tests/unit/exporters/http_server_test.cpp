// The server for real on 127.0.0.1 with a raw-socket client, so the test sees exactly the bytes sent.
// Every wait is a bounded poll() on a real socket.

#include "exporters/http_server.hpp"

#include "tests/unit/exporters/gunzip.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace fabricmon {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kShortTimeout = 200ms;  // the server's request timeout in these tests
constexpr auto kWait = 2000ms;         // upper bound of any wait on a socket

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class Client {
 public:
  explicit Client(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() { closeNow(); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return connected_; }
  void closeNow() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  bool send(const std::string& data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
  }

  /// One response; nullopt when the peer closed or nothing complete arrived within `timeout`.
  /// `head`: the response to a HEAD request carries no body whatever Content-Length says.
  std::optional<Response> read(bool head = false, std::chrono::milliseconds timeout = kWait) {
    const auto deadline = Clock::now() + timeout;
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill(deadline)) return std::nullopt;
    }
    Response r;
    const std::string headerBlock = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    size_t lineEnd = headerBlock.find("\r\n");
    const std::string statusLine = headerBlock.substr(0, lineEnd);
    if (statusLine.size() < 12) return std::nullopt;
    r.status = std::stoi(statusLine.substr(9, 3));
    while (lineEnd != std::string::npos) {
      const size_t start = lineEnd + 2;
      lineEnd = headerBlock.find("\r\n", start);
      const std::string line = headerBlock.substr(start, lineEnd == std::string::npos ? std::string::npos : lineEnd - start);
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      r.headers[name] = value;
    }
    const size_t length = head ? 0 : std::stoul(r.header("content-length").empty() ? "0" : r.header("content-length"));
    while (buffer_.size() < length) {
      if (!fill(deadline)) return std::nullopt;
    }
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return r;
  }

  /// True when the peer closes the connection within `timeout` (anything it sends is discarded).
  bool waitClosed(std::chrono::milliseconds timeout = kWait) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    }
  }

  /// Bytes that arrived and were not consumed by read().
  const std::string& pending() const { return buffer_; }

 private:
  bool fill(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

// A whole node's window at 128 ports is megabytes: a body the server frees once written
// (exporters/http_server.cpp, kReleaseBodyBytes). Larger than a loopback socket's send buffer, so
// the write goes on after its first part; every byte differs from its neighbours, so a body freed
// or reused before its write completed shows.
std::string bigBody() {
  std::string body(16 << 20, ' ');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + (i * 7 + i / 26) % 26);
  return body;
}

std::string get(const std::string& path, const std::string& extra = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
}

class HttpServerTest : public ::testing::Test {
 protected:
  void start(HttpServerOptions options = {}) {
    HttpHandlers handlers;
    handlers.metrics = [this] {
      std::lock_guard lock(mutex_);
      return payload_;
    };
    handlers.health = [this] {
      std::lock_guard lock(mutex_);
      return std::pair<bool, std::string>{healthy_, reason_};
    };
    handlers.findingsJson = [] { return std::string("{\"findings\":[]}"); };
    if (withStatusPage_) {
      handlers.window = [](std::string_view query) {
        if (query == "seconds=600") return HttpReply{200, "application/json", bigBody()};
        return query == "seconds=5" ? HttpReply{200, "application/json", "{\"series\":[]}"}
                                    : HttpReply{400, "text/plain", "bad query\n"};
      };
      handlers.page = [] { return HttpReply{200, "text/html; charset=utf-8", "<!DOCTYPE html>page"}; };
      handlers.asset = [](std::string_view name) {
        return name == "status.js" ? HttpReply{200, "text/javascript", "js"} : HttpReply{404, "text/plain", "no\n"};
      };
    }
    server_ = std::make_unique<HttpServer>(io_, std::move(handlers), options);
    auto port = server_->listen("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.error().message;
    port_ = *port;
    ASSERT_NE(port_, 0);
    thread_ = std::thread([this] { io_.run(); });
  }

  void TearDown() override {
    if (server_) server_->stop();
    guard_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
  }

  void setPayload(std::string text) {
    std::lock_guard lock(mutex_);
    payload_ = std::make_shared<const Payload>(makePayload(std::move(text), 1));
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::thread thread_;
  std::unique_ptr<HttpServer> server_;
  uint16_t port_ = 0;

  bool withStatusPage_ = false;
  std::mutex mutex_;
  std::shared_ptr<const Payload> payload_;
  bool healthy_ = true;
  std::string reason_;
};

const std::string kMetricsText =
    "# HELP fabricmon_port_state Port state.\n# TYPE fabricmon_port_state gauge\n"
    "fabricmon_port_state{device=\"mlx5_0\",port=\"1\"} 4\n";

TEST_F(HttpServerTest, MetricsIs503UntilTheFirstPayload) {
  start();
  Client c(port_);
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send(get("/metrics")));
  auto r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);

  setPayload(kMetricsText);
  ASSERT_TRUE(c.send(get("/metrics")));
  r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(r->header("content-encoding"), "");
  EXPECT_EQ(r->body, kMetricsText);
}

TEST_F(HttpServerTest, GzipNegotiation) {
  start();
  setPayload(kMetricsText);
  struct Case {
    std::string acceptEncoding;
    bool gzip;
  };
  const Case cases[] = {{"", false}, {"gzip", true}, {"gzip, deflate, br", true},
                        {"gzip;q=0", false}, {"identity", false}, {"*", true}, {"*;q=0", false}};
  Client c(port_);
  for (const auto& tc : cases) {
    const std::string extra = tc.acceptEncoding.empty() ? "" : "Accept-Encoding: " + tc.acceptEncoding + "\r\n";
    ASSERT_TRUE(c.send(get("/metrics", extra)));
    auto r = c.read();
    ASSERT_TRUE(r) << tc.acceptEncoding;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->header("vary"), "Accept-Encoding");
    if (tc.gzip) {
      EXPECT_EQ(r->header("content-encoding"), "gzip") << tc.acceptEncoding;
      EXPECT_EQ(test_util::gunzip(r->body), kMetricsText) << tc.acceptEncoding;
    } else {
      EXPECT_EQ(r->header("content-encoding"), "") << tc.acceptEncoding;
      EXPECT_EQ(r->body, kMetricsText) << tc.acceptEncoding;
    }
  }
}

TEST_F(HttpServerTest, HeadHasHeadersButNoBody) {
  start();
  setPayload(kMetricsText);
  Client c(port_);
  // HEAD then GET on one connection: if HEAD leaked body bytes, the GET response would not parse.
  ASSERT_TRUE(c.send("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n" + get("/healthz")));
  auto head = c.read(/*head=*/true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->header("content-length"), std::to_string(kMetricsText.size()));
  EXPECT_EQ(head->header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  auto next = c.read();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(next->body, "ok\n");
  EXPECT_EQ(c.pending(), "");
}

TEST_F(HttpServerTest, RoutesAndErrors) {
  start();
  Client c(port_);

  ASSERT_TRUE(c.send(get("/healthz")));
  auto r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok\n");

  {
    std::lock_guard lock(mutex_);
    healthy_ = false;
    reason_ = "sampling loop stalled for 12s";
  }
  ASSERT_TRUE(c.send(get("/healthz")));
  r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->body, "sampling loop stalled for 12s\n");

  ASSERT_TRUE(c.send(get("/api/v1/findings")));
  r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_EQ(r->body, "{\"findings\":[]}");

  ASSERT_TRUE(c.send(get("/")));
  r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "text/html; charset=utf-8");
  for (const char* link : {"href=\"/metrics\"", "href=\"/healthz\"", "href=\"/api/v1/findings\""}) {
    EXPECT_NE(r->body.find(link), std::string::npos) << link;
  }

  ASSERT_TRUE(c.send(get("/metrics?name[]=up")));  // a query string does not change the route
  r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);

  ASSERT_TRUE(c.send(get("/nope")));
  r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);

  ASSERT_TRUE(c.send("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"));
  r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->header("allow"), "GET, HEAD");

  ASSERT_TRUE(c.send("DELETE /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
}

// Large bodies back to back on one connection, then a small one: each arrives whole (the large
// body is released after its write, not before, and the connection goes on).
TEST_F(HttpServerTest, LargeBodiesAreWholeAndTheConnectionGoesOn) {
  withStatusPage_ = true;
  start();
  Client c(port_);
  const std::string want = bigBody();
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(c.send(get("/api/v1/window?seconds=600")));
    auto r = c.read();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->status, 200);
    EXPECT_TRUE(r->body == want) << "response " << i << " differs: " << r->body.size() << " bytes";
  }
  ASSERT_TRUE(c.send(get("/api/v1/window?seconds=5")));
  auto small = c.read();
  ASSERT_TRUE(small);
  EXPECT_EQ(small->body, "{\"series\":[]}");
  EXPECT_EQ(server_->connectionCount(), 1u);
}

// The status page's routes pass the query string through, answer the handler's status, carry the
// headers that keep the page from being framed or sniffed, and are 404 when not configured.
TEST_F(HttpServerTest, StatusPageRoutes) {
  withStatusPage_ = true;
  start();
  Client c(port_);
  struct Want {
    std::string target;
    int status;
    std::string body;
  };
  for (const Want& w : {Want{"/api/v1/window?seconds=5", 200, "{\"series\":[]}"},
                        Want{"/api/v1/window?seconds=99999", 400, "bad query\n"},
                        Want{"/", 200, "<!DOCTYPE html>page"}, Want{"/static/status.js", 200, "js"},
                        Want{"/static/../metrics", 404, "no\n"}, Want{"/api/v1/status", 404, "not found\n"}}) {
    ASSERT_TRUE(c.send(get(w.target)));
    auto r = c.read();
    ASSERT_TRUE(r) << w.target;
    EXPECT_EQ(r->status, w.status) << w.target;
    EXPECT_EQ(r->body, w.body) << w.target;
    if (w.status == 200) {
      EXPECT_EQ(r->header("x-content-type-options"), "nosniff") << w.target;
      EXPECT_EQ(r->header("x-frame-options"), "DENY") << w.target;
    }
  }
  ASSERT_TRUE(c.send("POST /api/v1/window HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"));
  auto r = c.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
}

TEST_F(HttpServerTest, WithoutTheStatusPageItsRoutesAre404AndSlashListsTheEndpoints) {
  start();
  Client c(port_);
  for (const char* target : {"/api/v1/window", "/api/v1/status", "/static/status.js"}) {
    ASSERT_TRUE(c.send(get(target)));
    auto r = c.read();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404) << target;
  }
}

TEST_F(HttpServerTest, MalformedAndOversizedRequestsAreAnsweredThenClosed) {
  HttpServerOptions options;
  options.maxRequestBytes = 512;
  start(options);
  {
    Client c(port_);
    ASSERT_TRUE(c.send(get("/healthz", "X-Big: " + std::string(1024, 'a') + "\r\n")));
    auto r = c.read();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 431);
    EXPECT_TRUE(c.waitClosed());
  }
  {
    Client c(port_);
    ASSERT_TRUE(c.send("GARBAGE\r\n\r\n"));
    auto r = c.read();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400);
    EXPECT_TRUE(c.waitClosed());
  }
}

TEST_F(HttpServerTest, KeepAliveServesTwoRequestsOnOneConnectionAndHonoursClose) {
  start();
  setPayload(kMetricsText);
  Client c(port_);
  ASSERT_TRUE(c.send(get("/metrics")));
  auto first = c.read();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  ASSERT_TRUE(c.send(get("/healthz")));
  auto second = c.read();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200);
  EXPECT_EQ(server_->connectionCount(), 1u);

  ASSERT_TRUE(c.send(get("/healthz", "Connection: close\r\n")));
  auto last = c.read();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->status, 200);
  EXPECT_TRUE(c.waitClosed());
}

TEST_F(HttpServerTest, SilentClientIsClosedAfterTimeoutWhileOthersAreServed) {
  HttpServerOptions options;
  options.headerTimeout = kShortTimeout;
  options.idleTimeout = kShortTimeout;
  start(options);
  const auto t0 = Clock::now();
  Client silent(port_);
  Client slow(port_);
  ASSERT_TRUE(silent.connected());
  ASSERT_TRUE(slow.send("GET /healthz HTTP/1.1\r\n"));  // never finishes its header

  Client other(port_);
  ASSERT_TRUE(other.send(get("/healthz")));
  auto r = other.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);

  EXPECT_TRUE(silent.waitClosed());
  EXPECT_TRUE(slow.waitClosed());
  EXPECT_GE(Clock::now() - t0, kShortTimeout - 20ms);  // closed by the deadline, not at once

  // A keep-alive connection left idle after its response is also closed after the timeout.
  Client idle(port_);
  ASSERT_TRUE(idle.send(get("/healthz")));
  ASSERT_TRUE(idle.read());
  const auto served = Clock::now();
  EXPECT_TRUE(idle.waitClosed());
  EXPECT_GE(Clock::now() - served, kShortTimeout - 20ms);
}

TEST_F(HttpServerTest, AtTheLimitTheLongestWaitingConnectionMakesRoom) {
  HttpServerOptions options;
  options.maxConnections = 2;
  start(options);
  Client a(port_), b(port_);
  for (Client* c : {&a, &b}) {
    ASSERT_TRUE(c->send(get("/healthz")));
    ASSERT_TRUE(c->read());  // served and kept alive: both now wait for a next request
  }
  EXPECT_EQ(server_->connectionCount(), 2u);

  // Before issue 16 the newcomer was closed while idle connections held every slot.
  Client newcomer(port_);
  ASSERT_TRUE(newcomer.send(get("/healthz")));
  auto r = newcomer.read();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(a.waitClosed());  // a had waited longest
  EXPECT_EQ(server_->evictedCount(), 1u);
  EXPECT_LE(server_->connectionCount(), 2u);
  // b was younger than a and keeps its connection.
  ASSERT_TRUE(b.send(get("/healthz")));
  ASSERT_TRUE(b.read());
}

TEST_F(HttpServerTest, ASlowlorisIsEvictedBeforeItsDeadline) {
  HttpServerOptions options;
  options.maxConnections = 2;
  options.headerTimeout = std::chrono::seconds(30);
  start(options);
  Client slow1(port_), slow2(port_);
  ASSERT_TRUE(slow1.send("GET /healthz HTTP/1.1\r\nX-A: "));  // never finishes its header
  ASSERT_TRUE(slow2.send("GET /healthz HTTP/1.1\r\nX-B: "));
  const auto t0 = Clock::now();
  Client scraper(port_);
  ASSERT_TRUE(scraper.send(get("/metrics")));
  auto r = scraper.read();
  ASSERT_TRUE(r);
  EXPECT_NE(r->status, 0);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  EXPECT_TRUE(slow1.waitClosed());
}

TEST_F(HttpServerTest, StopClosesConnectionsAndTheListener) {
  start();
  Client c(port_);
  ASSERT_TRUE(c.send(get("/healthz")));
  ASSERT_TRUE(c.read());
  server_->stop();
  EXPECT_TRUE(c.waitClosed());
  Client after(port_);
  EXPECT_TRUE(!after.connected() || after.waitClosed());
}

TEST(HttpServerListenTest, ReportsAddressInUse) {
  boost::asio::io_context io;
  HttpServer first(io, {});
  auto port = first.listen("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.error().message;
  HttpServer second(io, {});
  auto clash = second.listen("127.0.0.1", *port);
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.error().message.find("EADDRINUSE"), std::string::npos) << clash.error().message;
}

}  // namespace
}  // namespace fabricmon
