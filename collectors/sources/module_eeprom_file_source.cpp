// Module EEPROM images from files (sources.module_eeprom_dir): `<dir>/<ifname>.bin` holds the flat
// image of docs/contract.md §2. Each request opens the file and reads only the half page asked
// for, so a test or the simulator may replace the image (atomically, by rename) at any time.

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "collectors/sources/module_eeprom_source.hpp"
#include "collectors/sources/sysfs.hpp"

namespace fabricmon {

namespace {

class ModuleEepromFileSource final : public ModuleEepromSource {
 public:
  explicit ModuleEepromFileSource(std::filesystem::path dir) : prefix_((dir / "").string()) {}

  Status read(const std::string& ifname, const EepromRead& request,
              std::span<uint8_t> out) override {
    // An interface name is one path component (net/core/dev.c dev_valid_name).
    if (ifname.empty() || ifname == "." || ifname == ".." ||
        ifname.find('/') != std::string::npos) {
      return Error{"module eeprom: invalid interface name \"" + ifname + "\"", EINVAL};
    }
    if (!request.valid() || out.size() != request.length) {
      return Error{"module eeprom " + ifname + ": invalid request", EINVAL};
    }
    const std::string path = prefix_ + ifname + ".bin";
    auto fd = openForRead(path);
    if (!fd) {
      // No image: this interface has no module EEPROM to read (docs/contract.md §2).
      if (fd.error().errnum == ENOENT)
        return Error{"module eeprom " + path + ": no image", EOPNOTSUPP};
      return fd.error();
    }
    const Status st = readAt(*fd, path, request, out);
    ::close(*fd);
    return st;
  }

 private:
  static Status preadAll(int fd, const std::string& path, size_t at, std::span<uint8_t> out,
                         bool& shortRead) {
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t n =
          ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(at + got));
      if (n < 0) {
        if (errno == EINTR) continue;
        return sysError("read " + path, errno);
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    shortRead = got < out.size();
    return {};
  }

  static Status readAt(int fd, const std::string& path, const EepromRead& request,
                       std::span<uint8_t> out) {
    uint8_t identifier = 0;
    bool shortRead = false;
    if (auto st = preadAll(fd, path, 0, {&identifier, 1}, shortRead); !st) return st;
    if (shortRead) return Error{"module eeprom " + path + ": empty image", EIO};
    const auto at = flatImageOffset(identifier, request);
    if (!at) return Error{"module eeprom " + path + ": no such page in a flat image", ENODATA};
    if (auto st = preadAll(fd, path, *at, out, shortRead); !st) return st;
    // A page beyond the end of the image is one the module does not have (a CMIS image without
    // page 11h); a cut inside the lower page or page 00h is a truncated image, an error.
    if (shortRead) {
      if (*at >= 256) return Error{"module eeprom " + path + ": page not in the image", ENODATA};
      return Error{"module eeprom " + path + ": image truncated at " + std::to_string(*at), EIO};
    }
    return {};
  }

  const std::string prefix_;
};

}  // namespace

std::optional<size_t> flatImageOffset(uint8_t identifier, const EepromRead& r) {
  if (!r.valid() || r.bank != 0) return std::nullopt;
  if (identifier == 0x03) {  // SFF-8472: A0h then A2h, 256 bytes each, no pages
    if (r.offset >= 128 && r.page != 0) return std::nullopt;
    if (r.i2cAddress == 0x50) return r.offset;
    if (r.i2cAddress == 0x51) return 256 + size_t{r.offset};
    return std::nullopt;
  }
  if (r.i2cAddress != 0x50) return std::nullopt;
  if (r.offset < 128) return r.offset;
  return 128 * (size_t{r.page} + 1) + (r.offset - 128);
}

std::unique_ptr<ModuleEepromSource> makeModuleEepromFileSource(std::filesystem::path dir) {
  return std::make_unique<ModuleEepromFileSource>(std::move(dir));
}

}  // namespace fabricmon
