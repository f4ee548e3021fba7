// The `ethtool -S` text parser and the file source, over the real captures in
// tests/fixtures/ethtool (README.md there says where each came from).

#include "tests/support/temp_dir.hpp"
#include "collectors/sources/ethtool_text.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "collectors/sources/ethtool_source.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = FABRICMON_ETHTOOL_FIXTURES;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using StatList = std::vector<std::pair<std::string, uint64_t>>;

// ---- parser, line by line ----

struct TextCase {
  const char* name;
  const char* text;
  StatList want;
  size_t issues;
};
void PrintTo(const TextCase& c, std::ostream* os) { *os << c.name; }

class EthtoolTextTest : public ::testing::TestWithParam<TextCase> {};

TEST_P(EthtoolTextTest, Parses) {
  auto r = parseEthtoolText(GetParam().text);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->pairs(), GetParam().want);
  EXPECT_EQ(r->issues.size(), GetParam().issues) << (r->issues.empty() ? "" : r->issues.front());
}

INSTANTIATE_TEST_SUITE_P(
    Lines, EthtoolTextTest,
    ::testing::Values(
        TextCase{"plain",
                 "NIC statistics:\n     rx_packets: 1226\n     tx_bytes: 516\n",
                 {{"rx_packets", 1226}, {"tx_bytes", 516}},
                 0},
        TextCase{"trailing_space_in_name",
                 "NIC statistics:\n     rx_prio3_pause : 12\n",
                 {{"rx_prio3_pause", 12}},
                 0},
        TextCase{"blank_lines_and_crlf",
                 "\nNIC statistics:\r\n\n     a: 1\r\n\n     b: 2",
                 {{"a", 1}, {"b", 2}},
                 0},
        TextCase{"inner_space_and_dot",
                 "NIC statistics:\n     duplicate metric: 1\n     port.rx_dropped: 7\n",
                 {{"duplicate metric", 1}, {"port.rx_dropped", 7}},
                 0},
        TextCase{"colon_in_name", "NIC statistics:\n     q:0: 5\n", {{"q:0", 5}}, 0},
        TextCase{"max_u64",
                 "NIC statistics:\n     big: 18446744073709551615\n",
                 {{"big", 18446744073709551615ull}},
                 0},
        TextCase{"garbage_lines_keep_the_rest",
                 "NIC statistics:\n     a: 1\n     garbage\n     b: -3\n     c: 12abc\n     : 4\n"
                 "     d: 18446744073709551616\n     e: 5\n",
                 {{"a", 1}, {"e", 5}},
                 5},
        TextCase{"text_before_header",
                 "ethtool output (5.15)\nNIC statistics:\n     a: 1\n",
                 {{"a", 1}},
                 1},
        TextCase{
            "repeated_name_keeps_first", "NIC statistics:\n     a: 1\n     a: 2\n", {{"a", 1}}, 1},
        TextCase{"second_header_is_an_issue",
                 "NIC statistics:\n     a: 1\nNIC statistics:\n",
                 {{"a", 1}},
                 1}),
    [](const auto& info) { return std::string(info.param.name); });

struct BadCase {
  const char* name;
  const char* text;
  int errnum;
};
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class EthtoolTextBadTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(EthtoolTextBadTest, Rejects) {
  auto r = parseEthtoolText(GetParam().text);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, GetParam().errnum) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Whole, EthtoolTextBadTest,
    ::testing::Values(BadCase{"empty", "", ENODATA}, BadCase{"whitespace", " \n\n", ENODATA},
                      BadCase{"no_header", "     a: 1\n", EINVAL},
                      BadCase{"header_only", "NIC statistics:\n", EINVAL},
                      BadCase{"header_and_garbage", "NIC statistics:\n  x\n", EINVAL},
                      BadCase{"error_text", "ERROR: 1", EINVAL}),
    [](const auto& info) { return std::string(info.param.name); });

// ---- the real captures ----

// Counts `name: number` lines after the header with a regex, independently of the parser.
size_t countStatLines(const std::string& text) {
  static const std::regex kStat(R"(^\s+\S.*: [0-9]+\s*$)");
  std::istringstream in(text);
  size_t n = 0;
  bool header = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "NIC statistics:")
      header = true;
    else if (header && std::regex_match(line, kStat))
      ++n;
  }
  return n;
}

struct CaptureCase {
  const char* stats;    // file in stats/
  const char* capture;  // file in captures/
  size_t headerLines;   // lines before "NIC statistics:" in the capture
  StatList spot;        // values checked exactly
};

class EthtoolCaptureTest : public ::testing::TestWithParam<CaptureCase> {};

TEST_P(EthtoolCaptureTest, ParsesEveryStat) {
  const auto& c = GetParam();
  const std::string text = slurp(kFixtures / "stats" / c.stats);
  auto r = parseEthtoolText(text);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->issues.empty()) << r->issues.front();
  EXPECT_EQ(r->pairs().size(), countStatLines(text));
  for (const auto& [name, value] : c.spot) {
    const auto pairs = r->pairs();
    auto it = std::find_if(pairs.begin(), pairs.end(),
                           [&](const auto& s) { return s.first == name; });
    ASSERT_NE(it, pairs.end()) << name;
    EXPECT_EQ(it->second, value) << name;
  }
}

TEST_P(EthtoolCaptureTest, StatsFileIsTheCaptureWithoutItsHeader) {
  const auto& c = GetParam();
  const std::string stats = slurp(kFixtures / "stats" / c.stats);
  const std::string capture = slurp(kFixtures / "captures" / c.capture);
  ASSERT_FALSE(stats.empty());
  ASSERT_GE(capture.size(), stats.size());
  EXPECT_EQ(capture.substr(capture.size() - stats.size()), stats);
}

// The verbatim capture (provenance header included) still parses: the header lines are issues and
// every stat survives.
TEST_P(EthtoolCaptureTest, VerbatimCaptureKeepsEveryStat) {
  const auto& c = GetParam();
  auto fromCapture = parseEthtoolText(slurp(kFixtures / "captures" / c.capture));
  auto fromStats = parseEthtoolText(slurp(kFixtures / "stats" / c.stats));
  ASSERT_TRUE(fromCapture && fromStats);
  EXPECT_EQ(fromCapture->pairs(), fromStats->pairs());
  EXPECT_EQ(fromCapture->issues.size(), c.headerLines);
}

INSTANTIATE_TEST_SUITE_P(
    Real, EthtoolCaptureTest,
    ::testing::Values(CaptureCase{"cx100g",
                                  "ethtool_S_mlx5_100G_ofed_annotated_blog_trimmed.txt",
                                  3,
                                  {{"rx_packets", 1226},
                                   {"rx_prio0_bytes", 2027206797},
                                   {"rx_corrected_bits_phy", 17750739},
                                   {"rx_err_lane_3_phy", 17722623},
                                   {"tx_pause_ctrl_phy", 2},
                                   {"rx_prio0_marked", 0}}},
                      CaptureCase{"cxk515",
                                  "ethtool_S_mlx5_bpf_list_2024-06-19_kernel5.15_zero_filtered.txt",
                                  6,
                                  {{"tx_global_pause", 5745042},
                                   {"tx_global_pause_duration", 771103810},
                                   {"rx_vport_unicast_bytes", 2461450188460},
                                   {"rx0_xdp_tx_cqes", 87229139}}},
                      CaptureCase{"cxk65",
                                  "ethtool_S_mlx5_bpf_list_2024-06-19_kernel6.5_zero_filtered.txt",
                                  5,
                                  {{"tx_global_pause_duration", 5961284324},
                                   {"rx_buffer_passed_thres_phy", 1192226},
                                   {"rx_bytes_phy", 46609758231313},
                                   {"rx0_pp_recycle_cached", 3641280}}},
                      CaptureCase{"ne_eth0",
                                  "node_exporter_ethtool_fixture_eth0_statistics.txt",
                                  2,
                                  {{"port.rx_dropped", 12028},
                                   {"duplicate metric", 1},
                                   {"duplicate_metric", 2}}}),
    [](const auto& info) { return std::string(info.param.stats); });

TEST(EthtoolCaptureTest, Mlx5CaptureSizes) {
  // Whole-file counts, so a parser that silently dropped lines would fail here too.
  EXPECT_EQ(parseEthtoolText(slurp(kFixtures / "stats/cx100g"))->pairs().size(), 263u);
  EXPECT_EQ(parseEthtoolText(slurp(kFixtures / "stats/cxk515"))->pairs().size(), 101u);
  EXPECT_EQ(parseEthtoolText(slurp(kFixtures / "stats/cxk65"))->pairs().size(), 108u);
  EXPECT_EQ(parseEthtoolText(slurp(kFixtures / "stats/ne_eth0"))->pairs().size(), 16u);
}

// ---- the file source ----

using fabricmon::testing::TempDir;

TEST(EthtoolFileSourceTest, ReadsRealCaptureDirectory) {
  auto source = makeEthtoolFileSource(kFixtures / "stats");
  auto r = source->read("cxk65");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->pairs().size(), 108u);
  EXPECT_EQ(r->pairs().front(), (std::pair<std::string, uint64_t>{"rx_packets", 7282880}));

  auto bond = source->read("ne_bond0");
  ASSERT_FALSE(bond);
  EXPECT_EQ(bond.error().errnum, EINVAL);
  EXPECT_NE(bond.error().message.find("ne_bond0"), std::string::npos);
}

TEST(EthtoolFileSourceTest, MissingFileIsNoStats) {
  auto source = makeEthtoolFileSource(kFixtures / "stats");
  auto r = source->read("eth9");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, ENOENT);
}

TEST(EthtoolFileSourceTest, BadFilesAreErrorsNotHangs) {
  TempDir dir;
  dir.write("empty", "");
  dir.write("garbage", "Settings for eth0:\n\tSpeed: 1000Mb/s\n");
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
  fs::create_directory(dir.path() / "adir");
  auto source = makeEthtoolFileSource(dir.path());
  struct Want {
    const char* ifname;
    int errnum;
  };
  for (const Want& w : {Want{"empty", ENODATA}, Want{"garbage", EINVAL}, Want{"fifo", EINVAL},
                        Want{"adir", EISDIR}, Want{"../x", EINVAL}, Want{"..", EINVAL}}) {
    auto r = source->read(w.ifname);
    ASSERT_FALSE(r) << w.ifname;
    EXPECT_EQ(r.error().errnum, w.errnum) << w.ifname << ": " << r.error().message;
  }
}

TEST(EthtoolFileSourceTest, UnreadableFileIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: file permissions do not stop reads";
  TempDir dir;
  dir.write("eth0", "NIC statistics:\n     a: 1\n");
  fs::permissions(dir.path() / "eth0", fs::perms::none);
  auto r = makeEthtoolFileSource(dir.path())->read("eth0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, EACCES);
}

TEST(EthtoolFileSourceTest, RereadsTheFileEveryPollAndReportsLineIssues) {
  TempDir dir;
  dir.write("eth0", "NIC statistics:\n     a: 1\n");
  auto source = makeEthtoolFileSource(dir.path());
  EthtoolStats stats;
  ASSERT_TRUE(source->readInto("eth0", stats));
  EXPECT_EQ(stats.pairs(), (StatList{{"a", 1}}));
  dir.write("eth0", "NIC statistics:\n     a: 2\n     oops\n     b: 3\n");
  ASSERT_TRUE(source->readInto("eth0", stats));
  EXPECT_EQ(stats.pairs(), (StatList{{"a", 2}, {"b", 3}}));
  ASSERT_EQ(stats.issues.size(), 1u);
  EXPECT_NE(stats.issues[0].find("line 3"), std::string::npos) << stats.issues[0];
}

// ---- in place: parseEthtoolTextInto over the previous result ----

std::string statsText(const StatList& stats, const char* extra = "") {
  std::string t = "NIC statistics:\n";
  for (const auto& [name, value] : stats) t += "     " + name + ": " + std::to_string(value) + "\n";
  return t + extra;
}

struct InPlaceCase {
  const char* name;
  std::string before;  // parsed first, into the same EthtoolStats
  std::string after;
  bool namesUnchanged;
};
void PrintTo(const InPlaceCase& c, std::ostream* os) { *os << c.name; }

class EthtoolInPlaceTest : public ::testing::TestWithParam<InPlaceCase> {};

// Whatever the previous result, the in-place parse equals a fresh parse of the new text.
TEST_P(EthtoolInPlaceTest, EqualsAFreshParse) {
  const auto& c = GetParam();
  EthtoolStats stats;
  ASSERT_TRUE(parseEthtoolTextInto(c.before, stats));
  EXPECT_FALSE(stats.namesUnchanged);  // from empty
  auto st = parseEthtoolTextInto(c.after, stats);
  ASSERT_TRUE(st) << st.error().message;
  auto fresh = parseEthtoolText(c.after);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(stats.pairs(), fresh->pairs());
  EXPECT_EQ(stats.issues, fresh->issues);
  EXPECT_EQ(stats.namesUnchanged, c.namesUnchanged);
}

const StatList kAbc = {{"rx_prio3_pause", 1}, {"b", 2}, {"tx_vport_rdma_unicast_bytes", 3}};

INSTANTIATE_TEST_SUITE_P(
    Changes, EthtoolInPlaceTest,
    ::testing::Values(
        InPlaceCase{
            "same_names_new_values", statsText(kAbc),
            statsText({{"rx_prio3_pause", 10}, {"b", 20}, {"tx_vport_rdma_unicast_bytes", 30}}),
            true},
        InPlaceCase{"bad_line_names_unchanged", statsText(kAbc),
                    "NIC statistics:\n     rx_prio3_pause: 5\n     junk\n     b: x\n     b: 6\n"
                    "     tx_vport_rdma_unicast_bytes: 7\n",
                    true},
        InPlaceCase{
            "renamed_in_the_middle", statsText(kAbc),
            statsText({{"rx_prio3_pause", 1}, {"c", 2}, {"tx_vport_rdma_unicast_bytes", 3}}),
            false},
        InPlaceCase{
            "renamed_first_long_name", statsText(kAbc),
            statsText({{"rx_prio4_pause", 1}, {"b", 2}, {"tx_vport_rdma_unicast_bytes", 3}}),
            false},
        InPlaceCase{"added_at_the_end", statsText(kAbc), statsText(kAbc, "     d: 4\n"), false},
        InPlaceCase{
            "inserted_at_the_front", statsText(kAbc),
            statsText(
                {{"z", 0}, {"rx_prio3_pause", 1}, {"b", 2}, {"tx_vport_rdma_unicast_bytes", 3}}),
            false},
        InPlaceCase{"removed_at_the_end", statsText(kAbc),
                    statsText({{"rx_prio3_pause", 1}, {"b", 2}}), false},
        InPlaceCase{"removed_in_the_middle", statsText(kAbc),
                    statsText({{"rx_prio3_pause", 1}, {"tx_vport_rdma_unicast_bytes", 3}}), false},
        InPlaceCase{
            "reordered", statsText(kAbc),
            statsText({{"b", 2}, {"rx_prio3_pause", 1}, {"tx_vport_rdma_unicast_bytes", 3}}),
            false},
        // After the first difference, repeats of names before it and after it are still caught.
        InPlaceCase{"repeat_of_an_unchanged_name", statsText(kAbc),
                    statsText({{"rx_prio3_pause", 1},
                               {"x", 2},
                               {"rx_prio3_pause", 9},
                               {"x", 8},
                               {"tx_vport_rdma_unicast_bytes", 3}}),
                    false},
        InPlaceCase{"repeat_where_the_old_list_continued", statsText(kAbc),
                    statsText({{"rx_prio3_pause", 1}, {"rx_prio3_pause", 2}, {"b", 3}}), false},
        // Lines that start with the previous list's name but are not "<name>: <digits>" for it.
        InPlaceCase{"expected_name_is_a_prefix", statsText(kAbc),
                    "NIC statistics:\n     rx_prio3_pause: 1\n     bb: 2\n     tx_vport_rdma_unicast_bytes: 3\n",
                    false},
        InPlaceCase{"expected_name_then_more_name", statsText(kAbc),
                    "NIC statistics:\n     rx_prio3_pause_x: 1\n     b: 2\n     tx_vport_rdma_unicast_bytes: 3\n",
                    false},
        InPlaceCase{"odd_blanks_crlf_tabs_no_final_newline", statsText(kAbc),
                    "NIC statistics:\r\n\trx_prio3_pause :\t1 \r\n\n   \n b:2\x0b\n"
                    "tx_vport_rdma_unicast_bytes:   3",
                    true},
        InPlaceCase{"values_the_fast_line_refuses", statsText(kAbc),
                    "NIC statistics:\n     rx_prio3_pause: 12345678901234567890\n     b: 2 x\n     b:\n"
                    "     b: +4\n     b: 5\n     tx_vport_rdma_unicast_bytes: 99999999999999999999\n",
                    false},
        InPlaceCase{"colon_inside_the_line", statsText(kAbc),
                    "NIC statistics:\n     rx_prio3_pause: 1: 2\n     b: 2\n     tx_vport_rdma_unicast_bytes: 3\n",
                    false},
        InPlaceCase{"many_more", statsText(kAbc), slurp(kFixtures / "stats/cx100g"), false},
        InPlaceCase{"capture_to_capture", slurp(kFixtures / "stats/cxk515"),
                    slurp(kFixtures / "stats/cxk65"), false},
        InPlaceCase{"capture_again",
                    slurp(kFixtures / "captures/"
                                      "ethtool_S_mlx5_100G_ofed_annotated_blog_trimmed.txt"),
                    slurp(kFixtures / "stats/cx100g"), true}),
    [](const auto& info) { return std::string(info.param.name); });

// The in-place parse writes only values while the names match the previous list, and builds a new
// list at the first difference: over texts that differ from the previous one by random small
// edits (a byte inserted, removed or replaced, a line dropped or repeated) it still equals a fresh
// parse, issues included.
TEST(EthtoolInPlaceTest, RandomEditsEqualAFreshParse) {
  const std::string base = slurp(kFixtures / "stats/cxk65");
  std::mt19937 rng(20261126);
  const std::string alphabet = "ab_:0123456789 \t\r\n+x";
  for (int round = 0; round < 400; ++round) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % text.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 5) {
        case 0: text.insert(at, 1, c); break;
        case 1: text.erase(at, 1); break;
        case 2: text[at] = c; break;
        case 3: {  // drop the line at `at`
          const size_t b = text.rfind('\n', at);
          const size_t start = b == std::string::npos ? 0 : b + 1;
          const size_t end = text.find('\n', at);
          text.erase(start, end == std::string::npos ? std::string::npos : end - start + 1);
          break;
        }
        default: {  // repeat the line at `at`
          const size_t b = text.rfind('\n', at);
          const size_t start = b == std::string::npos ? 0 : b + 1;
          const size_t end = text.find('\n', at);
          if (end != std::string::npos) text.insert(end + 1, text.substr(start, end - start + 1));
        }
      }
      if (text.empty()) text = base;
    }
    EthtoolStats stats;
    ASSERT_TRUE(parseEthtoolTextInto(base, stats));
    auto inPlace = parseEthtoolTextInto(text, stats);
    auto fresh = parseEthtoolText(text);
    ASSERT_EQ(static_cast<bool>(inPlace), static_cast<bool>(fresh)) << "round " << round;
    if (!fresh) {
      EXPECT_EQ(inPlace.error().message, fresh.error().message) << "round " << round;
      continue;
    }
    EXPECT_EQ(stats.pairs(), fresh->pairs()) << "round " << round;
    EXPECT_EQ(stats.issues, fresh->issues) << "round " << round;
  }
}

TEST(EthtoolInPlaceTest, UnchangedNamesAreNotReallocated) {
  const std::string text = slurp(kFixtures / "stats/cx100g");
  EthtoolStats stats;
  ASSERT_TRUE(parseEthtoolTextInto(text, stats));
  ASSERT_EQ(stats.size(), 263u);
  const EthtoolNames* names = stats.names.get();
  const uint64_t* values = stats.values.data();

  // Every value + 1 (same names, same order).
  std::string next = "NIC statistics:\n";
  for (const auto& [name, value] : stats.pairs())
    next += "     " + name + ": " + std::to_string(value + 1) + "\n";
  const StatList previous = stats.pairs();
  ASSERT_TRUE(parseEthtoolTextInto(next, stats));
  EXPECT_TRUE(stats.namesUnchanged);
  ASSERT_EQ(stats.size(), previous.size());
  EXPECT_EQ(stats.names.get(), names);  // the same shared list, no string copied
  EXPECT_EQ(stats.values.data(), values);
  for (size_t i = 0; i < previous.size(); ++i) {
    EXPECT_EQ(stats.name(i), previous[i].first);
    EXPECT_EQ(stats.values[i], previous[i].second + 1) << previous[i].first;
  }
}

// Interfaces reporting the same names share one list (names kept once per node, not per
// interface); a different list is its own, and a changed interface stops sharing.
TEST(EthtoolInPlaceTest, EqualListsAreSharedAcrossInterfaces) {
  const std::string cx = slurp(kFixtures / "stats/cx100g");
  EthtoolStats a, b, c;
  ASSERT_TRUE(parseEthtoolTextInto(cx, a));
  ASSERT_TRUE(parseEthtoolTextInto(cx, b));
  ASSERT_TRUE(parseEthtoolTextInto(slurp(kFixtures / "stats/cxk65"), c));
  EXPECT_EQ(a.names.get(), b.names.get());
  EXPECT_NE(a.names.get(), c.names.get());
  ASSERT_TRUE(parseEthtoolTextInto(statsText(kAbc), b));
  EXPECT_NE(a.names.get(), b.names.get());
  EXPECT_EQ(a.pairs(), parseEthtoolText(cx)->pairs());  // the other holder is untouched
  ASSERT_TRUE(parseEthtoolTextInto(cx, b));
  EXPECT_EQ(a.names.get(), b.names.get());  // back to the shared list
}

// A failed parse leaves nothing to reuse: no old value can pass for a new one, and the next good
// text is parsed from scratch.
TEST(EthtoolInPlaceTest, ErrorEmptiesTheResult) {
  for (const char* bad : {"", "garbage\n", "NIC statistics:\n     a: x\n"}) {
    EthtoolStats stats;
    ASSERT_TRUE(parseEthtoolTextInto(statsText(kAbc, "     oops\n"), stats));
    ASSERT_EQ(stats.issues.size(), 1u);
    ASSERT_FALSE(parseEthtoolTextInto(bad, stats)) << bad;
    EXPECT_TRUE(stats.pairs().empty()) << bad;
    EXPECT_TRUE(stats.issues.empty()) << bad;
    EXPECT_FALSE(stats.namesUnchanged) << bad;
    ASSERT_TRUE(parseEthtoolTextInto(statsText(kAbc), stats));
    EXPECT_EQ(stats.pairs(), kAbc);
    EXPECT_FALSE(stats.namesUnchanged) << bad;  // after an error the names count as new
  }
}

TEST(EthtoolFileSourceTest, ReadIntoFollowsTheFileAcrossPolls) {
  TempDir dir;
  auto source = makeEthtoolFileSource(dir.path());
  EthtoolStats stats;
  struct Step {
    std::string text;  // "" = remove the file
    int errnum;        // 0: success
    StatList want;
    bool namesUnchanged;
    size_t issues;
  };
  const std::vector<Step> steps = {
      {statsText(kAbc), 0, kAbc, false, 0},
      {statsText({{"rx_prio3_pause", 5}, {"b", 6}, {"tx_vport_rdma_unicast_bytes", 7}}),
       0,
       {{"rx_prio3_pause", 5}, {"b", 6}, {"tx_vport_rdma_unicast_bytes", 7}},
       true,
       0},
      {statsText({{"rx_prio3_pause", 8}, {"b2", 9}}, "     bad\n"),
       0,
       {{"rx_prio3_pause", 8}, {"b2", 9}},
       false,
       1},
      {"NIC statistics:\n     only junk\n", EINVAL, {}, false, 0},
      {statsText({{"rx_prio3_pause", 11}, {"b2", 12}}),
       0,
       {{"rx_prio3_pause", 11}, {"b2", 12}},
       false,
       0},
      {"", ENOENT, {}, false, 0},
      {statsText({{"rx_prio3_pause", 13}, {"b2", 14}}),
       0,
       {{"rx_prio3_pause", 13}, {"b2", 14}},
       false,
       0},
      {statsText({{"rx_prio3_pause", 15}, {"b2", 16}}),
       0,
       {{"rx_prio3_pause", 15}, {"b2", 16}},
       true,
       0},
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (s.text.empty())
      fs::remove(dir.path() / "eth0");
    else
      dir.write("eth0", s.text);
    auto st = source->readInto("eth0", stats);
    if (s.errnum != 0) {
      ASSERT_FALSE(st) << "step " << i;
      EXPECT_EQ(st.error().errnum, s.errnum) << "step " << i << ": " << st.error().message;
      EXPECT_NE(st.error().message.find((dir.path() / "eth0").string()), std::string::npos)
          << st.error().message;
    } else {
      ASSERT_TRUE(st) << "step " << i << ": " << st.error().message;
    }
    EXPECT_EQ(stats.pairs(), s.want) << "step " << i;
    EXPECT_EQ(stats.namesUnchanged, s.namesUnchanged) << "step " << i;
    EXPECT_EQ(stats.issues.size(), s.issues) << "step " << i;
  }
}

// The read buffer is reused between polls; a file larger than it, or shorter than the previous
// one, is still read whole and only its own bytes are parsed.
TEST(EthtoolFileSourceTest, GrowingAndShrinkingFiles) {
  TempDir dir;
  auto source = makeEthtoolFileSource(dir.path());
  StatList big;
  for (int i = 0; i < 3000; ++i) big.emplace_back("stat_with_a_long_name_" + std::to_string(i), i);
  EthtoolStats stats;
  for (const StatList& want : {kAbc, big, StatList{{"a", 1}}, big}) {
    const std::string text = statsText(want);
    dir.write("eth0", text);
    ASSERT_TRUE(source->readInto("eth0", stats));
    EXPECT_EQ(stats.pairs(), want);
    EXPECT_TRUE(stats.issues.empty()) << stats.issues.front();
  }
  EXPECT_GT(statsText(big).size(), 64u * 1024);  // more than one buffer's worth
}

// The limit is on the file's size (4 MiB); blank lines are padding here.
TEST(EthtoolFileSourceTest, FileOverFourMibIsEfbig) {
  TempDir dir;
  constexpr size_t kLimit = 4 * 1024 * 1024;
  std::string text = "NIC statistics:\n     a: 1\n";
  text.resize(kLimit, '\n');
  dir.write("eth0", text);
  auto source = makeEthtoolFileSource(dir.path());
  EthtoolStats stats;
  auto st = source->readInto("eth0", stats);
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(stats.pairs(), (StatList{{"a", 1}}));

  dir.write("eth0", text + "\n");
  st = source->readInto("eth0", stats);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().errnum, EFBIG) << st.error().message;
  EXPECT_TRUE(stats.pairs().empty());
}

}  // namespace
}  // namespace fabricmon
