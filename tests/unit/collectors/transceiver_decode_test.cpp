// The module EEPROM decoders (collectors/transceiver_decode.cpp) over images built from the specs
// (sim/module_image.cpp) and over hostile ones: every value back in base units, thresholds and
// flags where the module has them, nothing where it has none, and no crash on any byte string.
#include "collectors/transceiver_decode.hpp"

#include <gtest/gtest.h>

#include <random>

#include "sim/module_image.hpp"

namespace fabricmon::transceiver {
namespace {

using sim::ModuleFlagSet;
using sim::ModuleLevel;
using sim::ModuleParams;
using sim::ModuleQuantity;

struct Decoded {
  Identity id;
  Diagnostics d;
};

Decoded decode(const std::vector<uint8_t>& image) {
  const ModuleMemory m = memoryFromImage(image);
  auto id = decodeIdentity(m);
  EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.error().message);
  if (!id.ok()) return {};
  return {*id, decodeDiagnostics(m, *id)};
}

std::optional<double> th(const Diagnostics& d, Quantity q, Level l) {
  const auto& t = d.thresholds[static_cast<size_t>(q)];
  if (!t) return std::nullopt;
  return (*t)[static_cast<size_t>(l)];
}

bool flag(const Diagnostics& d, Quantity q, Level l, unsigned lane) {
  for (const Flag& f : d.flags) {
    if (f.quantity == q && f.level == l && f.lane == lane) return f.set;
  }
  ADD_FAILURE() << "no flag " << quantityName(q) << " " << levelName(l) << " lane " << lane;
  return false;
}

TEST(TransceiverDecode, Sff8636EveryValueInBaseUnits) {
  ModuleParams p = sim::qsfp28Module("SN-QSFP-1");
  p.temperatureCelsius = 41.5;
  p.supplyVolts = 3.2999;
  p.biasAmperes = {0.0064, 0.0066, 0.0068, 0.007};
  p.txPowerWatts = {0.6e-3, 0.61e-3, 0.62e-3, 0.63e-3};
  p.rxPowerWatts = {0.5e-3, 0.0, 0.7e-3, 0.8e-3};
  p.flags = {{ModuleQuantity::kRxPower, ModuleLevel::kLowWarning, 2},
             {ModuleQuantity::kTemperature, ModuleLevel::kHighAlarm, 0}};
  const auto [id, d] = decode(sim::buildModuleImage(p));
  EXPECT_EQ(id.spec, Spec::kSff8636);
  EXPECT_EQ(id.type, "QSFP28");
  EXPECT_EQ(id.vendor, "FABRICSIM");
  EXPECT_EQ(id.partNumber, "FS-100G-SR4");
  EXPECT_EQ(id.serialNumber, "SN-QSFP-1");
  EXPECT_EQ(id.revision, "A1");
  EXPECT_EQ(id.connector, "MPO 1x12");
  EXPECT_EQ(id.media, "optical");
  EXPECT_TRUE(id.checksumOk);
  EXPECT_TRUE(id.dom());
  EXPECT_EQ(id.lanes, 4u);
  EXPECT_DOUBLE_EQ(*d.temperatureCelsius, 41.5);
  EXPECT_NEAR(*d.supplyVoltageVolts, 3.2999, 1e-9);
  ASSERT_EQ(d.rxPowerWatts.size(), 4u);
  EXPECT_NEAR(*d.txBiasAmperes[3], 0.007, 1e-12);
  EXPECT_NEAR(*d.txPowerWatts[1], 0.61e-3, 1e-12);
  EXPECT_NEAR(*d.rxPowerWatts[0], 0.5e-3, 1e-12);
  ASSERT_TRUE(d.rxPowerWatts[1].has_value());  // no light on a monitored lane: a real 0
  EXPECT_EQ(*d.rxPowerWatts[1], 0.0);
  EXPECT_NEAR(*th(d, Quantity::kRxPower, Level::kLowWarning), 0.1e-3, 1e-12);
  EXPECT_NEAR(*th(d, Quantity::kTemperature, Level::kHighAlarm), 75.0, 1e-9);
  EXPECT_NEAR(*th(d, Quantity::kTxBias, Level::kLowAlarm), 0.001, 1e-12);
  EXPECT_TRUE(flag(d, Quantity::kRxPower, Level::kLowWarning, 2));
  EXPECT_FALSE(flag(d, Quantity::kRxPower, Level::kLowWarning, 1));
  EXPECT_FALSE(flag(d, Quantity::kRxPower, Level::kLowAlarm, 2));
  EXPECT_TRUE(flag(d, Quantity::kTemperature, Level::kHighAlarm, 0));
  EXPECT_FALSE(flag(d, Quantity::kTemperature, Level::kHighWarning, 0));
  EXPECT_TRUE(d.issues.empty());
}

TEST(TransceiverDecode, Sff8472InternalAndExternalCalibrationAgree) {
  for (const bool external : {false, true}) {
    SCOPED_TRACE(external ? "external" : "internal");
    ModuleParams p = sim::sfp28Module("SN-SFP-1");
    p.externalCalibration = external;
    p.temperatureCelsius = 35.0;
    p.biasAmperes = {0.0072};
    p.txPowerWatts = {0.55e-3};
    p.rxPowerWatts = {0.42e-3};
    p.flags = {{ModuleQuantity::kTxBias, ModuleLevel::kHighWarning, 1}};
    const auto [id, d] = decode(sim::buildModuleImage(p));
    EXPECT_EQ(id.spec, Spec::kSff8472);
    EXPECT_EQ(id.externalCalibration, external);
    EXPECT_EQ(id.connector, "LC");
    EXPECT_TRUE(id.checksumOk);
    EXPECT_NEAR(*d.temperatureCelsius, 35.0, 1.0 / 128);
    EXPECT_NEAR(*d.supplyVoltageVolts, 3.3, 2e-4);
    ASSERT_EQ(d.txBiasAmperes.size(), 1u);
    EXPECT_NEAR(*d.txBiasAmperes[0], 0.0072, 4e-6);
    EXPECT_NEAR(*d.txPowerWatts[0], 0.55e-3, 2e-7);
    EXPECT_NEAR(*d.rxPowerWatts[0], 0.42e-3, 1e-7);
    EXPECT_NEAR(*th(d, Quantity::kRxPower, Level::kLowWarning), 0.1e-3, 1e-7);
    EXPECT_NEAR(*th(d, Quantity::kSupplyVoltage, Level::kHighAlarm), 3.63, 2e-4);
    EXPECT_TRUE(flag(d, Quantity::kTxBias, Level::kHighWarning, 1));
    EXPECT_FALSE(flag(d, Quantity::kTxBias, Level::kHighAlarm, 1));
    EXPECT_FALSE(flag(d, Quantity::kTemperature, Level::kHighWarning, 0));
  }
}

TEST(TransceiverDecode, CmisLanePageThresholdsAndFlags) {
  ModuleParams p = sim::cmis400gModule("SN-OSFP-1", true);
  p.rxPowerWatts = {0.85e-3, 0.84e-3, 0.12e-3, 0.86e-3};
  p.flags = {{ModuleQuantity::kRxPower, ModuleLevel::kLowWarning, 3},
             {ModuleQuantity::kSupplyVoltage, ModuleLevel::kLowAlarm, 0}};
  const auto [id, d] = decode(sim::buildModuleImage(p));
  EXPECT_EQ(id.spec, Spec::kCmis);
  EXPECT_EQ(id.type, "OSFP");
  EXPECT_TRUE(id.paged);
  EXPECT_EQ(id.lanes, 4u);
  EXPECT_EQ(id.serialNumber, "SN-OSFP-1");
  EXPECT_TRUE(id.checksumOk);
  EXPECT_DOUBLE_EQ(*d.temperatureCelsius, 48.0);
  ASSERT_EQ(d.rxPowerWatts.size(), 4u);
  EXPECT_NEAR(*d.rxPowerWatts[2], 0.12e-3, 1e-12);
  EXPECT_NEAR(*d.txBiasAmperes[0], 0.045, 1e-12);
  EXPECT_NEAR(*th(d, Quantity::kRxPower, Level::kLowWarning), 0.1585e-3, 1e-7);
  EXPECT_NEAR(*th(d, Quantity::kTxBias, Level::kHighAlarm), 0.1, 1e-9);
  EXPECT_TRUE(flag(d, Quantity::kRxPower, Level::kLowWarning, 3));
  EXPECT_FALSE(flag(d, Quantity::kRxPower, Level::kLowWarning, 2));
  EXPECT_TRUE(flag(d, Quantity::kSupplyVoltage, Level::kLowAlarm, 0));
  EXPECT_TRUE(d.issues.empty());
}

TEST(TransceiverDecode, CmisWithoutLanePageHasModuleValuesOnly) {
  ModuleParams p = sim::cmis400gModule("SN-1", false);
  std::vector<uint8_t> image = sim::buildModuleImage(p);
  image.resize(128 * 18);  // cut before page 11h: a module (or a source) without it
  const auto [id, d] = decode(image);
  EXPECT_TRUE(id.paged);
  EXPECT_TRUE(d.temperatureCelsius.has_value());
  EXPECT_TRUE(d.rxPowerWatts.empty());
  EXPECT_TRUE(d.thresholds[static_cast<size_t>(Quantity::kRxPower)].has_value());
  ASSERT_EQ(d.issues.size(), 1u);
  EXPECT_NE(d.issues[0].find("11h"), std::string::npos);
}

TEST(TransceiverDecode, PagedCmisSeenThroughTheIoctlHasItsModuleMonitors) {
  std::vector<uint8_t> image = sim::buildModuleImage(sim::cmis400gModule("SN-1", true));
  image.resize(256);  // what ETHTOOL_GMODULEEEPROM hands out: lower page + page 00h
  const auto [id, d] = decode(image);
  EXPECT_TRUE(id.paged);
  EXPECT_TRUE(id.dom());
  EXPECT_DOUBLE_EQ(*d.temperatureCelsius, 48.0);
  EXPECT_TRUE(d.supplyVoltageVolts.has_value());
  EXPECT_TRUE(d.rxPowerWatts.empty());
}

TEST(TransceiverDecode, CmisRxMonitorNotImplementedGivesNoRxPower) {
  ModuleParams p = sim::cmis400gModule("SN-1", true);
  p.rxPowerMonitor = false;
  const auto [id, d] = decode(sim::buildModuleImage(p));
  ASSERT_EQ(d.rxPowerWatts.size(), 4u);
  for (const auto& v : d.rxPowerWatts) EXPECT_FALSE(v.has_value());
  EXPECT_FALSE(d.thresholds[static_cast<size_t>(Quantity::kRxPower)].has_value());
  for (const Flag& f : d.flags) EXPECT_NE(f.quantity, Quantity::kRxPower);
  EXPECT_TRUE(d.txPowerWatts[0].has_value());
}

TEST(TransceiverDecode, PassiveCopperHasIdentityAndNoData) {
  for (const uint8_t identifier : {uint8_t{0x11}, uint8_t{0x18}, uint8_t{0x03}}) {
    SCOPED_TRACE(int{identifier});
    ModuleParams p = sim::passiveCopperCable("SN-DAC-1");
    p.identifier = identifier;
    p.flags = {
        {ModuleQuantity::kTemperature, ModuleLevel::kHighAlarm, 0}};  // flags without monitors
    const auto [id, d] = decode(sim::buildModuleImage(p));
    EXPECT_EQ(id.media, "passive_copper");
    EXPECT_FALSE(id.dom());
    ASSERT_TRUE(id.cableLengthMeters.has_value());
    EXPECT_EQ(*id.cableLengthMeters, 2.0);
    EXPECT_FALSE(d.temperatureCelsius.has_value());
    EXPECT_TRUE(d.flags.empty());
    EXPECT_TRUE(d.rxPowerWatts.empty());
    EXPECT_TRUE(d.issues.empty());
  }
}

TEST(TransceiverDecode, ThresholdsAllZeroAreUnsupported) {
  ModuleParams p = sim::qsfp28Module("SN-1");
  p.thresholdsSupported = false;
  const auto [id, d] = decode(sim::buildModuleImage(p));
  for (const auto& t : d.thresholds) EXPECT_FALSE(t.has_value());
  EXPECT_TRUE(d.temperatureCelsius.has_value());
}

TEST(TransceiverDecode, BadChecksumIsReportedAndStillDecoded) {
  std::vector<uint8_t> image = sim::buildModuleImage(sim::qsfp28Module("SN-1"));
  image[128 + 63] ^= 0xff;  // CC_BASE of page 00h
  const auto [id, d] = decode(image);
  EXPECT_FALSE(id.checksumOk);
  EXPECT_EQ(id.serialNumber, "SN-1");
  EXPECT_TRUE(d.temperatureCelsius.has_value());
}

TEST(TransceiverDecode, UnknownIdentifierAndEmptyCageAreErrors) {
  std::vector<uint8_t> image = sim::buildModuleImage(sim::qsfp28Module("SN-1"));
  image[0] = 0x42;
  auto id = decodeIdentity(memoryFromImage(image));
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().errnum, EPROTO);
  image[0] = 0x00;
  id = decodeIdentity(memoryFromImage(image));
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().errnum, ENODATA);
}

TEST(TransceiverDecode, TruncatedImagesNeverCrashAndLackWhatIsCut) {
  for (const auto& p :
       {sim::qsfp28Module("a"), sim::sfp28Module("b"), sim::cmis400gModule("c", true)}) {
    const std::vector<uint8_t> full = sim::buildModuleImage(p);
    for (size_t n = 0; n <= full.size(); n += 7) {
      const std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
      const ModuleMemory m = memoryFromImage(cut);
      auto id = decodeIdentity(m);
      if (n < 128) EXPECT_FALSE(id.ok());
      if (!id.ok()) continue;
      (void)decodeDiagnostics(m, *id);
    }
  }
  // SFF-8472 without A2h: identity, and "not read" instead of values.
  std::vector<uint8_t> sfp = sim::buildModuleImage(sim::sfp28Module("b"));
  sfp.resize(256);
  const auto [id, d] = decode(sfp);
  EXPECT_TRUE(id.dom());
  EXPECT_FALSE(d.temperatureCelsius.has_value());
  EXPECT_FALSE(d.issues.empty());
}

TEST(TransceiverDecode, RandomBytesNeverCrashAndStayInDomain) {
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> image(i % 3 == 0 ? 512 : 2432);
    for (auto& b : image) b = static_cast<uint8_t>(rng());
    const uint8_t ids[] = {0x03, 0x11, 0x0d, 0x18, 0x19, 0x1e};
    image[0] = ids[i % 6];
    if (image[0] == 0x03 && image.size() != 512) image.resize(512);
    const ModuleMemory m = memoryFromImage(image);
    auto id = decodeIdentity(m);
    ASSERT_TRUE(id.ok());
    const Diagnostics d = decodeDiagnostics(m, *id);
    for (const auto& vs : {d.txBiasAmperes, d.txPowerWatts, d.rxPowerWatts}) {
      for (const auto& v : vs) {
        if (v) EXPECT_TRUE(std::isfinite(*v) && *v >= 0) << *v;
      }
    }
    for (const auto& t : d.thresholds) {
      if (t) {
        for (const double v : *t) EXPECT_TRUE(std::isfinite(v)) << v;
      }
    }
    if (d.temperatureCelsius)
      EXPECT_TRUE(*d.temperatureCelsius >= -128 && *d.temperatureCelsius <= 128);
    for (const char c : id->vendor + id->serialNumber + id->partNumber) {
      EXPECT_TRUE(c >= 0x20 && c < 0x7f && c != '"' && c != '\\');
    }
  }
}

}  // namespace
}  // namespace fabricmon::transceiver
