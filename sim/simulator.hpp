#pragma once
// The fabric simulator: writes a realistic GPU node (8 ConnectX-7 RoCE ports + 1 InfiniBand NDR
// port) below a directory, laid out exactly like /sys, `ethtool -S` text and DCB YAML
// (docs/contract.md §2), and moves its counters as simulated time advances, so that the real daemon
// reads it through
// `--sysfs-root DIR/sys --ethtool-dir DIR/ethtool --dcb-dir DIR/dcb`. docs/simulator.md has the
// details.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace fabricmon::sim {

struct SimOptions {
  std::filesystem::path root;        ///< the tree goes to root/sys, root/ethtool, root/dcb
  std::string scenario = "healthy";  ///< one of Simulator::scenarios()
  unsigned rocePorts = 8;            ///< ConnectX-7 400G RoCE ports mlx5_0.. (at most 16)
  bool infinibandPort = true;        ///< one more device, InfiniBand NDR, after the RoCE ones
  /// One more, last: a 100G ConnectX-6 Dx RoCE port on the root complex, netdev eno1np0 (the
  /// in-band management NIC: no GPU beside it, so the daemon's default topology names it management).
  /// On in `fabricmon demo` and `fabricsim --management-nic`.
  bool managementNic = false;
  uint64_t seed = 1;                 ///< same seed + same tick sequence = byte-identical files
  /// DCQCN parameters where the upstream kernel driver puts them (debugfs
  /// sys/kernel/debug/mlx5/<pci>/cc_params/) instead of the NVIDIA OFED ecn/ tree, for every RoCE
  /// device.
  bool upstreamDriver = false;
  /// Simulated seconds of healthy running before the scenario's fault begins (its counter effects and
  /// events; configuration faults such as dcqcn-*-disabled or degraded-port are in place from the
  /// start). Lets a test or benchmark measure detection from a known onset after a baseline.
  double faultAt = 0;
  /// Beside the ConnectX-7 ports, two 200G BlueField-3 ports and a 100G Broadcom front-end NIC
  /// (bnxt_re0, its bnxt_en dialect): a normal mixed node, which the watchdog must find healthy.
  bool mixedNode = false;
  /// NIC vendor of the RoCE ports: "mlx5" (ConnectX-7), "bnxt" (Broadcom Thor2, bnxt_en), "ice"
  /// (Intel E810) or "ionic" (AMD Pensando). Sets the `ethtool -S` dialect and the device/driver link of their netdevs
  /// (sim/vendor.hpp); the RDMA side stays the mlx5 model.
  std::string vendor = "mlx5";
  /// How often the NIC refreshes its counters on its own clock: the ethtool stats and hw_counters
  /// files change only when simulated time crosses a multiple of it, and then show the values as
  /// of that multiple. 0 = fresh on every tick; unset = the vendor's default (bnxt 1 s, else 0).
  std::optional<std::chrono::duration<double>> counterRefresh{};
  /// Which RoCE port (0-based, below rocePorts) the scenario's fault hits. Demo nodes of one fleet
  /// test differ in it, as sick nodes of a real fleet differ in which NIC is sick.
  unsigned faultPort = 0;
  /// The switch ports the node's Ethernet ports are cabled to, as lldpd reports them: written to
  /// root/lldp/neighbors.json in `lldpcli -f json0 show neighbors details` form (the daemon's
  /// sources.lldp_file). Compute port i faces "<pod>-leaf<i>" (rail i of a rail-optimised pod), the
  /// BlueField ports "<pod>-storage", the front-end NIC "<pod>-frontend", the management NIC
  /// "<pod>-mgmt", each on switch port "swp<nodeIndex>"; a port whose link is down has none.
  /// Empty = no file (a node without lldpd).
  std::string lldpPod;
  unsigned nodeIndex = 1;
};

/// One RDMA port of the simulated node.
struct SimPort {
  std::string device;  ///< "mlx5_0"
  unsigned port = 1;
  std::string
      interface;  ///< its netdev ("enp24s0np0"; "ibp170s0" is the IPoIB netdev of the IB port)
  std::string pciAddress;  ///< "0000:18:00.0"
  std::string linkLayer;   ///< "Ethernet" or "InfiniBand"
};

/// What a scenario affects. `priority` is set when the fault concerns one priority (always 3, the
/// RoCE one).
struct ScenarioTarget {
  std::string device;
  unsigned port = 1;
  std::string interface;
  std::optional<unsigned> priority;
};

class Simulator {
 public:
  explicit Simulator(SimOptions options);
  ~Simulator();
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  /// Creates the whole tree at t = 0 (counters start from a few days of healthy history).
  /// Fails on an unknown scenario, a bad port count or an unwritable root.
  Status init();
  /// Advances simulated time by `dt` (≥ 0) and rewrites every changed file in place (same inode,
  /// pwrite at offset 0 then ftruncate). Events inside the span (a link flap, a driver reload)
  /// happen at their exact simulated time, so one tick(60s) equals sixty tick(1s) in what it
  /// counts.
  Status tick(std::chrono::duration<double> dt);
  /// Simulated seconds since init().
  double now() const;
  /// The counter refresh period in force, in seconds (0 = fresh on every tick).
  double counterRefresh() const;

  static std::span<const std::string_view> scenarios();
  /// The accepted SimOptions::vendor values ("mlx5", "bnxt", "ice", "ionic").
  static std::span<const std::string_view> vendors();
  /// One line describing a scenario; empty for an unknown name.
  static std::string_view describe(std::string_view scenario);

  /// The ports and interfaces the scenario touches (empty for "healthy"); every other port stays
  /// healthy.
  std::vector<ScenarioTarget> affected() const;
  /// Every RDMA port of the node, RoCE ones first (valid after init()).
  std::vector<SimPort> ports() const;

  std::filesystem::path sysfsRoot() const;   ///< root/sys, for --sysfs-root
  std::filesystem::path ethtoolDir() const;  ///< root/ethtool, for --ethtool-dir
  std::filesystem::path dcbDir() const;      ///< root/dcb, for --dcb-dir
  /// root/kmsg: the node's kernel log as kmsg-formatted records, for sources.kmsg_file.
  std::filesystem::path kmsgFile() const;
  std::filesystem::path moduleEepromDir() const;  ///< root/module_eeprom, for --module-eeprom-dir
  std::filesystem::path fecDir() const;      ///< root/fec, for --fec-dir
  const SimOptions& options() const;
  /// write(2) calls made so far: how much of the tree the ticks really rewrote.
  uint64_t fileWrites() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace fabricmon::sim
