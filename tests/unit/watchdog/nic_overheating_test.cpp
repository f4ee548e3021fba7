// nic_overheating (watchdog/rules/nic_overheating.cpp) over hand-set nic_temperature series, one
// reading per 10 s tick (poll.slow_interval), the way the collector exports an mlx5 NIC (crit
// only: the warning is crit - warning_margin_celsius) and a bnxt_en NIC (max, crit, emergency).
// Time is the TestNode's clock: no sleeps.
#include "watchdog/rules/nic_overheating.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

constexpr const char* kTemp = "fabricmon_nic_temperature_celsius";
constexpr const char* kLimit = "fabricmon_nic_temperature_threshold_celsius";

struct Nic {
  const char* devices;
  const char* pci;
  const char* chip;
  const char* sensor;
  const char* label;
};
constexpr Nic kMlx5Asic{"mlx5_0", "0000:17:00.0", "mlx5", "temp1", "asic"};
constexpr Nic kMlx5Module{"mlx5_0", "0000:17:00.0", "mlx5", "temp2", "sensor64"};
constexpr Nic kBnxt{"bnxt_re0", "0000:81:00.0", "bnxt_en", "temp1", ""};

Labels labels(const Nic& n) {
  return {{"device", n.devices}, {"pci_address", n.pci}, {"chip", n.chip}, {"sensor", n.sensor}, {"label", n.label}};
}
Labels labels(const Nic& n, const char* level) {
  Labels l = labels(n);
  l.emplace_back("level", level);
  return l;
}

class NicOverheatingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    healthyRoce(n_, "mlx5_0", "eth0");
    healthyRoce(n_, "bnxt_re0", "eth1");
    temp(kMlx5Asic, 60);
    n_.set("nic_temperature", kLimit, labels(kMlx5Asic, "crit"), 105);
    temp(kMlx5Module, 40);
    n_.set("nic_temperature", kLimit, labels(kMlx5Module, "crit"), 75);
    temp(kBnxt, 60);
    n_.set("nic_temperature", kLimit, labels(kBnxt, "max"), 95);
    n_.set("nic_temperature", kLimit, labels(kBnxt, "crit"), 100);
    n_.set("nic_temperature", kLimit, labels(kBnxt, "emergency"), 105);
  }
  void temp(const Nic& nic, double celsius) { n_.set("nic_temperature", kTemp, labels(nic), celsius); }
  /// `readings` slow polls, 10 s apart.
  std::vector<std::string> run(int readings) {
    for (int i = 0; i < readings; ++i) n_.tick(10);
    auto d = describe(n_.findings());
    std::sort(d.begin(), d.end());
    return d;
  }
  const Finding* find(std::string_view reason, std::string_view device) {
    static std::vector<Finding> keep;
    keep = n_.findings();
    for (const Finding& f : keep) {
      if (f.rule == "nic_overheating" && labelOf(f, "reason") == reason && labelOf(f, "device") == device) return &f;
    }
    return nullptr;
  }

  TestNode n_;
};

using Findings = std::vector<std::string>;

TEST_F(NicOverheatingTest, ANicWellBelowItsLimitsIsSilent) {
  temp(kMlx5Asic, 94.5);  // more than 10 °C below its crit of 105
  temp(kBnxt, 94);        // below its own max of 95 (crit - 10 = 90 does not apply: it has a max)
  EXPECT_EQ(run(10), Findings{});
}

TEST_F(NicOverheatingTest, WithinTheMarginOfCritWarnsAfterThreeReadingsNamingTheSensor) {
  run(2);
  temp(kMlx5Asic, 96);  // crit 105 - 10
  EXPECT_EQ(run(2), Findings{}) << "two readings are not three";
  EXPECT_EQ(run(1), Findings{"nic_overheating/max/mlx5_0"});
  const Finding* f = find("max", "mlx5_0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->summary.find("asic (mlx5 temp1)"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("96.0 °C"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("crit limit of 105.0"), std::string::npos) << f->summary;
}

TEST_F(NicOverheatingTest, AtCritIsCritical) {
  run(2);
  temp(kMlx5Module, 75);  // the module's own crit, not the ASIC's
  EXPECT_EQ(run(3), (Findings{"nic_overheating/crit/mlx5_0", "nic_overheating/max/mlx5_0"}));
  const Finding* f = find("crit", "mlx5_0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_NE(f->summary.find("sensor64"), std::string::npos) << f->summary;
}

TEST_F(NicOverheatingTest, TheDriversOwnMaxIsTheWarning) {
  run(2);
  temp(kBnxt, 95);
  EXPECT_EQ(run(3), Findings{"nic_overheating/max/bnxt_re0"});
  EXPECT_NE(find("max", "bnxt_re0")->summary.find("at or above its max limit of 95.0"), std::string::npos);
  temp(kBnxt, 101);
  EXPECT_EQ(run(3), (Findings{"nic_overheating/crit/bnxt_re0", "nic_overheating/max/bnxt_re0"}));
}

TEST_F(NicOverheatingTest, ClearsOnlyBelowTheHysteresisForClearAfter) {
  run(2);
  temp(kBnxt, 96);
  EXPECT_EQ(run(3), Findings{"nic_overheating/max/bnxt_re0"});
  temp(kBnxt, 93);  // below max, but within the 3 °C hysteresis
  EXPECT_EQ(run(60), Findings{"nic_overheating/max/bnxt_re0"}) << "ten minutes just below: still hot";
  temp(kBnxt, 91);
  EXPECT_EQ(run(29), Findings{"nic_overheating/max/bnxt_re0"}) << "under five minutes";
  EXPECT_EQ(run(2), Findings{});
}

TEST_F(NicOverheatingTest, NoLimitNoJudgement) {
  n_.drop("nic_temperature", "device", "bnxt_re0");
  temp(kBnxt, 150);  // a sensor without any limit the NIC reports
  EXPECT_EQ(run(5), Findings{});
}

TEST_F(NicOverheatingTest, WithoutCritTheLowestHigherLimitIsCritical) {
  constexpr Nic kOther{"bnxt_re0", "0000:81:00.0", "bnxt_en", "temp2", ""};
  temp(kOther, 104);
  n_.set("nic_temperature", kLimit, labels(kOther, "shutdown"), 110);
  n_.set("nic_temperature", kLimit, labels(kOther, "emergency"), 104);
  // A series is judged from its second sample (watchdog.min_samples), then three readings.
  EXPECT_EQ(run(3), Findings{});
  EXPECT_EQ(run(1), Findings{"nic_overheating/crit/bnxt_re0"});
  EXPECT_NE(find("crit", "bnxt_re0")->summary.find("emergency limit of 104.0"), std::string::npos);
}

TEST_F(NicOverheatingTest, ASharedFunctionIsEachDevicesAndUnwatchedDevicesAreNot) {
  constexpr Nic kShared{"mlx5_0,mlx5_1", "0000:3b:00.0", "mlx5", "temp1", "asic"};
  healthyRoce(n_, "mlx5_1", "eth2");
  temp(kShared, 106);
  n_.set("nic_temperature", kLimit, labels(kShared, "crit"), 105);
  constexpr Nic kUnwatched{"mlx5_9", "0000:c1:00.0", "mlx5", "temp1", "asic"};  // no port in the join
  temp(kUnwatched, 110);
  n_.set("nic_temperature", kLimit, labels(kUnwatched, "crit"), 105);
  EXPECT_EQ(run(4), (Findings{"nic_overheating/crit/mlx5_0", "nic_overheating/crit/mlx5_1",
                              "nic_overheating/max/mlx5_0", "nic_overheating/max/mlx5_1"}));
}

TEST(NicOverheatingSettings, TheMarginAndTheReadingsAreConfigurable) {
  WatchdogConfig config;
  config.rules.get<NicOverheatingRule>().warningMarginCelsius = 2;
  config.rules.get<NicOverheatingRule>().forReadings = 1;
  TestNode n(config);
  healthyRoce(n, "mlx5_0", "eth0");
  n.set("nic_temperature", kTemp, labels(kMlx5Asic), 96);
  n.set("nic_temperature", kLimit, labels(kMlx5Asic, "crit"), 105);
  for (int i = 0; i < 5; ++i) n.tick(10);
  EXPECT_EQ(describe(n.findings()), Findings{}) << "9 °C below crit, margin 2";
  n.set("nic_temperature", kTemp, labels(kMlx5Asic), 103);
  n.tick(10);
  EXPECT_EQ(describe(n.findings()), Findings{"nic_overheating/max/mlx5_0"}) << "one reading is enough now";
}

}  // namespace
}  // namespace fabricmon::testing
