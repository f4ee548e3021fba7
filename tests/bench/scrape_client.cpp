// scrape_client: N scrapers that fetch a /metrics URL at a fixed pace, all at the same instants, and
// print the latency distribution. Unlike wrk (a closed loop that sends the next request as soon as the
// last one ends and so saturates a 2-core machine), this measures what a scrape costs when 8
// Prometheus servers scrape together, without the load generator starving the server of CPU.
//
//   scrape_client --url http://127.0.0.1:PORT/metrics [--scrapers 8] [--rate 10] [--duration 10]
//                 [--close] [--gzip]
//
// --rate is scrapes per second per scraper; every scraper fires at t0 + k/rate (a burst of N).
// Only loopback addresses are accepted. Prints one line:
//   scrapes=N errors=E p50_ms=X p90_ms=X p99_ms=X max_ms=X

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  std::string path = "/metrics";
  unsigned scrapers = 8;
  double rate = 10;
  double duration = 10;
  bool close = false;
  bool gzip = false;
};

bool parseUrl(std::string_view url, Options& o) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) return false;
  url.remove_prefix(kScheme.size());
  const auto slash = url.find('/');
  const std::string_view hostPort = url.substr(0, slash);
  o.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  const auto colon = hostPort.rfind(':');
  if (colon == std::string_view::npos) return false;
  o.host = std::string(hostPort.substr(0, colon));
  o.port = static_cast<uint16_t>(std::atoi(std::string(hostPort.substr(colon + 1)).c_str()));
  in_addr a{};
  // Loopback only: this tool generates load, and load goes to this machine and nowhere else.
  return o.port != 0 && inet_pton(AF_INET, o.host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

class Connection {
 public:
  explicit Connection(const Options& o) : o_(o) {}
  ~Connection() { reset(); }

  /// One GET; true when a complete 200 response was read.
  bool scrape() {
    if (fd_ < 0 && !connectTo()) return false;
    std::string req = "GET " + o_.path + " HTTP/1.1\r\nHost: " + o_.host + "\r\nUser-Agent: scrape_client\r\n";
    if (o_.gzip) req += "Accept-Encoding: gzip\r\n";
    req += o_.close ? "Connection: close\r\n\r\n" : "\r\n";
    if (::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
      reset();
      return false;
    }
    const bool ok = readResponse();
    if (!ok || o_.close || serverCloses_) reset();
    return ok;
  }

 private:
  bool connectTo() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return false;
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(o_.port);
    inet_pton(AF_INET, o_.host.c_str(), &addr.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      reset();
      return false;
    }
    buf_.clear();
    return true;
  }

  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buf_.clear();
    serverCloses_ = false;
  }

  bool fill() {
    char tmp[65536];
    const ssize_t n = ::recv(fd_, tmp, sizeof(tmp), 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }

  /// Makes sure buf_ holds at least `n` bytes.
  bool need(size_t n) {
    while (buf_.size() < n) {
      if (!fill()) return false;
    }
    return true;
  }

  bool readLine(std::string& line) {
    size_t pos;
    while ((pos = buf_.find("\r\n")) == std::string::npos) {
      if (!fill()) return false;
    }
    line = buf_.substr(0, pos);
    buf_.erase(0, pos + 2);
    return true;
  }

  bool readResponse() {
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return false;
    }
    std::string head = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    for (auto& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool ok = head.starts_with("http/1.1 200") || head.starts_with("http/1.0 200");
    serverCloses_ = head.find("\r\nconnection: close") != std::string::npos;
    if (auto cl = head.find("\r\ncontent-length:"); cl != std::string::npos) {
      const size_t len = std::strtoull(head.c_str() + cl + 17, nullptr, 10);
      if (!need(len)) return false;
      buf_.erase(0, len);
    } else if (head.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
      for (;;) {
        std::string line;
        if (!readLine(line)) return false;
        const size_t len = std::strtoull(line.c_str(), nullptr, 16);
        if (!need(len + 2)) return false;
        buf_.erase(0, len + 2);
        if (len == 0) break;  // no trailers expected
      }
    } else {
      while (fill()) {
      }
      serverCloses_ = true;
    }
    return ok;
  }

  const Options& o_;
  int fd_ = -1;
  std::string buf_;
  bool serverCloses_ = false;
};

int usage() {
  std::fprintf(stderr,
               "usage: scrape_client --url http://127.0.0.1:PORT/metrics [--scrapers N] [--rate R] "
               "[--duration S] [--close] [--gzip]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool haveUrl = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--url" && hasValue) {
      if (!parseUrl(argv[++i], o)) return usage();
      haveUrl = true;
    } else if (a == "--scrapers" && hasValue) {
      o.scrapers = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--rate" && hasValue) {
      o.rate = std::atof(argv[++i]);
    } else if (a == "--duration" && hasValue) {
      o.duration = std::atof(argv[++i]);
    } else if (a == "--close") {
      o.close = true;
    } else if (a == "--gzip") {
      o.gzip = true;
    } else {
      return usage();
    }
  }
  if (!haveUrl || o.scrapers == 0 || o.scrapers > 64 || o.rate <= 0 || o.rate > 1000 || o.duration <= 0 ||
      o.duration > 120) {
    return usage();
  }

  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / o.rate));
  const auto t0 = Clock::now() + std::chrono::milliseconds(100);
  const auto stop = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration));
  std::mutex mutex;
  std::vector<double> latenciesMs;
  std::atomic<unsigned> errors{0};
  std::vector<std::thread> threads;
  for (unsigned s = 0; s < o.scrapers; ++s) {
    threads.emplace_back([&] {
      Connection conn(o);
      std::vector<double> mine;
      for (auto next = t0; next < stop; next += period) {
        std::this_thread::sleep_until(next);
        const auto start = Clock::now();
        if (!conn.scrape()) {
          ++errors;
          continue;
        }
        mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      }
      std::lock_guard lock(mutex);
      latenciesMs.insert(latenciesMs.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : threads) t.join();

  std::sort(latenciesMs.begin(), latenciesMs.end());
  auto pct = [&](double p) {
    if (latenciesMs.empty()) return 0.0;
    const size_t i = std::min(latenciesMs.size() - 1, static_cast<size_t>(p * latenciesMs.size()));
    return latenciesMs[i];
  };
  std::printf("scrapes=%zu errors=%u p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f\n", latenciesMs.size(),
              errors.load(), pct(0.50), pct(0.90), pct(0.99), latenciesMs.empty() ? 0.0 : latenciesMs.back());
  return latenciesMs.empty() ? 1 : 0;
}
