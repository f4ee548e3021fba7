#include "sim/simulator.hpp"

#include <array>
#include <cmath>
#include <utility>
#include <cstdio>
#include <map>

#include "sim/file_writer.hpp"
#include "sim/devlink_health.hpp"
#include "sim/lldp.hpp"
#include "sim/module_image.hpp"
#include "sim/port_model.hpp"
#include "sim/render.hpp"
#include "sim/scenario.hpp"
#include "sim/vendor.hpp"

namespace fabricmon::sim {

namespace fs = std::filesystem;

namespace {

// PCI buses of the eight ConnectX-7 NICs of a DGX H100 (ibp24s0, ibp64s0, ... in NVIDIA's DGX H100
// user guide), then eight more for larger nodes. The InfiniBand port sits at 0xaa.
constexpr unsigned kRoceBuses[16] = {0x18, 0x40, 0x4f, 0x5e, 0x9a, 0xc0, 0xce, 0xdc,
                                     0x1b, 0x43, 0x52, 0x61, 0x9d, 0xc3, 0xd1, 0xdf};
constexpr unsigned kIbBus = 0xaa;
constexpr unsigned kManagementBus = 0xe1;
/// As on a DGX H100: RoCE NIC i and GPU i share a PCIe switch; the GPU is 3 buses above the NIC
/// (NIC 0x18, GPU 0x1b). Only for the first 8 RoCE ports of a node of at most 8 (beyond that the
/// buses are other NICs').
constexpr unsigned kGpuBusOffset = 3;
constexpr unsigned kGpuPairs = 8;

/// The ports SimOptions::mixedNode adds (hca_type/board_id as class/infiniband shows them:
/// MT41692 = BlueField-3; bnxt_re has neither file).
struct MixedPort {
  unsigned bus;
  const char* device;  ///< "" = mlx5_<index>
  const char* hcaType;
  const char* boardId;
  unsigned rateGbps;
  const char* rateText;
  const char* vendor;
};
constexpr MixedPort kMixedPorts[] = {
    {0x2a, "", "MT41692", "MT_0000000884", 200, "200 Gb/sec (4X HDR)", ""},
    {0x2b, "", "MT41692", "MT_0000000884", 200, "200 Gb/sec (4X HDR)", ""},
    {0x3d, "bnxt_re0", "", "", 100, "100 Gb/sec (4X EDR)", "bnxt"},
};
constexpr uint64_t kMellanoxOui = 0x946dae;  // an NVIDIA/Mellanox OUI
constexpr const char* kHostName = "gpu-node-sim";

// OFED ecn/ parameter files with the NVIDIA firmware defaults (NVIDIA's DCQCN parameter
// documentation; the remaining values as the procfs ecn fixture in tests/fixtures/realdata/ and
// NVIDIA's DCQCN parameter page list them).
const std::vector<std::pair<const char*, const char*>> kNpParams = {
    {"min_time_between_cnps", "4"}, {"cnp_dscp", "48"}, {"cnp_802p_prio", "6"}};
const std::vector<std::pair<const char*, const char*>> kRpParams = {
    {"clamp_tgt_rate", "0"},
    {"clamp_tgt_rate_after_time_inc", "1"},
    {"dce_tcp_g", "1019"},
    {"dce_tcp_rtt", "1"},
    {"initial_alpha_value", "1023"},
    {"rate_reduce_monitor_period", "4"},
    {"rate_to_set_on_first_cnp", "0"},
    {"rpg_ai_rate", "5"},
    {"rpg_byte_reset", "32767"},
    {"rpg_gd", "11"},
    {"rpg_hai_rate", "50"},
    {"rpg_max_rate", "0"},
    {"rpg_min_dec_fac", "50"},
    {"rpg_min_rate", "1"},
    {"rpg_threshold", "1"},
    {"rpg_time_reset", "300"}};
// Upstream debugfs names (drivers/infiniband/hw/mlx5/cong.c mlx5_ib_dbg_cc_name), same defaults.
const std::vector<std::pair<const char*, const char*>> kCcParams = {
    {"rp_clamp_tgt_rate", "0"},
    {"rp_clamp_tgt_rate_ati", "1"},
    {"rp_time_reset", "300"},
    {"rp_byte_reset", "32767"},
    {"rp_threshold", "1"},
    {"rp_ai_rate", "5"},
    {"rp_max_rate", "0"},
    {"rp_hai_rate", "50"},
    {"rp_min_dec_fac", "50"},
    {"rp_min_rate", "1"},
    {"rp_rate_to_set_on_first_cnp", "0"},
    {"rp_dce_tcp_g", "1019"},
    {"rp_dce_tcp_rtt", "1"},
    {"rp_rate_reduce_monitor_period", "4"},
    {"rp_initial_alpha_value", "1023"},
    {"rp_gd", "11"},
    {"np_min_time_between_cnps", "4"},
    {"np_cnp_dscp", "48"},
    {"np_cnp_prio_mode", "1"},
    {"np_cnp_prio", "6"}};

std::string pciName(unsigned bus) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0000:%02x:00.0", bus);
  return buf;
}

std::string hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

// IPoIB hardware address: 4 bytes of flags + QPN (0x00001087 for the first child), then the port
// GID fe80::<port GUID> (drivers/infiniband/ulp/ipoib).
std::string ipoibAddress(uint64_t guid) {
  std::string out = "00:00:10:87:fe:80:00:00:00:00:00:00";
  char buf[4];
  for (int shift = 56; shift >= 0; shift -= 8) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>((guid >> shift) & 0xff));
    out += ':';
    out += buf;
  }
  return out;
}

std::string line(const std::string& s) { return s + "\n"; }

// The ethtool netlink FEC view of a port (docs/contract.md §2): RS-FEC on 4 lanes (400G: 100G
// PAM4 lanes, RS(544,514); 100G: 25G NRZ lanes, RS(528,514)); nothing while the link is down. The
// codeword counters only where the driver reports them (vendorReportsFecStats).
std::string fecYaml(const PortModel& p, Vendor vendor) {
  std::string out = "mode: rs\nlanes: 4\n";
  if (p.linkUp) out += "speed_mbps: " + std::to_string(p.rateGbps * 1000) + "\n";
  if (!vendorReportsFecStats(vendor)) return out;
  out += "corrected_blocks: " + std::to_string(p.fecCorrectedBlocks.value()) + "\n";
  out += "uncorrectable_blocks: " + std::to_string(p.fecUncorrectableBlocks.value()) + "\n";
  return out;
}
std::string num(uint64_t v) { return std::to_string(v) + "\n"; }

// The InfiniBand port's FEC at both ends of its cable, for the demo's MAD source
// (sim/demo_mad_source.cpp): PortInfoExtended's FECModeActive (4, RS-FEC2: RS(544,514) on NDR's
// 100G PAM4 lanes) and PortExtendedSpeedsCounters in the RS-FEC layout, "<name>: <value>" lines.
// Not a source of the daemon (docs/contract.md §2 has none for MADs): the simulated fabric's state.
std::string ibFecText(const PortModel& p) {
  std::string out = "fec_mode: 4\n";
  for (const auto& [prefix, f] : {std::pair{"", &p.ibFec}, std::pair{"peer_", &p.peerIbFec}}) {
    out += std::string(prefix) + "corrected_symbols: " + num(f->correctedSymbols.value());
    out += std::string(prefix) + "corrected_blocks: " + num(f->correctedBlocks.value());
    out += std::string(prefix) + "uncorrectable_blocks: " + num(f->uncorrectableBlocks.value());
    out += std::string(prefix) + "lane_corrected_symbols:";
    for (const Counter& lane : f->laneSymbols) out += " " + std::to_string(lane.value());
    out += "\n";
  }
  return out;
}

// The names aer_stats_dev_attr() prints (drivers/pci/pcie/aer.c, Linux 6.1: the named bits of
// aer_correctable_error_string[] and aer_uncorrectable_error_string[], in bit order).
constexpr std::array<const char*, 8> kAerCorrectable = {"RxErr",   "BadTLP",      "BadDLLP",    "Rollover",
                                                        "Timeout", "NonFatalErr", "CorrIntErr", "HeaderOF"};
constexpr std::array<const char*, 18> kAerUncorrectable = {
    "Undefined", "DLP",      "SDES",    "TLP",          "FCP",        "CmpltTO",         "CmpltAbrt",     "UnxCmplt",
    "RxOF",      "MalfTLP",  "ECRC",    "UnsupReq",     "ACSViol",    "UncorrIntErr",    "BlockedTLP",
    "AtomicOpBlocked",       "TLPBlockedErr",           "PoisonTLPBlocked"};
constexpr size_t kCmpltTO = 5;

/// The AER counts of one PCI function (a NIC's or a bridge's), as its aer_dev_* files show them.
struct AerCounts {
  double owed = 0;  ///< corrected errors accrued but not yet whole
  std::array<uint64_t, kAerCorrectable.size()> correctable{};
  uint64_t correctableTotal = 0;
  std::array<uint64_t, kAerUncorrectable.size()> nonfatal{};
  uint64_t nonfatalTotal = 0;
  std::array<uint64_t, kAerUncorrectable.size()> fatal{};
  uint64_t fatalTotal = 0;

  void addCorrected(double errors) {
    owed += errors;
    // A rate times whole seconds should give whole errors: 30 × (1/30) is 0.999... in doubles.
    while (owed >= 1 - 1e-9) {
      owed -= 1;
      // A degrading link: mostly bad TLPs (LCRC), some bad DLLPs and replay timeouts.
      static constexpr size_t kMix[5] = {1, 1, 1, 2, 4};
      ++correctable[kMix[correctableTotal % 5]];
      ++correctableTotal;
    }
  }
};

template <size_t N>
std::string aerText(const std::array<const char*, N>& names, const std::array<uint64_t, N>& counts,
                    const char* total, uint64_t totalCount) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += std::string(names[i]) + " " + std::to_string(counts[i]) + "\n";
  return out + total + " " + std::to_string(totalCount) + "\n";
}

}  // namespace

struct Simulator::State final : ScenarioNode {
  SimOptions options;
  Scenario scenario = Scenario::kHealthy;
  Vendor vendor = Vendor::kMlx5;
  std::vector<PortModel> ports;
  /// What the NIC last published, per port: the ethtool text and the hw_counters values as of the
  /// last refresh boundary. Used only when `refresh` > 0.
  struct Latched {
    std::string ethtool;
    std::vector<uint64_t> hw;
  };
  std::vector<Latched> latched;
  double refresh = 0;
  uint64_t refreshes = 0;  // boundaries crossed; the next one is at (refreshes + 1) * refresh
  FileWriter writer;
  double now = 0;
  std::optional<double> nextEvent;
  unsigned events = 0;  ///< the scenario's events fired so far
  bool initialised = false;

  fs::path sys() const { return options.root / "sys"; }
  fs::path pciDir(const PortModel& p) const { return sys() / "devices" / p.pciPath; }
  /// From a directory below sys/ back up to sys/ ("../../.." for devices/pci0000:00/<fn>).
  static std::string upToSys(const std::string& devicesRel) {
    std::string up = "../";  // out of devices/
    for (char c : devicesRel) up += c == '/' ? "../" : "";
    return up + "../";
  }
  fs::path devDir(const PortModel& p) const { return pciDir(p) / "infiniband" / p.device; }
  fs::path netDir(const PortModel& p) const { return pciDir(p) / "net" / p.netdev; }
  fs::path portDir(const PortModel& p) const {
    return devDir(p) / "ports" / std::to_string(p.port);
  }

  PortBehaviour behaviour(size_t index) const {
    if (index != options.faultPort || now < options.faultAt) return healthyBehaviour();
    return affectedBehaviour(scenario, now - options.faultAt);
  }
  void advanceAll(double seconds) {
    for (size_t i = 0; i < ports.size(); ++i) advance(ports[i], seconds, behaviour(i));
    advanceAer(seconds);
  }
  std::optional<double> nextRefresh() const {
    if (!(refresh > 0)) return std::nullopt;
    return static_cast<double>(refreshes + 1) * refresh;
  }
  Vendor vendorOf(const PortModel& p) const {
    if (p.vendor.empty()) return vendor;
    return parseVendor(p.vendor).value_or(vendor);
  }
  std::string liveEthtool(const PortModel& p) const { return vendorEthtoolText(vendorOf(p), p.ethtool); }
  void latch() {
    latched.resize(ports.size());
    for (size_t i = 0; i < ports.size(); ++i) {
      const PortModel& p = ports[i];
      if (p.roce) latched[i].ethtool = liveEthtool(p);
      latched[i].hw.clear();
      for (const auto& e : p.hw.entries()) latched[i].hw.push_back(e.counter.value());
    }
  }
  void fireEvent();

  // What a scenario may do to the node (ScenarioNode, sim/scenario.hpp).
  PortModel& affected() override { return ports[options.faultPort]; }
  /// The device leaves sysfs: its class/infiniband link and directory go; the files are written
  /// again (and the link made again) when it comes back.
  void removeDevice() override {
    PortModel& p = affected();
    p.removed = true;
    std::error_code ec;
    fs::remove(sys() / "class" / "infiniband" / p.device, ec);
    fs::remove_all(devDir(p), ec);
    writer.forget(devDir(p));
  }
  void restoreDevice() override {
    PortModel& p = affected();
    buildTables(p);
    p.removed = false;
    pendingRestore = true;
    if (Status st = logProbe(p); !st && kmsgStatus.ok()) kmsgStatus = st;
  }
  void logKernel(unsigned level, std::string_view text) override {
    if (Status st = logKernel(affected(), level, text); !st && kmsgStatus.ok()) kmsgStatus = st;
  }
  void addCorrectedAtReporter(double errors) override { aer[aerReporter(affected())].addCorrected(errors); }
  void addCorrectedAlongPath(double errors) override {
    const PortModel& p = affected();
    for (auto& [path, counts] : aer) {
      if (p.pciPath == path || p.pciPath.starts_with(path + "/")) counts.addCorrected(errors);
    }
  }
  void addCompletionTimeout() override {
    AerCounts& own = aer[affected().pciPath];
    ++own.nonfatal[kCmpltTO];
    ++own.nonfatalTotal;
  }
  bool pendingRestore = false;
  /// PCIe AER counts of every NIC function and every bridge above one, by path below sys/devices.
  std::map<std::string, AerCounts> aer;
  /// The function a port's PCIe errors show at: the switch port above the NIC (or the NIC's own
  /// function when it sits on the root complex).
  std::string aerReporter(const PortModel& p) const {
    const std::string parent = fs::path(p.pciPath).parent_path().string();
    return parent.find('/') == std::string::npos ? p.pciPath : parent;
  }
  void advanceAer(double seconds) {
    if (ports.empty() || now < options.faultAt || seconds <= 0) return;
    if (auto pcie = scenarioDef(scenario).pcie) pcie(*this, now - options.faultAt, seconds);
  }
  Status renderAer();
  /// The node's kernel log (root/kmsg, the daemon's sources.kmsg_file): records in /dev/kmsg's
  /// format as a PCI function's driver logs them with dev_printk() (its dictionary names the
  /// function). TS_USEC is 0, so the daemon dates a record when it reads it; the file stays
  /// byte-identical for the same seed and ticks.
  uint64_t kmsgSeq = 0;
  Status logKernel(const PortModel& p, unsigned level, std::string_view text) {
    const std::string record = std::to_string(level) + "," + std::to_string(kmsgSeq++) + ",0,-;mlx5_core " +
                               p.pciAddress + ": " + std::string(text) + "\n SUBSYSTEM=pci\n DEVICE=+pci:" +
                               p.pciAddress + "\n";
    return writer.append(options.root / "kmsg", record);
  }
  /// What mlx5_core logs when it probes a function (mlx5/core/main.c, mlx5_function_setup(); events.c).
  Status logProbe(const PortModel& p) {
    if (Status st = logKernel(p, 6, "firmware version: 28.39.1002"); !st) return st;
    return logKernel(p, 6, "Port module event: module " + std::to_string(p.port - 1) + ", Cable plugged");
  }
  Status kmsgStatus;  ///< the first failed kernel log write of fireEvent() (reported by tick)
  Status validate();
  void layOutPorts();
  void setUpScenario();
  Status createFiles();
  Status createTree();
  Status createBridgesAndGpu(const PortModel& p);
  Status renderAll();
  Status renderLldp();
  Status renderDevlinkHealth();
  Status renderPort(const PortModel& p);
  /// The driver's hwmon device under the PCI function (none for ionic), and its files.
  Vendor driverOf(const PortModel& p) const { return p.roce ? vendorOf(p) : Vendor::kMlx5; }
  bool hasHwmon(const PortModel& p) const { return driverOf(p) != Vendor::kIonic; }
  fs::path hwmonDir(const PortModel& p) const {
    return pciDir(p) / "hwmon" / ("hwmon" + std::to_string(&p - ports.data() + 1));
  }
  void hwmonFiles(const PortModel& p, std::vector<std::pair<fs::path, std::string>>& files) const;
  Status renderModules();
  /// The module in each port's cage (docs/simulator.md, "Transceivers"), by port index.
  std::vector<ModuleParams> modules;
  void createModules();
  ModuleParams moduleNow(size_t index) const;
};

// 400G ports carry CMIS modules (OSFP and QSFP112 alternately), ports up to 200G SFF-8636 QSFP28s,
// the 100G management NIC an SFP28 (SFF-8472), and the InfiniBand port a passive copper OSFP cable
// (no DOM): every memory map and the no-DOM case on one node.
void Simulator::State::createModules() {
  modules.clear();
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortModel& p = ports[i];
    const std::string serial = "FS" + std::to_string(2500000 + p.nodeGuid % 100000);
    if (!p.roce) {
      ModuleParams m = passiveCopperCable(serial);
      m.identifier = 0x19;
      m.partNumber = "FS-OSFP-400G-CR8-1M";
      m.cableLengthMeters = 1;
      modules.push_back(m);
    } else if (p.netdev.starts_with("eno")) {
      modules.push_back(sfp28Module(serial));
    } else if (p.rateGbps >= 400) {
      modules.push_back(cmis400gModule(serial, i % 2 == 0));
    } else {
      modules.push_back(qsfp28Module(serial));
    }
  }
}

// The affected port's module as the scenario has bent it by now; the others as built.
ModuleParams Simulator::State::moduleNow(size_t index) const {
  ModuleParams m = modules[index];
  const ScenarioDef& def = scenarioDef(scenario);
  if (index != options.faultPort || (now < options.faultAt && !def.moduleFromStart)) return m;
  if (def.module != nullptr) def.module(m, now - options.faultAt);
  latchFlags(m);  // the module latches what its values crossed (hot-module's alarm at 80 °C)
  return m;
}

// One flat image per interface (docs/contract.md §2), replaced whole so a read never mixes two.
Status Simulator::State::renderModules() {
  for (size_t i = 0; i < ports.size() && i < modules.size(); ++i) {
    const std::vector<uint8_t> image = buildModuleImage(moduleNow(i));
    const std::string_view bytes(reinterpret_cast<const char*>(image.data()), image.size());
    if (Status st = writer.replace(options.root / "module_eeprom" / (ports[i].netdev + ".bin"), bytes); !st) return st;
  }
  return {};
}

void Simulator::State::fireEvent() {
  const double next = scenarioDef(scenario).event(*this, events++);
  if (next == kNoEvent) {
    nextEvent.reset();
  } else {
    nextEvent = options.faultAt + next;
  }
}

// The PCIe switch and root port above a compute NIC, and the GPU beside it: static files written
// once (drivers/pci/pci-sysfs.c names: vendor, device, class, numa_node, max_link_*).
Status Simulator::State::createBridgesAndGpu(const PortModel& p) {
  const fs::path devices = sys() / "devices";
  const std::string numa = p.pciAddress < "0000:80" ? "0\n" : "1\n";
  auto bridge = [&](const fs::path& dir) -> Status {
    if (Status st = FileWriter::makeDirs(dir); !st) return st;
    for (const auto& [name, text] : {std::pair<const char*, std::string>{"vendor", "0x1000\n"},
                                     {"class", "0x060400\n"},
                                     {"numa_node", numa},
                                     {"max_link_speed", "32.0 GT/s PCIe\n"},
                                     {"max_link_width", "16\n"},
                                     {"current_link_speed", "32.0 GT/s PCIe\n"},
                                     {"current_link_width", "16\n"}}) {
      if (Status st = writer.write(dir / name, text); !st) return st;
    }
    return {};
  };
  // Every directory between the root complex and the function is a bridge (root port, switch ports).
  fs::path dir = devices;
  bool first = true;
  for (const auto& part : fs::path(p.pciPath).parent_path()) {
    dir /= part;
    if (first) {  // pci0000:00, the root complex: no PCI function of its own
      first = false;
      if (Status st = FileWriter::makeDirs(dir); !st) return st;
      continue;
    }
    if (Status st = bridge(dir); !st) return st;
  }
  if (p.gpuPath.empty()) return {};
  const fs::path gpu = devices / p.gpuPath;
  if (Status st = bridge(gpu.parent_path()); !st) return st;
  if (Status st = FileWriter::makeDirs(gpu); !st) return st;
  // H100 SXM5 (pci.ids 10de:2330), class 0x0302: 3D controller.
  for (const auto& [name, text] : {std::pair<const char*, std::string>{"vendor", "0x10de\n"},
                                   {"device", "0x2330\n"},
                                   {"class", "0x030200\n"},
                                   {"numa_node", numa}}) {
    if (Status st = writer.write(gpu / name, text); !st) return st;
  }
  return {};
}

Status Simulator::State::createTree() {
  const fs::path s = sys();
  for (const fs::path& d : {s / "class" / "infiniband", s / "class" / "net",
                            options.root / "ethtool", options.root / "dcb", options.root / "fec",
                            options.root / "lldp", options.root / "module_eeprom", options.root / "devlink"}) {
    if (Status st = FileWriter::makeDirs(d); !st) return st;
  }
  for (const PortModel& p : ports) {
    const fs::path pd = portDir(p);
    for (const fs::path& d : {pd / "counters", pd / "hw_counters", netDir(p)}) {
      if (Status st = FileWriter::makeDirs(d); !st) return st;
    }
    if (!p.roce) {
      if (Status st = FileWriter::makeDirs(options.root / "mad" / p.device); !st) return st;
    }
    if (p.roce) {
      for (const char* d : {"gid_attrs/ndevs", "gid_attrs/types", "gids"}) {
        if (Status st = FileWriter::makeDirs(pd / d); !st) return st;
      }
      if (options.upstreamDriver) {
        if (Status st = FileWriter::makeDirs(s / "kernel/debug/mlx5" / p.pciAddress / "cc_params");
            !st)
          return st;
      } else {
        for (const char* d : {"ecn/roce_np/enable", "ecn/roce_rp/enable"}) {
          if (Status st = FileWriter::makeDirs(netDir(p) / d); !st) return st;
        }
      }
    }
    // The driver bound to the PCI function: RoCE ports run the chosen vendor's driver, the
    // InfiniBand port is a ConnectX-7 (mlx5_core). Discovery reads its basename.
    const std::string driver(p.roce ? vendorDriver(vendorOf(p)) : vendorDriver(Vendor::kMlx5));
    if (Status st = FileWriter::makeDirs(s / "bus/pci/drivers" / driver); !st) return st;
    if (Status st = FileWriter::symlink(upToSys(p.pciPath) + "bus/pci/drivers/" + driver, pciDir(p) / "driver");
        !st)
      return st;
    if (Status st = createBridgesAndGpu(p); !st) return st;
    if (hasHwmon(p)) {
      if (Status st = FileWriter::makeDirs(hwmonDir(p)); !st) return st;
    }
    // Every PCI function on the NIC's path has the AER capability: zeros until a scenario adds.
    std::string at;
    for (const auto& part : fs::path(p.pciPath)) {
      at += (at.empty() ? "" : "/") + part.string();
      if (at.find('/') != std::string::npos) aer.try_emplace(at);  // not the root complex itself
    }
    const std::string pciRel = "../../devices/" + p.pciPath;
    const std::pair<fs::path, fs::path> links[] = {
        {pciRel + "/infiniband/" + p.device, s / "class/infiniband" / p.device},
        {pciRel + "/net/" + p.netdev, s / "class/net" / p.netdev},
        {"../../../" + p.pciAddress, devDir(p) / "device"},
        {"../../../" + p.pciAddress, netDir(p) / "device"},
    };
    for (const auto& [target, link] : links) {
      if (Status st = FileWriter::symlink(target, link); !st) return st;
    }
  }
  return {};
}

// The hwmon device the NIC's driver registers under its PCI function (drivers/hwmon/hwmon.c), with
// the channels each driver has (collectors/sources/hwmon_source.hpp): mlx5 the ASIC and the module,
// bnxt_en and ice one chip sensor with their warning, critical and fatal limits; ionic none. Numbered
// as the kernel would, one per function in probe order. Values made up, steady, a degree apart.
void Simulator::State::hwmonFiles(const PortModel& p, std::vector<std::pair<fs::path, std::string>>& files) const {
  const fs::path hw = hwmonDir(p);
  const auto milli = [](double celsius) { return std::to_string(std::lround(celsius * 1000)) + "\n"; };
  const double asic = 55.0 + static_cast<double>(&p - ports.data());
  switch (driverOf(p)) {
    case Vendor::kMlx5:
      files.emplace_back(hw / "name", "mlx5\n");
      files.emplace_back(hw / "temp1_label", "asic\n");
      files.emplace_back(hw / "temp1_input", milli(asic));
      files.emplace_back(hw / "temp1_highest", milli(asic + 3));
      files.emplace_back(hw / "temp1_crit", milli(105));
      // The module: sensor index 64 + the module number (the driver's name without a firmware one).
      files.emplace_back(hw / "temp2_label", "sensor64\n");
      files.emplace_back(hw / "temp2_input", milli(41));
      files.emplace_back(hw / "temp2_highest", milli(43));
      files.emplace_back(hw / "temp2_crit", milli(75));
      break;
    case Vendor::kBnxt:
    case Vendor::kIce:
      files.emplace_back(hw / "name", driverOf(p) == Vendor::kBnxt ? "bnxt_en\n" : "ice\n");
      files.emplace_back(hw / "temp1_input", milli(asic));
      files.emplace_back(hw / "temp1_max", milli(95));
      files.emplace_back(hw / "temp1_crit", milli(100));
      files.emplace_back(hw / "temp1_emergency", milli(105));
      break;
    case Vendor::kIonic:
      break;
  }
}

Status Simulator::State::renderPort(const PortModel& p) {
  std::vector<std::pair<fs::path, std::string>> files;
  const fs::path pci = pciDir(p), dev = devDir(p), pd = portDir(p), net = netDir(p);

  // PCI function: ConnectX-7 is device 0x1021 (pci.ids); class 0x0207 = InfiniBand controller.
  files.emplace_back(pci / "vendor", "0x15b3\n");
  files.emplace_back(pci / "device", "0x1021\n");
  files.emplace_back(pci / "class", p.roce ? "0x020000\n" : "0x020700\n");
  files.emplace_back(pci / "numa_node", p.pciAddress < "0000:80" ? "0\n" : "1\n");
  files.emplace_back(pci / "current_link_speed", "32.0 GT/s PCIe\n");
  files.emplace_back(pci / "current_link_width", "16\n");
  files.emplace_back(pci / "max_link_speed", "32.0 GT/s PCIe\n");
  files.emplace_back(pci / "max_link_width", "16\n");
  if (!p.removed) hwmonFiles(p, files);

  files.emplace_back(dev / "node_type", "1: CA\n");
  files.emplace_back(dev / "node_guid", line(guidText(p.nodeGuid)));
  files.emplace_back(dev / "sys_image_guid", line(guidText(p.nodeGuid)));
  files.emplace_back(dev / "fw_ver", "28.39.1002\n");
  if (!p.hcaType.empty()) files.emplace_back(dev / "hca_type", line(p.hcaType));
  if (!p.boardId.empty()) files.emplace_back(dev / "board_id", line(p.boardId));
  files.emplace_back(dev / "hw_rev", "0x0\n");
  files.emplace_back(dev / "node_desc", line(std::string(kHostName) + " " + p.device));

  files.emplace_back(pd / "state", p.linkUp ? "4: ACTIVE\n" : "1: DOWN\n");
  // A RoCE driver reports Disabled whenever its netdev has no carrier, whatever the cause
  // (mlx5_query_port_roce); only InfiniBand keeps Polling while it tries to train.
  files.emplace_back(pd / "phys_state",
                     p.linkUp ? "5: LinkUp\n" : p.adminDisabled || p.roce ? "3: Disabled\n" : "2: Polling\n");
  files.emplace_back(pd / "rate", line(p.rateText));
  files.emplace_back(pd / "link_layer", p.roce ? "Ethernet\n" : "InfiniBand\n");
  files.emplace_back(pd / "lid", line(hex(p.lid)));
  files.emplace_back(pd / "sm_lid", p.roce ? "0x0\n" : "0x1\n");
  files.emplace_back(pd / "lid_mask_count", "0\n");
  files.emplace_back(pd / "sm_sl", "0\n");
  files.emplace_back(pd / "cap_mask", p.roce ? "0x04010000\n" : "0xa751e848\n");
  for (const auto& e : p.pma.entries())
    files.emplace_back(pd / "counters" / e.name, num(e.counter.value()));
  const Latched* published = refresh > 0 ? &latched.at(static_cast<size_t>(&p - ports.data())) : nullptr;
  for (size_t i = 0; i < p.hw.entries().size(); ++i) {
    const auto& e = p.hw.entries()[i];
    const uint64_t v = published && i < published->hw.size() ? published->hw[i] : e.counter.value();
    files.emplace_back(pd / "hw_counters" / e.name, num(v));
  }
  files.emplace_back(pd / "hw_counters" / "lifespan", "10\n");

  const uint64_t low24 = p.nodeGuid & 0xffffff;
  if (p.roce) {
    // GID table of a RoCE port with one IPv4 address: link-local and IPv4-mapped, each as v1 and
    // v2.
    uint8_t ll[16] = {0xfe, 0x80};
    const uint64_t mac = (kMellanoxOui << 24) | low24;
    ll[8] = static_cast<uint8_t>(((mac >> 40) & 0xff) ^ 0x02);
    ll[9] = static_cast<uint8_t>(mac >> 32), ll[10] = static_cast<uint8_t>(mac >> 24);
    ll[11] = 0xff, ll[12] = 0xfe;
    ll[13] = static_cast<uint8_t>(mac >> 16), ll[14] = static_cast<uint8_t>(mac >> 8),
    ll[15] = static_cast<uint8_t>(mac);
    uint8_t v4[16] = {};
    v4[10] = 0xff, v4[11] = 0xff, v4[12] = 10, v4[13] = 20;
    v4[14] = static_cast<uint8_t>((low24 >> 8) & 0xff), v4[15] = static_cast<uint8_t>(low24 & 0xff);
    const char* types[4] = {"IB/RoCE v1", "RoCE v2", "IB/RoCE v1", "RoCE v2"};
    for (int i = 0; i < 4; ++i) {
      files.emplace_back(pd / "gid_attrs/ndevs" / std::to_string(i), line(p.netdev));
      files.emplace_back(pd / "gid_attrs/types" / std::to_string(i), line(types[i]));
      files.emplace_back(pd / "gids" / std::to_string(i), line(gidText(i < 2 ? ll : v4)));
    }
  }

  files.emplace_back(net / "operstate", p.linkUp ? "up\n" : "down\n");
  files.emplace_back(net / "carrier", p.linkUp ? "1\n" : "0\n");
  files.emplace_back(net / "carrier_changes", num(p.carrierChanges.value()));
  files.emplace_back(net / "carrier_up_count", num(p.carrierUpCount.value()));
  files.emplace_back(net / "carrier_down_count", num(p.carrierDownCount.value()));
  // The kernel prints SPEED_UNKNOWN as -1 while there is no link.
  files.emplace_back(net / "speed", p.linkUp ? num(p.rateGbps * 1000ull) : "-1\n");
  files.emplace_back(net / "duplex", p.linkUp ? "full\n" : "unknown\n");
  // IFF_UP cleared by `ip link set down` (a RoCE port taken down on purpose); IPoIB stays up when
  // ibportstate disables the port.
  files.emplace_back(net / "flags", p.adminDisabled && p.roce ? "0x1002\n" : "0x1003\n");
  files.emplace_back(net / "tx_queue_len", "1000\n");
  if (p.roce) {
    files.emplace_back(net / "type", "1\n");
    files.emplace_back(net / "mtu", "9000\n");
    files.emplace_back(net / "addr_len", "6\n");
    files.emplace_back(net / "address", line(macText((kMellanoxOui << 24) | low24)));
    files.emplace_back(net / "broadcast", "ff:ff:ff:ff:ff:ff\n");
  } else {
    // IPoIB (ARPHRD_INFINIBAND = 32): 20-byte hardware address = QPN + port GID.
    files.emplace_back(net / "type", "32\n");
    files.emplace_back(net / "mtu", "4092\n");
    files.emplace_back(net / "addr_len", "20\n");
    files.emplace_back(net / "address", line(ipoibAddress(p.nodeGuid)));
    files.emplace_back(net / "broadcast",
                       "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff\n");
  }

  if (p.roce) {
    if (options.upstreamDriver) {
      const fs::path cc = sys() / "kernel/debug/mlx5" / p.pciAddress / "cc_params";
      for (const auto& [name, value] : kCcParams) files.emplace_back(cc / name, line(value));
    } else {
      for (unsigned prio = 0; prio < 8; ++prio) {
        files.emplace_back(net / "ecn/roce_np/enable" / std::to_string(prio),
                           p.npEnabled[prio] ? "1\n" : "0\n");
        files.emplace_back(net / "ecn/roce_rp/enable" / std::to_string(prio),
                           p.rpEnabled[prio] ? "1\n" : "0\n");
      }
      for (const auto& [name, value] : kNpParams)
        files.emplace_back(net / "ecn/roce_np" / name, line(value));
      for (const auto& [name, value] : kRpParams)
        files.emplace_back(net / "ecn/roce_rp" / name, line(value));
    }
    files.emplace_back(options.root / "ethtool" / p.netdev,
                       published ? published->ethtool : liveEthtool(p));
    files.emplace_back(options.root / "fec" / p.netdev, fecYaml(p, vendorOf(p)));
    std::map<unsigned, unsigned> dscpMap{{26, kRocePriority}, {48, kCnpPriority}};
    if (p.dscpZeroOnRocePriority) dscpMap[0] = kRocePriority;
    files.emplace_back(options.root / "dcb" / p.netdev,
                       dcbYaml({kRocePriority}, "dscp", dscpMap) +
                           "storm_prevention_timeout_ms: " + std::to_string(p.stormPreventionMs) + "\n");
  }

  if (!p.roce) files.emplace_back(options.root / "mad" / p.device / std::to_string(p.port), ibFecText(p));

  const std::string devPrefix = dev.string() + "/";
  for (const auto& [path, text] : files) {
    if (p.removed && (path == dev || path.string().starts_with(devPrefix))) continue;
    if (Status st = writer.write(path, text); !st) return st;
  }
  return {};
}

Status Simulator::State::renderAll() {
  for (const PortModel& p : ports) {
    if (Status st = renderPort(p); !st) return st;
  }
  if (Status st = renderAer(); !st) return st;
  if (Status st = renderModules(); !st) return st;
  if (Status st = renderDevlinkHealth(); !st) return st;
  return renderLldp();
}

// aer_dev_correctable, aer_dev_nonfatal and aer_dev_fatal of every function on a NIC's path, in
// the kernel's format (Documentation/ABI/testing/sysfs-bus-pci-devices-aer-stats).
Status Simulator::State::renderAer() {
  for (const auto& [path, c] : aer) {
    const fs::path dir = sys() / "devices" / path;
    if (Status st = writer.write(dir / "aer_dev_correctable",
                                 aerText(kAerCorrectable, c.correctable, "TOTAL_ERR_COR", c.correctableTotal));
        !st)
      return st;
    if (Status st = writer.write(dir / "aer_dev_nonfatal",
                                 aerText(kAerUncorrectable, c.nonfatal, "TOTAL_ERR_NONFATAL", c.nonfatalTotal));
        !st)
      return st;
    if (Status st = writer.write(dir / "aer_dev_fatal",
                                 aerText(kAerUncorrectable, c.fatal, "TOTAL_ERR_FATAL", c.fatalTotal));
        !st)
      return st;
  }
  return {};
}

Status Simulator::State::renderLldp() {
  if (options.lldpPod.empty()) return {};
  std::vector<LldpPeer> peers;
  for (const PortModel& p : ports) {
    // lldpd forgets a neighbour when the interface goes down (and the netdev of a removed device
    // no longer carries frames).
    if (p.lldpChassis.empty() || !p.linkUp || p.removed) continue;
    peers.push_back(LldpPeer{p.netdev, p.lldpChassis, "swp" + std::to_string(options.nodeIndex),
                             "to node " + std::to_string(options.nodeIndex) + " " + p.netdev});
  }
  // Replaced, not rewritten in place: the daemon parses the document whole.
  return writer.replace(options.root / "lldp" / "neighbors.json", lldpJson0(peers));
}

// root/devlink/health.json: the reporters of every mlx5 function present (a removed device has no
// devlink instance), fw_fatal in its error state once the firmware failed (nic-fw-fatal).
Status Simulator::State::renderDevlinkHealth() {
  std::vector<DevlinkFunction> functions;
  for (const PortModel& p : ports) {
    if (p.removed || driverOf(p) != Vendor::kMlx5) continue;
    functions.push_back(DevlinkFunction{p.pciAddress, p.roce, p.frozen});
  }
  return writer.replace(options.root / "devlink" / "health.json", devlinkHealthJson(functions));
}

Simulator::Simulator(SimOptions options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

// The options, checked: the scenario, the vendor and the counter refresh they name.
Status Simulator::State::validate() {
  const SimOptions& o = options;
  if (o.root.empty()) return Error{"simulator: no root directory"};
  const auto named = parseScenario(o.scenario);
  if (!named) return Error{"simulator: unknown scenario '" + o.scenario + "'"};
  if (o.rocePorts > std::size(kRoceBuses)) return Error{"simulator: at most 16 RoCE ports"};
  if (o.faultPort != 0 && o.faultPort >= o.rocePorts) {
    return Error{"simulator: fault port " + std::to_string(o.faultPort) + " is not one of the " +
                 std::to_string(o.rocePorts) + " RoCE ports"};
  }
  if (!(o.faultAt >= 0) || !std::isfinite(o.faultAt)) return Error{"simulator: faultAt must be finite and >= 0"};
  if (*named != Scenario::kHealthy && o.rocePorts == 0) {
    return Error{"simulator: scenario '" + o.scenario + "' needs at least one RoCE port"};
  }
  if (o.upstreamDriver && scenarioNeedsEcnTree(*named)) {
    return Error{"simulator: scenario '" + o.scenario +
                 "' needs the OFED ecn/ tree (per-priority enable files)"};
  }
  scenario = *named;
  const auto maker = parseVendor(o.vendor);
  if (!maker) return Error{"simulator: unknown vendor '" + o.vendor + "'"};
  vendor = *maker;
  refresh = o.counterRefresh ? o.counterRefresh->count() : vendorCounterRefresh(vendor);
  if (!(refresh >= 0) || !std::isfinite(refresh))
    return Error{"simulator: counter refresh must be a finite duration >= 0"};
  return {};
}

// The node's ports: RoCE ports (with their PCIe switch and GPU where there is room), the mixed
// node's other NICs, the InfiniBand port and the management NIC; names, PCI addresses, LLDP
// neighbours, identities, and a few days of healthy traffic behind them.
void Simulator::State::layOutPorts() {
  const SimOptions& o = options;
  // A mixed node adds, after the ConnectX-7 ports, what GPU nodes really carry beside them: two
  // 200G BlueField-3 ports (storage / in-band management) and a 100G Broadcom front-end NIC.
  const unsigned extra = o.mixedNode ? std::size(kMixedPorts) : 0;
  const unsigned roce = o.rocePorts + extra;
  const unsigned withIb = roce + (o.infinibandPort ? 1 : 0);
  const unsigned total = withIb + (o.managementNic ? 1 : 0);
  ports.resize(total);
  for (unsigned i = 0; i < total; ++i) {
    PortModel& p = ports[i];
    const bool management = i >= withIb;
    p.roce = i < roce || management;
    const MixedPort* mixed = i >= o.rocePorts && i < roce ? &kMixedPorts[i - o.rocePorts] : nullptr;
    const unsigned bus = management ? kManagementBus : mixed ? mixed->bus : p.roce ? kRoceBuses[i] : kIbBus;
    if (management) {
      p.hcaType = "MT4125";  // ConnectX-6 Dx
      p.boardId = "MT_0000000359";
      p.rateGbps = 100;
      p.rateText = "100 Gb/sec (4X EDR)";
    }
    p.device = mixed && mixed->device[0] != '\0' ? std::string(mixed->device) : "mlx5_" + std::to_string(i);
    if (mixed) {
      p.hcaType = mixed->hcaType;
      p.boardId = mixed->boardId;
      p.rateGbps = mixed->rateGbps;
      p.rateText = mixed->rateText;
      p.vendor = mixed->vendor;
    }
    p.pciAddress = pciName(bus);
    p.pciPath = "pci0000:00/" + p.pciAddress;
    if (p.roce && !mixed && !management && i < kGpuPairs && o.rocePorts <= kGpuPairs) {
      // Root port 0000:00:<i+1>.0, switch upstream port on bus-2, downstream ports on bus-1
      // (device 0 towards the NIC, device 1 towards the GPU).
      char up[64], gpu[96];
      std::snprintf(up, sizeof up, "pci0000:00/0000:00:%02x.0/0000:%02x:00.0", i + 1, bus - 2);
      p.pciPath = std::string(up) + "/" + pciName(bus - 1) + "/" + p.pciAddress;
      std::snprintf(gpu, sizeof gpu, "%s/0000:%02x:01.0/%s", up, bus - 1, pciName(bus + kGpuBusOffset).c_str());
      p.gpuPath = gpu;
    }
    if (!o.lldpPod.empty() && p.roce) {
      p.lldpChassis = o.lldpPod + (management ? std::string("-mgmt")
                                   : mixed    ? std::string(mixed->vendor[0] == '\0' ? "-storage" : "-frontend")
                                              : "-leaf" + std::to_string(i));
    }
    // systemd predictable names: en + p<bus>s<slot> + np<phys port> for Ethernet, ib +
    // p<bus>s<slot> for IPoIB; eno<index> for an onboard function.
    p.netdev = management ? "eno1np0"
               : p.roce   ? "enp" + std::to_string(bus) + "s0np0"
                          : "ibp" + std::to_string(bus) + "s0";
    std::seed_seq seq{o.seed, static_cast<uint64_t>(i), uint64_t{0x51a7}};
    p.rng.seed(seq);
    std::uniform_real_distribution<double> util(0.6, 0.8);
    p.baseTxUtilisation = util(p.rng);
    p.baseRxUtilisation = util(p.rng);
    // Mellanox GUIDs are OUI:03:00:<24 bits>; the MAC is OUI:<the same 24 bits>.
    p.nodeGuid = (kMellanoxOui << 40) | (uint64_t{0x0300} << 24) | (p.rng() & 0xffffff);
    p.lid = p.roce ? 0 : 0x10 + static_cast<unsigned>(p.rng() % 0x3f0);
    // Corrected bits concentrate on the weakest lane, as in the real capture
    // tests/fixtures/ethtool/captures/ethtool_S_mlx5_100G_ofed_annotated_blog_trimmed.txt (rx_err_lane_*_phy).
    double sum = 0;
    for (double& w : p.laneWeights)
      sum += (w = std::uniform_real_distribution<double>(0.01, 0.2)(p.rng));
    const unsigned weak = static_cast<unsigned>(p.rng() % 4);
    sum += 3.0, p.laneWeights[weak] += 3.0;
    for (double& w : p.laneWeights) w /= sum;
    p.npEnabled.fill(true);
    p.rpEnabled.fill(true);
    buildTables(p);
    // A few days of healthy training traffic before the simulation starts.
    advance(p, std::uniform_real_distribution<double>(2 * 86400.0, 6 * 86400.0)(p.rng),
            healthyBehaviour());
  }
}

// The scenario's set-up on the affected port and its first event (sim/scenario.cpp, its row).
void Simulator::State::setUpScenario() {
  if (options.rocePorts == 0) return;  // only healthy runs without a RoCE port (validate())
  const ScenarioDef& def = scenarioDef(scenario);
  if (def.setUp != nullptr) def.setUp(affected());
  if (def.firstEvent != kNoEvent) nextEvent = options.faultAt + def.firstEvent;
}

// Every file of the node at t = 0: modules, the sysfs tree, the boot's kernel log, the counters.
Status Simulator::State::createFiles() {
  const SimOptions& o = options;
  createModules();
  latch();  // t = 0 is a refresh boundary
  if (Status s = createTree(); !s) return s;
  // The boot: every RoCE function's probe lines (informational: counted, never a finding).
  std::error_code ignored;
  fs::remove(o.root / "kmsg", ignored);
  for (const PortModel& p : ports) {
    if (!p.roce) continue;
    if (Status s = logProbe(p); !s) return s;
  }
  return renderAll();
}

Status Simulator::init() {
  State& st = *state_;
  if (st.initialised) return Error{"simulator: init() called twice"};
  if (Status s = st.validate(); !s) return s;
  st.layOutPorts();
  st.setUpScenario();
  if (Status s = st.createFiles(); !s) return s;
  st.initialised = true;
  return {};
}

Status Simulator::tick(std::chrono::duration<double> dt) {
  State& st = *state_;
  if (!st.initialised) return Error{"simulator: tick() before init()"};
  const double seconds = dt.count();
  if (!(seconds >= 0) || !std::isfinite(seconds))
    return Error{"simulator: tick needs a finite dt >= 0"};
  const double target = st.now + seconds;
  // Events, refresh boundaries and the fault's onset inside the span, in time order; at a tie the
  // event comes first, so a refresh at that instant already shows it. The onset only splits the
  // span: before it the port is healthy, after it not.
  for (;;) {
    const auto event = st.nextEvent && *st.nextEvent <= target ? st.nextEvent : std::nullopt;
    const auto boundary = st.nextRefresh();
    const bool atBoundary = boundary && *boundary <= target;
    const bool onset = st.now < st.options.faultAt && st.options.faultAt <= target;
    if (!event && !atBoundary && !onset) break;
    double at = target;
    if (event) at = std::min(at, *event);
    if (atBoundary) at = std::min(at, *boundary);
    if (onset) at = std::min(at, st.options.faultAt);
    st.advanceAll(at - st.now);
    st.now = at;
    if (event && *event == at) st.fireEvent();
    if (atBoundary && *boundary == at) {
      st.latch();
      ++st.refreshes;
    }
  }
  st.advanceAll(target - st.now);
  st.now = target;
  if (!st.kmsgStatus.ok()) return std::exchange(st.kmsgStatus, Status{});
  if (st.pendingRestore) {
    // The device is back: its directories and class/infiniband link are made again.
    st.pendingRestore = false;
    if (Status s = st.createTree(); !s) return s;
  }
  return st.renderAll();
}

double Simulator::now() const { return state_->now; }
double Simulator::counterRefresh() const { return state_->refresh; }

std::span<const std::string_view> Simulator::scenarios() { return scenarioNames(); }
std::span<const std::string_view> Simulator::vendors() { return vendorNames(); }

std::string_view Simulator::describe(std::string_view scenario) {
  const auto s = parseScenario(scenario);
  return s ? scenarioSummary(*s) : std::string_view{};
}

std::vector<ScenarioTarget> Simulator::affected() const {
  const State& st = *state_;
  if (st.scenario == Scenario::kHealthy || st.ports.empty() || !st.ports[st.options.faultPort].roce) return {};
  const PortModel& p = st.ports[st.options.faultPort];
  ScenarioTarget t{p.device, p.port, p.netdev, std::nullopt};
  if (scenarioHasPriority(st.scenario)) t.priority = kRocePriority;
  return {t};
}

std::vector<SimPort> Simulator::ports() const {
  std::vector<SimPort> out;
  for (const PortModel& p : state_->ports) {
    out.push_back(
        SimPort{p.device, p.port, p.netdev, p.pciAddress, p.roce ? "Ethernet" : "InfiniBand"});
  }
  return out;
}

fs::path Simulator::sysfsRoot() const { return state_->sys(); }
fs::path Simulator::ethtoolDir() const { return state_->options.root / "ethtool"; }
fs::path Simulator::dcbDir() const { return state_->options.root / "dcb"; }
fs::path Simulator::kmsgFile() const { return state_->options.root / "kmsg"; }
fs::path Simulator::moduleEepromDir() const { return state_->options.root / "module_eeprom"; }
fs::path Simulator::fecDir() const { return state_->options.root / "fec"; }
const SimOptions& Simulator::options() const { return state_->options; }
uint64_t Simulator::fileWrites() const { return state_->writer.writes(); }

}  // namespace fabricmon::sim
