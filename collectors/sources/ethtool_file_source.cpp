// The file-backed ethtool source (--ethtool-dir): `<dir>/<ifname>` holds `ethtool -S` text.

#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>

#include "collectors/sources/ethtool_source.hpp"
#include "collectors/sources/ethtool_text.hpp"
#include "collectors/sources/sysfs.hpp"

namespace fabricmon {

namespace {

// 600+ stats of ~40 bytes each is ~25 KiB; anything near this limit is not ethtool output.
constexpr size_t kMaxStatsFile = 4 * 1024 * 1024;

class EthtoolFileSource final : public EthtoolSource {
 public:
  explicit EthtoolFileSource(std::filesystem::path dir) : dir_(std::move(dir)) {}

  Result<EthtoolStats> read(const std::string& ifname) override {
    // An interface name is one path component (net/core/dev.c dev_valid_name).
    if (ifname.empty() || ifname == "." || ifname == ".." ||
        ifname.find('/') != std::string::npos) {
      return Error{"ethtool stats: invalid interface name \"" + ifname + "\"", EINVAL};
    }
    const std::string path = (dir_ / ifname).string();
    auto fd = openForRead(path);
    if (!fd) {
      if (fd.error().errnum == ENOENT) return Error{"ethtool stats " + path + ": no stats", ENOENT};
      return fd.error();
    }
    auto text = readAll(*fd, path);
    ::close(*fd);
    if (!text) return text.error();
    auto stats = parseEthtoolText(*text);
    if (!stats)
      return Error{"ethtool stats " + path + ": " + stats.error().message, stats.error().errnum};
    return stats;
  }

 private:
  static Result<std::string> readAll(int fd, const std::string& path) {
    std::string out;
    std::array<char, 16384> chunk;
    for (;;) {
      const ssize_t n = ::read(fd, chunk.data(), chunk.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return sysError("read " + path, errno);
      }
      if (n == 0) return out;
      out.append(chunk.data(), static_cast<size_t>(n));
      if (out.size() > kMaxStatsFile) return Error{"read " + path + ": file too large", EFBIG};
    }
  }

  std::filesystem::path dir_;
};

}  // namespace

std::unique_ptr<EthtoolSource> makeEthtoolFileSource(std::filesystem::path dir) {
  return std::make_unique<EthtoolFileSource>(std::move(dir));
}

}  // namespace fabricmon
