#pragma once
// A pluggable module's EEPROM (SFP, QSFP, QSFP-DD, OSFP), read the way the kernel hands it out.
// One request reads at most one half page: the lower page (offset 0..127, the same for every page
// number) or the upper half (offset 128..255) of page `page` in bank `bank`, at I2C address
// `i2cAddress` (0x50; SFF-8472's diagnostics live at 0x51, "A2h"). This is exactly the ethtool
// netlink request ETHTOOL_MSG_MODULE_EEPROM_GET (include/uapi/linux/ethtool_netlink.h; the kernel
// refuses a read that crosses the 128-byte boundary, net/ethtool/eeprom.c), so the three sources
// answer the same question:
//  - netlink (kernel >= 5.13, the only way to CMIS pages beyond 00h),
//  - the SIOCETHTOOL ETHTOOL_GMODULEINFO/GMODULEEEPROM ioctl (the flat image: SFF-8472 A0h+A2h,
//    SFF-8636 lower + pages 00h..03h, CMIS lower + page 00h),
//  - a directory of raw images, one per interface (docs/contract.md §2): the simulator, fixtures.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "model/result.hpp"

namespace fabricmon {

/// One read of at most one half page.
struct EepromRead {
  uint8_t i2cAddress = 0x50;  ///< 0x50 ("A0h"); 0x51 ("A2h", SFF-8472 diagnostics)
  uint8_t page = 0;           ///< upper page number (ignored for offset < 128)
  uint8_t bank = 0;
  uint16_t offset = 0;  ///< 0..255; offset + length never crosses 128
  uint16_t length = 0;  ///< 1..128

  bool valid() const {
    return length >= 1 && length <= 128 && offset + length <= 256 &&
           (offset >= 128 || offset + length <= 128);
  }
};

class ModuleEepromSource {
 public:
  virtual ~ModuleEepromSource() = default;
  /// Fills `out` (length bytes) from the module plugged into `ifname`. Errors with errnum:
  /// EOPNOTSUPP — the interface has no module EEPROM to read (veth, lo, an empty cage on drivers
  /// that say so, no image file): no data, not a fault; ENODATA — that page is not there (a flat
  /// image, a page the module does not have); anything else is a failed read.
  virtual Status read(const std::string& ifname, const EepromRead& request,
                      std::span<uint8_t> out) = 0;
};

/// Where a half page lies in a flat image (docs/contract.md §2): SFF-8472 (identifier 0x03, its
/// first byte) A0h at 0..255 and A2h at 256..511; every other module the lower page at 0..127 and
/// upper page p (bank 0) at 128·(p+1) — SFF-8636's 640-byte ioctl image extended to any page, so a
/// CMIS image with page 11h is 2432 bytes. nullopt: no place in a flat image (a bank other than 0).
std::optional<size_t> flatImageOffset(uint8_t identifier, const EepromRead& request);

/// Images from `dir`: `<dir>/<ifname>.bin`, re-read at every call (the simulator rewrites them).
std::unique_ptr<ModuleEepromSource> makeModuleEepromFileSource(std::filesystem::path dir);
/// The SIOCETHTOOL ETHTOOL_GMODULEINFO/GMODULEEEPROM ioctl alone (lower page and the pages of the
/// flat image only).
std::unique_ptr<ModuleEepromSource> makeModuleEepromIoctlSource();
/// The kernel: netlink ETHTOOL_MSG_MODULE_EEPROM_GET first; where the kernel has no ethtool
/// netlink family (before 5.13) or the driver no get_module_eeprom_by_page, the ioctl image.
std::unique_ptr<ModuleEepromSource> makeModuleEepromKernelSource();

}  // namespace fabricmon
