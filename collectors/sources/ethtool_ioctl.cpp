#include "collectors/sources/ethtool_ioctl.hpp"
#include "collectors/sources/read_watch.hpp"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string_view>
#include <vector>

#include "collectors/sources/parse.hpp"

namespace fabricmon {

namespace {

// net/ethtool/ioctl.c (ethtool_get_strings, ethtool_get_stats) ignores the count user space
// passes and copies as many entries as the driver has at that moment. The set can grow between
// our GSSET_INFO and the next call (mlx5 adds 5 names per priority when PFC is switched on), so
// every buffer is sized with room to spare, as a kernel write past it would corrupt memory.
size_t capacityFor(size_t count) { return 2 * count + 256; }

constexpr int kMaxAttempts = 3;
// The kernel refuses more than S32_MAX / ETH_GSTRING_LEN; a real NIC has a few thousand.
constexpr uint32_t kMaxStats = 1u << 20;

class SystemEthtoolIoctl final : public EthtoolIoctlInterface {
 public:
  Result<int> openSocket() override {
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) return fd;
    // Kernels without IPv4 still route SIOCETHTOOL from any socket (net/socket.c sock_do_ioctl).
    const int inetErr = errno;
    fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) return fd;
    return sysError(
        "ethtool socket (AF_INET: " + std::string(strerrorname_np(inetErr)) + ", AF_UNIX)", errno);
  }

  int doIoctl(int fd, const std::string& ifname, void* data, size_t /*size*/) override {
    ifreq ifr{};
    if (ifname.size() >= sizeof(ifr.ifr_name)) return EINVAL;
    std::memcpy(ifr.ifr_name, ifname.data(), ifname.size());
    ifr.ifr_data = static_cast<char*>(data);
    const WatchedRead watched("ethtool ioctl", "class/net/", ifname);
    return ::ioctl(fd, SIOCETHTOOL, &ifr) == 0 ? 0 : errno;
  }

  void closeSocket(int fd) override { ::close(fd); }
};

class EthtoolIoctlSource final : public EthtoolSource {
 public:
  explicit EthtoolIoctlSource(std::unique_ptr<EthtoolIoctlInterface> io) : io_(std::move(io)) {}

  ~EthtoolIoctlSource() override {
    if (fd_ >= 0) io_->closeSocket(fd_);
  }

  Result<EthtoolStats> read(const std::string& ifname) override {
    EthtoolStats out;
    if (auto st = readInto(ifname, out); !st) return st.error();
    return out;
  }

  Status readInto(const std::string& ifname, EthtoolStats& out) override {
    std::lock_guard lock(mu_);
    out.issues.clear();
    if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
      return Error{"ethtool " + ifname + ": invalid interface name", EINVAL};
    }
    if (fd_ < 0) {
      auto fd = io_->openSocket();
      if (!fd) return fd.error();
      fd_ = *fd;
    }
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      auto count = statCount(ifname);
      if (!count) return count.error();
      const uint32_t n = *count;

      auto* strings = prepareStrings(n);
      if (int err = io_->doIoctl(fd_, ifname, strings, stringsBuf_.size() * sizeof(uint64_t))) {
        return sysError("ethtool GSTRINGS " + ifname, err);
      }
      if (strings->len != n) {
        spdlog::debug("ethtool {}: stat set changed ({} -> {} strings), re-reading", ifname, n,
                      strings->len);
        continue;
      }
      auto* stats = prepareStats(n);
      if (int err = io_->doIoctl(fd_, ifname, stats, statsBuf_.size() * sizeof(uint64_t))) {
        return sysError("ethtool GSTATS " + ifname, err);
      }
      if (stats->n_stats != n) {
        spdlog::debug("ethtool {}: stat set changed ({} strings, {} values), re-reading", ifname, n,
                      stats->n_stats);
        continue;
      }
      fill(*strings, *stats, out);
      return {};
    }
    return Error{"ethtool " + ifname + ": stat set kept changing during " +
                     std::to_string(kMaxAttempts) + " reads",
                 EAGAIN};
  }

 private:
  Result<uint32_t> statCount(const std::string& ifname) {
    // struct ethtool_sset_info is followed by one __u32 per bit set in sset_mask.
    uint64_t buf[(sizeof(ethtool_sset_info) + sizeof(uint32_t) + 7) / 8] = {};
    auto* info = reinterpret_cast<ethtool_sset_info*>(buf);
    info->cmd = ETHTOOL_GSSET_INFO;
    info->sset_mask = 1ULL << ETH_SS_STATS;
    if (int err = io_->doIoctl(fd_, ifname, info, sizeof(buf))) {
      return sysError("ethtool GSSET_INFO " + ifname, err);
    }
    // The kernel clears the bit when the driver has no ETH_SS_STATS set.
    if ((info->sset_mask & (1ULL << ETH_SS_STATS)) == 0) {
      return Error{"ethtool " + ifname + ": no statistics", EOPNOTSUPP};
    }
    uint32_t n;
    std::memcpy(&n, reinterpret_cast<const char*>(buf) + offsetof(ethtool_sset_info, data),
                sizeof(n));
    if (n == 0) return Error{"ethtool " + ifname + ": no statistics", EOPNOTSUPP};
    if (n > kMaxStats)
      return Error{"ethtool " + ifname + ": implausible stat count " + std::to_string(n), E2BIG};
    return n;
  }

  ethtool_gstrings* prepareStrings(uint32_t n) {
    const size_t bytes = offsetof(ethtool_gstrings, data) + capacityFor(n) * ETH_GSTRING_LEN;
    const size_t words = (bytes + 7) / 8;
    if (stringsBuf_.size() < words) stringsBuf_.assign(words, 0);
    auto* g = reinterpret_cast<ethtool_gstrings*>(stringsBuf_.data());
    g->cmd = ETHTOOL_GSTRINGS;
    g->string_set = ETH_SS_STATS;
    g->len = n;
    return g;
  }

  ethtool_stats* prepareStats(uint32_t n) {
    const size_t bytes = offsetof(ethtool_stats, data) + capacityFor(n) * sizeof(uint64_t);
    const size_t words = (bytes + 7) / 8;
    if (statsBuf_.size() < words) statsBuf_.assign(words, 0);
    auto* s = reinterpret_cast<ethtool_stats*>(statsBuf_.data());
    s->cmd = ETHTOOL_GSTATS;
    s->n_stats = n;
    return s;
  }

  // Keeps the (shared) list already in `out` when the names are unchanged, the usual case, so a
  // steady poll allocates nothing; the comparison that decides it also tells the consumer
  // (namesUnchanged), so it need not compare the ~665 mlx5 names again.
  static void fill(const ethtool_gstrings& strings, const ethtool_stats& stats, EthtoolStats& out) {
    const size_t n = stats.n_stats;
    const auto* raw = reinterpret_cast<const char*>(strings.data);
    auto nameAt = [raw](size_t i) {
      const char* s = raw + i * ETH_GSTRING_LEN;
      return trim(std::string_view(s, ::strnlen(s, ETH_GSTRING_LEN)));
    };
    bool unchanged = out.names && out.names->size() == n;
    for (size_t i = 0; unchanged && i < n; ++i) unchanged = (*out.names)[i] == nameAt(i);
    if (!unchanged) {
      EthtoolNames names;
      names.reserve(n);
      for (size_t i = 0; i < n; ++i) names.emplace_back(nameAt(i));
      out.names = internEthtoolNames(std::move(names));
    }
    out.values.assign(stats.data, stats.data + n);
    out.namesUnchanged = unchanged;
  }

  std::mutex mu_;
  std::unique_ptr<EthtoolIoctlInterface> io_;
  int fd_ = -1;
  std::vector<uint64_t> stringsBuf_;
  std::vector<uint64_t> statsBuf_;
};

}  // namespace

std::unique_ptr<EthtoolIoctlInterface> makeSystemEthtoolIoctl() {
  return std::make_unique<SystemEthtoolIoctl>();
}

std::unique_ptr<EthtoolSource> makeEthtoolIoctlSource(std::unique_ptr<EthtoolIoctlInterface> io) {
  return std::make_unique<EthtoolIoctlSource>(std::move(io));
}

std::unique_ptr<EthtoolSource> makeEthtoolIoctlSource() {
  return makeEthtoolIoctlSource(makeSystemEthtoolIoctl());
}

}  // namespace fabricmon
