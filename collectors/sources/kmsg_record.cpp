#include "collectors/sources/kmsg_record.hpp"

#include <charconv>

namespace fabricmon {
namespace {

bool parseDecimal(std::string_view text, uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool isHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

bool isPciAddress(std::string_view t) {
  // drivers/pci/probe.c names functions "%04x:%02x:%02x.%d" (dev_set_name in pci_setup_device):
  // the domain is at least 4 hex digits, and more behind a VMD controller, whose domains start at
  // 0x10000 (drivers/pci/controller/vmd.c, vmd_find_free_domain), up to the 8 of an int.
  if (t.size() < kPciAddressMinLength || t.size() > kPciAddressMaxLength) return false;
  const size_t d = t.size() - 8;  // the domain's digits; then ":bb:ss.f"
  for (size_t i = 0; i < d; ++i) {
    if (!isHex(t[i])) return false;
  }
  for (size_t i : {d + 1, d + 2, d + 4, d + 5}) {
    if (!isHex(t[i])) return false;
  }
  return t[d] == ':' && t[d + 3] == ':' && t[d + 6] == '.' && t[d + 7] >= '0' && t[d + 7] <= '7';
}

std::string_view KmsgRecord::pciDevice() const {
  constexpr std::string_view kPrefix = "+pci:";
  std::string_view d = device;
  if (d.substr(0, kPrefix.size()) != kPrefix) return {};
  d.remove_prefix(kPrefix.size());
  return isPciAddress(d) ? d : std::string_view{};
}

std::optional<KmsgRecord> parseKmsgRecord(std::string_view bytes) {
  const size_t semi = bytes.find(';');
  if (semi == std::string_view::npos) return std::nullopt;
  const std::string_view header = bytes.substr(0, semi);
  std::string_view fields[3];
  size_t start = 0;
  for (size_t i = 0; i < 3; ++i) {
    const size_t comma = header.find(',', start);
    if (comma == std::string_view::npos) {
      if (i < 2) return std::nullopt;
      fields[i] = header.substr(start);  // no FLAGS field: tolerated
      start = header.size();
    } else {
      fields[i] = header.substr(start, comma - start);
      start = comma + 1;
    }
  }
  uint64_t pri = 0, seq = 0, ts = 0;
  if (!parseDecimal(fields[0], pri) || !parseDecimal(fields[1], seq) || !parseDecimal(fields[2], ts)) {
    return std::nullopt;
  }
  if (pri > 1023) return std::nullopt;  // facility is 7 bits (LOG_FACMASK) plus 3 bits of level
  KmsgRecord r;
  r.facility = static_cast<unsigned>(pri >> 3);
  r.level = static_cast<unsigned>(pri & 7);
  r.sequence = seq;
  r.timestampUsec = ts;

  std::string_view rest = bytes.substr(semi + 1);
  const size_t nl = rest.find('\n');
  std::string_view message = rest.substr(0, nl);
  if (message.size() > kKmsgMaxMessage) message = message.substr(0, kKmsgMaxMessage);
  r.message.assign(message);
  if (nl == std::string_view::npos) return r;
  rest.remove_prefix(nl + 1);
  // Dictionary: " KEY=value" lines. Anything else (a line without the leading space) ends it.
  while (!rest.empty() && rest.front() == ' ') {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    constexpr std::string_view kSubsystem = "SUBSYSTEM=", kDevice = "DEVICE=";
    constexpr size_t kMaxValue = 128;
    if (line.substr(0, kSubsystem.size()) == kSubsystem) {
      r.subsystem.assign(line.substr(kSubsystem.size(), kMaxValue));
    } else if (line.substr(0, kDevice.size()) == kDevice) {
      r.device.assign(line.substr(kDevice.size(), kMaxValue));
    }
  }
  return r;
}

}  // namespace fabricmon
