// The pcie_aer collector (collectors/pcie_aer_collector.cpp): its parser against the kernel's
// format and hostile text, and the collector over a PCI tree laid out the way
// drivers/pci/pci-sysfs.c shows it, with the AER files of tests/fixtures/pcie_aer:
//   root port 00:01.0 - switch upstream 01:00.0 - downstream 02:00.0 - NIC 03:00.0 (mlx5_0)
//                                                                    \ NIC 03:00.1 (mlx5_1)
//                                               \ downstream 02:01.0 - NIC 04:00.0 (mlx5_2)
//   root port 80:03.0 (no AER capability) - NIC 81:00.0 (mlx5_3)
//   rxe0: a software device, no PCI function
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "collectors/error_tracker.hpp"
#include "collectors/pcie_aer_collector.hpp"
#include "collectors/registry.hpp"
#include "config/config.hpp"
#include "tests/support/collector_run.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(FABRICMON_FIXTURE_DIR) + "/pcie_aer/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::map<std::string, uint64_t> parsed(std::string_view text, AerSeverity severity) {
  auto stats = parseAerStats(text, severity);
  EXPECT_TRUE(stats.ok()) << (stats.ok() ? "" : stats.error().message);
  std::map<std::string, uint64_t> out;
  if (!stats.ok()) return out;
  for (size_t i = 0; i < stats->count; ++i)
    out[std::string(stats->entries[i].error)] = stats->entries[i].value;
  return out;
}

TEST(AerParse, TheKernelsFilesGiveEveryNamedCountAndTheTotal) {
  auto cor = parsed(fixture("aer_dev_correctable"), AerSeverity::kCorrectable);
  EXPECT_EQ(cor.size(), 9u);
  EXPECT_EQ(cor.count("RxErr"), 1u);
  EXPECT_EQ(cor.count("HeaderOF"), 1u);
  EXPECT_EQ(cor.count("total"), 1u) << "TOTAL_ERR_COR is exported as error=\"total\"";
  EXPECT_EQ(cor.count("TOTAL_ERR_COR"), 0u);
  EXPECT_EQ(parsed(fixture("aer_dev_nonfatal"), AerSeverity::kNonFatal).size(), 19u);
  auto fatal = parsed(fixture("aer_dev_fatal"), AerSeverity::kFatal);
  EXPECT_EQ(fatal.count("PoisonTLPBlocked"), 1u);
  EXPECT_EQ(fatal.count("total"), 1u);
}

TEST(AerParse, AnUnnamedBitAndTheTotalAreKeptApart) {
  auto cor = parsed(fixture("aer_dev_correctable.errors"), AerSeverity::kCorrectable);
  EXPECT_EQ(cor["BadTLP"], 12u);
  EXPECT_EQ(cor["bit_9"], 1u) << "dev_cor_errs_bit[9]: a bit the kernel has no name for";
  EXPECT_EQ(cor["total"], 19u) << "reported errors, not the sum of the bits";
}

TEST(AerParse, ATotalLineOfAnotherSeverityIsJustAName) {
  auto m = parsed("RxErr 1\nTOTAL_ERR_FATAL 4\n", AerSeverity::kCorrectable);
  EXPECT_EQ(m.count("total"), 0u);
  EXPECT_EQ(m["TOTAL_ERR_FATAL"], 4u);
}

TEST(AerParse, ALastLineWithoutNewlineAndNewKernelNamesAreFine) {
  auto m = parsed("RxErr 7\nPCRC_CHECK 2\nTOTAL_ERR_COR 9", AerSeverity::kCorrectable);
  EXPECT_EQ(m["RxErr"], 7u);
  EXPECT_EQ(m["PCRC_CHECK"], 2u);
  EXPECT_EQ(m["total"], 9u);
}

TEST(AerParse, NamesOutsideTheCharsetAreNotExported) {
  auto stats =
      parseAerStats("RxErr 1\nBad TLP 3\nRx-Err 2\nx_bit[32] 1\n\xff\xfe 4\nTOTAL_ERR_COR 1\n",
                    AerSeverity::kCorrectable);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->count, 2u);
  EXPECT_EQ(stats->rejectedNames, 4u);
  const std::string longName(65, 'A');
  auto tooLong = parseAerStats(longName + " 1\n", AerSeverity::kCorrectable);
  ASSERT_TRUE(tooLong.ok());
  EXPECT_EQ(tooLong->rejectedNames, 1u);
}

TEST(AerParse, HostileTextIsAnErrorForTheWholeFile) {
  for (const char* text : {
           "",                              // empty
           "\n\n",                          // only blank lines
           "RxErr\n",                       // no count
           "RxErr -1\n",                    // signed
           "RxErr 12abc\n",                 // garbage after the digits
           "RxErr 0x10\n",                  // not decimal
           "RxErr 18446744073709551616\n",  // beyond 64 bits
           "RxErr 18446744073709551615\n",  // 2^64-1: junk, beyond 2^53
           "RxErr 9007199254740993\n",      // 2^53+1: not exact as a sample
           "RxErr 1\r\nBadTLP 2\r\n",       // CRLF: not the kernel's
           "RxErr 1\nRxErr 2\n",            // a repeated name
           "RxErr \n",                      // an empty count
           "\x01\x02\x03garbage",           // binary garbage
       }) {
    EXPECT_FALSE(parseAerStats(text, AerSeverity::kCorrectable).ok()) << "accepted: " << text;
  }
  std::string many;
  for (int i = 0; i < 41; ++i) many += "E" + std::to_string(i) + " 0\n";
  EXPECT_FALSE(parseAerStats(many, AerSeverity::kCorrectable).ok())
      << "more lines than a status register has bits";
  EXPECT_TRUE(parseAerStats("RxErr 9007199254740992\n", AerSeverity::kCorrectable).ok())
      << "2^53 is exact";
}

class PcieAerTest : public ::testing::Test {
 protected:
  static constexpr const char* kRoot = "devices/pci0000:00/0000:00:01.0";
  const std::string up_ = std::string(kRoot) + "/0000:01:00.0";
  const std::string down0_ = up_ + "/0000:02:00.0";
  const std::string down1_ = up_ + "/0000:02:01.0";

  void SetUp() override {
    aer(kRoot);
    aer(up_);
    aer(down0_);
    aer(down1_);
    nic("mlx5_0", down0_ + "/0000:03:00.0");
    nic("mlx5_1", down0_ + "/0000:03:00.1");
    nic("mlx5_2", down1_ + "/0000:04:00.0");
    fs::create_directories(root_ / "devices/pci0000:80/0000:80:03.0");  // a root port without AER
    nic("mlx5_3", "devices/pci0000:80/0000:80:03.0/0000:81:00.0");
    fs::create_directories(root_ / "class/infiniband/rxe0");
    sysfs_ = std::make_shared<SysfsRoot>(root_);
    topology_.generation = 1;
    for (const char* d : {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "rxe0"}) {
      topology_.devices.push_back(RdmaDevice{d, "", 0, {RdmaPort{1, "Ethernet", {}}}});
    }
    Sources sources;
    sources.sysfs = sysfs_;
    collector_ = makeCollector("pcie_aer", sources, Config{});
  }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  void aer(const std::string& dir) {
    for (const char* f : {"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"})
      write(dir + "/" + f, fixture(f));
  }
  void nic(const std::string& name, const std::string& path) {
    aer(path);
    fs::create_directories(root_ / "class/infiniband" / name);
    fs::create_directory_symlink("../../../" + path, root_ / "class/infiniband" / name / "device");
  }
  testing::CollectorRun collect() { return testing::runCollector(*collector_, topology_, errors_); }
  static std::string key(const std::string& device, const std::string& pci,
                         const std::string& position, const std::string& severity,
                         const std::string& error) {
    return R"(fabricmon_pcie_aer_errors_total{device=")" + device + R"(",pci_address=")" + pci +
           R"(",position=")" + position + R"(",severity=")" + severity + R"(",error=")" + error +
           R"("})";
  }

  testing::TempDir tmp_{"fabricmon-aer"};
  const fs::path& root_ = tmp_.path();
  std::shared_ptr<SysfsRoot> sysfs_;
  Topology topology_;
  std::unique_ptr<Collector> collector_;
  ErrorTracker errors_{"pcie_aer"};
};

TEST_F(PcieAerTest, EveryFunctionOnEachPathIsReadOnceWithItsPosition) {
  auto r = collect();
  ASSERT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);
  // 8 functions with AER (80:03.0 has none, rxe0 no PCI function), the 3 totals each: an error
  // type that never happened has no series yet.
  EXPECT_EQ(r.samples, 8u * 3);
  EXPECT_EQ(r.byKey.size(), r.samples) << "no series twice: a shared port is one series";
  EXPECT_EQ(r.byKey.count(key("mlx5_0", "0000:03:00.0", "function", "correctable", "total")), 1u);
  EXPECT_EQ(r.byKey.count(key("mlx5_1", "0000:03:00.1", "function", "fatal", "total")), 1u);
  EXPECT_EQ(r.byKey.count(key("mlx5_3", "0000:81:00.0", "function", "nonfatal", "total")), 1u);
  EXPECT_EQ(r.byKey.count(key("mlx5_3", "0000:81:00.0", "function", "nonfatal", "CmpltTO")), 0u);
  // The downstream port serves the two functions of one card; the upstream and root ports all
  // three.
  EXPECT_EQ(
      r.byKey.count(key("mlx5_0,mlx5_1", "0000:02:00.0", "switch_port", "correctable", "total")),
      1u);
  EXPECT_EQ(r.byKey.count(key("mlx5_2", "0000:02:01.0", "switch_port", "correctable", "total")),
            1u);
  EXPECT_EQ(r.byKey.count(
                key("mlx5_0,mlx5_1,mlx5_2", "0000:01:00.0", "switch_port", "nonfatal", "total")),
            1u);
  EXPECT_EQ(
      r.byKey.count(key("mlx5_0,mlx5_1,mlx5_2", "0000:00:01.0", "root_port", "fatal", "total")),
      1u);
  for (const auto& [k, v] : r.byKey) EXPECT_EQ(v, 0.0) << k;
}

TEST_F(PcieAerTest, CountsAreReadAgainAtEveryRunAndATypeStaysOnceSeen) {
  collect();
  write(down0_ + "/aer_dev_correctable", fixture("aer_dev_correctable.errors"));
  auto r = collect();
  const auto down = [&](const char* error) {
    return key("mlx5_0,mlx5_1", "0000:02:00.0", "switch_port", "correctable", error);
  };
  EXPECT_EQ(r.byKey[down("BadTLP")], 12.0);
  EXPECT_EQ(r.byKey[down("bit_9")], 1.0);
  EXPECT_EQ(r.byKey[down("total")], 19.0);
  EXPECT_EQ(r.byKey.count(down("Rollover")), 0u) << "still 0: no series";
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.samples, 8u * 3 + 5);  // RxErr, BadTLP, BadDLLP, Timeout, bit_9 beside the totals
  // The function is re-enumerated: the counts start again at 0, the series stay (a reset, not a
  // gap).
  write(down0_ + "/aer_dev_correctable", fixture("aer_dev_correctable"));
  r = collect();
  EXPECT_EQ(r.byKey.count(down("BadTLP")), 1u);
  EXPECT_EQ(r.byKey[down("BadTLP")], 0.0);
}

TEST_F(PcieAerTest, ABadFileIsAPerFileErrorAndTheOthersStillReport) {
  collect();
  write(up_ + "/aer_dev_fatal", "Undefined 0\nDLP zero\nTOTAL_ERR_FATAL 0\n");
  write(down1_ + "/aer_dev_correctable", "");
  auto r = collect();
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 2u);
  EXPECT_EQ(
      r.byKey.count(key("mlx5_0,mlx5_1,mlx5_2", "0000:01:00.0", "switch_port", "fatal", "total")),
      0u)
      << "nothing of a bad file is exported";
  EXPECT_EQ(r.byKey.count(
                key("mlx5_0,mlx5_1,mlx5_2", "0000:01:00.0", "switch_port", "nonfatal", "total")),
            1u);
  EXPECT_EQ(r.samples, 8u * 3 - 2);
  // Their series are unknown this run, not gone (the watchdog holds their history).
  EXPECT_EQ(r.unread,
            (std::set<std::string>{
                key("mlx5_0,mlx5_1,mlx5_2", "0000:01:00.0", "switch_port", "fatal", "total"),
                key("mlx5_2", "0000:02:01.0", "switch_port", "correctable", "total")}));
  // Names outside the charset: the rest of the file is exported, the file counts an error.
  write(up_ + "/aer_dev_fatal", fixture("aer_dev_fatal") + "Bad Name 1\n");
  write(down1_ + "/aer_dev_correctable", fixture("aer_dev_correctable"));
  r = collect();
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(
      r.byKey.count(key("mlx5_0,mlx5_1,mlx5_2", "0000:01:00.0", "switch_port", "fatal", "total")),
      1u);
}

// A rediscovery that leaves a file's node as it was keeps the file's series: a read that fails
// right after it still reports them unread.
TEST_F(PcieAerTest, ARediscoveryKeepsWhatAFailedReadReportsUnread) {
  write(down0_ + "/aer_dev_correctable", fixture("aer_dev_correctable.errors"));
  const auto first = collect();
  const auto down = [&](const char* error) {
    return key("mlx5_0,mlx5_1", "0000:02:00.0", "switch_port", "correctable", error);
  };
  ASSERT_EQ(first.byKey.count(down("BadTLP")), 1u);
  ++topology_.generation;
  write(down0_ + "/aer_dev_correctable", "");
  const auto r = collect();
  EXPECT_EQ(r.byKey.count(down("total")), 0u);
  EXPECT_EQ(r.unread, (std::set<std::string>{down("RxErr"), down("BadTLP"), down("BadDLLP"),
                                              down("Timeout"), down("bit_9"), down("total")}));
}

TEST_F(PcieAerTest, NoAerAnywhereIsNoDataNotAnError) {
  for (auto it = fs::recursive_directory_iterator(root_ / "devices");
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename().string().starts_with("aer_dev_")) fs::remove(it->path());
  }
  ++topology_.generation;
  auto r = collect();
  EXPECT_EQ(r.status, CollectStatus::kNoData);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.samples, 0u);
}

TEST_F(PcieAerTest, ADeviceGoneTakesItsPathAlongAndTheSharedPortsNamesChange) {
  collect();
  topology_.devices.erase(topology_.devices.begin());  // mlx5_0
  ++topology_.generation;
  auto r = collect();
  EXPECT_EQ(r.samples, 7u * 3) << "its own function is no longer read";
  EXPECT_EQ(r.byKey.count(key("mlx5_1", "0000:02:00.0", "switch_port", "correctable", "total")),
            1u);
  EXPECT_EQ(
      r.byKey.count(key("mlx5_1,mlx5_2", "0000:00:01.0", "root_port", "correctable", "total")), 1u);
}

TEST_F(PcieAerTest, IsRegisteredAtTheSlowCadence) {
  EXPECT_EQ(collectorEntry("pcie_aer").cadence, Cadence::kSlow);
}

}  // namespace
}  // namespace fabricmon
