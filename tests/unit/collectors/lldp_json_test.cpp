// parseLldpJson0 (collectors/sources/lldp_json.cpp) on what lldpcli really prints: a capture from
// Debian 12's lldpd 1.0.16 across a veth pair (tests/fixtures/lldp/README.md), and the shapes lldpd
// prints with no neighbour, several neighbours on one interface, or damaged output.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "collectors/sources/lldp_source.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(FABRICMON_FIXTURE_DIR) + "/lldp/" + name);
  EXPECT_TRUE(in) << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(LldpJson0, ReadsTheRealLldpdCapture) {
  auto parsed = parseLldpJson0(fixture("lldpcli-json0-details.json"));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 2u);
  // Sorted by interface; chassis and port IDs as lldpd prints them (MACs for a Linux switch).
  const LldpNeighbor& a = (*parsed)[0];
  EXPECT_EQ(a.interface, "fab0");
  EXPECT_EQ(a.chassisName, "leaf-07");
  EXPECT_EQ(a.chassisId, "02:fa:b0:00:07:0c");  // lldpd on Linux: the MAC of the port
  EXPECT_EQ(a.portId, "02:fa:b0:00:07:0c");
  EXPECT_EQ(a.portDescription, "swp12");
  const LldpNeighbor& b = (*parsed)[1];
  EXPECT_EQ(b.interface, "fab1");
  EXPECT_EQ(b.chassisName, "leaf-08");
  EXPECT_EQ(b.portDescription, "swp3");
}

TEST(LldpJson0, NoNeighbourIsAnEmptyListNotAnError) {
  // What lldpcli -f json0 prints when it has heard nobody (captured), and what -f json prints.
  for (const char* text : {R"({"lldp":[{}]})", R"({"lldp":{}})", R"({"lldp":[]})"}) {
    auto parsed = parseLldpJson0(text);
    ASSERT_TRUE(parsed) << text;
    EXPECT_TRUE(parsed->empty()) << text;
  }
}

TEST(LldpJson0, SeveralNeighboursOnOneInterfaceAreEachReported) {
  // A bridge or a hub between us and the switch: lldpd lists the interface once per neighbour.
  const char* text = R"({"lldp":[{"interface":[
    {"name":"eth2","chassis":[{"name":[{"value":"leaf-1"}],"id":[{"type":"mac","value":"02:00:00:00:00:01"}]}],
     "port":[{"id":[{"type":"ifname","value":"Ethernet4"}]}]},
    {"name":"eth2","chassis":[{"name":[{"value":"leaf-2"}],"id":[{"type":"mac","value":"02:00:00:00:00:02"}]}],
     "port":[{"id":[{"type":"ifname","value":"Ethernet8"}],"descr":[{"value":"to gpu01"}]}]}]}]})";
  auto parsed = parseLldpJson0(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].chassisName, "leaf-1");
  EXPECT_EQ((*parsed)[0].portId, "Ethernet4");
  EXPECT_EQ((*parsed)[0].portDescription, "");
  EXPECT_EQ((*parsed)[1].chassisName, "leaf-2");
  EXPECT_EQ((*parsed)[1].portDescription, "to gpu01");
}

TEST(LldpJson0, ANeighbourWithoutAnyIdentityIsSkipped) {
  // Only a TTL, no chassis or port TLV values (a malformed LLDPDU lldpd kept): nothing to report.
  const char* text = R"({"lldp":[{"interface":[
    {"name":"eth2","chassis":[{}],"port":[{"ttl":[{"value":"120"}]}]},
    {"name":"eth3","chassis":[{"id":[{"type":"mac","value":"02:00:00:00:00:03"}]}]}]}]})";
  auto parsed = parseLldpJson0(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].interface, "eth3");
  EXPECT_EQ((*parsed)[0].chassisId, "02:00:00:00:00:03");
  EXPECT_EQ((*parsed)[0].chassisName, "");
}

TEST(LldpJson0, DamagedOutputIsAnErrorNamingWhatIsWrong) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {Case{"", "not a JSON object"},
                        Case{R"({"lldp":[{"interface":[{"name":"eth0","chassis":[)", "not a JSON object"},
                        Case{R"(["lldp"])", "not a JSON object"},
                        Case{R"({"lldpd":{}})", "no \"lldp\" key"},
                        // lldpcli -f json (not json0): one neighbour is an object, not an array.
                        Case{R"({"lldp":{"interface":{"eth0":{"via":"LLDP"}}}})", "not json0"},
                        Case{R"({"lldp":[{"interface":[{"chassis":[]}]}]})", "without a name"}}) {
    auto parsed = parseLldpJson0(c.text);
    ASSERT_FALSE(parsed) << c.text;
    EXPECT_EQ(parsed.error().errnum, EINVAL) << c.text;
    EXPECT_NE(parsed.error().message.find(c.says), std::string::npos) << parsed.error().message;
  }
}

TEST(LldpJson0, UnexpectedValueTypesAreIgnoredNotTrusted) {
  // A future lldpd that prints a number or an object where json0 has an array of {"value": ...}.
  const char* text = R"({"lldp":[{"interface":[
    {"name":"eth2","chassis":[{"name":[{"value":7}],"id":{"value":"x"}}],
     "port":[{"id":[{"type":"ifname","value":"swp1"}],"descr":"plain string"}]}]}]})";
  auto parsed = parseLldpJson0(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].chassisName, "");
  EXPECT_EQ((*parsed)[0].chassisId, "");
  EXPECT_EQ((*parsed)[0].portId, "swp1");
  EXPECT_EQ((*parsed)[0].portDescription, "");
}

TEST(LldpFileSource, ReadsTheCaptureAndCallsAMissingFileAnErrorNotNoLldp) {
  auto parsed = makeLldpFileSource(std::string(FABRICMON_FIXTURE_DIR) + "/lldp/lldpcli-json0-details.json")->neighbors();
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->size(), 2u);
  auto missing = makeLldpFileSource(std::string(FABRICMON_FIXTURE_DIR) + "/lldp/no-such-file.json")->neighbors();
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().errnum, ENOENT) << "a configured file that is missing must not read as 'no lldpd'";
  EXPECT_NE(missing.error().message.find("no-such-file.json: ENOENT"), std::string::npos) << missing.error().message;
}

TEST(LldpFileSource, SeesTheFileChangeAndTheSameBytesGiveTheSameNeighbours) {
  testing::TempDir dir("fabricmon-lldp-file");
  const std::filesystem::path file = dir.path() / "neighbors.json";
  auto write = [&](const std::string& chassis) {
    std::ofstream(file, std::ios::trunc) << R"({"lldp":[{"interface":[{"name":"eth2","chassis":[{"name":[{"value":")"
                                          << chassis << R"("}]}]}]}]})";
  };
  auto source = makeLldpFileSource(file);
  write("leaf-1");
  EXPECT_EQ(source->neighbors()->at(0).chassisName, "leaf-1");
  EXPECT_EQ(source->neighbors()->at(0).chassisName, "leaf-1");
  write("leaf-2");
  EXPECT_EQ(source->neighbors()->at(0).chassisName, "leaf-2");
  std::ofstream(file, std::ios::trunc) << "{";
  EXPECT_FALSE(source->neighbors()) << "damaged text after a good one is an error, not the old answer";
}

}  // namespace
}  // namespace fabricmon
