// The YAML DCB file source (docs/contract.md §2): valid, missing, empty, garbage, out-of-range,
// FIFO.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>

#include "collectors/sources/dcb_file_source.hpp"
#include "collectors/sources/dcb_source.hpp"
#include "qos_test_support.hpp"

namespace fabricmon {
namespace {

using qos_test::openFdCount;
using qos_test::replaceFile;
using qos_test::TempDir;
using qos_test::writeFile;

const std::filesystem::path kFixtures = QOS_FIXTURE_DIR;

TEST(DcbFileSource, ReadsTheContractExample) {
  auto source = makeDcbFileSource(kFixtures / "dcb");
  auto r = source->read("eth0");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->has_value());
  const DcbInfo& info = **r;
  for (unsigned p = 0; p < 8; ++p) EXPECT_EQ(info.pfcEnabled[p], p == 3) << "priority " << p;
  ASSERT_TRUE(info.trust.has_value());
  EXPECT_EQ(*info.trust, "dscp");
  EXPECT_EQ(info.dscpToPriority, (std::map<unsigned, unsigned>{{26, 3}, {48, 6}}));
  EXPECT_FALSE(info.pfcRequests.has_value());
  EXPECT_FALSE(info.dcbxMode.has_value());
  EXPECT_FALSE(info.stormPreventionTimeoutMs.has_value());
}

TEST(DcbFileSource, ReadsTheOptionalNetlinkFields) {
  auto r = makeDcbFileSource(kFixtures / "dcb")->read("eth1");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->has_value());
  const DcbInfo& info = **r;
  EXPECT_TRUE(info.pfcEnabled[3]);
  EXPECT_TRUE(info.pfcEnabled[4]);
  EXPECT_FALSE(info.pfcEnabled[0]);
  EXPECT_EQ(*info.trust, "pcp");
  EXPECT_TRUE(info.dscpToPriority.empty());
  ASSERT_TRUE(info.pfcRequests && info.pfcIndications);
  EXPECT_EQ((*info.pfcRequests)[3], 1234u);
  EXPECT_EQ((*info.pfcRequests)[4], 7u);
  EXPECT_EQ((*info.pfcIndications)[3], 5678u);
  EXPECT_EQ(info.dcbxMode, 9u);
  EXPECT_EQ(info.stormPreventionTimeoutMs, 100u);
}

TEST(DcbFileSource, MissingFileIsNoInformationNotAnError) {
  TempDir dir;
  auto r = makeDcbFileSource(dir.path())->read("eth7");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->has_value());
  // A dcb_dir that does not exist at all behaves the same.
  auto r2 = makeDcbFileSource(dir.path() / "nowhere")->read("eth7");
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(r2->has_value());
}

TEST(DcbFileSource, EmptyPfcListMeansNoPriority) {
  TempDir dir;
  writeFile(dir.path() / "eth0", "pfc_enabled: []\n");
  auto r = makeDcbFileSource(dir.path())->read("eth0");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->has_value());
  for (bool on : (*r)->pfcEnabled) EXPECT_FALSE(on);
  EXPECT_FALSE((*r)->trust.has_value());
}

struct BadFile {
  const char* name;
  const char* content;
  const char* messagePart;  // the error must say what is wrong
};

class DcbFileSourceBad : public ::testing::TestWithParam<BadFile> {};

TEST_P(DcbFileSourceBad, IsAnErrorForThatPoll) {
  const BadFile& c = GetParam();
  TempDir dir;
  writeFile(dir.path() / "eth0", c.content);
  auto r = makeDcbFileSource(dir.path())->read("eth0");
  ASSERT_FALSE(r.ok()) << c.name << " was accepted";
  EXPECT_NE(r.error().message.find(c.messagePart), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find((dir.path() / "eth0").string()), std::string::npos)
      << "error must name the file: " << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Table, DcbFileSourceBad,
    ::testing::Values(
        BadFile{"empty", "", "empty"}, BadFile{"blank", "\n   \n\t\n", "empty"},
        BadFile{"comment_only", "# nothing here\n", "empty"},
        BadFile{"unclosed_flow_list", "pfc_enabled: [3\ntrust: dscp\n", "YAML"},
        BadFile{"binary_garbage",
                "\x01\x02\xff\xfe{{{:::", "unknown key \"????{{{::\""},  // yaml-cpp: a map key
        BadFile{"unclosed_flow_map", "{pfc_enabled: [3]\n", "YAML"},
        BadFile{"scalar_document", "hello\n", "mapping"},
        BadFile{"priority_8", "pfc_enabled: [8]\n", "above 7"},
        BadFile{"negative_priority", "pfc_enabled: [-1]\n", "not an unsigned number"},
        BadFile{"fractional_priority", "pfc_enabled: [3.5]\n", "not an unsigned number"},
        BadFile{"priority_not_a_list", "pfc_enabled: 3\n", "list"},
        BadFile{"missing_pfc", "trust: dscp\n", "pfc_enabled is missing"},
        BadFile{"bad_trust", "pfc_enabled: [3]\ntrust: vlan\n", "dscp or pcp"},
        BadFile{"dscp_64", "pfc_enabled: [3]\ndscp_to_priority: {64: 3}\n", "above 63"},
        BadFile{"dscp_prio_9", "pfc_enabled: [3]\ndscp_to_priority: {26: 9}\n", "above 7"},
        BadFile{"dscp_map_is_list", "pfc_enabled: [3]\ndscp_to_priority: [26, 3]\n", "mapping"},
        BadFile{"typo_key", "pfc_enable: [3]\n", "unknown key"},
        BadFile{"seven_requests", "pfc_enabled: [3]\npfc_requests: [1,2,3,4,5,6,7]\n",
                "8 counters"},
        BadFile{"timeout_too_big", "pfc_enabled: [3]\nstorm_prevention_timeout_ms: 70000\n",
                "above 65535"}),
    [](const ::testing::TestParamInfo<BadFile>& info) { return std::string(info.param.name); });

TEST(DcbFileSource, FifoIsAnErrorAndDoesNotBlock) {
  TempDir dir;
  const auto fifo = dir.path() / "eth0";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  // Nobody ever writes the FIFO: a reader that opened it blocking would hang here forever.
  auto r = makeDcbFileSource(dir.path())->read("eth0");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos) << r.error().message;
}

TEST(DcbFileSource, DirectoryInsteadOfFileIsAnError) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "eth0");
  auto r = makeDcbFileSource(dir.path())->read("eth0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().errnum, EISDIR);
}

TEST(DcbFileSource, PathLikeInterfaceNamesAreRejected) {
  TempDir dir;
  writeFile(dir.path() / "sub" / "x", "pfc_enabled: [3]\n");
  auto source = makeDcbFileSource(dir.path());
  EXPECT_FALSE(source->read("sub/x").ok());
  EXPECT_FALSE(source->read("..").ok());
  EXPECT_FALSE(source->read("").ok());
}

TEST(DcbFileSource, RereadsTheFileAtEveryPoll) {
  TempDir dir;
  auto source = makeDcbFileSource(dir.path());
  writeFile(dir.path() / "eth0", "pfc_enabled: [3]\n");
  auto first = source->read("eth0");
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_TRUE((*first)->pfcEnabled[3]);

  writeFile(dir.path() / "eth0", "pfc_enabled: [5]\ntrust: pcp\n");
  auto second = source->read("eth0");
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_FALSE((*second)->pfcEnabled[3]);
  EXPECT_TRUE((*second)->pfcEnabled[5]);

  std::filesystem::remove(dir.path() / "eth0");
  auto third = source->read("eth0");
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->has_value());
}

void expectSameInfo(const DcbInfo& a, const DcbInfo& b) {
  EXPECT_EQ(a.pfcEnabled, b.pfcEnabled);
  EXPECT_EQ(a.trust, b.trust);
  EXPECT_EQ(a.dscpToPriority, b.dscpToPriority);
  EXPECT_EQ(a.pfcRequests, b.pfcRequests);
  EXPECT_EQ(a.pfcIndications, b.pfcIndications);
  EXPECT_EQ(a.dcbxMode, b.dcbxMode);
  EXPECT_EQ(a.stormPreventionTimeoutMs, b.stormPreventionTimeoutMs);
}

TEST(DcbFileSource, UnchangedFileGivesTheSameResultEveryRead) {
  auto source = makeDcbFileSource(kFixtures / "dcb");
  auto first = source->read("eth1");
  ASSERT_TRUE(first.ok() && first->has_value());
  for (int i = 0; i < 3; ++i) {
    auto again = source->read("eth1");
    ASSERT_TRUE(again.ok() && again->has_value()) << i;
    expectSameInfo(**first, **again);
  }
  // Another interface's file is cached on its own.
  auto eth0 = source->read("eth0");
  ASSERT_TRUE(eth0.ok() && eth0->has_value());
  EXPECT_EQ(*(*eth0)->trust, "dscp");
  auto eth1 = source->read("eth1");
  ASSERT_TRUE(eth1.ok() && eth1->has_value());
  expectSameInfo(**first, **eth1);
}

TEST(DcbFileSource, SameSizeChangeInPlaceAndReplacementShowOnTheNextRead) {
  TempDir dir;
  auto source = makeDcbFileSource(dir.path());
  const auto file = dir.path() / "eth0";
  writeFile(file, "pfc_enabled: [3]\n");
  ASSERT_TRUE((*source->read("eth0"))->pfcEnabled[3]);

  writeFile(file, "pfc_enabled: [4]\n");  // same size, rewritten in place
  auto inPlace = source->read("eth0");
  ASSERT_TRUE(inPlace.ok() && inPlace->has_value()) << inPlace.error().message;
  EXPECT_FALSE((*inPlace)->pfcEnabled[3]);
  EXPECT_TRUE((*inPlace)->pfcEnabled[4]);

  replaceFile(file, "pfc_enabled: [6]\ntrust: pcp\n");  // atomic update: a new inode
  auto replaced = source->read("eth0");
  ASSERT_TRUE(replaced.ok() && replaced->has_value()) << replaced.error().message;
  EXPECT_FALSE((*replaced)->pfcEnabled[4]);
  EXPECT_TRUE((*replaced)->pfcEnabled[6]);
  EXPECT_EQ((*replaced)->trust, "pcp");

  replaceFile(file, "pfc_enabled: [4]\n");  // back to bytes parsed before
  auto back = source->read("eth0");
  ASSERT_TRUE(back.ok() && back->has_value());
  EXPECT_TRUE((*back)->pfcEnabled[4]);
  EXPECT_FALSE((*back)->trust.has_value());
}

TEST(DcbFileSource, AnErrorIsNeverAnsweredFromTheCache) {
  TempDir dir;
  auto source = makeDcbFileSource(dir.path());
  const auto file = dir.path() / "eth0";
  const std::string good = "pfc_enabled: [3]\ntrust: dscp\n";
  writeFile(file, good);
  ASSERT_TRUE(source->read("eth0").ok());

  writeFile(file, "pfc_enabled: [3\n");  // broken
  EXPECT_FALSE(source->read("eth0").ok());
  EXPECT_FALSE(source->read("eth0").ok());  // every poll until fixed
  writeFile(file, good);
  auto fixed = source->read("eth0");
  ASSERT_TRUE(fixed.ok() && fixed->has_value());
  EXPECT_TRUE((*fixed)->pfcEnabled[3]);

  writeFile(file, "");  // emptied in place
  auto empty = source->read("eth0");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().errnum, ENODATA);

  writeFile(file, good);
  ASSERT_TRUE(source->read("eth0").ok());
  std::filesystem::remove(file);
  const std::string fifoTmp = file.string() + ".fifo";
  ASSERT_EQ(::mkfifo(fifoTmp.c_str(), 0644), 0);
  std::filesystem::rename(fifoTmp, file);  // a FIFO where the file was: an error, not a block
  auto fifo = source->read("eth0");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("not a regular file"), std::string::npos)
      << fifo.error().message;
  std::filesystem::remove(file);
  std::filesystem::create_directory(file);
  auto asDir = source->read("eth0");
  ASSERT_FALSE(asDir.ok());
  EXPECT_EQ(asDir.error().errnum, EISDIR);

  std::filesystem::remove(file);
  auto missing = source->read("eth0");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  writeFile(file, good);
  auto again = source->read("eth0");
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_TRUE((*again)->pfcEnabled[3]);
}

TEST(DcbFileSource, KeepsOneDescriptorPerFileAndClosesItWhenTheFileGoes) {
  TempDir dir;
  auto source = makeDcbFileSource(dir.path());
  writeFile(dir.path() / "eth0", "pfc_enabled: [3]\n");
  const size_t before = openFdCount();
  ASSERT_TRUE(source->read("eth0").ok());
  EXPECT_EQ(openFdCount(), before + 1);
  ASSERT_TRUE(source->read("eth0").ok());
  EXPECT_EQ(openFdCount(), before + 1);
  ASSERT_TRUE(source->read("eth7").ok());  // no file: nothing kept
  EXPECT_EQ(openFdCount(), before + 1);
  std::filesystem::remove(dir.path() / "eth0");
  auto gone = source->read("eth0");
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  EXPECT_EQ(openFdCount(), before);
}

TEST(DcbFileSource, LargeFilesAreReadWholeAndTooLargeIsAnError) {
  TempDir dir;
  std::string text = "pfc_enabled: [3]\n";
  while (text.size() < 20000) text += "# padding to make the file span several reads\n";
  text += "trust: pcp\n";  // only seen when the whole file was read
  writeFile(dir.path() / "eth0", text);
  auto source = makeDcbFileSource(dir.path());
  for (int i = 0; i < 2; ++i) {
    auto r = source->read("eth0");
    ASSERT_TRUE(r.ok() && r->has_value()) << r.error().message;
    EXPECT_EQ((*r)->trust, "pcp");
  }
  while (text.size() <= 64 * 1024) text += "# padding to make the file span several reads\n";
  writeFile(dir.path() / "eth0", text);
  auto tooLarge = source->read("eth0");
  ASSERT_FALSE(tooLarge.ok());
  EXPECT_EQ(tooLarge.error().errnum, EFBIG);
}

}  // namespace
}  // namespace fabricmon
