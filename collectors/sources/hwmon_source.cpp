#include "collectors/sources/hwmon_source.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>

#include "collectors/sources/parse.hpp"

namespace fabricmon {

namespace {

/// hwmon devices under one function: drivers register one (mlx5_core, bnxt_en, ice); a few more
/// is tolerated, a tree with more is cut.
constexpr size_t kMaxHwmonDevices = 4;
/// temp<N>: the hwmon core numbers channels from 1; no NIC has anywhere near this many.
constexpr unsigned kMaxChannelIndex = 999;
constexpr size_t kMaxLabel = 32;

/// "hwmon12" -> true; the class device's directory name (drivers/hwmon/hwmon.c: "hwmon%d").
bool isHwmonDir(std::string_view name) {
  if (!name.starts_with("hwmon") || name.size() == 5 || name.size() > 12) return false;
  return std::all_of(name.begin() + 5, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// "temp3_input" -> 3; anything else -> 0.
unsigned inputChannel(std::string_view name) {
  static constexpr std::string_view kPrefix = "temp", kSuffix = "_input";
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return 0;
  const std::string_view digits = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (digits.empty() || digits.size() > 3 || digits.front() == '0') return 0;
  unsigned n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size() || n > kMaxChannelIndex) return 0;
  return n;
}

std::unique_ptr<CounterFile> optionalFile(const SysfsRoot& sysfs, const std::string& rel) {
  if (!sysfs.exists(rel)) return nullptr;
  return std::make_unique<CounterFile>(sysfs.path(rel));
}

}  // namespace

std::string_view hwmonLimitName(HwmonLimit limit) {
  switch (limit) {
    case HwmonLimit::kMax:
      return "max";
    case HwmonLimit::kCrit:
      return "crit";
    case HwmonLimit::kEmergency:
      return "emergency";
    case HwmonLimit::kShutdown:
      return "shutdown";
  }
  return "";
}

Result<double> parseHwmonMillidegrees(std::string_view text) {
  const std::string_view t = trim(text);
  // The drivers print a long ("%ld\n", drivers/hwmon/hwmon.c hwmon_attr_show()); 9 digits are
  // 1,000 km of degrees already.
  const size_t digits = t.size() - (t.starts_with('-') ? 1 : 0);
  if (t.empty() || digits == 0 || digits > 9) {
    return Error{"not a temperature in millidegrees: \"" + std::string(t.substr(0, 32)) + "\"", EINVAL};
  }
  long milli = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), milli);
  if (ec != std::errc{} || end != t.data() + t.size()) {
    return Error{"not a temperature in millidegrees: \"" + std::string(t.substr(0, 32)) + "\"", EINVAL};
  }
  const double celsius = static_cast<double>(milli) / 1000.0;
  if (!std::isfinite(celsius) || celsius < kHwmonMinCelsius || celsius > kHwmonMaxCelsius) {
    return Error{"temperature " + std::string(t) + " m°C is outside the physical range of a NIC", ERANGE};
  }
  return celsius;
}

Result<std::string> parseHwmonLabel(std::string_view text) {
  const std::string_view t = trim(text);
  const bool ok = !t.empty() && t.size() <= kMaxLabel && std::all_of(t.begin(), t.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '+' || c == '/' || c == ' ' || c == '-';
  });
  if (!ok) return Error{"not a sensor label (1-32 of [A-Za-z0-9_.:+/ -])", EINVAL};
  return std::string(t);
}

HwmonChannel::HwmonChannel(std::string dir, std::string chip, unsigned index)
    : chip_(std::move(chip)),
      sensor_("temp" + std::to_string(index)),
      input_(dir + "/" + sensor_ + "_input") {}

Result<double> HwmonChannel::read(CounterFile& file) {
  auto text = file.readText();
  if (!text) return text.error();
  auto celsius = parseHwmonMillidegrees(*text);
  if (!celsius) return Error{file.path() + ": " + celsius.error().message, celsius.error().errnum};
  return *celsius;
}

Result<std::optional<double>> HwmonChannel::readLimit(HwmonLimit limit) {
  CounterFile& file = *limits_[static_cast<size_t>(limit)];
  auto text = file.readText();
  if (!text) return text.error();
  if (trim(*text) == "0") return std::optional<double>{};
  auto celsius = parseHwmonMillidegrees(*text);
  if (!celsius) return Error{file.path() + ": " + celsius.error().message, celsius.error().errnum};
  return std::optional<double>{*celsius};
}

std::vector<std::string> listHwmonDevices(const SysfsRoot& sysfs, const std::string& deviceDir) {
  std::vector<std::string> names;
  auto devices = sysfs.listDir(deviceDir + "/hwmon");
  if (!devices) return names;  // no hwmon device: no data
  for (const std::string& d : *devices) {
    if (isHwmonDir(d)) names.push_back(d);
  }
  // hwmon2 before hwmon10: the order the driver registered them.
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  if (names.size() > kMaxHwmonDevices) names.resize(kMaxHwmonDevices);
  return names;
}

std::vector<HwmonChannel> listHwmonTemperatures(const SysfsRoot& sysfs, const std::string& deviceDir) {
  std::vector<HwmonChannel> out;
  const std::string hwmonDir = deviceDir + "/hwmon";
  for (const std::string& name : listHwmonDevices(sysfs, deviceDir)) {
    const std::string dir = hwmonDir + "/" + name;
    auto files = sysfs.listDir(dir);
    if (!files) continue;
    std::vector<unsigned> channels;
    for (const std::string& f : *files) {
      if (const unsigned n = inputChannel(f); n != 0) channels.push_back(n);
    }
    std::sort(channels.begin(), channels.end());
    // The chip's name; a device without a readable one is still read, under "".
    auto chipName = sysfs.readText(dir + "/name");
    std::string chip;
    if (chipName) {
      if (auto valid = parseHwmonLabel(*chipName)) chip = *valid;
    }
    for (const unsigned n : channels) {
      if (out.size() >= kMaxHwmonChannels) return out;
      HwmonChannel ch(sysfs.path(dir), chip, n);
      // A second device of the same chip name would give the same series: the first one wins.
      if (std::any_of(out.begin(), out.end(), [&](const HwmonChannel& o) {
            return o.chip() == ch.chip() && o.sensor() == ch.sensor();
          })) {
        continue;
      }
      const std::string base = dir + "/" + ch.sensor();
      if (sysfs.exists(base + "_label")) {
        auto text = sysfs.readText(base + "_label");
        auto label = text ? parseHwmonLabel(*text) : Result<std::string>(text.error());
        if (label) {
          ch.label_ = *label;
        } else {
          ch.labelError_ = Error{sysfs.path(base + "_label") + ": " + label.error().message, label.error().errnum};
        }
      }
      ch.highest_ = optionalFile(sysfs, base + "_highest");
      for (const HwmonLimit limit : kHwmonLimits) {
        ch.limits_[static_cast<size_t>(limit)] = optionalFile(sysfs, base + "_" + std::string(hwmonLimitName(limit)));
      }
      out.push_back(std::move(ch));
    }
  }
  return out;
}

}  // namespace fabricmon
