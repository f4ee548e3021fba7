// The secured endpoint for real on 127.0.0.1: TLS with certificates made by openssl at test time,
// checked with curl; basic auth; client certificates; clients that stall the handshake.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include "exporters/basic_auth.hpp"
#include "exporters/http_security.hpp"
#include "exporters/http_server.hpp"
#include "tests/support/tls_test_support.hpp"

namespace fabricmon {
namespace {

// A check that cannot run must not pass: scripts/install-deps installs every test tool, so a
// missing one is a broken CI machine, not a reason to skip (issue 16 item 8).
constexpr const char* kMissingTool = "not installed (scripts/install-deps installs it): ";

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using test_util::curl;
using test_util::TempDir;

const std::string kMetricsText = "# TYPE fabricmon_build_info gauge\nfabricmon_build_info{version=\"t\",revision=\"t\"} 1\n";

/// A raw TCP connection, to play a client that stalls.
class RawClient {
 public:
  explicit RawClient(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  bool send(const std::string& data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
  }
  /// Everything received until the peer closes; nullopt if it stays open past `timeout`.
  std::optional<std::string> readUntilClosed(std::chrono::milliseconds timeout = 3000ms) {
    std::string got;
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) return got;
      if (n > 0) got.append(buf, static_cast<size_t>(n));
    }
  }
  /// True when bytes (or a close) are waiting to be read.
  bool readable() {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
  }
  /// One response: bytes until the header end plus Content-Length; "" on timeout.
  std::string readResponse(std::chrono::milliseconds timeout = 5000ms) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      const auto end = buffer_.find("\r\n\r\n");
      if (end != std::string::npos) {
        const auto cl = buffer_.find("Content-Length: ");
        const size_t length = cl != std::string::npos && cl < end ? std::stoul(buffer_.substr(cl + 16)) : 0;
        if (buffer_.size() >= end + 4 + length) {
          std::string r = buffer_.substr(0, end + 4 + length);
          buffer_.erase(0, end + 4 + length);
          return r;
        }
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return "";
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return "";
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

class SecureServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test_util::haveProgram("openssl")) << kMissingTool << "openssl";
    ASSERT_TRUE(test_util::haveProgram("curl")) << kMissingTool << "curl";
    ASSERT_EQ(test_util::makeCertificates(dir_.path()), "");
  }

  /// Starts the server with the web-config `yaml` (written next to the certificates).
  void start(const std::string& yaml, HttpServerOptions options = {}) {
    Status s = configureWebSecurity(dir_.write("web.yml", yaml), options);
    ASSERT_TRUE(s.ok()) << s.error().message;
    HttpHandlers handlers;
    handlers.metrics = [] { return std::make_shared<const Payload>(makePayload(kMetricsText, 1)); };
    handlers.health = [] { return std::pair<bool, std::string>{true, ""}; };
    server_ = std::make_unique<HttpServer>(io_, std::move(handlers), options);
    auto port = server_->listen("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.error().message;
    port_ = *port;
    thread_ = std::thread([this] { io_.run(); });
  }

  void TearDown() override {
    if (server_) server_->stop();
    guard_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
  }

  std::string url(const std::string& path, const std::string& host = "127.0.0.1") const {
    return "https://" + host + ":" + std::to_string(port_) + path;
  }

  TempDir dir_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::thread thread_;
  std::unique_ptr<HttpServer> server_;
  uint16_t port_ = 0;
};

const std::string kTlsOnly = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";

TEST_F(SecureServerTest, CurlTrustsTheServerOnlyWithTheCa) {
  start(kTlsOnly);
  auto ok = curl(dir_, url("/metrics"), {"--cacert", dir_.file("ca.crt")});
  EXPECT_EQ(ok.exitCode, 0) << ok.output;
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, kMetricsText);
  // The certificate names localhost too.
  auto byName = curl(dir_, url("/healthz", "localhost"), {"--cacert", dir_.file("ca.crt")});
  EXPECT_EQ(byName.status, 200) << byName.output;

  auto untrusted = curl(dir_, url("/metrics"));
  EXPECT_EQ(untrusted.exitCode, 60) << untrusted.output;  // CURLE_PEER_FAILED_VERIFICATION
  EXPECT_EQ(untrusted.status, 0);
  EXPECT_NE(untrusted.output.find("certificate"), std::string::npos) << untrusted.output;

  auto wrongCa = curl(dir_, url("/metrics"), {"--cacert", dir_.file("other-ca.crt")});
  EXPECT_EQ(wrongCa.exitCode, 60) << wrongCa.output;

  // Plain HTTP to the TLS port gets no HTTP answer.
  auto plain = curl(dir_, "http://127.0.0.1:" + std::to_string(port_) + "/metrics");
  EXPECT_NE(plain.exitCode, 0);
  EXPECT_EQ(plain.status, 0);
}

TEST_F(SecureServerTest, MinVersionTls13RefusesTls12Clients) {
  start(kTlsOnly + "  min_version: TLS13\n");
  auto tls12 = curl(dir_, url("/healthz"), {"--cacert", dir_.file("ca.crt"), "--tls-max", "1.2"});
  EXPECT_NE(tls12.exitCode, 0) << tls12.output;
  EXPECT_EQ(tls12.status, 0);
  auto tls13 = curl(dir_, url("/healthz"), {"--cacert", dir_.file("ca.crt")});
  EXPECT_EQ(tls13.status, 200) << tls13.output;
}

TEST_F(SecureServerTest, BasicAuthGuardsEveryPath) {
  start(kTlsOnly + "basic_auth_users:\n  alice: " + test_util::bcryptHash("s3cret") + "\n");
  const std::vector<std::string> ca = {"--cacert", dir_.file("ca.crt")};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = ca;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  for (const char* path : {"/metrics", "/healthz", "/api/v1/findings", "/", "/nope"}) {
    auto none = curl(dir_, url(path), ca);
    EXPECT_EQ(none.status, 401) << path;
    EXPECT_NE(none.headers.find("WWW-Authenticate: Basic realm=\"fabricmon\""), std::string::npos)
        << path << "\n" << none.headers;
  }
  auto wrong = curl(dir_, url("/metrics"), with({"-u", "alice:guess"}));
  EXPECT_EQ(wrong.status, 401);
  EXPECT_NE(wrong.headers.find("WWW-Authenticate: Basic realm=\"fabricmon\""), std::string::npos);
  auto stranger = curl(dir_, url("/metrics"), with({"-u", "mallory:s3cret"}));
  EXPECT_EQ(stranger.status, 401);
  auto right = curl(dir_, url("/metrics"), with({"-u", "alice:s3cret"}));
  EXPECT_EQ(right.status, 200) << right.output;
  EXPECT_EQ(right.body, kMetricsText);
  auto again = curl(dir_, url("/healthz"), with({"-u", "alice:s3cret"}));  // served from the cache
  EXPECT_EQ(again.status, 200);
  auto missing = curl(dir_, url("/nope"), with({"-u", "alice:s3cret"}));
  EXPECT_EQ(missing.status, 404);  // routing only after authentication
}

TEST_F(SecureServerTest, RequireAndVerifyClientCert) {
  start(kTlsOnly + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n");
  const std::string ca = dir_.file("ca.crt");
  auto withCert = curl(dir_, url("/metrics"),
                       {"--cacert", ca, "--cert", dir_.file("client.crt"), "--key", dir_.file("client.key")});
  EXPECT_EQ(withCert.status, 200) << withCert.output;
  EXPECT_EQ(withCert.body, kMetricsText);

  auto without = curl(dir_, url("/metrics"), {"--cacert", ca});
  EXPECT_NE(without.exitCode, 0);
  EXPECT_EQ(without.status, 0) << without.output;

  auto untrustedCert = curl(dir_, url("/metrics"), {"--cacert", ca, "--cert", dir_.file("stranger.crt"),
                                                    "--key", dir_.file("stranger.key")});
  EXPECT_NE(untrustedCert.exitCode, 0);
  EXPECT_EQ(untrustedCert.status, 0) << untrustedCert.output;
}

TEST_F(SecureServerTest, StalledHandshakesAreDroppedAtTheDeadlineAndDoNotStarveOthers) {
  HttpServerOptions options;
  options.headerTimeout = 400ms;  // the handshake runs under the first request's deadline
  options.maxConnections = 3;
  start(kTlsOnly, options);
  const auto t0 = Clock::now();
  RawClient silent(port_);  // connects, never says a word
  RawClient half(port_);    // the first bytes of a ClientHello record, then nothing
  ASSERT_TRUE(silent.connected());
  ASSERT_TRUE(half.connected());
  ASSERT_TRUE(half.send(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11)));

  // Both hold a slot, one is left: a real client is served meanwhile.
  auto ok = curl(dir_, url("/healthz"), {"--cacert", dir_.file("ca.crt")});
  EXPECT_EQ(ok.status, 200) << ok.output;

  EXPECT_TRUE(silent.readUntilClosed().has_value());
  EXPECT_TRUE(half.readUntilClosed().has_value());
  EXPECT_GE(Clock::now() - t0, options.headerTimeout - 20ms);  // by the deadline, not at once

  // The limit holds during handshakes too: a fourth stalled client evicts the one that has waited
  // longest (its handshake is not done), at once, not at its deadline.
  {
    RawClient a(port_);
    std::this_thread::sleep_for(20ms);  // a is the oldest
    RawClient b(port_), c(port_);
    std::this_thread::sleep_for(20ms);
    RawClient d(port_);
    EXPECT_TRUE(a.readUntilClosed(300ms).has_value());  // evicted for d
  }
  const auto deadline = Clock::now() + 3s;
  int status = 0;
  while (status != 200 && Clock::now() < deadline) {
    status = curl(dir_, url("/healthz"), {"--cacert", dir_.file("ca.crt")}).status;
  }
  EXPECT_EQ(status, 200);
}

TEST_F(SecureServerTest, MeasuresTheLoopbackHandshake) {
  start(kTlsOnly);
  std::vector<double> handshakes;
  for (int i = 0; i < 7; ++i) {
    auto r = curl(dir_, url("/healthz"),
                  {"--cacert", dir_.file("ca.crt"), "-w", "HTTP_CODE=%{http_code}\nTIMES=%{time_connect} %{time_appconnect}\n"});
    ASSERT_EQ(r.status, 200) << r.output;
    const auto at = r.output.find("TIMES=");
    ASSERT_NE(at, std::string::npos);
    double connect = 0, app = 0;
    ASSERT_EQ(std::sscanf(r.output.c_str() + at, "TIMES=%lf %lf", &connect, &app), 2);
    handshakes.push_back((app - connect) * 1000);
  }
  std::sort(handshakes.begin(), handshakes.end());
  std::cout << "TLS 1.3 handshake on loopback (ECDSA P-256, curl): median " << handshakes[3]
            << " ms, min " << handshakes.front() << " ms, max " << handshakes.back() << " ms\n";
  EXPECT_GT(handshakes[3], 0.0);
}

// Basic auth without TLS, with raw sockets to see the order of answers: a bcrypt check in
// progress must not hold up a request whose credentials are already cached.
TEST(PlainBasicAuth, BcryptDoesNotBlockTheIoThread) {
  const std::string hash = test_util::bcryptHash("s3cret", 12);  // ~0.3 s per check
  HttpServerOptions options;
  options.basicAuth = std::make_shared<BasicAuth>(std::map<std::string, std::string>{{"alice", hash}});
  boost::asio::io_context io;
  HttpHandlers handlers;
  handlers.health = [] { return std::pair<bool, std::string>{true, ""}; };
  HttpServer server(io, handlers, options);
  auto port = server.listen("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  std::thread runner([&] { io.run(); });

  const std::string good = "GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YWxpY2U6czNjcmV0\r\n\r\n";
  const std::string bad = "GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YWxpY2U6Z3Vlc3M=\r\n\r\n";
  RawClient g(*port);
  ASSERT_TRUE(g.send(good));
  EXPECT_NE(g.readResponse().find("HTTP/1.1 200"), std::string::npos);  // now cached

  RawClient w1(*port), w2(*port);
  ASSERT_TRUE(w1.send(bad));
  ASSERT_TRUE(w2.send(bad));
  ASSERT_TRUE(g.send(good));
  const std::string fast = g.readResponse();
  // The cached request was answered while both wrong guesses still wait for bcrypt.
  EXPECT_FALSE(w1.readable());
  EXPECT_FALSE(w2.readable());
  EXPECT_NE(fast.find("HTTP/1.1 200"), std::string::npos) << fast;
  EXPECT_NE(w1.readResponse().find("HTTP/1.1 401"), std::string::npos);
  EXPECT_NE(w2.readResponse().find("HTTP/1.1 401"), std::string::npos);

  server.stop();
  io.stop();
  runner.join();
}

}  // namespace
}  // namespace fabricmon
