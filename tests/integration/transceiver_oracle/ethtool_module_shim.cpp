// Test-only LD_PRELOAD library that makes Debian's real `ethtool -m <if>` decode a module EEPROM
// image from a file, the oracle of tests/integration/transceiver_oracle_test.cpp.
//  - mnl_socket_open() returns NULL: ethtool 6.1 then takes its ioctl path (ethtool.c
//  do_getmodule),
//  - ioctl(SIOCETHTOOL) with ETHTOOL_GMODULEINFO / ETHTOOL_GMODULEEEPROM is answered from the image
//    named by $EEPROM_IMAGE (type from its identifier: 0x03 -> ETH_MODULE_SFF_8472, 512 bytes, or
//    ETH_MODULE_SFF_8079 for a 256-byte file; anything else -> ETH_MODULE_SFF_8636, 640 bytes when
//    the image has them, else 256 — ethtool's ioctl path decodes CMIS from those 256 bytes too);
//  - every other ioctl goes to the real one (dlsym(RTLD_NEXT)).
// Never linked into fabricmon.

#include <dlfcn.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

std::vector<unsigned char> loadImage() {
  std::vector<unsigned char> image;
  const char* path = std::getenv("EEPROM_IMAGE");
  if (path == nullptr) return image;
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return image;
  unsigned char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) image.insert(image.end(), buf, buf + n);
  std::fclose(f);
  return image;
}

void layout(const std::vector<unsigned char>& image, __u32& type, __u32& len) {
  if (image[0] == 0x03) {
    type = image.size() >= 512 ? ETH_MODULE_SFF_8472 : ETH_MODULE_SFF_8079;
    len = image.size() >= 512 ? 512 : 256;
    return;
  }
  type = ETH_MODULE_SFF_8636;
  const bool cmis = image[0] >= 0x18;
  len = !cmis && image.size() >= 640 ? 640 : 256;
}

}  // namespace

extern "C" {

void* mnl_socket_open(int /*bus*/) {
  errno = EPROTONOSUPPORT;
  return nullptr;
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  using RealIoctl = int (*)(int, unsigned long, ...);
  static const auto real = reinterpret_cast<RealIoctl>(dlsym(RTLD_NEXT, "ioctl"));
  if (request != SIOCETHTOOL || arg == nullptr) return real(fd, request, arg);
  auto* ifr = static_cast<ifreq*>(arg);
  __u32 cmd;
  std::memcpy(&cmd, ifr->ifr_data, sizeof cmd);
  if (cmd != ETHTOOL_GMODULEINFO && cmd != ETHTOOL_GMODULEEEPROM) return real(fd, request, arg);
  static const std::vector<unsigned char> image = loadImage();
  if (image.size() < 256) {
    errno = EOPNOTSUPP;
    return -1;
  }
  __u32 type, len;
  layout(image, type, len);
  if (cmd == ETHTOOL_GMODULEINFO) {
    auto* info = reinterpret_cast<ethtool_modinfo*>(ifr->ifr_data);
    info->type = type;
    info->eeprom_len = len;
    return 0;
  }
  auto* ee = reinterpret_cast<ethtool_eeprom*>(ifr->ifr_data);
  if (ee->offset > len || ee->len > len - ee->offset) {
    errno = EINVAL;
    return -1;
  }
  std::memcpy(ee->data, image.data() + ee->offset, ee->len);
  return 0;
}

}  // extern "C"
