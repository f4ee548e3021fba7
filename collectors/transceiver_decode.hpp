#pragma once
// Decoders of a pluggable module's memory map, pure functions over bytes: SFF-8472 (SFP, A0h +
// A2h), SFF-8636 (QSFP+/QSFP28: lower page, page 00h, thresholds page 03h) and CMIS 4/5
// (QSFP-DD, OSFP, QSFP112: lower page, page 00h, advertisements 01h, thresholds 02h, lane page
// 11h). Offsets and units are those of the specifications (SFF-8472 rev 12.4 §9, SFF-8636 rev 2.10a
// §6, CMIS 5.2 §8); the values equal what `ethtool -m` prints for the same bytes (checked by
// tests/integration/transceiver_oracle_test.cpp against Debian's ethtool). Every input may be
// hostile (truncated, unknown identifier, inconsistent bits): nothing here trusts a byte.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/sources/module_eeprom_source.hpp"
#include "model/result.hpp"

namespace fabricmon::transceiver {

enum class Spec { kSff8472, kSff8636, kCmis };
std::string_view specName(Spec spec);  ///< "sff8472", "sff8636", "cmis"

/// The quantities a module monitors, in the order of the families.
enum class Quantity { kTemperature, kSupplyVoltage, kTxBias, kTxPower, kRxPower };
inline constexpr size_t kQuantities = 5;
std::string_view quantityName(Quantity q);  ///< "temperature", "supply_voltage", "tx_bias", ...

/// Alarm and warning levels, as the thresholds and flags of every spec are laid out.
enum class Level { kHighAlarm, kHighWarning, kLowWarning, kLowAlarm };
inline constexpr size_t kLevels = 4;
std::string_view levelName(Level l);  ///< "high_alarm", "high_warning", "low_warning", "low_alarm"

/// The half pages read from one module, by address.
struct PageKey {
  uint8_t i2cAddress = 0x50;
  uint8_t page = 0;  ///< 0 for the lower half
  uint8_t bank = 0;
  bool upper = false;
  auto operator<=>(const PageKey&) const = default;
};
PageKey lowerPage(uint8_t i2cAddress = 0x50);
PageKey upperPage(uint8_t page, uint8_t bank = 0, uint8_t i2cAddress = 0x50);
EepromRead requestFor(const PageKey& key);  ///< the whole half page

using HalfPage = std::array<uint8_t, 128>;

class ModuleMemory {
 public:
  void put(const PageKey& key, const HalfPage& bytes) { pages_[key] = bytes; }
  void erase(const PageKey& key) { pages_.erase(key); }
  /// The half page, or nullptr when it was not read.
  const HalfPage* find(const PageKey& key) const;
  /// Byte at `offset` (0..255: below 128 the lower half, else the upper half of `page`).
  std::optional<uint8_t> byte(uint16_t offset, uint8_t page = 0, uint8_t i2cAddress = 0x50) const;
  bool empty() const { return pages_.empty(); }

 private:
  std::map<PageKey, HalfPage> pages_;
};

/// Splits a flat image (the ioctl's, or a file of the layout of docs/contract.md §2) into half
/// pages; a half page not wholly inside the image is left out.
ModuleMemory memoryFromImage(std::span<const uint8_t> image);

/// The spec an SFF-8024 identifier (byte 0) belongs to; nullopt for an empty cage (0x00) or a
/// form factor we do not decode.
std::optional<Spec> specOf(uint8_t identifier);

struct Identity {
  uint8_t identifier = 0;
  Spec spec = Spec::kSff8472;
  std::string type;  ///< SFF-8024 identifier name: "SFP", "QSFP28", "QSFP-DD", "OSFP", ...
  std::string vendor, partNumber, serialNumber, revision;  ///< printable ASCII, trailing spaces cut
  std::string connector;  ///< SFF-8024 connector name ("LC", "MPO 1x12", "No separable connector")
  std::string media;      ///< optical | passive_copper | active_copper | base_t | unknown
  std::optional<double> cableLengthMeters;  ///< cable assemblies only (DAC, AOC)
  bool checksumOk = true;            ///< the base (and, SFF-8472/8636, extended) ID checksums match
  bool paged = false;                ///< SFF-8636/CMIS: upper pages beyond 00h exist
  bool externalCalibration = false;  ///< SFF-8472 A0h 92 bit 4
  unsigned lanes = 1;  ///< media lanes the per-lane values cover (SFP 1, SFF-8636 4, CMIS 1..8)
  /// Which quantities the module monitors; all false = no DOM (a passive copper cable).
  std::array<bool, kQuantities> monitored{};
  bool dom() const;
  auto operator<=>(const Identity&) const = default;
};

/// The module's identity from the lower page (0x50) and, for SFF-8636/CMIS, page 00h and (CMIS)
/// 01h. Errors: no lower page, empty cage or unknown identifier (errnum ENODATA for "no module").
Result<Identity> decodeIdentity(const ModuleMemory& memory);

/// The pages that hold the monitored values (read every run) and those that only change with the
/// module (thresholds, advertisements: read with the identity).
std::vector<PageKey> monitorPages(const Identity& id);
std::vector<PageKey> identityPages(Spec spec, const ModuleMemory& lowerOnly);

using Thresholds = std::array<double, kLevels>;  ///< by Level, in base units

struct Flag {
  Quantity quantity;
  Level level;
  unsigned lane;  ///< 1..8; 0 = the module (temperature, supply voltage)
  bool set;
};

struct Diagnostics {
  std::optional<double> temperatureCelsius;
  std::optional<double> supplyVoltageVolts;
  /// Index i = lane i+1. A value is absent when the module does not monitor it or it failed its
  /// domain check; Rx power 0 W is a real reading (no light) when the monitor is implemented.
  std::vector<std::optional<double>> txBiasAmperes, txPowerWatts, rxPowerWatts;
  /// Absent = not supported (all four zero, or the page holding them not read).
  std::array<std::optional<Thresholds>, kQuantities> thresholds;
  std::vector<Flag> flags;          ///< only for monitored quantities
  std::vector<std::string> issues;  ///< values rejected and pages missing, for the log
};

/// The DOM values, thresholds and latched flags. A module without DOM gives an empty result.
Diagnostics decodeDiagnostics(const ModuleMemory& memory, const Identity& id);

}  // namespace fabricmon::transceiver
