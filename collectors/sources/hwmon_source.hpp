#pragma once
// The temperature sensors a NIC driver registers with the kernel's hwmon class under its PCI
// function: <function>/hwmon/hwmon<N>/ with `name` (the chip: "mlx5", "bnxt_en", "ice") and, per
// channel N, temp<N>_input, temp<N>_label, temp<N>_highest and the limits temp<N>_max, _crit,
// _emergency in millidegrees Celsius (Documentation/hwmon/sysfs-interface.rst; the directory is
// made by hwmon_device_register_with_info() in drivers/hwmon/hwmon.c). What the NIC drivers
// register:
//   mlx5_core (drivers/net/ethernet/mellanox/mlx5/core/hwmon.c): one channel per ASIC/platform
//     sensor of the firmware's MTCAP sensor map and one for the module, each input, highest, crit
//     and label (the firmware's sensor name, or "sensor<index>");
//   bnxt_en (drivers/net/ethernet/broadcom/bnxt/bnxt_hwmon.c): temp1 with input, max, crit,
//     emergency (the firmware's warn/critical/fatal thresholds), their *_alarm files, and
//     temp1_shutdown when the NVM sets one;
//   ice (drivers/net/ethernet/intel/ice/ice_hwmon.c): temp1 with input, max, crit, emergency, on
//     the first PF of a chip only.
// No new kernel interface: the files are read through a SysfsRoot, so --sysfs-root is this
// source's file-backed implementation (tests, the simulator, the demo drive it with files).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/sources/sysfs.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// The physical range of a NIC sensor: below -60 °C or above 200 °C no NIC runs, so such a
/// value is a broken sensor or a misread register, an error rather than a sample.
inline constexpr double kHwmonMinCelsius = -60.0;
inline constexpr double kHwmonMaxCelsius = 200.0;

/// The limits of a temperature channel, in rising order (sysfs-interface.rst: emergency is "equal
/// or greater than" crit). `shutdown` is bnxt_en's own temp1_shutdown (the NVM's shutdown
/// threshold), not part of the standard interface.
enum class HwmonLimit : uint8_t { kMax, kCrit, kEmergency, kShutdown };
inline constexpr std::array<HwmonLimit, 4> kHwmonLimits{HwmonLimit::kMax, HwmonLimit::kCrit,
                                                       HwmonLimit::kEmergency, HwmonLimit::kShutdown};
/// "max", "crit", "emergency", "shutdown": the file's suffix and the exported `level`.
std::string_view hwmonLimitName(HwmonLimit limit);

/// One temperature file: a signed decimal of millidegrees Celsius ("45250\n") -> 45.25. Anything
/// else (empty, not a decimal, more than 9 digits) or a value outside [kHwmonMinCelsius,
/// kHwmonMaxCelsius] is an error.
Result<double> parseHwmonMillidegrees(std::string_view text);

/// A temp<N>_label as exported: 1-32 characters of [A-Za-z0-9_.:+/ -], as the drivers print them
/// ("asic", "sensor64"). Anything else is an error (the label is then not exported).
Result<std::string> parseHwmonLabel(std::string_view text);

/// One temperature channel (temp<N>_*) of one hwmon device, its files kept open between reads.
class HwmonChannel {
 public:
  HwmonChannel(std::string dir, std::string chip, unsigned index);
  HwmonChannel(HwmonChannel&&) noexcept = default;
  HwmonChannel& operator=(HwmonChannel&&) noexcept = default;

  const std::string& chip() const { return chip_; }
  /// "temp<N>": stable for a driver (the channel index), unlike the hwmon<N> directory.
  const std::string& sensor() const { return sensor_; }
  /// The driver's name for the channel ("asic"); "" when it has none or it was not a valid label.
  const std::string& label() const { return label_; }
  /// Why temp<N>_label, present, was not taken.
  const std::optional<Error>& labelError() const { return labelError_; }

  /// temp<N>_input in °C.
  Result<double> readInput() { return read(input_); }
  bool hasHighest() const { return highest_ != nullptr; }
  /// temp<N>_highest (the historical maximum since the driver enabled or reset it) in °C.
  Result<double> readHighest() { return read(*highest_); }
  bool hasLimit(HwmonLimit limit) const { return limits_[static_cast<size_t>(limit)] != nullptr; }
  /// The limit in °C; nullopt when the driver shows 0, which is no limit (bnxt_en hides
  /// temp1_shutdown when it is 0; a firmware without a threshold reports 0).
  Result<std::optional<double>> readLimit(HwmonLimit limit);

 private:
  friend std::vector<HwmonChannel> listHwmonTemperatures(const SysfsRoot&, const std::string&);
  static Result<double> read(CounterFile& file);

  std::string chip_, sensor_, label_;
  std::optional<Error> labelError_;
  CounterFile input_;
  std::unique_ptr<CounterFile> highest_;
  std::array<std::unique_ptr<CounterFile>, kHwmonLimits.size()> limits_;
};

/// At most this many channels per device directory (mlx5: up to 64 sensors of the MTCAP map and
/// the module): a tree that claims more is cut, not followed.
inline constexpr size_t kMaxHwmonChannels = 80;

/// The hwmon devices under `deviceDir` ("hwmon2", ...), in the order they were registered, at most
/// 4 (drivers register one); none when there is no hwmon directory. One readdir: cheap enough to
/// tell at every run whether a device came, went or was registered again.
std::vector<std::string> listHwmonDevices(const SysfsRoot& sysfs, const std::string& deviceDir);

/// Every temperature channel of every hwmon device under `deviceDir` (relative to the root, such
/// as "class/infiniband/mlx5_0/device"), in hwmon directory and channel order. None when there is
/// no hwmon directory (a driver without hwmon support, or built without CONFIG_HWMON): no data,
/// not an error.
std::vector<HwmonChannel> listHwmonTemperatures(const SysfsRoot& sysfs, const std::string& deviceDir);

}  // namespace fabricmon
