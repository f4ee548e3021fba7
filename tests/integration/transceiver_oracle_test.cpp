// The oracle of the transceiver decoders: Debian's real `ethtool -m` decodes the same bytes.
// A test-only LD_PRELOAD library (transceiver_oracle/ethtool_module_shim.cpp) makes ethtool take
// its ioctl path and serves it an image file; every value collectors/transceiver_decode.cpp
// exports — identity strings, temperature, voltage, per-lane bias and Tx/Rx power, the thresholds
// and the latched flags — must equal ethtool's text within its display rounding (°C to 0.01, V to
// 0.0001, mA to 0.001, mW to 0.0001), and every such value ethtool prints must be one we export.
// ethtool's ioctl path sees 256 bytes of a CMIS module (lower page + page 00h), so for CMIS the
// pages 02h (thresholds) and 11h (lane monitors and flags) are checked against the values the
// image was built from (hand-derived from the CMIS tables, sim/module_image.cpp) instead.
// Images: built from the specs (sim/module_image.hpp) and every *.bin in
// tests/fixtures/transceivers.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "collectors/transceiver_decode.hpp"
#include "sim/module_image.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon::transceiver {
namespace {

namespace fs = std::filesystem;
using sim::ModuleFlagSet;
using sim::ModuleLevel;
using sim::ModuleParams;
using sim::ModuleQuantity;

std::string ethtoolPath() {
  for (const char* p : {"/usr/sbin/ethtool", "/sbin/ethtool", "/usr/bin/ethtool"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  return "";
}

// `ethtool -m` text as key -> value, runs of spaces in keys collapsed.
std::map<std::string, std::string> runEthtool(const fs::path& image) {
  std::string out;
  const int rc =
      testing::runCommand({"env", "EEPROM_IMAGE=" + image.string(),
                           "LD_PRELOAD=" FABRICMON_ETHTOOL_SHIM, ethtoolPath(), "-m", "lo"},
                          &out);
  EXPECT_EQ(rc, 0) << out;
  std::map<std::string, std::string> kv;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(" : ");
    if (colon == std::string::npos) continue;
    std::string key;
    for (const char c : line.substr(0, colon)) {
      if ((c == ' ' || c == '\t') && (key.empty() || key.back() == ' ')) continue;
      key.push_back(c == '\t' ? ' ' : c);
    }
    while (!key.empty() && key.back() == ' ') key.pop_back();
    kv.emplace(key, line.substr(colon + 3));
  }
  return kv;
}

std::string levelText(Level l) {
  switch (l) {
    case Level::kHighAlarm:
      return "high alarm";
    case Level::kHighWarning:
      return "high warning";
    case Level::kLowWarning:
      return "low warning";
    case Level::kLowAlarm:
      return "low alarm";
  }
  return "";
}

// ethtool's names (sfpdiag.c, qsfp.c, cmis.c, sff-common.c of ethtool 6.1).
std::string valueKey(Spec spec, Quantity q, unsigned lane) {
  const bool sfp = spec == Spec::kSff8472;
  const std::string ch = " (Channel " + std::to_string(lane) + ")";
  switch (q) {
    case Quantity::kTemperature:
      return "Module temperature";
    case Quantity::kSupplyVoltage:
      return "Module voltage";
    case Quantity::kTxBias:
      return sfp ? "Laser bias current" : "Laser tx bias current" + ch;
    case Quantity::kTxPower:
      return sfp ? "Laser output power" : "Transmit avg optical power" + ch;
    case Quantity::kRxPower:
      return sfp ? "Receiver signal average optical power"
                 : "Rcvr signal avg optical power(Channel " + std::to_string(lane) + ")";
  }
  return "";
}
std::string thresholdKey(Quantity q, Level l) {
  const std::string names[] = {"Module temperature", "Module voltage", "Laser bias current",
                               "Laser output power", "Laser rx power"};
  return names[static_cast<size_t>(q)] + " " + levelText(l) + " threshold";
}
std::string flagKey(Spec spec, Quantity q, Level l, unsigned lane) {
  const bool sfp = spec == Spec::kSff8472;
  switch (q) {
    case Quantity::kTemperature:
      return "Module temperature " + levelText(l);
    case Quantity::kSupplyVoltage:
      return "Module voltage " + levelText(l);
    case Quantity::kTxBias:
      return "Laser bias current " + levelText(l) +
             (sfp ? "" : " (Chan " + std::to_string(lane) + ")");
    case Quantity::kTxPower:
      return (sfp ? "Laser output power " : "Laser tx power ") + levelText(l) +
             (sfp ? "" : " (Channel " + std::to_string(lane) + ")");
    case Quantity::kRxPower:
      return "Laser rx power " + levelText(l) +
             (sfp ? "" : " (Channel " + std::to_string(lane) + ")");
  }
  return "";
}

// ethtool prints °C with 2 decimals, V with 4, mA with 3, mW with 4: the value in base units and
// the half of its last digit, in base units.
struct Shown {
  double value;
  double tolerance;
};
std::optional<Shown> parseShown(const std::string& text, Quantity q) {
  static const std::regex kNumber(R"(^(-?[0-9]+\.([0-9]+)) (degrees C|V|mA|mW))");
  std::smatch m;
  if (!std::regex_search(text, m, kNumber)) return std::nullopt;
  const double v = std::stod(m[1].str());
  const double half = 0.5 * std::pow(10.0, -static_cast<double>(m[2].length()));
  const double toBase = q == Quantity::kTemperature || q == Quantity::kSupplyVoltage ? 1.0 : 1e-3;
  return Shown{v * toBase, half * toBase};
}

void expectShown(const std::map<std::string, std::string>& eth, const std::string& key, Quantity q,
                 double ours) {
  const auto it = eth.find(key);
  ASSERT_NE(it, eth.end()) << "ethtool printed no \"" << key << "\"";
  const auto shown = parseShown(it->second, q);
  ASSERT_TRUE(shown) << key << ": " << it->second;
  // 1e-9 relative: the double of a decimal text.
  EXPECT_NEAR(ours, shown->value, shown->tolerance + 1e-9 * std::abs(ours))
      << key << ": ethtool " << it->second;
}

struct Case {
  std::string name;
  std::vector<uint8_t> image;
  std::optional<ModuleParams> built;  ///< the params of a built image (CMIS upper pages check)
};

std::vector<Case> cases() {
  std::vector<Case> out;
  auto add = [&](std::string name, const ModuleParams& p) {
    out.push_back({std::move(name), sim::buildModuleImage(p), p});
  };
  ModuleParams q = sim::qsfp28Module("Q-ORACLE-1");
  q.temperatureCelsius = 41.5;
  q.biasAmperes = {0.0064, 0.00662, 0.0068, 0.007};
  q.txPowerWatts = {0.6e-3, 0.6123e-3, 0.62e-3, 0.63e-3};
  q.rxPowerWatts = {0.5e-3, 0.0, 0.7e-3, 0.8e-3};
  q.flags = {{ModuleQuantity::kRxPower, ModuleLevel::kLowWarning, 2},
             {ModuleQuantity::kTxBias, ModuleLevel::kHighAlarm, 4},
             {ModuleQuantity::kTemperature, ModuleLevel::kHighWarning, 0},
             {ModuleQuantity::kSupplyVoltage, ModuleLevel::kLowAlarm, 0}};
  add("qsfp28", q);
  ModuleParams cold = sim::qsfp28Module("Q-COLD");
  cold.temperatureCelsius = -12.25;
  cold.supplyVolts = 3.1234;
  cold.txPowerMonitor = false;  // ethtool still prints Tx power; we must not export it
  add("qsfp28_cold_no_tx_monitor", cold);
  ModuleParams noThresholds = sim::qsfp28Module("Q-NOTH");
  noThresholds.thresholdsSupported = false;
  add("qsfp28_no_thresholds", noThresholds);
  add("qsfp28_passive_copper", sim::passiveCopperCable("DAC-1"));
  ModuleParams s = sim::sfp28Module("S-ORACLE-1");
  s.rxPowerWatts = {0.3217e-3};
  s.flags = {{ModuleQuantity::kRxPower, ModuleLevel::kLowAlarm, 1},
             {ModuleQuantity::kTxPower, ModuleLevel::kHighWarning, 1}};
  add("sfp28", s);
  s.externalCalibration = true;
  s.serialNumber = "S-EXTCAL";
  add("sfp28_external_calibration", s);
  ModuleParams sdac = sim::passiveCopperCable("DAC-SFP");
  sdac.identifier = 0x03;
  add("sfp28_passive_copper", sdac);
  ModuleParams c = sim::cmis400gModule("C-ORACLE-1", true);
  c.rxPowerWatts = {0.85e-3, 0.84e-3, 0.12e-3, 0.86e-3};
  c.flags = {{ModuleQuantity::kRxPower, ModuleLevel::kLowWarning, 3},
             {ModuleQuantity::kTemperature, ModuleLevel::kHighWarning, 0}};
  add("osfp_cmis", c);
  add("qsfp112_cmis", sim::cmis400gModule("C-ORACLE-2", false));
  for (const auto& e : fs::directory_iterator(FABRICMON_FIXTURE_DIR "/transceivers")) {
    if (e.path().extension() != ".bin") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    out.push_back({e.path().filename().string(), std::move(bytes), std::nullopt});
  }
  return out;
}

class TransceiverOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ethtoolPath().empty())
      GTEST_SKIP() << "ethtool is not installed (scripts/install-deps installs it)";
  }
  testing::TempDir dir_{"fabricmon-oracle"};
};

TEST_F(TransceiverOracle, EveryExportedValueEqualsEthtool) {
  int compared = 0;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const ModuleMemory memory = memoryFromImage(c.image);
    auto id = decodeIdentity(memory);
    if (!id.ok()) {
      // Hostile fixtures (unknown identifier, empty cage): nothing to compare, nothing exported.
      continue;
    }
    const Diagnostics d = decodeDiagnostics(memory, *id);
    // ethtool 6.1 decodes CMIS only for identifiers 0x18 (QSFP-DD), 0x19 (OSFP) and 0x1b (DSFP);
    // for another CMIS identifier (0x1e, QSFP112 and other "QSFP+ or later with CMIS") it is shown
    // the same bytes as a QSFP-DD: our CMIS decoding does not depend on the identifier.
    std::vector<uint8_t> shown = c.image;
    const bool relabelled = id->spec == Spec::kCmis && id->identifier != 0x18 &&
                            id->identifier != 0x19 && id->identifier != 0x1b;
    if (relabelled) shown[0] = shown[128] = 0x18;
    const fs::path file = dir_.path() / "image.bin";
    std::ofstream(file, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(shown.data()),
               static_cast<std::streamsize>(shown.size()));
    const auto eth = runEthtool(file);
    ASSERT_TRUE(eth.count("Identifier")) << "ethtool did not decode the image";
    EXPECT_EQ(std::stoul(eth.at("Identifier").substr(2, 2), nullptr, 16),
              relabelled ? 0x18 : id->identifier);
    for (const auto& [key, ours] :
         {std::pair{"Vendor name", id->vendor}, std::pair{"Vendor PN", id->partNumber},
          std::pair{"Vendor rev", id->revision}, std::pair{"Vendor SN", id->serialNumber}}) {
      ASSERT_TRUE(eth.count(key)) << key;
      std::string theirs = eth.at(key);
      while (!theirs.empty() && theirs.back() == ' ') theirs.pop_back();
      EXPECT_EQ(ours, theirs) << key;
    }
    if (id->cableLengthMeters && id->spec != Spec::kCmis) {
      const std::string key =
          id->spec == Spec::kSff8472 ? "Length (Copper)" : "Length (Copper or Active cable)";
      ASSERT_TRUE(eth.count(key)) << key;
      EXPECT_EQ(eth.at(key), fmt::format("{}m", *id->cableLengthMeters));
    }
    if (id->cableLengthMeters && id->spec == Spec::kCmis) {
      EXPECT_EQ(eth.at("Cable assembly length"), fmt::format("{:.2f}m", *id->cableLengthMeters));
    }
    if (!id->dom()) {
      EXPECT_FALSE(d.temperatureCelsius || !d.flags.empty() || !d.rxPowerWatts.empty());
      continue;
    }
    const bool cmis = id->spec == Spec::kCmis;
    // Module level, from every spec's bytes ethtool sees.
    if (d.temperatureCelsius)
      expectShown(eth, "Module temperature", Quantity::kTemperature, *d.temperatureCelsius),
          ++compared;
    if (d.supplyVoltageVolts)
      expectShown(eth, "Module voltage", Quantity::kSupplyVoltage, *d.supplyVoltageVolts),
          ++compared;
    // Lanes and thresholds where ethtool sees them (not CMIS over the ioctl: checked below).
    if (!cmis) {
      const std::vector<std::optional<double>>* lanes[] = {nullptr, nullptr, &d.txBiasAmperes,
                                                           &d.txPowerWatts, &d.rxPowerWatts};
      for (size_t q = 2; q < kQuantities; ++q) {
        for (size_t i = 0; i < lanes[q]->size(); ++i) {
          const std::string key =
              valueKey(id->spec, static_cast<Quantity>(q), static_cast<unsigned>(i + 1));
          if ((*lanes[q])[i]) {
            expectShown(eth, key, static_cast<Quantity>(q), *(*lanes[q])[i]);
            ++compared;
          } else {
            // Not exported: only where the module says it does not monitor it.
            EXPECT_FALSE(id->monitored[q]) << key;
          }
        }
      }
      for (size_t q = 0; q < kQuantities; ++q) {
        for (size_t l = 0; l < kLevels; ++l) {
          const std::string key = thresholdKey(static_cast<Quantity>(q), static_cast<Level>(l));
          if (d.thresholds[q]) {
            expectShown(eth, key, static_cast<Quantity>(q), (*d.thresholds[q])[l]);
            ++compared;
          } else if (eth.count(key) && id->monitored[q]) {
            // ethtool prints zeros for unsupported thresholds; we export none.
            const auto shown = parseShown(eth.at(key), static_cast<Quantity>(q));
            ASSERT_TRUE(shown);
            EXPECT_EQ(shown->value, 0.0) << key << " printed by ethtool, not exported by us";
          }
        }
      }
    }
    for (const Flag& f : d.flags) {
      if (cmis && f.lane != 0) continue;
      const std::string key = flagKey(id->spec, f.quantity, f.level, f.lane);
      ASSERT_TRUE(eth.count(key)) << "ethtool printed no \"" << key << "\"";
      EXPECT_EQ(eth.at(key), f.set ? "On" : "Off") << key;
      ++compared;
    }
    // CMIS pages 02h and 11h: the values the image was built from, at the CMIS LSBs.
    if (cmis && c.built) {
      const ModuleParams& p = *c.built;
      ASSERT_EQ(d.rxPowerWatts.size(), p.lanes);
      for (unsigned i = 0; i < p.lanes; ++i) {
        auto at = [&](const std::vector<double>& v, double dflt) {
          return v.empty() ? dflt : v[std::min<size_t>(i, v.size() - 1)];
        };
        EXPECT_NEAR(*d.rxPowerWatts[i], at(p.rxPowerWatts, 0.9e-3), 0.05e-6);
        EXPECT_NEAR(*d.txPowerWatts[i], at(p.txPowerWatts, 1e-3), 0.05e-6);
        EXPECT_NEAR(*d.txBiasAmperes[i], at(p.biasAmperes, 0.045), 1e-6);
        compared += 3;
      }
      for (size_t q = 0; q < kQuantities; ++q) {
        ASSERT_TRUE(d.thresholds[q]);
        const double lsb[] = {1.0 / 256, 100e-6, 2e-6, 0.1e-6, 0.1e-6};
        for (size_t l = 0; l < kLevels; ++l)
          EXPECT_NEAR((*d.thresholds[q])[l], p.thresholds[q][l], lsb[q] / 2 + 1e-12);
      }
      for (const Flag& f : d.flags) {
        if (f.lane == 0) continue;
        const bool want = std::any_of(p.flags.begin(), p.flags.end(), [&](const ModuleFlagSet& s) {
          return static_cast<size_t>(s.quantity) == static_cast<size_t>(f.quantity) &&
                 static_cast<size_t>(s.level) == static_cast<size_t>(f.level) && s.lane == f.lane;
        });
        EXPECT_EQ(f.set, want) << quantityName(f.quantity) << " " << levelName(f.level) << " lane "
                               << f.lane;
      }
    }
  }
  EXPECT_GT(compared, 200);
}

}  // namespace
}  // namespace fabricmon::transceiver
