// /api/v1/status's driver_records (daemon/status_json.cpp): the last kernel log record of each
// pattern per port, from the nic_driver_log batch, its text taken from the batch's notes and escaped.
#include "daemon/status_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/families/nic.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon {
namespace {

TEST(StatusJson, ListsTheLastDriverRecordPerPortWithItsEscapedText) {
  const Labels labels{{"device", "mlx5_0"},      {"port", "1"},         {"interface", "eth0"},
                      {"pci_address", "0000:3b:00.0"}, {"driver", "mlx5_core"}, {"pattern", "mlx5_fw_fatal"},
                      {"severity", "fatal"}};
  auto batch = std::make_shared<Batch>();
  batch->collector = "nic_driver_log";
  const SeriesPtr count = makeSeries(families::nic::kDriverRecords, labels);
  const SeriesPtr last = makeSeries(families::nic::kDriverLastRecord, labels);
  testing::writeSamples(*batch, {{count, 3}, {last, 1700000000}});
  batch->notes = {{last, "mlx5_core 0000:3b:00.0: Fatal error 1 detected \"x\"\x01\xff"}};
  StatusInputs in;
  in.driverLog = batch;
  const auto j = nlohmann::json::parse(renderStatusJson(in));
  ASSERT_EQ(j["driver_records"].size(), 1u);
  const auto& r = j["driver_records"][0];
  EXPECT_EQ(r["pattern"], "mlx5_fw_fatal");
  EXPECT_EQ(r["pci_address"], "0000:3b:00.0");
  EXPECT_EQ(r["count"], 3.0);
  EXPECT_EQ(r["last_unix_seconds"], 1700000000.0);
  EXPECT_EQ(r["text"], "mlx5_core 0000:3b:00.0: Fatal error 1 detected \\\"x\\\"\\x01\\xff");
}

TEST(StatusJson, NoDriverLogMeansAnEmptyList) {
  const auto j = nlohmann::json::parse(renderStatusJson(StatusInputs{}));
  EXPECT_TRUE(j["driver_records"].empty());
}

}  // namespace
}  // namespace fabricmon
