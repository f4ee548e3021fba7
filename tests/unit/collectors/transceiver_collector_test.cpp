// The transceiver collector (collectors/transceiver_collector.cpp) over the file source and a
// counting wrapper: which series each kind of module gives, which pages a run reads (identity once,
// again after a swap), the backoff of a failing port, and "no module" as no data.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/module_eeprom_source.hpp"
#include "config/config.hpp"
#include "sim/module_image.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

class CountingSource final : public ModuleEepromSource {
 public:
  explicit CountingSource(std::unique_ptr<ModuleEepromSource> inner) : inner_(std::move(inner)) {}
  Status read(const std::string& ifname, const EepromRead& r, std::span<uint8_t> out) override {
    ++reads[ifname];
    if (r.offset >= 128) ++pageReads[{ifname, r.page}];
    if (failWith != 0 && (failOnly.empty() || failOnly == ifname)) return Error{"injected", failWith};
    return inner_->read(ifname, r, out);
  }
  std::map<std::string, int> reads;
  std::map<std::pair<std::string, int>, int> pageReads;
  int failWith = 0;
  std::string failOnly;  ///< fail only this interface's reads ("": every one)

 private:
  std::unique_ptr<ModuleEepromSource> inner_;
};

class TransceiverCollectorTest : public ::testing::Test {
 protected:
  TransceiverCollectorTest() {
    Sources sources;
    sources.moduleEeprom = source_;
    collector_ = makeCollector("transceiver", sources, Config{});
    topology_.netdevs = {Netdev{"cmis0", "", "mlx5_0", 1, ""}, Netdev{"dac0", "", "mlx5_1", 1, ""},
                         Netdev{"none0", "", "mlx5_2", 1, ""}, Netdev{"q28", "", "mlx5_3", 1, ""},
                         Netdev{"sfp0", "", "", 0, ""}};
    write("cmis0", sim::cmis400gModule("C1", true));
    write("dac0", sim::passiveCopperCable("D1"));
    write("q28", sim::qsfp28Module("Q1"));
    write("sfp0", sim::sfp28Module("S1"));
  }

  void write(const std::string& ifname, const sim::ModuleParams& p) {
    const auto image = sim::buildModuleImage(p);
    std::ofstream(dir_.path() / (ifname + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(image.data()),
               static_cast<std::streamsize>(image.size()));
  }

  struct Run {
    CollectStatus status;
    uint64_t errors;
    std::map<std::string, double> values;  ///< by series key
    std::set<std::string> unread;          ///< Batch::unread, by series key
  };
  Run poll() {
    Batch batch;
    CollectOutput out(batch, errors_);
    const std::vector<Sample>& samples = batch.samples;
    Run r{collector_->collect(topology_, out), 0, {}, {}};
    r.errors = out.errorCount();
    for (const Sample& s : samples) r.values[s.series->key] = s.value;
    for (const SeriesPtr& s : batch.unread) r.unread.insert(s->key);
    return r;
  }
  static size_t count(const Run& r, std::string_view prefix) {
    size_t n = 0;
    for (const auto& [k, v] : r.values) n += k.starts_with(prefix);
    return n;
  }

  testing::TempDir dir_{"fabricmon-transceiver"};
  std::shared_ptr<CountingSource> source_ =
      std::make_shared<CountingSource>(makeModuleEepromFileSource(dir_.path()));
  std::unique_ptr<Collector> collector_;
  Topology topology_;
  ErrorTracker errors_{"transceiver"};
};

TEST_F(TransceiverCollectorTest, EveryKindOfModuleGivesItsSeries) {
  const Run r = poll();
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_info{"), 4u);  // none0 has no image: no module
  EXPECT_EQ(count(r, "fabricmon_transceiver_info{interface=\"dac0\""), 1u);
  EXPECT_EQ(r.values.count("fabricmon_transceiver_info{interface=\"dac0\",type=\"QSFP28\",spec="
                           "\"sff8636\",vendor=\"FABRICSIM\","
                           "part_number=\"FS-Q28-CR4-2M\",serial_number=\"D1\",revision=\"A1\","
                           "connector=\"No separable "
                           "connector\",media=\"passive_copper\",cable_length_meters=\"2\",dom="
                           "\"false\",checksum=\"ok\"}"),
            1u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_temperature_celsius{interface=\"dac0\""), 0u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_flag{interface=\"dac0\""), 0u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_rx_power_watts{interface=\"cmis0\""), 4u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_rx_power_watts{interface=\"q28\""), 4u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_rx_power_watts{interface=\"sfp0\""), 1u);
  EXPECT_DOUBLE_EQ(
      r.values.at("fabricmon_transceiver_rx_power_watts{interface=\"cmis0\",lane=\"2\"}"), 0.85e-3);
  EXPECT_DOUBLE_EQ(r.values.at("fabricmon_transceiver_rx_power_threshold_watts{interface=\"q28\","
                               "level=\"low_warning\"}"),
                   0.1e-3);
  EXPECT_EQ(
      r.values.at("fabricmon_transceiver_flag{interface=\"cmis0\",quantity=\"temperature\",level="
                  "\"high_alarm\",lane=\"\"}"),
      0.0);
  // 5 quantities x 4 levels at module level (2) or per lane (3 x 4 lanes).
  EXPECT_EQ(count(r, "fabricmon_transceiver_flag{interface=\"cmis0\""), 2u * 4 + 3u * 4 * 4);
  EXPECT_EQ(count(r, "fabricmon_transceiver_flag{interface=\"sfp0\""), 5u * 4);
}

TEST_F(TransceiverCollectorTest, IdentityPagesOnceThenAgainAfterASwap) {
  poll();
  EXPECT_EQ((source_->pageReads[{"cmis0", 0x02}]), 1);
  EXPECT_EQ((source_->pageReads[{"cmis0", 0x11}]), 1);
  EXPECT_EQ((source_->pageReads[{"q28", 0x03}]), 1);
  const int cmisReads = source_->reads["cmis0"];
  poll();
  poll();
  EXPECT_EQ((source_->pageReads[{"cmis0", 0x02}]), 1);  // thresholds: not again
  EXPECT_EQ((source_->pageReads[{"cmis0", 0x11}]), 3);  // lane monitors: every run
  // Every further run: lower page, the 16-byte serial, page 11h.
  EXPECT_EQ(source_->reads["cmis0"], cmisReads + 2 * 3);
  // A new module of the same type: new serial, new identity, thresholds read again.
  sim::ModuleParams swapped = sim::cmis400gModule("C2", true);
  swapped.thresholds[4][2] = 0.2e-3;
  write("cmis0", swapped);
  const Run r = poll();
  EXPECT_EQ((source_->pageReads[{"cmis0", 0x02}]), 2);
  EXPECT_EQ(count(r,
                  "fabricmon_transceiver_info{interface=\"cmis0\",type=\"OSFP\",spec=\"cmis\","
                  "vendor=\"FABRICSIM\","
                  "part_number=\"FS-OSFP-400G-DR4\",serial_number=\"C2\""),
            1u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_info{interface=\"cmis0\""),
            1u);  // the old module's series left
  EXPECT_NEAR(r.values.at("fabricmon_transceiver_rx_power_threshold_watts{interface=\"cmis0\","
                          "level=\"low_warning\"}"),
              0.2e-3, 1e-12);
  // SFF-8472: the serial is in the A0h lower half read every run.
  write("sfp0", sim::sfp28Module("S2"));
  EXPECT_EQ(
      count(poll(),
            "fabricmon_transceiver_info{interface=\"sfp0\",type=\"SFP\",spec=\"sff8472\",vendor="
            "\"FABRICSIM\",part_number=\"FS-SFP28-SR\",serial_number=\"S2\""),
      1u);
}

TEST_F(TransceiverCollectorTest, FailingPortBacksOffAndRecovers) {
  topology_.netdevs = {Netdev{"q28", "", "mlx5_3", 1, ""}};
  source_->failWith = EIO;
  std::vector<int> attempted;
  for (int run = 0; run < 12; ++run) {
    const int before = source_->reads["q28"];
    const Run r = poll();
    attempted.push_back(source_->reads["q28"] != before);
    if (attempted.back()) {
      EXPECT_EQ(r.errors, 1u);
      EXPECT_EQ(r.status, CollectStatus::kFailed);  // the only port failed: the run did
    }
  }
  // Tried, skip 1, tried, skip 3, tried, skip 7.
  EXPECT_EQ(attempted, (std::vector<int>{1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0}));
  source_->failWith = 0;
  for (int run = 0; run < 3; ++run) poll();  // the rest of the 7
  const Run r = poll();
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_info{interface=\"q28\""), 1u);
}

// While a port's module cannot be read (the failing run and the runs it backs off), the series of
// its last good read are unread, not gone (Batch::unread: the watchdog holds their findings); the
// other ports report as usual. An empty cage lets them go.
TEST_F(TransceiverCollectorTest, AFailingPortsSeriesAreUnreadUntilItReadsAgain) {
  topology_.netdevs = {Netdev{"q28", "", "mlx5_3", 1, ""}, Netdev{"sfp0", "", "", 0, ""}};
  const Run good = poll();
  std::set<std::string> q28;
  for (const auto& [key, value] : good.values) {
    if (key.find("interface=\"q28\"") != std::string::npos) q28.insert(key);
  }
  ASSERT_GT(q28.size(), 20u);
  EXPECT_TRUE(good.unread.empty());
  source_->failWith = EIO;
  source_->failOnly = "q28";
  for (int run = 0; run < 4; ++run) {  // tried, skipped, tried, skipped
    const Run r = poll();
    EXPECT_EQ(r.status, CollectStatus::kOk) << "sfp0 still reads";
    EXPECT_EQ(r.unread, q28) << "run " << run;
    EXPECT_EQ(count(r, "fabricmon_transceiver_info{interface=\"q28\""), 0u);
    EXPECT_EQ(count(r, "fabricmon_transceiver_info{interface=\"sfp0\""), 1u);
  }
  source_->failWith = 0;
  for (int run = 0; run < 3; ++run) poll();  // the rest of the backoff
  const Run back = poll();
  EXPECT_TRUE(back.unread.empty());
  EXPECT_EQ(count(back, "fabricmon_transceiver_info{interface=\"q28\""), 1u);
  std::filesystem::remove(dir_.path() / "q28.bin");  // the module pulled: no module, nothing held
  const Run empty = poll();
  EXPECT_TRUE(empty.unread.empty());
  EXPECT_EQ(count(empty, "fabricmon_transceiver_info{interface=\"q28\""), 0u);
}

TEST_F(TransceiverCollectorTest, NoModuleAnywhereIsNoData) {
  topology_.netdevs = {Netdev{"none0", "", "mlx5_2", 1, ""}};
  const Run r = poll();
  EXPECT_EQ(r.status, CollectStatus::kNoData);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_TRUE(r.values.empty());
}

TEST_F(TransceiverCollectorTest, UnknownModuleIsAnErrorOfThatPortOnly) {
  std::vector<uint8_t> image = sim::buildModuleImage(sim::qsfp28Module("Q1"));
  image[0] = 0x42;
  std::ofstream(dir_.path() / "q28.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(image.data()),
             static_cast<std::streamsize>(image.size()));
  const Run r = poll();
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_info{interface=\"q28\""), 0u);
  EXPECT_EQ(count(r, "fabricmon_transceiver_info{"), 3u);
}

}  // namespace
}  // namespace fabricmon

namespace fabricmon {
namespace {

// The real kernel: netlink ETHTOOL_MSG_MODULE_EEPROM_GET, then the ioctl. `lo` has no module
// (EOPNOTSUPP = no data); an interface that does not exist is an error.
TEST(ModuleEepromKernelSource, LoopbackHasNoModuleAndAMissingInterfaceIsAnError) {
  std::vector<std::unique_ptr<ModuleEepromSource>> sources;
  sources.push_back(makeModuleEepromKernelSource());
  sources.push_back(makeModuleEepromIoctlSource());
  for (auto& source : sources) {
    std::array<uint8_t, 128> buf{};
    const Status lo = source->read("lo", EepromRead{0x50, 0, 0, 0, 128}, buf);
    ASSERT_FALSE(lo.ok());
    EXPECT_EQ(lo.error().errnum, EOPNOTSUPP) << lo.error().message;
    const Status missing = source->read("fmnosuch0", EepromRead{0x50, 0, 0, 0, 128}, buf);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().errnum, ENODEV) << missing.error().message;
    const Status bad =
        source->read("lo", EepromRead{0x50, 0, 0, 100, 64}, std::span<uint8_t>(buf).first(64));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().errnum,
              EINVAL);  // crosses the half-page boundary: refused before the kernel
  }
}

}  // namespace
}  // namespace fabricmon
