#include "exporters/findings_json.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <vector>

namespace fabricmon {
namespace {

TEST(FindingsJsonTest, Empty) { EXPECT_EQ(renderFindingsJson({}), "{\"findings\":[]}"); }

TEST(FindingsJsonTest, FullFinding) {
  Finding f;
  f.rule = "pause_storm";
  f.severity = Severity::kCritical;
  f.labels = {{"interface", "ens1f0np0"}, {"priority", "3"}};
  f.since = std::chrono::system_clock::time_point(std::chrono::milliseconds(1700000000250));
  f.summary = "ens1f0np0 priority 3 paused 95% of the last 10s";
  f.evidence = {{"pause_ratio", 0.95}, {"window_seconds", 10}, {"tx_pause_frames", 1e20}};
  const std::vector<Finding> findings{f};
  EXPECT_EQ(renderFindingsJson(findings),
            "{\"findings\":[{\"rule\":\"pause_storm\",\"severity\":\"critical\","
            "\"labels\":{\"interface\":\"ens1f0np0\",\"priority\":\"3\"},"
            "\"since\":\"2023-11-14T22:13:20Z\",\"since_unix\":1700000000,"
            "\"summary\":\"ens1f0np0 priority 3 paused 95% of the last 10s\","
            "\"evidence\":{\"pause_ratio\":0.95,\"window_seconds\":10,\"tx_pause_frames\":1e+20}}]}");
}

TEST(FindingsJsonTest, JobsFollowTheEvidenceWhenThereAreAny) {
  Finding f;
  f.rule = "port_down";
  f.severity = Severity::kCritical;
  f.since = std::chrono::system_clock::time_point(std::chrono::seconds(0));
  f.jobs = {"4711 (alice)", "4712 (bob)"};
  std::vector<Finding> findings{f};
  EXPECT_NE(renderFindingsJson(findings).find("\"evidence\":{},\"jobs\":[\"4711 (alice)\",\"4712 (bob)\"]}]}"),
            std::string::npos)
      << renderFindingsJson(findings);
  findings[0].jobs.clear();
  EXPECT_EQ(renderFindingsJson(findings).find("jobs"), std::string::npos);
}

TEST(FindingsJsonTest, EscapesStringsAndNullsNonFiniteNumbers) {
  Finding f;
  f.rule = "link_errors";
  f.severity = Severity::kWarning;
  f.labels = {{"counter", "SDMAInt10,32"}, {"quote\"key", "back\\slash"}};
  f.since = std::chrono::system_clock::time_point(std::chrono::seconds(0));
  f.summary = "tab\there\nnew\x01line\x1f end \xFF";
  f.evidence = {{"nan", std::numeric_limits<double>::quiet_NaN()},
                {"inf", std::numeric_limits<double>::infinity()},
                {"neg_inf", -std::numeric_limits<double>::infinity()},
                {"neg", -1.5}};
  Finding g;
  g.rule = "link_flap";
  g.severity = Severity::kInfo;
  g.since = std::chrono::system_clock::time_point(std::chrono::seconds(86400 * 366));
  const std::vector<Finding> findings{f, g};
  EXPECT_EQ(renderFindingsJson(findings),
            "{\"findings\":[{\"rule\":\"link_errors\",\"severity\":\"warning\","
            "\"labels\":{\"counter\":\"SDMAInt10,32\",\"quote\\\"key\":\"back\\\\slash\"},"
            "\"since\":\"1970-01-01T00:00:00Z\",\"since_unix\":0,"
            "\"summary\":\"tab\\u0009here\\u000anew\\u0001line\\u001f end \xEF\xBF\xBD\","
            "\"evidence\":{\"nan\":null,\"inf\":null,\"neg_inf\":null,\"neg\":-1.5}},"
            "{\"rule\":\"link_flap\",\"severity\":\"info\",\"labels\":{},"
            "\"since\":\"1971-01-02T00:00:00Z\",\"since_unix\":31622400,\"summary\":\"\","
            "\"evidence\":{}}]}");
}

}  // namespace
}  // namespace fabricmon
