// The file-backed ethtool source (--ethtool-dir): `<dir>/<ifname>` holds `ethtool -S` text.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <string>

#include "collectors/sources/ethtool_source.hpp"
#include "collectors/sources/ethtool_text.hpp"
#include "collectors/sources/sysfs.hpp"

namespace fabricmon {

namespace {

// 600+ stats of ~40 bytes each is ~25 KiB; anything near this limit is not ethtool output.
constexpr size_t kMaxStatsFile = 4 * 1024 * 1024;
// First size of the read buffer: a ConnectX-7 text (~665 stats) fits in one read.
constexpr size_t kInitialBuffer = 32 * 1024;

class EthtoolFileSource final : public EthtoolSource {
 public:
  // `dir / ""` ends in exactly one separator, so prefix + ifname is the same path as dir / ifname.
  explicit EthtoolFileSource(std::filesystem::path dir) : prefix_((dir / "").string()) {}

  Result<EthtoolStats> read(const std::string& ifname) override {
    EthtoolStats out;
    if (auto st = readInto(ifname, out); !st) return st.error();
    return out;
  }

  // The file is re-read at every poll (docs/contract.md §2: a test may change it), into a buffer
  // kept between polls; the parse writes only values while the names are those already in `out`.
  Status readInto(const std::string& ifname, EthtoolStats& out) override {
    std::lock_guard lock(mu_);
    auto st = load(ifname, out);
    if (!st) out = EthtoolStats{};
    return st;
  }

 private:
  Status load(const std::string& ifname, EthtoolStats& out) {
    // An interface name is one path component (net/core/dev.c dev_valid_name).
    if (ifname.empty() || ifname == "." || ifname == ".." ||
        ifname.find('/') != std::string::npos) {
      return Error{"ethtool stats: invalid interface name \"" + ifname + "\"", EINVAL};
    }
    path_.assign(prefix_);
    path_ += ifname;
    auto fd = openForRead(path_);
    if (!fd) {
      if (fd.error().errnum == ENOENT)
        return Error{"ethtool stats " + path_ + ": no stats", ENOENT};
      return fd.error();
    }
    auto size = readAll(*fd);
    ::close(*fd);
    if (!size) return size.error();
    if (auto st = parseEthtoolTextInto(std::string_view(buf_.data(), *size), out); !st)
      return Error{"ethtool stats " + path_ + ": " + st.error().message, st.error().errnum};
    return {};
  }

  // Reads the whole file into buf_ (which only grows) and returns its length.
  Result<size_t> readAll(int fd) {
    if (buf_.size() < kInitialBuffer) buf_.resize(kInitialBuffer);
    size_t len = 0;
    for (;;) {
      if (len == buf_.size()) {
        if (len > kMaxStatsFile) return Error{"read " + path_ + ": file too large", EFBIG};
        buf_.resize(std::min(2 * len, kMaxStatsFile + 1));
      }
      const ssize_t n = ::read(fd, buf_.data() + len, buf_.size() - len);
      if (n < 0) {
        if (errno == EINTR) continue;
        return sysError("read " + path_, errno);
      }
      if (n == 0) return len;
      len += static_cast<size_t>(n);
    }
  }

  const std::string prefix_;
  std::mutex mu_;     // readInto() may be called from more than one thread; the buffers are shared
  std::string path_;  // prefix_ + ifname of the current read
  std::string buf_;   // the file's bytes; its size is the capacity, not the file's length
};

}  // namespace

std::unique_ptr<EthtoolSource> makeEthtoolFileSource(std::filesystem::path dir) {
  return std::make_unique<EthtoolFileSource>(std::move(dir));
}

}  // namespace fabricmon
