#pragma once
// Builds pluggable-module EEPROM images from the specifications, deterministically: SFF-8472
// (SFP28: A0h + A2h, 512 B), SFF-8636 (QSFP28: lower page + pages 00h..03h, 640 B) and CMIS 5
// (QSFP-DD/OSFP/QSFP112: lower page, pages 00h, 01h, 02h, 10h, 11h in the flat layout of
// docs/contract.md §2, 2432 B). The simulator writes them for its ports; the tests build their
// fixtures and the images `ethtool -m` decodes as the oracle (tests/integration/
// transceiver_oracle_test.cpp). Offsets as in collectors/transceiver_decode.cpp, which is tested
// against these bytes and against ethtool.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fabricmon::sim {

/// Quantities and levels in the order of collectors/transceiver_decode.hpp.
enum class ModuleQuantity { kTemperature, kSupplyVoltage, kTxBias, kTxPower, kRxPower };
enum class ModuleLevel { kHighAlarm, kHighWarning, kLowWarning, kLowAlarm };

struct ModuleFlagSet {
  ModuleQuantity quantity;
  ModuleLevel level;
  unsigned lane = 0;  ///< 1..8; 0 for temperature and supply voltage
};

struct ModuleParams {
  uint8_t identifier = 0x11;  ///< 0x03 SFP, 0x11 QSFP28, 0x18 QSFP-DD, 0x19 OSFP, 0x1e QSFP112
  std::string vendor = "FABRICSIM";
  std::string partNumber = "FS-100G-SR4";
  std::string serialNumber = "FS00000001";
  std::string revision = "A1";
  uint8_t connector = 0x0c;  ///< SFF-8024: 0x07 LC, 0x0c MPO 1x12, 0x23 no separable connector
  bool dom = true;           ///< false: a passive copper cable (no monitors, no thresholds)
  unsigned cableLengthMeters = 0;
  double temperatureCelsius = 40.0;
  double supplyVolts = 3.3;
  unsigned lanes = 4;               ///< CMIS: media lanes of application 1 (SFP: 1, SFF-8636: 4)
  std::vector<double> biasAmperes;  ///< per lane; shorter = the last value repeated
  std::vector<double> txPowerWatts;
  std::vector<double> rxPowerWatts;
  /// By quantity, by level, in base units (°C, V, A, W).
  std::array<std::array<double, 4>, 5> thresholds{{
      {75.0, 70.0, 0.0, -5.0},
      {3.63, 3.465, 3.135, 2.97},
      {0.013, 0.012, 0.002, 0.001},
      {3.1623e-3, 1.9953e-3, 0.2512e-3, 0.1e-3},  // +5, +3, -6, -10 dBm
      {3.1623e-3, 1.9953e-3, 0.1e-3, 0.0501e-3},  // +5, +3, -10, -13 dBm
  }};
  bool thresholdsSupported = true;   ///< false: all threshold bytes zero
  std::vector<ModuleFlagSet> flags;  ///< latched flags set in the image
  bool externalCalibration = false;  ///< SFF-8472: raw A/D values + calibration constants
  bool cmisLanePage = true;          ///< CMIS: false = flat memory (no pages beyond 00h)
  bool txPowerMonitor = true;
  bool rxPowerMonitor = true;
};

/// Sets the flags a module would latch for its current values: every quantity against its own
/// thresholds (temperature and voltage at module level, bias and power per lane).
void latchFlags(ModuleParams& params);

/// The module's image in the flat layout of docs/contract.md §2.
std::vector<uint8_t> buildModuleImage(const ModuleParams& params);

/// A 400G CMIS module (OSFP or QSFP112), a 100G QSFP28, an SFP28 and a passive copper QSFP28
/// cable with typical healthy values; `serial` names the module.
ModuleParams cmis400gModule(std::string serial, bool osfp);
ModuleParams qsfp28Module(std::string serial);
ModuleParams sfp28Module(std::string serial);
ModuleParams passiveCopperCable(std::string serial);

}  // namespace fabricmon::sim
