// The nic_temperature collector and its hwmon source (collectors/sources/hwmon_source.cpp) over a
// sysfs tree laid out the way drivers/hwmon/hwmon.c shows a NIC driver's hwmon device under its
// PCI function, with the files each driver registers:
//   mlx5_0    0000:17:00.0  hwmon2 "mlx5": temp1 (asic) and temp2 (the module, "sensor64" as the
//             driver names it when the firmware gives no name): input, highest, crit, label
//             (drivers/net/ethernet/mellanox/mlx5/core/hwmon.c)
//   bnxt_re0  0000:81:00.0  hwmon5 "bnxt_en": temp1 input, max, crit, emergency, the *_alarm files
//             and temp1_shutdown (drivers/net/ethernet/broadcom/bnxt/bnxt_hwmon.c)
//   irdma1    0000:b1:00.1  no hwmon: ice registers it on a chip's first PF only
//             (drivers/net/ethernet/intel/ice/ice_hwmon.c)
//   rxe0      a software device, no PCI function
// Values are made up; the layout and file names are the drivers'.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/hwmon_source.hpp"
#include "config/config.hpp"
#include "tests/support/collector_run.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

TEST(HwmonParse, MillidegreesBecomeDegrees) {
  auto v = parseHwmonMillidegrees("56250\n");
  ASSERT_TRUE(v.ok());
  EXPECT_DOUBLE_EQ(*v, 56.25);
  v = parseHwmonMillidegrees("-5000");
  ASSERT_TRUE(v.ok());
  EXPECT_DOUBLE_EQ(*v, -5.0);
  EXPECT_TRUE(parseHwmonMillidegrees("0\n").ok());
  EXPECT_TRUE(parseHwmonMillidegrees("200000").ok()) << "the top of the range is in it";
  EXPECT_TRUE(parseHwmonMillidegrees("-60000").ok()) << "the bottom too";
}

TEST(HwmonParse, GarbageAndImpossibleTemperaturesAreErrors) {
  for (const char* text : {
           "",              // empty
           "\n",            // blank
           "abc",           // not a number
           "nan",           // NaN spelled out
           "inf",           // infinity
           "45.5",          // not an integer of millidegrees
           "+45000",        // the kernel prints no sign
           "45000 45000",   // two numbers
           "0x10",          // hex
           "-",             // a sign alone
           "1234567890",    // more digits than any temperature
           "200001",        // above the physical range
           "-60001",        // below it
           "255000",        // an all-ones 8-bit register read as degrees
           "-128000",       // a signed 8-bit register's minimum: no sensor
       }) {
    EXPECT_FALSE(parseHwmonMillidegrees(text).ok()) << "accepted: \"" << text << "\"";
  }
}

TEST(HwmonParse, LabelsAreNamesNotText) {
  EXPECT_EQ(*parseHwmonLabel("asic\n"), "asic");
  EXPECT_EQ(*parseHwmonLabel("sensor64"), "sensor64");
  EXPECT_EQ(*parseHwmonLabel("Module 0"), "Module 0");
  EXPECT_FALSE(parseHwmonLabel("").ok());
  EXPECT_FALSE(parseHwmonLabel("a\"b").ok());
  EXPECT_FALSE(parseHwmonLabel("\xff\xfe").ok());
  EXPECT_FALSE(parseHwmonLabel(std::string(33, 'a')).ok());
}

class NicTemperatureTest : public ::testing::Test {
 protected:
  const std::string mlx5_ = "devices/pci0000:16/0000:16:02.0/0000:17:00.0";
  const std::string bnxt_ = "devices/pci0000:80/0000:80:01.0/0000:81:00.0";
  const std::string ice_ = "devices/pci0000:b0/0000:b0:02.0/0000:b1:00.1";

  void SetUp() override {
    const std::string m = mlx5_ + "/hwmon/hwmon2";
    write(m + "/name", "mlx5");
    for (const auto& [n, label, input, highest, crit] :
         {std::tuple{"temp1", "asic", "56250", "58000", "105000"},
          std::tuple{"temp2", "sensor64", "41000", "43000", "75000"}}) {
      write(m + "/" + n + "_label", label);
      write(m + "/" + n + "_input", input);
      write(m + "/" + n + "_highest", highest);
      write(m + "/" + n + "_crit", crit);
      write(m + "/" + n + "_reset_history", "");  // write-only in the kernel: never read
    }
    const std::string b = bnxt_ + "/hwmon/hwmon5";
    write(b + "/name", "bnxt_en");
    write(b + "/temp1_input", "62000");
    write(b + "/temp1_max", "95000");
    write(b + "/temp1_crit", "100000");
    write(b + "/temp1_emergency", "105000");
    write(b + "/temp1_shutdown", "110000");
    for (const char* alarm : {"temp1_max_alarm", "temp1_crit_alarm", "temp1_emergency_alarm"})
      write(b + "/" + alarm, "0");
    fs::create_directories(root_ / ice_);
    nic("mlx5_0", mlx5_);
    nic("bnxt_re0", bnxt_);
    nic("irdma1", ice_);
    fs::create_directories(root_ / "class/infiniband/rxe0");
    sysfs_ = std::make_shared<SysfsRoot>(root_);
    topology_.generation = 1;
    for (const auto& [d, pci] : {std::pair{"mlx5_0", "0000:17:00.0"}, std::pair{"bnxt_re0", "0000:81:00.0"},
                                 std::pair{"irdma1", "0000:b1:00.1"}, std::pair{"rxe0", ""}}) {
      topology_.devices.push_back(RdmaDevice{d, pci, 0, {RdmaPort{1, "Ethernet", {}}}});
    }
    Sources sources;
    sources.sysfs = sysfs_;
    collector_ = makeCollector("nic_temperature", sources, Config{});
  }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text << (text.empty() ? "" : "\n");
  }
  void nic(const std::string& name, const std::string& path) {
    fs::create_directories(root_ / "class/infiniband" / name);
    fs::create_directory_symlink("../../../" + path, root_ / "class/infiniband" / name / "device");
  }
  testing::CollectorRun collect() { return testing::runCollector(*collector_, topology_, errors_); }
  static std::string series(const std::string& family, const std::string& device, const std::string& pci,
                            const std::string& chip, const std::string& sensor, const std::string& label,
                            const std::string& level = "") {
    // family: "input" (fabricmon_nic_temperature_celsius), "highest" or "threshold".
    const std::string name =
        family == "input" ? "fabricmon_nic_temperature_celsius" : "fabricmon_nic_temperature_" + family + "_celsius";
    std::string k = name + "{device=\"" + device + "\",pci_address=\"" +
                    pci + "\",chip=\"" + chip + "\",sensor=\"" + sensor + "\",label=\"" + label + "\"";
    if (!level.empty()) k += ",level=\"" + level + "\"";
    return k + "}";
  }
  static std::string mlx5(const std::string& family, const std::string& sensor, const std::string& label,
                          const std::string& level = "") {
    return series(family, "mlx5_0", "0000:17:00.0", "mlx5", sensor, label, level);
  }
  static std::string bnxt(const std::string& family, const std::string& level = "") {
    return series(family, "bnxt_re0", "0000:81:00.0", "bnxt_en", "temp1", "", level);
  }

  testing::TempDir tmp_{"fabricmon-hwmon"};
  const fs::path& root_ = tmp_.path();
  std::shared_ptr<SysfsRoot> sysfs_;
  Topology topology_;
  std::unique_ptr<Collector> collector_;
  ErrorTracker errors_{"nic_temperature"};
};

TEST_F(NicTemperatureTest, EverySensorOfEachFunctionWithItsLimits) {
  auto r = collect();
  ASSERT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);
  // mlx5: 2 channels x (input, highest, crit); bnxt_en: input + max, crit, emergency, shutdown.
  EXPECT_EQ(r.samples, 2u * 3 + 5);
  EXPECT_EQ(r.byKey.size(), r.samples);
  EXPECT_DOUBLE_EQ(r.byKey[mlx5("input", "temp1", "asic")], 56.25);
  EXPECT_DOUBLE_EQ(r.byKey[mlx5("highest", "temp1", "asic")], 58.0);
  EXPECT_DOUBLE_EQ(r.byKey[mlx5("threshold", "temp1", "asic", "crit")], 105.0);
  EXPECT_DOUBLE_EQ(r.byKey[mlx5("input", "temp2", "sensor64")], 41.0);
  EXPECT_DOUBLE_EQ(r.byKey[mlx5("threshold", "temp2", "sensor64", "crit")], 75.0);
  EXPECT_EQ(r.byKey.count(mlx5("threshold", "temp1", "asic", "max")), 0u) << "mlx5 has no temp<N>_max";
  EXPECT_DOUBLE_EQ(r.byKey[bnxt("input")], 62.0);
  EXPECT_DOUBLE_EQ(r.byKey[bnxt("threshold", "max")], 95.0);
  EXPECT_DOUBLE_EQ(r.byKey[bnxt("threshold", "crit")], 100.0);
  EXPECT_DOUBLE_EQ(r.byKey[bnxt("threshold", "emergency")], 105.0);
  EXPECT_DOUBLE_EQ(r.byKey[bnxt("threshold", "shutdown")], 110.0);
  EXPECT_EQ(r.byKey.count(bnxt("highest")), 0u) << "bnxt_en has no temp1_highest";
  for (const auto& [k, v] : r.byKey) {
    EXPECT_EQ(k.find("irdma1"), std::string::npos) << "no hwmon, no series: " << k;
    EXPECT_EQ(k.find("rxe0"), std::string::npos) << k;
  }
}

TEST_F(NicTemperatureTest, ValuesAreReadAgainAtEveryRun) {
  collect();
  write(mlx5_ + "/hwmon/hwmon2/temp1_input", "97125");
  write(bnxt_ + "/hwmon/hwmon5/temp1_crit", "98000");
  auto r = collect();
  EXPECT_DOUBLE_EQ(r.byKey[mlx5("input", "temp1", "asic")], 97.125);
  EXPECT_DOUBLE_EQ(r.byKey[bnxt("threshold", "crit")], 98.0);
}

TEST_F(NicTemperatureTest, GarbageOrAnImpossibleValueIsAnErrorOfThatFileOnly) {
  collect();
  write(mlx5_ + "/hwmon/hwmon2/temp1_input", "garbage");
  write(mlx5_ + "/hwmon/hwmon2/temp2_input", "250000");      // 250 °C: out of range
  write(bnxt_ + "/hwmon/hwmon5/temp1_emergency", "nan");
  auto r = collect();
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 3u);
  EXPECT_EQ(r.byKey.count(mlx5("input", "temp1", "asic")), 0u) << "nothing of a bad file is exported";
  EXPECT_EQ(r.byKey.count(mlx5("input", "temp2", "sensor64")), 0u);
  EXPECT_EQ(r.byKey.count(bnxt("threshold", "emergency")), 0u);
  EXPECT_EQ(r.byKey.count(mlx5("highest", "temp1", "asic")), 1u) << "the channel's other files still report";
  EXPECT_EQ(r.byKey.count(bnxt("threshold", "crit")), 1u);
  EXPECT_EQ(r.samples, 2u * 3 + 5 - 3);
  // Not read is not gone: the watchdog holds what those three series told it (Batch::unread).
  EXPECT_EQ(r.unread, (std::set<std::string>{mlx5("input", "temp1", "asic"), mlx5("input", "temp2", "sensor64"),
                                             bnxt("threshold", "emergency")}));
  write(mlx5_ + "/hwmon/hwmon2/temp1_input", "-61000");  // below the range too
  r = collect();
  EXPECT_EQ(r.byKey.count(mlx5("input", "temp1", "asic")), 0u);
  EXPECT_EQ(r.unread.count(mlx5("input", "temp1", "asic")), 1u);
  write(mlx5_ + "/hwmon/hwmon2/temp1_input", "56000");
  write(mlx5_ + "/hwmon/hwmon2/temp2_input", "41000");
  write(bnxt_ + "/hwmon/hwmon5/temp1_emergency", "105000");
  r = collect();
  EXPECT_EQ(r.errors, 0u);
  EXPECT_TRUE(r.unread.empty());
}

TEST_F(NicTemperatureTest, AFunctionWhoseFirmwareStopsAnsweringKeepsItsSeriesUnread) {
  ASSERT_EQ(collect().errors, 0u);
  // A wedged mlx5 fails every hwmon read of its function (the firmware command behind it times
  // out, EIO); here every value file of it stops making sense, which the collector reads the same way.
  for (const char* sensor : {"temp1", "temp2"}) {
    for (const char* file : {"_input", "_highest", "_crit"}) {
      write(mlx5_ + "/hwmon/hwmon2/" + sensor + file, "-");
    }
  }
  auto r = collect();
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 6u);
  for (const char* family : {"input", "highest"}) {
    EXPECT_EQ(r.unread.count(mlx5(family, "temp1", "asic")), 1u) << family;
    EXPECT_EQ(r.unread.count(mlx5(family, "temp2", "sensor64")), 1u) << family;
  }
  EXPECT_EQ(r.unread.count(mlx5("threshold", "temp1", "asic", "crit")), 1u);
  EXPECT_EQ(r.unread.size(), 6u) << "the bnxt_en function still reads";
  EXPECT_EQ(r.samples, 5u);
}

TEST_F(NicTemperatureTest, AZeroLimitIsNoLimit) {
  write(bnxt_ + "/hwmon/hwmon5/temp1_shutdown", "0");
  auto r = collect();
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.byKey.count(bnxt("threshold", "shutdown")), 0u);
  EXPECT_EQ(r.byKey.count(bnxt("threshold", "emergency")), 1u);
}

TEST_F(NicTemperatureTest, AnUnprintableLabelIsAnErrorAndTheSensorStays) {
  write(mlx5_ + "/hwmon/hwmon2/temp2_label", "bad\"label");
  ++topology_.generation;
  auto r = collect();
  EXPECT_EQ(r.errors, 1u);
  EXPECT_DOUBLE_EQ(r.byKey[mlx5("input", "temp2", "")], 41.0);
}

TEST_F(NicTemperatureTest, NoHwmonAnywhereIsNoDataNotAnError) {
  fs::remove_all(root_ / mlx5_ / "hwmon");
  fs::remove_all(root_ / bnxt_ / "hwmon");
  auto r = collect();
  EXPECT_EQ(r.status, CollectStatus::kNoData);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.samples, 0u);
}

TEST_F(NicTemperatureTest, AHwmonDeviceRegisteredLaterIsFound) {
  collect();
  write(ice_ + "/hwmon/hwmon9/name", "ice");
  write(ice_ + "/hwmon/hwmon9/temp1_input", "48000");
  write(ice_ + "/hwmon/hwmon9/temp1_crit", "105000");
  auto r = collect();  // same topology generation
  EXPECT_DOUBLE_EQ(r.byKey[series("input", "irdma1", "0000:b1:00.1", "ice", "temp1", "")], 48.0);
  EXPECT_DOUBLE_EQ(r.byKey[series("threshold", "irdma1", "0000:b1:00.1", "ice", "temp1", "", "crit")], 105.0);
}

TEST_F(NicTemperatureTest, AReRegisteredHwmonDeviceIsFollowed) {
  // Were the descriptors of hwmon2 kept, this file-backed tree would still answer through them.
  collect();
  // The driver reloads: hwmon2 goes, the device comes back as hwmon7.
  fs::rename(root_ / mlx5_ / "hwmon/hwmon2", root_ / mlx5_ / "hwmon/hwmon7");
  write(mlx5_ + "/hwmon/hwmon7/temp1_input.tmp", "60000");
  fs::rename(root_ / mlx5_ / "hwmon/hwmon7/temp1_input.tmp", root_ / mlx5_ / "hwmon/hwmon7/temp1_input");
  auto r = collect();  // same topology generation
  EXPECT_EQ(r.errors, 0u) << "the new directory is listed before anything is read";
  EXPECT_DOUBLE_EQ(r.byKey[mlx5("input", "temp1", "asic")], 60.0);
}

TEST_F(NicTemperatureTest, IsRegisteredAtTheSlowCadence) {
  const CollectorEntry& row = collectorEntry("nic_temperature");
  EXPECT_EQ(row.cadence, Cadence::kSlow);
  Sources sources;
  sources.sysfs = sysfs_;
  auto c = row.make(sources, Config{});
  EXPECT_EQ(c->name(), "nic_temperature");
  Batch batch;
  CollectOutput out(batch, errors_);
  EXPECT_EQ(c->collect(topology_, out), CollectStatus::kOk);
}

}  // namespace
}  // namespace fabricmon
