// The devlink_health collector and its source (collectors/sources/devlink_health_source.cpp):
//   * the netlink answer, built byte by byte in the layout devlink_nl_health_reporter_fill()
//     (net/devlink/health.c) writes: the handle, the port index of a port's reporter, the reporter
//     nest with its u8 state and u64 counts (after a DEVLINK_ATTR_PAD, as nla_put_u64_64bit()
//     writes one where u64s must be aligned), NLMSG_DONE in a datagram of its own;
//   * the file twin on a capture in the shape iproute2's `devlink -j -s health show` prints
//     (iproute2 devlink/devlink.c, pr_out_health()): tests/fixtures/handmade/roce_mlx5.devlink_health.json,
//     hand-made for roce_mlx5.ttar's two PFs and read by the e2e golden too: mlx5's `fw`, `fw_fatal`,
//     `vnic` per device and `tx`, `rx` per uplink port (devlink port 65535 on PF0, 131071 on PF1),
//     with the grace periods the driver sets; PF0's `tx` has recovered 3 TX timeouts (counts made up);
//   * the collector from its registry row, configured by YAML (collectors.devlink_health.file);
//   * this machine's kernel: no devlink family is "no data", not an error;
//   * values outside their domain rejected, one reporter at a time.
#include <gtest/gtest.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cstring>
#include <set>
#include <string>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/devlink_health_source.hpp"
#include "collectors/sources/netlink_socket.hpp"
#include "config/config_loader.hpp"
#include "tests/support/collector_run.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

constexpr uint16_t kFamily = 0x1c;  // any id the controller could hand out
constexpr uint32_t kSeq = 77;

// ---- netlink messages in the kernel's layout
// -------------------------------------------------------

void put(std::vector<uint8_t>& out, uint16_t type, const void* data, size_t len) {
  nlattr a{};
  a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + len);
  a.nla_type = type;
  const size_t at = out.size();
  out.resize(at + NLA_ALIGN(a.nla_len), 0);
  std::memcpy(out.data() + at, &a, sizeof a);
  if (len > 0) std::memcpy(out.data() + at + NLA_HDRLEN, data, len);
}
void putStr(std::vector<uint8_t>& out, uint16_t type, const std::string& s) {
  put(out, type, s.c_str(), s.size() + 1);
}
void putU8(std::vector<uint8_t>& out, uint16_t type, uint8_t v) { put(out, type, &v, 1); }
void putU32(std::vector<uint8_t>& out, uint16_t type, uint32_t v) { put(out, type, &v, 4); }
void putU64(std::vector<uint8_t>& out, uint16_t type, uint64_t v) {
  put(out, DEVLINK_ATTR_PAD, nullptr, 0);  // nla_put_u64_64bit's padding attribute
  put(out, type, &v, 8);
}

struct Fill {
  std::string bus = "pci", dev = "0000:17:00.0";
  std::optional<uint32_t> port;
  std::string name = "fw_fatal";
  std::optional<uint8_t> state = 0;
  std::optional<uint64_t> errors = 0, recoveries = 0;
  std::optional<uint64_t> grace;
  std::optional<uint8_t> autoRecover;
  bool errorsAsU32 = false;
};

/// One DEVLINK_CMD_HEALTH_REPORTER_GET message as devlink_nl_health_reporter_fill() builds it.
std::vector<uint8_t> reporterMessage(const Fill& f, uint32_t seq = kSeq) {
  std::vector<uint8_t> attrs;
  putStr(attrs, DEVLINK_ATTR_BUS_NAME, f.bus);
  putStr(attrs, DEVLINK_ATTR_DEV_NAME, f.dev);
  if (f.port) putU32(attrs, DEVLINK_ATTR_PORT_INDEX, *f.port);
  std::vector<uint8_t> nest;
  putStr(nest, DEVLINK_ATTR_HEALTH_REPORTER_NAME, f.name);
  if (f.state) putU8(nest, DEVLINK_ATTR_HEALTH_REPORTER_STATE, *f.state);
  if (f.errors) {
    if (f.errorsAsU32) {
      putU32(nest, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, static_cast<uint32_t>(*f.errors));
    } else {
      putU64(nest, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, *f.errors);
    }
  }
  if (f.recoveries) putU64(nest, DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT, *f.recoveries);
  if (f.grace) putU64(nest, DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD, *f.grace);
  if (f.autoRecover) putU8(nest, DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER, *f.autoRecover);
  put(attrs, DEVLINK_ATTR_HEALTH_REPORTER, nest.data(),
      nest.size());  // nla_nest_start_noflag: no NLA_F_NESTED

  std::vector<uint8_t> msg(NLMSG_HDRLEN + GENL_HDRLEN, 0);
  nlmsghdr h{};
  h.nlmsg_type = kFamily;
  h.nlmsg_flags = NLM_F_MULTI;
  h.nlmsg_seq = seq;
  genlmsghdr g{};
  g.cmd = DEVLINK_CMD_HEALTH_REPORTER_GET;
  g.version = DEVLINK_GENL_VERSION;
  std::memcpy(msg.data() + NLMSG_HDRLEN, &g, sizeof g);
  msg.resize(NLMSG_HDRLEN + GENL_HDRLEN + attrs.size());
  std::memcpy(msg.data() + NLMSG_HDRLEN + GENL_HDRLEN, attrs.data(), attrs.size());
  h.nlmsg_len = static_cast<uint32_t>(msg.size());
  std::memcpy(msg.data(), &h, sizeof h);
  return msg;
}

/// NLMSG_DONE (netlink_dump_done(): the dump's result as an int) or NLMSG_ERROR (-errno, then the
/// request's header).
std::vector<uint8_t> endMessage(uint16_t type, int32_t result, uint32_t seq = kSeq) {
  std::vector<uint8_t> msg(
      NLMSG_HDRLEN + (type == NLMSG_ERROR ? sizeof(nlmsgerr) : sizeof(int32_t)), 0);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(msg.size());
  h.nlmsg_type = type;
  h.nlmsg_flags = NLM_F_MULTI;
  h.nlmsg_seq = seq;
  std::memcpy(msg.data(), &h, sizeof h);
  std::memcpy(msg.data() + NLMSG_HDRLEN, &result, sizeof result);
  return msg;
}

std::vector<uint8_t> datagram(std::initializer_list<std::vector<uint8_t>> messages) {
  std::vector<uint8_t> out;
  for (const auto& m : messages) out.insert(out.end(), m.begin(), m.end());
  return out;
}

TEST(DevlinkNetlink, TheDumpRequestAsksEveryReporter) {
  const auto req = devlink::buildHealthReporterDumpRequest(kFamily, kSeq);
  ASSERT_EQ(req.size(), NLMSG_HDRLEN + GENL_HDRLEN);
  nlmsghdr h{};
  std::memcpy(&h, req.data(), sizeof h);
  EXPECT_EQ(h.nlmsg_len, req.size());
  EXPECT_EQ(h.nlmsg_type, kFamily);
  EXPECT_EQ(h.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
  EXPECT_EQ(h.nlmsg_seq, kSeq);
  EXPECT_EQ(req[NLMSG_HDRLEN], 52) << "DEVLINK_CMD_HEALTH_REPORTER_GET";
  EXPECT_EQ(req[NLMSG_HDRLEN + 1], 1) << "DEVLINK_GENL_VERSION";
}

TEST(DevlinkNetlink, DeviceAndPortReportersInTheKernelsLayout) {
  Fill fw;
  fw.grace = 60000;
  fw.autoRecover = 1;
  Fill tx;
  tx.port = 65535;
  tx.name = "tx";
  tx.state = 1;
  tx.errors = 7;
  tx.recoveries = 5;
  tx.grace = 500;
  tx.autoRecover = 0;
  Fill plain;  // a reporter without recover(): no grace period, no auto_recover
  plain.name = "fw";
  plain.errors = (uint64_t{1} << 40) + 3;

  DevlinkHealthReport report;
  auto first = devlink::parseHealthReporterDump(
      datagram({reporterMessage(plain), reporterMessage(fw), reporterMessage(tx)}), kSeq, kFamily,
      report);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_FALSE(first->done);
  auto last = devlink::parseHealthReporterDump(endMessage(NLMSG_DONE, 0), kSeq, kFamily, report);
  ASSERT_TRUE(last.ok()) << last.error().message;
  EXPECT_TRUE(last->done);
  EXPECT_EQ(last->kernelErrno, 0);

  EXPECT_TRUE(report.rejected.empty());
  ASSERT_EQ(report.reporters.size(), 3u);
  const auto& p = report.reporters[0];
  EXPECT_EQ(p.key(), "pci/0000:17:00.0/fw");
  EXPECT_EQ(p.errors, (uint64_t{1} << 40) + 3);
  EXPECT_FALSE(p.autoRecover.has_value());
  EXPECT_FALSE(p.gracePeriodMs.has_value());
  const auto& f = report.reporters[1];
  EXPECT_EQ(f.key(), "pci/0000:17:00.0/fw_fatal");
  EXPECT_TRUE(f.healthy);
  EXPECT_EQ(f.autoRecover, true);
  EXPECT_EQ(f.gracePeriodMs, 60000u);
  EXPECT_FALSE(f.port.has_value());
  const auto& t = report.reporters[2];
  EXPECT_EQ(t.key(), "pci/0000:17:00.0/65535/tx");
  EXPECT_EQ(t.port, 65535u);
  EXPECT_FALSE(t.healthy);
  EXPECT_EQ(t.errors, 7u);
  EXPECT_EQ(t.recoveries, 5u);
  EXPECT_EQ(t.autoRecover, false);
}

TEST(DevlinkNetlink, AReporterOutsideItsDomainIsRejectedAlone) {
  Fill good;
  Fill badState;  // a state enum devlink_health_reporter_state does not define
  badState.name = "rx";
  badState.state = 2;
  Fill shortCount;  // ERR_COUNT as a u32: not the kernel's u64
  shortCount.name = "tx";
  shortCount.errorsAsU32 = true;
  Fill noRecover;  // iproute2 prints nothing without all four
  noRecover.name = "mdd";
  noRecover.recoveries.reset();
  Fill badAuto;
  badAuto.name = "hw";
  badAuto.autoRecover = 2;
  Fill badName;
  badName.name = "fw\"x";
  Fill twice = good;  // the same reporter again
  DevlinkHealthReport report;
  auto r = devlink::parseHealthReporterDump(
      datagram({reporterMessage(good), reporterMessage(badState), reporterMessage(shortCount),
                reporterMessage(noRecover), reporterMessage(badAuto), reporterMessage(badName),
                reporterMessage(twice), endMessage(NLMSG_DONE, 0)}),
      kSeq, kFamily, report);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->done);
  ASSERT_EQ(report.reporters.size(), 1u);
  EXPECT_EQ(report.reporters[0].name, "fw_fatal");
  std::vector<std::string> keys;
  for (const auto& [key, error] : report.rejected) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"pci/0000:17:00.0/rx", "pci/0000:17:00.0/tx",
                                            "pci/0000:17:00.0/mdd", "pci/0000:17:00.0/hw",
                                            "pci/0000:17:00.0/?", "pci/0000:17:00.0/fw_fatal"}));
  EXPECT_NE(report.rejected[0].second.message.find("state 2"), std::string::npos)
      << report.rejected[0].second.message;
}

TEST(DevlinkNetlink, KernelRefusalsAndForeignBytes) {
  DevlinkHealthReport report;
  auto refused =
      devlink::parseHealthReporterDump(endMessage(NLMSG_ERROR, -EOPNOTSUPP), kSeq, kFamily, report);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->kernelErrno, EOPNOTSUPP);
  EXPECT_TRUE(refused->done);
  auto doneWithError =
      devlink::parseHealthReporterDump(endMessage(NLMSG_DONE, -EMSGSIZE), kSeq, kFamily, report);
  ASSERT_TRUE(doneWithError.ok());
  EXPECT_EQ(doneWithError->kernelErrno, EMSGSIZE);

  EXPECT_FALSE(
      devlink::parseHealthReporterDump(reporterMessage(Fill{}, kSeq + 1), kSeq, kFamily, report)
          .ok())
      << "another request's answer";
  auto cut = reporterMessage(Fill{});
  cut.resize(cut.size() - 4);  // nlmsg_len now overruns the datagram
  EXPECT_FALSE(devlink::parseHealthReporterDump(cut, kSeq, kFamily, report).ok());
  EXPECT_FALSE(
      devlink::parseHealthReporterDump(endMessage(NLMSG_ERROR, 5), kSeq, kFamily, report).ok())
      << "a positive errno is not the kernel's";
  EXPECT_FALSE(
      devlink::parseHealthReporterDump(std::vector<uint8_t>(3, 0), kSeq, kFamily, report).ok());
  EXPECT_TRUE(report.reporters.empty());
}

// ---- iproute2's JSON
// -------------------------------------------------------------------------------

std::string readFixture(const std::string& rel) {
  std::ifstream in(std::string(FABRICMON_FIXTURE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DevlinkJson, TheCaptureOfAConnectX6DxNode) {
  auto report = parseDevlinkHealthJson(readFixture("handmade/roce_mlx5.devlink_health.json"));
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->rejected.empty());
  ASSERT_EQ(report->reporters.size(), 10u);
  std::map<std::string, const DevlinkHealthReporter*> byKey;
  for (const auto& r : report->reporters) byKey[r.key()] = &r;
  ASSERT_TRUE(byKey.count("pci/0000:17:00.0/65535/tx"));
  const auto& tx = *byKey["pci/0000:17:00.0/65535/tx"];
  EXPECT_EQ(tx.port, 65535u);
  EXPECT_EQ(tx.errors, 3u);
  EXPECT_EQ(tx.recoveries, 3u);
  EXPECT_EQ(tx.autoRecover, true);
  EXPECT_EQ(tx.gracePeriodMs, 500u);
  ASSERT_TRUE(byKey.count("pci/0000:17:00.1/131071/rx"));
  ASSERT_TRUE(byKey.count("pci/0000:17:00.1/vnic"));
  EXPECT_FALSE(byKey["pci/0000:17:00.1/vnic"]->autoRecover.has_value());
  EXPECT_EQ(byKey["pci/0000:17:00.0/fw_fatal"]->gracePeriodMs, 60000u);
}

TEST(DevlinkJson, ValuesOutsideTheirDomainAreRejectedOneReporterAtATime) {
  const auto report = parseDevlinkHealthJson(R"({"health":{
    "pci/0000:3b:00.0":[
      {"reporter":"fw","state":"healthy","error":1,"recover":1},
      {"reporter":"fw_fatal","state":"<unknown state>","error":0,"recover":0},
      {"reporter":"tx","state":"error","error":"unlimited","recover":0},
      {"reporter":"rx","state":"healthy","error":-1,"recover":0},
      {"reporter":"mdd","state":"healthy","error":1.5,"recover":0},
      {"reporter":"hw","state":"healthy","error":0,"recover":0,"auto_recover":"yes"},
      {"reporter":"port","state":"healthy","error":0},
      {"state":"healthy","error":0,"recover":0},
      {"reporter":"fw","state":"healthy","error":2,"recover":2}],
    "pci/0000:3b:00.0/x":[{"reporter":"tx","state":"healthy","error":0,"recover":0}],
    "pci":[{"reporter":"tx","state":"healthy","error":0,"recover":0}],
    "pci/0000:3b:00.1/4294967296":[{"reporter":"tx","state":"healthy","error":0,"recover":0}],
    "pci/0000:3b:00.1/7":{"reporter":"tx"},
    "pci/0000:3b:00.1/8":[{"reporter":"tx_hang","state":"error","error":18446744073709551614,"recover":0}]}})");
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->reporters.size(), 2u);
  EXPECT_EQ(report->reporters[0].key(), "pci/0000:3b:00.0/fw");
  EXPECT_EQ(report->reporters[0].errors, 1u) << "the first of a reporter listed twice counts";
  EXPECT_EQ(report->reporters[1].key(), "pci/0000:3b:00.1/8/tx_hang");
  EXPECT_FALSE(report->reporters[1].healthy);
  EXPECT_EQ(report->reporters[1].errors, 18446744073709551614u);
  EXPECT_EQ(report->rejected.size(), 12u);

  for (const char* bad :
       {"", "[]", "{}", "{\"health\": []}", "not json", "{\"health\": {\"pci/0000:00:00.0\": [}"}) {
    EXPECT_FALSE(parseDevlinkHealthJson(bad).ok()) << bad;
  }
  auto none = parseDevlinkHealthJson(R"({"health":{}})");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->reporters.empty());
}

// ---- the collector, from its registry row, configured by YAML
// ----------------------------------------

const CollectorEntry& entry() { return collectorEntry("devlink_health"); }

Config configFor(const std::string& yaml) {
  ConfigSchema schema;
  for (const CollectorEntry* c : collectorRegistry()) schema.collectors.push_back({c->name, c->bindSettings});
  const ConfigLoad load = loadConfigText(yaml, "fabricmon.yaml", schema);
  if (!load.ok()) throw std::runtime_error(load.errors.front().format());
  return load.config;
}

Topology roceNode(uint64_t generation = 1) {
  Topology t;
  t.devices.push_back({"mlx5_bond_0", "0000:17:00.0", 1, {}});
  t.devices.push_back({"mlx5_1", "0000:17:00.1", 2, {}});
  // The bond's second PF is known through its netdev only; 0000:b1:00.0 (ice) has no RDMA device.
  t.netdevs.push_back({"ens1f0np0", "0000:17:00.0", "mlx5_bond_0", 1});
  t.netdevs.push_back({"ens2f0", "0000:b1:00.0", "", 0});
  t.generation = generation;
  return t;
}

class DevlinkHealthCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_.path() / "health.json";
    config_ = configFor("collectors:\n  devlink_health:\n    file: " + file_.string() + "\n");
    collector_ = entry().make(Sources{}, config_);
  }
  void write(const std::string& text) { std::ofstream(file_, std::ios::trunc) << text; }
  testing::CollectorRun run(const Topology& t) {
    return testing::runCollector(*collector_, t, errors_);
  }

  testing::TempDir dir_{"devlink-health"};
  fs::path file_;
  Config config_;
  std::unique_ptr<Collector> collector_;
  ErrorTracker errors_{"devlink_health"};
};

TEST_F(DevlinkHealthCollectorTest, TheCaptureBecomesSeriesOfTheWatchedFunctions) {
  EXPECT_EQ(entry().cadence, Cadence::kFast);
  ASSERT_EQ(collector_->name(), "devlink_health");
  write(readFixture("handmade/roce_mlx5.devlink_health.json"));
  const auto r = run(roceNode());
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);
  // 10 reporters: errors, recoveries, healthy each; auto_recover for the 6 that can recover.
  EXPECT_EQ(r.samples, 36u);
  const std::string tx =
      R"({device="mlx5_bond_0",pci_address="0000:17:00.0",devlink_port="65535",reporter="tx"})";
  EXPECT_EQ(r.byKey.at("fabricmon_nic_health_reporter_errors_total" + tx), 3);
  EXPECT_EQ(r.byKey.at("fabricmon_nic_health_reporter_recoveries_total" + tx), 3);
  EXPECT_EQ(r.byKey.at("fabricmon_nic_health_reporter_healthy" + tx), 1);
  EXPECT_EQ(r.byKey.at("fabricmon_nic_health_reporter_auto_recover" + tx), 1);
  const std::string fw =
      R"({device="mlx5_1",pci_address="0000:17:00.1",devlink_port="",reporter="fw_fatal"})";
  EXPECT_EQ(r.byKey.at("fabricmon_nic_health_reporter_healthy" + fw), 1);
  EXPECT_EQ(
      r.byKey.count(
          R"(fabricmon_nic_health_reporter_auto_recover{device="mlx5_1",pci_address="0000:17:00.1",devlink_port="",reporter="vnic"})"),
      0u)
      << "a reporter that cannot recover has no auto_recover";
}

TEST_F(DevlinkHealthCollectorTest, ErrorsAndStatesFollowTheFileAndBadReportersAreCounted) {
  write(
      R"({"health":{"pci/0000:17:00.1/131071":[{"reporter":"tx","state":"error","error":4,"recover":2,"auto_recover":false}],
    "pci/0000:17:00.1":[{"reporter":"fw_fatal","state":"broken","error":0,"recover":0}],
    "pci/0000:b1:00.0":[{"reporter":"mdd","state":"error","error":9,"recover":0}],
    "auxiliary/mlx5_core.sf.2":[{"reporter":"fw","state":"error","error":1,"recover":0}]}})");
  auto r = run(roceNode());
  EXPECT_EQ(r.status, CollectStatus::kOk);
  const std::string tx =
      R"({device="mlx5_1",pci_address="0000:17:00.1",devlink_port="131071",reporter="tx"})";
  EXPECT_EQ(r.byKey.at("fabricmon_nic_health_reporter_healthy" + tx), 0);
  EXPECT_EQ(r.byKey.at("fabricmon_nic_health_reporter_errors_total" + tx), 4);
  EXPECT_EQ(r.byKey.at("fabricmon_nic_health_reporter_auto_recover" + tx), 0);
  EXPECT_EQ(r.errors, 1u) << "the state the kernel does not define";
  EXPECT_EQ(r.samples, 4u)
      << "nothing of the unwatched ice function, the SF, or the rejected reporter";

  // The bond's second PF joins through its netdev; a recovered reporter is healthy again.
  Topology bonded = roceNode(2);
  bonded.netdevs.push_back({"ens1f1np1", "0000:17:00.1", "mlx5_bond_0", 1});
  write(
      R"({"health":{"pci/0000:17:00.1/131071":[{"reporter":"tx","state":"healthy","error":4,"recover":3}]}})");
  r = run(bonded);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(
      r.byKey.at(
          R"(fabricmon_nic_health_reporter_healthy{device="mlx5_1,mlx5_bond_0",pci_address="0000:17:00.1",devlink_port="131071",reporter="tx"})"),
      1);
  EXPECT_EQ(r.samples, 3u);

  // An unreadable capture fails the run; a capture that is gone is no data, and the series leave.
  write("{\"health\":");
  r = run(bonded);
  EXPECT_EQ(r.status, CollectStatus::kFailed);
  EXPECT_EQ(r.errors, 1u);
  fs::remove(file_);
  r = run(bonded);
  EXPECT_EQ(r.status, CollectStatus::kNoData);
  EXPECT_EQ(r.samples, 0u);
  EXPECT_EQ(r.errors, 0u);
}

TEST_F(DevlinkHealthCollectorTest, AReporterThatAnswersOutsideItsDomainIsUnreadNotGone) {
  const std::string good =
      R"({"health":{"pci/0000:17:00.1":[{"reporter":"fw","state":"error","error":2,"recover":1},
                                        {"reporter":"tx","state":"healthy","error":0,"recover":0}]}})";
  write(good);
  auto r = run(roceNode());
  ASSERT_EQ(r.samples, 6u);
  EXPECT_TRUE(r.unread.empty());
  const std::string fw = R"({device="mlx5_1",pci_address="0000:17:00.1",devlink_port="",reporter="fw"})";
  // The firmware reporter's answer is out of its domain this time: its findings must not end as a
  // reporter that left, so its series are unread; the one that answered well is not.
  write(R"({"health":{"pci/0000:17:00.1":[{"reporter":"fw","state":"broken","error":2,"recover":1},
                                          {"reporter":"tx","state":"healthy","error":0,"recover":0}]}})");
  r = run(roceNode());
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(r.samples, 3u);
  EXPECT_EQ(r.unread, (std::set<std::string>{"fabricmon_nic_health_reporter_errors_total" + fw,
                                             "fabricmon_nic_health_reporter_recoveries_total" + fw,
                                             "fabricmon_nic_health_reporter_healthy" + fw}));
  // Still rejected on the next run: still unread (the watchdog bounds how long it holds them).
  r = run(roceNode());
  EXPECT_EQ(r.unread.size(), 3u);
  // A reporter rejected on a function the topology no longer watches is not held.
  Topology without = roceNode(2);
  without.devices.pop_back();
  r = run(without);
  EXPECT_TRUE(r.unread.empty());
  write(good);
  r = run(roceNode(3));
  EXPECT_EQ(r.samples, 6u);
  EXPECT_TRUE(r.unread.empty());
}

TEST(DevlinkHealthConfig, TheFileKeyIsTheCollectorsOwn) {
  ConfigSchema schema;
  for (const CollectorEntry* c : collectorRegistry()) schema.collectors.push_back({c->name, c->bindSettings});
  const ConfigLoad bad =
      loadConfigText("collectors:\n  devlink_health:\n    fiel: /x\n", "c.yaml", schema);
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].key, "collectors.devlink_health.fiel");
}

// ---- this machine's kernel
// ----------------------------------------------------------------------------

TEST(DevlinkHealthKernel, AKernelWithoutDevlinkIsNoData) {
  NetlinkSocket probe({NETLINK_GENERIC, "probe", std::chrono::seconds(2), 32 * 1024});
  auto family = probe.genlFamily(DEVLINK_GENL_NAME);
  ASSERT_TRUE(family.ok()) << family.error().message;

  auto source = makeDevlinkHealthNetlinkSource();
  auto report = source->read();
  ASSERT_TRUE(report.ok()) << report.error().message;
  if (family->has_value()) {
    // A kernel with devlink: the dump answers (with or without reporters).
    EXPECT_TRUE(report->has_value());
    GTEST_SKIP() << "this kernel has the devlink family: the absent case is not this machine's";
  }
  EXPECT_FALSE(report->has_value()) << "no devlink family: no data, not an error";
  EXPECT_TRUE(source->read().ok()) << "and again, without asking anything new of the kernel";

  // The collector with no file configured reads the kernel: no data, nothing counted.
  const auto collector = entry().make(Sources{}, configFor("poll:\n  interval: 1s\n"));
  ErrorTracker errors("devlink_health");
  const auto r = testing::runCollector(*collector, roceNode(), errors);
  EXPECT_EQ(r.status, CollectStatus::kNoData);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.samples, 0u);
}

}  // namespace
}  // namespace fabricmon
