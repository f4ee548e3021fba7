// Where each RDMA port sits on the host (collectors/host_topology.cpp, port_roles.cpp and the
// port_topology collector) over a PCI tree laid out the way drivers/pci/pci-sysfs.c shows it:
//   root port 00:01.0 - PCIe switch 01:00.0 - 02:00.0 - NIC 03:00.0 (x8 in an x16 slot) + its VF 03:00.2
//                                           \ 02:01.0 - GPU 04:00.0 (NVIDIA 3D controller)
//   root port 00:02.0 - GPU 05:00.0 and NIC 06:00.0 (Gen5 NIC in a Gen4 root port)
//   root port 80:03.0 - onboard NIC 81:00.0 (eno1, NUMA unknown): no GPU
#include <fstream>

#include <gtest/gtest.h>

#include "collectors/error_tracker.hpp"
#include "collectors/host_topology.hpp"
#include "collectors/registry.hpp"
#include "config/config.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

class HostTopologyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string sw = "devices/pci0000:00/0000:00:01.0/0000:01:00.0";
    function(sw.substr(0, sw.rfind('/')), "0x060400", "0x8086", "16", "32.0 GT/s PCIe");  // root port
    function(sw, "0x060400", "0x1000", "16", "32.0 GT/s PCIe");  // switch upstream port
    function(sw + "/0000:02:00.0", "0x060400", "0x1000", "16", "32.0 GT/s PCIe");
    nic("mlx5_0", sw + "/0000:02:00.0/0000:03:00.0", "1", "8", "16", "32.0 GT/s PCIe", "32.0 GT/s PCIe");
    nic("mlx5_1", sw + "/0000:02:00.0/0000:03:00.2", "-1", "8", "16", "32.0 GT/s PCIe", "32.0 GT/s PCIe");
    fs::create_directory_symlink("../0000:03:00.0", root_ / sw / "0000:02:00.0/0000:03:00.2/physfn");
    function(sw + "/0000:02:01.0", "0x060400", "0x1000", "16", "32.0 GT/s PCIe");
    function(sw + "/0000:02:01.0/0000:04:00.0", "0x030200", "0x10de", "16", "32.0 GT/s PCIe");  // GPU
    function("devices/pci0000:00/0000:00:02.0", "0x060400", "0x8086", "16", "16.0 GT/s PCIe");
    function("devices/pci0000:00/0000:00:02.0/0000:05:00.0", "0x030000", "0x10de", "16", "16.0 GT/s PCIe");
    nic("mlx5_2", "devices/pci0000:00/0000:00:02.0/0000:06:00.0", "0", "16", "16", "16.0 GT/s PCIe",
        "32.0 GT/s PCIe");
    function("devices/pci0000:80/0000:80:03.0", "0x060400", "0x8086", "4", "8.0 GT/s PCIe");
    nic("mlx5_3", "devices/pci0000:80/0000:80:03.0/0000:81:00.0", "-1", "4", "4", "8.0 GT/s PCIe", "8.0 GT/s PCIe");
    sysfs_ = std::make_shared<SysfsRoot>(root_);
    topology_.generation = 1;
    topology_.devices = {device("mlx5_0", "0000:03:00.0", "ens1f0np0"), device("mlx5_1", "0000:03:00.2", "ens1f0v0"),
                         device("mlx5_2", "0000:06:00.0", "ens2f0np0"), device("mlx5_3", "0000:81:00.0", "eno1")};
  }
  void write(const fs::path& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text << "\n";
  }
  void function(const std::string& path, const std::string& cls, const std::string& vendor, const std::string& width,
                const std::string& speed) {
    write(path + "/class", cls);
    write(path + "/vendor", vendor);
    write(path + "/max_link_width", width);
    write(path + "/current_link_width", width);
    write(path + "/max_link_speed", speed);
    write(path + "/current_link_speed", speed);
  }
  void nic(const std::string& name, const std::string& path, const std::string& numa, const std::string& width,
           const std::string& maxWidth, const std::string& speed, const std::string& maxSpeed) {
    function(path, "0x020000", "0x15b3", maxWidth, maxSpeed);
    write(path + "/current_link_width", width);
    write(path + "/current_link_speed", speed);
    write(path + "/numa_node", numa);
    fs::create_directories(root_ / "class/infiniband" / name);
    fs::create_directory_symlink("../../../" + path, root_ / "class/infiniband" / name / "device");
  }
  static RdmaDevice device(const std::string& name, const std::string& pci, const std::string& netdev) {
    return RdmaDevice{name, pci, 0, {RdmaPort{1, "Ethernet", {netdev}}}};
  }

  testing::TempDir tmp_{"fabricmon-hosttopo"};
  const fs::path& root_ = tmp_.path();
  std::shared_ptr<SysfsRoot> sysfs_;
  Topology topology_;
};

TEST_F(HostTopologyTest, PlacesEachFunctionBesideItsGpus) {
  HostTopology host(sysfs_);
  auto placed = host.read(topology_);
  ASSERT_EQ(placed.size(), 4u);
  const PciPlacement& nic0 = placed["mlx5_0"];
  EXPECT_EQ(nic0.pciAddress, "0000:03:00.0");
  EXPECT_EQ(nic0.numaNode, "1");
  EXPECT_FALSE(nic0.virtualFunction);
  EXPECT_EQ(nic0.gpus, std::vector<std::string>{"0000:04:00.0"}) << "the GPU behind the same PCIe switch";
  // Trained at x8 in an x16 slot: a fault the numbers must show.
  EXPECT_EQ(nic0.widthCurrent, 8u);
  EXPECT_EQ(nic0.widthMax, 16u);

  const PciPlacement& vf = placed["mlx5_1"];
  EXPECT_TRUE(vf.virtualFunction);
  EXPECT_EQ(vf.physicalFunction, "0000:03:00.0");
  EXPECT_EQ(vf.numaNode, "") << "numa_node -1 means the kernel does not know";

  const PciPlacement& nic2 = placed["mlx5_2"];
  EXPECT_EQ(nic2.gpus, std::vector<std::string>{"0000:05:00.0"}) << "no switch: the GPU on the same root port";
  // A Gen5 NIC under a Gen4 root port runs at Gen4 by design: its maximum is the port's.
  EXPECT_EQ(nic2.speedCurrentGts, 16.0);
  EXPECT_EQ(nic2.speedMaxGts, 16.0);

  EXPECT_TRUE(placed["mlx5_3"].gpus.empty()) << "only the root complex in common with any GPU";
  EXPECT_EQ(host.gpus().size(), 2u);
}

TEST_F(HostTopologyTest, ALinkThatRetrainsIsSeenAtTheNextReadAndANewGpuAfterRediscovery) {
  HostTopology host(sysfs_);
  EXPECT_EQ(host.read(topology_)["mlx5_0"].widthCurrent, 8u);
  // The link retrains to x16 (a hot reset, an AER recovery): the same topology, the new width.
  write("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/current_link_width", "16");
  EXPECT_EQ(host.read(topology_)["mlx5_0"].widthCurrent, 16u);
  // A GPU on the management NIC's root port shows up once discovery reports a new generation.
  function("devices/pci0000:80/0000:80:03.0/0000:82:00.0", "0x030200", "0x10de", "16", "32.0 GT/s PCIe");
  EXPECT_TRUE(host.read(topology_)["mlx5_3"].gpus.empty());
  ++topology_.generation;
  EXPECT_EQ(host.read(topology_)["mlx5_3"].gpus, std::vector<std::string>{"0000:82:00.0"});
}

// A VF has no PCIe link of its own: without its own max_link_* files its maximum stays unknown,
// never the slot's (x16 here), which would make every VF look downtrained.
TEST_F(HostTopologyTest, AVirtualFunctionWithoutLinkFilesHasNoMaximumFromTheSlot) {
  const std::string vf = "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.2";
  for (const char* f : {"max_link_width", "max_link_speed", "current_link_width", "current_link_speed"}) {
    fs::remove(root_ / vf / f);
  }
  HostTopology host(sysfs_);
  auto placed = host.read(topology_);
  const PciPlacement& p = placed["mlx5_1"];
  EXPECT_TRUE(p.virtualFunction);
  EXPECT_FALSE(p.widthMax.has_value());
  EXPECT_FALSE(p.speedMaxGts.has_value());
  EXPECT_FALSE(p.widthCurrent.has_value());
  EXPECT_EQ(placed["mlx5_0"].widthMax, 16u) << "its PF still has the slot's maximum";
}

TEST_F(HostTopologyTest, TheCollectorExportsRoleRailAndPcieLinkPerPort) {
  Sources sources;
  sources.sysfs = sysfs_;
  auto collector = makeCollector("port_topology", sources, Config{});
  Batch batch;
  ErrorTracker errors("port_topology");
  CollectOutput out(batch, errors);
  const std::vector<Sample>& samples = batch.samples;
  ASSERT_EQ(collector->collect(topology_, out), CollectStatus::kOk);
  std::map<std::string, double> byKey;
  for (const Sample& s : samples) byKey[s.series->key] = s.value;
  auto info = [](const std::string& labels) { return "fabricmon_port_topology_info{" + labels + "}"; };
  // Rails by the PCI address of the GPU each compute PF serves; the VF is on its PF's rail.
  EXPECT_EQ(byKey.count(info(R"(device="mlx5_0",port="1",interface="ens1f0np0",pci_address="0000:03:00.0",)"
                             R"(numa_node="1",function="pf",pf="",gpus="0000:04:00.0",role="compute",rail="0")")),
            1u);
  EXPECT_EQ(byKey.count(info(R"(device="mlx5_2",port="1",interface="ens2f0np0",pci_address="0000:06:00.0",)"
                             R"(numa_node="0",function="pf",pf="",gpus="0000:05:00.0",role="compute",rail="1")")),
            1u);
  EXPECT_EQ(byKey.count(info(R"(device="mlx5_1",port="1",interface="ens1f0v0",pci_address="0000:03:00.2",)"
                             R"(numa_node="",function="vf",pf="0000:03:00.0",gpus="0000:04:00.0",role="compute",rail="0")")),
            1u);
  // No GPU beside it, named like an onboard port: management, on no rail.
  EXPECT_EQ(byKey.count(info(R"(device="mlx5_3",port="1",interface="eno1",pci_address="0000:81:00.0",)"
                             R"(numa_node="",function="pf",pf="",gpus="",role="management",rail="")")),
            1u);
  EXPECT_EQ(byKey[R"(fabricmon_device_pcie_link_width_lanes{device="mlx5_0",which="current"})"], 8.0);
  EXPECT_EQ(byKey[R"(fabricmon_device_pcie_link_width_lanes{device="mlx5_0",which="max"})"], 16.0);
  for (const auto& [k, v] : byKey) {
    if (k.starts_with("fabricmon_port_topology_info")) {
      EXPECT_EQ(v, 1.0) << k;
    }
  }
}

TEST_F(HostTopologyTest, AMissingNicDoesNotRenumberTheOtherRails) {
  Sources sources;
  sources.sysfs = sysfs_;
  auto collector = makeCollector("port_topology", sources, Config{});
  auto railOf = [&](const std::string& device) {
    Batch batch;
    ErrorTracker errors("port_topology");
    CollectOutput out(batch, errors);
    const std::vector<Sample>& samples = batch.samples;
    EXPECT_EQ(collector->collect(topology_, out), CollectStatus::kOk);
    for (const Sample& s : samples) {
      if (s.series->family->name == "fabricmon_port_topology_info" && s.series->label("device") == device) {
        return std::string(s.series->label("rail"));
      }
    }
    return std::string("absent");
  };
  EXPECT_EQ(railOf("mlx5_2"), "1");
  // mlx5_0 (rail 0) and its VF vanish: mlx5_2 stays on rail 1.
  const Topology full = topology_;
  topology_.devices.erase(topology_.devices.begin(), topology_.devices.begin() + 2);
  ++topology_.generation;
  EXPECT_EQ(railOf("mlx5_2"), "1");
  // Back: the same numbers.
  topology_ = full;
  topology_.generation += 2;
  EXPECT_EQ(railOf("mlx5_0"), "0");
  EXPECT_EQ(railOf("mlx5_2"), "1");
}

}  // namespace
}  // namespace fabricmon
