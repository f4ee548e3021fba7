#include "daemon/demo_node.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "collectors/devlink_health_settings.hpp"
#include "sim/demo_mad_source.hpp"
#include "sim/simulator.hpp"

namespace fabricmon {

Result<std::unique_ptr<DemoNode>> DemoNode::create(boost::asio::io_context& io, const DemoOptions& demo,
                                                   Duration tick) {
  const std::string& scenario = demo.scenario;
  const std::string& vendor = demo.vendor;
  const auto known = sim::Simulator::scenarios();
  if (std::find(known.begin(), known.end(), scenario) == known.end()) {
    std::string list;
    for (const auto& s : known) list += (list.empty() ? "" : ", ") + std::string(s);
    return Error{"unknown scenario '" + scenario + "' (known: " + list + ")", EINVAL};
  }
  const auto vendors = sim::Simulator::vendors();
  if (std::find(vendors.begin(), vendors.end(), vendor) == vendors.end()) {
    std::string list;
    for (const auto& v : vendors) list += (list.empty() ? "" : ", ") + std::string(v);
    return Error{"unknown vendor '" + vendor + "' (known: " + list + ")", EINVAL};
  }
  sim::SimOptions options;
  if (demo.faultPort >= options.rocePorts) {
    return Error{"--fault-port " + std::to_string(demo.faultPort) + ": the demo node has RoCE ports 0-" +
                     std::to_string(options.rocePorts - 1),
                 EINVAL};
  }
  auto tree = DemoTree::create(std::filesystem::temp_directory_path());
  if (!tree) return tree.error();

  std::unique_ptr<DemoNode> node(new DemoNode());
  node->tree_ = std::move(*tree);
  node->dir_ = node->tree_->path();
  options.root = node->dir_;
  options.faultPort = demo.faultPort;
  options.lldpPod = demo.pod;
  options.nodeIndex = demo.nodeIndex;
  options.scenario = scenario;
  options.vendor = vendor;
  options.managementNic = true;  // a real GPU node has one: the demo shows it is left out of the rules
  node->pod_ = demo.pod;
  node->nodeIndex_ = demo.nodeIndex;
  node->simulator_ = std::make_shared<sim::Simulator>(options);
  if (auto st = node->simulator_->init(); !st) return Error{"simulator: " + st.error().message, st.error().errnum};
  spdlog::info("demo: simulated node in {}", node->dir_.string());

  // Simulated time follows the wall clock, so rates on /metrics look like a real node's.
  node->ticker_ = std::make_unique<PeriodicTask>(
      io, "simulator", tick,
      [sim = node->simulator_, last = std::make_shared<std::chrono::steady_clock::time_point>(
                                   std::chrono::steady_clock::now())] {
        const auto now = std::chrono::steady_clock::now();
        if (auto st = sim->tick(now - *last); !st) spdlog::warn("simulator: {}", st.error().message);
        *last = now;
      });
  node->ticker_->start();
  return node;
}

DemoNode::~DemoNode() { stop(); }

void DemoNode::applyTo(Config& config) const {
  config.sources.sysfsRoot = (dir_ / "sys").string();
  config.sources.ethtoolDir = (dir_ / "ethtool").string();
  config.sources.dcbDir = (dir_ / "dcb").string();
  config.sources.moduleEepromDir = (dir_ / "module_eeprom").string();
  config.sources.fecDir = (dir_ / "fec").string();
  // The demo keeps its state file in its own tree (gone with it), never in a real state directory.
  config.state.path = (dir_ / "state.json").string();
  config.sources.lldpFile = (dir_ / "lldp" / "neighbors.json").string();
  config.sources.kmsgFile = (dir_ / "kmsg").string();  // the simulator's kernel log: no root needed
  // The simulator's devlink health reporters (nic-fw-fatal puts fw_fatal in its error state).
  if (auto& devlink = config.collectorSettings.get<DevlinkHealthSettings>(); !devlink.file) {
    devlink.file = (dir_ / "devlink" / "health.json").string();
  }
  if (config.web.listen == kDefaultListen) config.web.listen = "127.0.0.1:19110";
}

std::shared_ptr<MadSource> DemoNode::madSource(std::shared_ptr<const SysfsRoot> sysfs) const {
  return makeDemoMadSource(std::move(sysfs), pod_, nodeIndex_, dir_ / "mad");
}

void DemoNode::stop() {
  if (ticker_) {
    ticker_->stop(std::chrono::milliseconds(500));
    ticker_.reset();
  }
  if (tree_) {
    tree_->remove();
    tree_.reset();
  }
}

}  // namespace fabricmon
