// The kernel's module EEPROM: the SIOCETHTOOL ETHTOOL_GMODULEINFO / ETHTOOL_GMODULEEEPROM ioctl
// (net/ethtool/ioctl.c ethtool_get_module_info/_eeprom). It hands out one flat image whose layout
// ETHTOOL_GMODULEINFO's `type` names (include/uapi/linux/ethtool.h): ETH_MODULE_SFF_8079 (SFP A0h,
// 256 B), ETH_MODULE_SFF_8472 (A0h + A2h, 512 B), ETH_MODULE_SFF_8636/8436 (lower page + page
// 00h, up to 640 B with pages 01h..03h); drivers put CMIS modules' lower page + page 00h there too.
// Pages beyond the image (CMIS 01h, 02h, 11h) answer ENODATA.

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "collectors/sources/module_eeprom_source.hpp"
#include "collectors/sources/read_watch.hpp"

namespace fabricmon {

namespace {

// An image is at most 640 bytes (ETH_MODULE_SFF_8636_MAX_LEN); a read asks for at most 128.
constexpr uint32_t kMaxImage = 640;

class ModuleEepromIoctlSource final : public ModuleEepromSource {
 public:
  ~ModuleEepromIoctlSource() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status read(const std::string& ifname, const EepromRead& request,
              std::span<uint8_t> out) override {
    std::lock_guard lock(mu_);
    if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
      return Error{"module eeprom " + ifname + ": invalid interface name", EINVAL};
    }
    if (!request.valid() || out.size() != request.length) {
      return Error{"module eeprom " + ifname + ": invalid request", EINVAL};
    }
    if (fd_ < 0) {
      fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd_ < 0) fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd_ < 0) return sysError("module eeprom: socket", errno);
    }
    ethtool_modinfo info{};
    info.cmd = ETHTOOL_GMODULEINFO;
    if (int err = ioctl(ifname, &info)) {
      if (err == EOPNOTSUPP || err == EINVAL)
        return Error{"module eeprom " + ifname + ": not supported", EOPNOTSUPP};
      return sysError("SIOCETHTOOL GMODULEINFO " + ifname, err);
    }
    const bool sfp = info.type == ETH_MODULE_SFF_8079 || info.type == ETH_MODULE_SFF_8472;
    const auto at = flatImageOffset(sfp ? 0x03 : 0x0c, request);
    if (!at || info.eeprom_len > kMaxImage || *at + request.length > info.eeprom_len) {
      return Error{"module eeprom " + ifname + ": page not in the ioctl image", ENODATA};
    }
    buf_.assign(sizeof(ethtool_eeprom) + request.length, 0);
    auto* ee = reinterpret_cast<ethtool_eeprom*>(buf_.data());
    ee->cmd = ETHTOOL_GMODULEEEPROM;
    ee->offset = static_cast<uint32_t>(*at);
    ee->len = request.length;
    if (int err = ioctl(ifname, ee)) return sysError("SIOCETHTOOL GMODULEEEPROM " + ifname, err);
    std::memcpy(out.data(), buf_.data() + sizeof(ethtool_eeprom), request.length);
    return {};
  }

 private:
  int ioctl(const std::string& ifname, void* data) {
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, ifname.data(), ifname.size());
    ifr.ifr_data = static_cast<char*>(data);
    const WatchedRead watched("module eeprom ioctl", "class/net/", ifname);
    return ::ioctl(fd_, SIOCETHTOOL, &ifr) == 0 ? 0 : errno;
  }

  std::mutex mu_;
  int fd_ = -1;
  std::vector<uint8_t> buf_;
};

}  // namespace

std::unique_ptr<ModuleEepromSource> makeModuleEepromIoctlSource() {
  return std::make_unique<ModuleEepromIoctlSource>();
}

}  // namespace fabricmon
