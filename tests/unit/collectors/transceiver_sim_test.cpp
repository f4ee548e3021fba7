// The simulator's modules (docs/simulator.md, "Transceivers") read back through the file source and
// the decoders: every port has the memory map its speed calls for, and the optic scenarios bend
// the affected module on the shared timeline (sim/scenario.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "collectors/sources/module_eeprom_source.hpp"
#include "collectors/transceiver_decode.hpp"
#include "sim/scenario.hpp"
#include "sim/simulator.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon::transceiver {
namespace {

struct Read {
  Identity id;
  Diagnostics d;
};

Read readModule(const std::filesystem::path& dir, const std::string& ifname) {
  auto source = makeModuleEepromFileSource(dir);
  ModuleMemory m;
  HalfPage h{};
  EXPECT_TRUE(source->read(ifname, requestFor(lowerPage()), h).ok()) << ifname;
  m.put(lowerPage(), h);
  const auto spec = specOf(h[0]);
  EXPECT_TRUE(spec.has_value()) << ifname;
  for (const PageKey& k : identityPages(*spec, m)) {
    if (source->read(ifname, requestFor(k), h).ok()) m.put(k, h);
  }
  auto id = decodeIdentity(m);
  EXPECT_TRUE(id.ok()) << ifname;
  for (const PageKey& k : monitorPages(*id)) {
    if (source->read(ifname, requestFor(k), h).ok()) m.put(k, h);
  }
  return {*id, decodeDiagnostics(m, *id)};
}

double dbm(double w) { return 10 * std::log10(w * 1000); }

TEST(SimulatorModules, EveryPortHasTheModuleItsSpeedCallsFor) {
  testing::TempDir dir("fabricmon-simxcvr");
  sim::SimOptions o;
  o.root = dir.path();
  o.managementNic = true;
  o.mixedNode = true;
  sim::Simulator s(o);
  ASSERT_TRUE(s.init().ok());
  std::set<std::string> specs;
  for (const sim::SimPort& p : s.ports()) {
    const Read r = readModule(s.moduleEepromDir(), p.interface);
    specs.insert(std::string(specName(r.id.spec)) + "/" + r.id.media);
    if (p.linkLayer == "InfiniBand") {
      EXPECT_EQ(r.id.media, "passive_copper");
      EXPECT_FALSE(r.id.dom());
    } else if (p.interface.starts_with("eno")) {
      EXPECT_EQ(r.id.spec, Spec::kSff8472);
    } else if (p.device.starts_with("mlx5_") && p.device != "mlx5_8" && p.device != "mlx5_9") {
      EXPECT_EQ(r.id.spec, Spec::kCmis) << p.interface;
      ASSERT_EQ(r.d.rxPowerWatts.size(), 4u) << p.interface;
    }
  }
  EXPECT_EQ(specs, (std::set<std::string>{"cmis/optical", "cmis/passive_copper", "sff8472/optical",
                                          "sff8636/optical"}));
}

TEST(SimulatorModules, OpticDegradingSinksLaneOneBelowItsLowWarningThenFlaps) {
  testing::TempDir dir("fabricmon-simxcvr");
  sim::SimOptions o;
  o.root = dir.path();
  o.scenario = "optic-degrading";
  sim::Simulator s(o);
  ASSERT_TRUE(s.init().ok());
  const std::string ifname = s.affected().at(0).interface;
  const Read start = readModule(s.moduleEepromDir(), ifname);
  const double lowWarning = (*start.d.thresholds[static_cast<size_t>(
      Quantity::kRxPower)])[static_cast<size_t>(Level::kLowWarning)];
  ASSERT_GT(*start.d.rxPowerWatts[0], lowWarning * 4);
  ASSERT_TRUE(s.tick(std::chrono::seconds(70)).ok());  // mid-way: sinking, still above
  const Read mid = readModule(s.moduleEepromDir(), ifname);
  EXPECT_NEAR(dbm(*mid.d.rxPowerWatts[0]), dbm(*start.d.rxPowerWatts[0]) - sim::opticsDrift(70),
              0.01);
  EXPECT_GT(*mid.d.rxPowerWatts[0], lowWarning);
  ASSERT_TRUE(s.tick(std::chrono::seconds(50)).ok());  // t = 120
  const Read late = readModule(s.moduleEepromDir(), ifname);
  EXPECT_LT(*late.d.rxPowerWatts[0], lowWarning);
  EXPECT_EQ(*late.d.rxPowerWatts[1], *start.d.rxPowerWatts[1]);  // the other lanes stay
  auto operstate = [&] {
    std::ifstream in(s.sysfsRoot() / "class/net" / ifname / "operstate");
    std::string v;
    in >> v;
    return v;
  };
  ASSERT_TRUE(s.tick(std::chrono::seconds(29)).ok());
  EXPECT_EQ(operstate(), "up");
  ASSERT_TRUE(s.tick(std::chrono::seconds(2)).ok());  // t = 151: the flap
  EXPECT_EQ(operstate(), "down");
  ASSERT_TRUE(s.tick(std::chrono::seconds(2)).ok());
  EXPECT_EQ(operstate(), "up");
}

TEST(SimulatorModules, HotModulePassesItsHighWarningAndSwapChangesOnlyTheSerial) {
  testing::TempDir dir("fabricmon-simxcvr");
  sim::SimOptions o;
  o.root = dir.path();
  o.scenario = "hot-module";
  sim::Simulator hot(o);
  ASSERT_TRUE(hot.init().ok());
  const std::string ifname = hot.affected().at(0).interface;
  ASSERT_TRUE(hot.tick(std::chrono::seconds(131)).ok());
  const Read r = readModule(hot.moduleEepromDir(), ifname);
  EXPECT_GT(*r.d.temperatureCelsius,
            (*r.d.thresholds[static_cast<size_t>(Quantity::kTemperature)])[static_cast<size_t>(
                Level::kHighWarning)]);

  testing::TempDir dir2("fabricmon-simxcvr");
  o.root = dir2.path();
  o.scenario = "module-swap";
  sim::Simulator swap(o);
  ASSERT_TRUE(swap.init().ok());
  const Read before = readModule(swap.moduleEepromDir(), ifname);
  ASSERT_TRUE(swap.tick(std::chrono::seconds(31)).ok());
  const Read after = readModule(swap.moduleEepromDir(), ifname);
  EXPECT_NE(before.id.serialNumber, after.id.serialNumber);
  EXPECT_EQ(before.d.rxPowerWatts, after.d.rxPowerWatts);
}

}  // namespace
}  // namespace fabricmon::transceiver
