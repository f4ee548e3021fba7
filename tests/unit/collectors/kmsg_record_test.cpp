// The kernel log record parser (collectors/sources/kmsg_record.cpp) and the file source of
// kmsg-formatted records (collectors/sources/kmsg_file_source.cpp): well-formed records as
// /dev/kmsg hands them out, and hostile bytes that must be refused without harm.
#include "collectors/sources/kmsg_record.hpp"

#include <sys/stat.h>

#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "collectors/sources/kernel_log_source.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

TEST(KmsgRecord, ParsesHeaderMessageAndDictionary) {
  // A dev_err() record as /dev/kmsg returns it (Documentation/ABI/testing/dev-kmsg).
  const auto r = parseKmsgRecord(
      "3,1234,5678901234,-;mlx5_core 0000:3b:00.0: poll_health:800:(pid 0): Fatal error 1 detected\n"
      " SUBSYSTEM=pci\n"
      " DEVICE=+pci:0000:3b:00.0\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->facility, 0u);
  EXPECT_EQ(r->level, 3u);
  EXPECT_EQ(r->sequence, 1234u);
  EXPECT_EQ(r->timestampUsec, 5678901234u);
  EXPECT_EQ(r->message, "mlx5_core 0000:3b:00.0: poll_health:800:(pid 0): Fatal error 1 detected");
  EXPECT_EQ(r->subsystem, "pci");
  EXPECT_EQ(r->pciDevice(), "0000:3b:00.0");
}

TEST(KmsgRecord, UserWrittenRecordCarriesTheUserFacility) {
  // What `echo '<3>mlx5_core ...' > /dev/kmsg` reads back as: PRI 11 = facility 1, level 3.
  const auto r = parseKmsgRecord("11,345,2600956068,-;mlx5_core 0000:63:00.0: cmd_work_handler: x\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->facility, 1u);
  EXPECT_EQ(r->level, 3u);
  EXPECT_EQ(r->pciDevice(), "");
}

TEST(KmsgRecord, ToleratesMissingFlagsAndExtraHeaderFields) {
  EXPECT_TRUE(parseKmsgRecord("6,1,2;hello"));
  const auto r = parseKmsgRecord("6,1,2,-,caller=T1;hello\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->message, "hello");
}

TEST(KmsgRecord, RefusesMalformedHeaders) {
  for (const char* bad : {"", ";", "3;x", "3,4;x", "a,1,2,-;x", "3,-1,2,-;x", "3,1,2.5,-;x", "1024,1,2,-;x",
                          "3,99999999999999999999999,2,-;x", "3,1,2,-", " 3,1,2,-;x", "3,,2,-;x"}) {
    EXPECT_FALSE(parseKmsgRecord(bad)) << bad;
  }
}

TEST(KmsgRecord, DeviceLineMustNameAPciFunction) {
  for (const char* dev : {"+pci:0000:3b:00", "+pci:0000:3b:00.8", "+pci:0000:3B:00.0", "+usb:1-1", "n3",
                          "+pci:0000:3b:00.0x", "+pci:"}) {
    const auto r = parseKmsgRecord(std::string("3,1,2,-;m\n DEVICE=") + dev + "\n");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->pciDevice(), "") << dev;
  }
}

TEST(KmsgRecord, CapsMessageAndDictionaryValues) {
  const std::string longText(10000, 'x');
  const auto r = parseKmsgRecord("3,1,2,-;" + longText + "\n DEVICE=" + longText + "\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->message.size(), kKmsgMaxMessage);
  EXPECT_LE(r->device.size(), 128u);
}

TEST(KmsgRecord, SurvivesRandomBytes) {
  // A stand-in for the fuzzer: arbitrary bytes after a valid header and instead of it.
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(rng() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 256);
    if (i % 2 == 0) bytes = "3,1,2,-;" + bytes;
    const auto r = parseKmsgRecord(bytes);
    if (r) {
      EXPECT_LE(r->message.size(), kKmsgMaxMessage);
      EXPECT_LE(r->facility, 127u);
    }
  }
}

TEST(KmsgRecord, PciAddressForm) {
  EXPECT_TRUE(isPciAddress("0000:3b:00.0"));
  EXPECT_TRUE(isPciAddress("10de:ff:1f.7"));
  EXPECT_FALSE(isPciAddress("0000:3b:00.0 "));
  EXPECT_FALSE(isPciAddress("0000-3b:00.0"));
  EXPECT_FALSE(isPciAddress("00003b:00.0"));
  // Behind a VMD controller the domain has more than 4 digits (vmd.c numbers them from 0x10000).
  EXPECT_TRUE(isPciAddress("10000:e1:00.0"));
  EXPECT_TRUE(isPciAddress("ffffffff:01:00.1"));
  EXPECT_FALSE(isPciAddress("100000000:01:00.0")) << "more than an int's 8 digits";
  EXPECT_FALSE(isPciAddress("000:3b:00.0")) << "fewer than the 4 digits of %04x";
  EXPECT_FALSE(isPciAddress("1000g:e1:00.0"));
  EXPECT_FALSE(isPciAddress("10000:e1:00.8"));
  const auto r = parseKmsgRecord("3,1,2,-;m\n DEVICE=+pci:10000:e1:00.0\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->pciDevice(), "10000:e1:00.0");
}

TEST(KmsgText, SplitsRecordsWithTheirDictionaries) {
  const std::string text =
      "3,1,10,-;first\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n6,2,20,-;second\n4,3,30,-;third";
  size_t consumed = 0;
  const auto records = splitKmsgText(text, consumed);
  ASSERT_EQ(records.size(), 2u);  // the third has no newline yet
  EXPECT_EQ(records[0], "3,1,10,-;first\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n");
  EXPECT_EQ(records[1], "6,2,20,-;second\n");
  EXPECT_EQ(consumed, text.find("4,3"));
}

TEST(KmsgFileSource, ReadsAppendedRecordsAndCountsGaps) {
  testing::TempDir dir;
  const auto path = (dir.path() / "kmsg").string();
  auto source = makeKmsgFileSource(path);
  KernelLogRead read;
  ASSERT_TRUE(source->read(read, 100));  // no file yet: nothing logged
  EXPECT_TRUE(read.records.empty());

  std::ofstream(path) << "3,10,1,-;a\n DEVICE=+pci:0000:3b:00.0\n3,11,2,-;b\n";
  ASSERT_TRUE(source->read(read, 100));
  ASSERT_EQ(read.records.size(), 2u);
  EXPECT_EQ(read.records[0].pciDevice(), "0000:3b:00.0");
  EXPECT_EQ(read.lost, 0u);

  read = {};
  std::ofstream(path, std::ios::app) << "3,15,3,-;c\ngarbage\n";
  ASSERT_TRUE(source->read(read, 100));
  ASSERT_EQ(read.records.size(), 1u);
  EXPECT_EQ(read.records[0].message, "c");
  EXPECT_EQ(read.lost, 3u);  // 12, 13, 14
  EXPECT_EQ(read.malformed, 1u);

  read = {};
  ASSERT_TRUE(source->read(read, 100));  // nothing new
  EXPECT_TRUE(read.records.empty());
}

TEST(KmsgFileSource, ReadsAReplacedFileFromItsStart) {
  testing::TempDir dir;
  const auto path = dir.path() / "kmsg";
  auto source = makeKmsgFileSource(path.string());
  std::ofstream(path) << "3,1,1,-;one\n3,2,1,-;two\n";
  KernelLogRead read;
  ASSERT_TRUE(source->read(read, 100));
  ASSERT_EQ(read.records.size(), 2u);
  std::filesystem::remove(path);
  std::ofstream(path) << "3,1,1,-;again\n";
  read = {};
  ASSERT_TRUE(source->read(read, 100));
  ASSERT_EQ(read.records.size(), 1u);
  EXPECT_EQ(read.records[0].message, "again");
}

TEST(KmsgFileSource, HonoursTheRecordLimitPerRead) {
  testing::TempDir dir;
  const auto path = dir.path() / "kmsg";
  std::ofstream(path) << "3,1,1,-;one\n3,2,1,-;two\n3,3,1,-;three\n";
  auto source = makeKmsgFileSource(path.string());
  KernelLogRead read;
  ASSERT_TRUE(source->read(read, 2));
  EXPECT_EQ(read.records.size(), 2u);
  read = {};
  ASSERT_TRUE(source->read(read, 2));
  ASSERT_EQ(read.records.size(), 1u);
  EXPECT_EQ(read.records[0].message, "three");
}

TEST(KmsgSource, OnlyTheKernelLogDeviceIsTheKernelLog) {
  // Inside a container /dev/kmsg is often a FIFO of the container's own writes (systemd-nspawn) or
  // missing: no kernel log to read, ENODEV/ENOENT (the collector reports "no data", not a fault).
  testing::TempDir dir;
  const auto fifo = dir.path() / "kmsg-fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  dir.write("kmsg-file", "6,1,0,-;hello\n");
  for (const auto& [path, errnum] : {std::pair{fifo, ENODEV}, std::pair{dir.path() / "kmsg-file", ENODEV},
                                     std::pair{dir.path() / "absent", ENOENT}}) {
    auto source = makeKmsgSource(path.string());
    KernelLogRead read;
    const Status st = source->read(read, 10);
    ASSERT_FALSE(st.ok()) << path;
    EXPECT_EQ(st.error().errnum, errnum) << path << ": " << st.error().message;
    EXPECT_FALSE(read.accessDenied);
    EXPECT_TRUE(read.records.empty());
  }
}

}  // namespace
}  // namespace fabricmon
