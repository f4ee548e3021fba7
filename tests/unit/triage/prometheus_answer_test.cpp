// Reading Prometheus's answers (triage/prometheus_answer.hpp): well-formed answers become evidence;
// a body of any other shape is an error of the query, never a crash. The malformed bodies are the
// inputs tests/fuzz/triage_json_fuzz.cpp found (tests/fuzz/corpus/triage_json keeps them too).
#include "triage/prometheus_answer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fabricmon::triage {
namespace {

const std::string kUp =
    R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"instance":"gpu01:19110"},"value":[1700000000,"1"]}]}})";
const std::string kEmpty = R"({"status":"success","data":{"resultType":"vector","result":[]}})";

/// Answers the first query with `first` and every later one with an empty vector.
PrometheusGet answering(const std::string& first) {
  auto calls = std::make_shared<int>(0);
  return [first, calls](const std::string&) -> Result<std::string> { return (*calls)++ == 0 ? first : kEmpty; };
}

TEST(PrometheusAnswer, AWellFormedAnswerNamesTheNode) {
  auto nodes = prometheusEvidence("job=\"fabricmon\"", std::chrono::seconds(600), answering(kUp));
  ASSERT_TRUE(nodes) << nodes.error().message;
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ(nodes->begin()->first, "gpu01:19110");
}

TEST(PrometheusAnswer, AnswersOfAnotherShapeAreErrorsNotCrashes) {
  const std::vector<std::string> bodies = {
      // A sample without "metric" (the fuzzer's first find: nlohmann's const operator[] on a
      // missing key is undefined behaviour, an assertion in a debug build).
      R"({"status":"success","data":{"resultType":"vector","result":[{"metpric":{"instance":"a"},"value":[1,"1"]}]}})",
      // The top level, "data" or "result" of the wrong type: value() and operator[] threw.
      R"([])", R"("success")", R"({"status":"success","data":[]})", R"({"status":"success","data":{"result":{}}})",
      R"({"status":1,"data":{}})",
      // A label value that is not a string: get<std::string>() threw.
      R"({"status":"success","data":{"result":[{"metric":{"instance":7},"value":[1,"1"]}]}})",
      // A value that is not [time, "number"].
      R"({"status":"success","data":{"result":[{"metric":{},"value":[1]}]}})",
      R"({"status":"success","data":{"result":[{"metric":{},"value":"1"}]}})",
      R"({"status":"success","data":{"result":[7]}})",
  };
  for (const std::string& body : bodies) {
    auto nodes = prometheusEvidence("", std::chrono::seconds(60), answering(body));
    ASSERT_FALSE(nodes) << body;
    EXPECT_EQ(nodes.error().errnum, EPROTO) << body;
  }
}

}  // namespace
}  // namespace fabricmon::triage
