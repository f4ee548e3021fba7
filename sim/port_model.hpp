#pragma once
// The counters of one simulated RDMA port and its netdev, and how they move over a span of time.
// Rates and their sources are documented in docs/simulator.md.

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include "sim/stat_table.hpp"

namespace fabricmon::sim {

/// The RoCE priority (DSCP 26) and the CNP priority (DSCP 48) of the usual NVIDIA RoCE setup
/// (docs/rules.md, dcqcn_misconfig).
inline constexpr unsigned kRocePriority = 3;
inline constexpr unsigned kCnpPriority = 6;

/// How a port behaves during one span of time. Ranges are drawn uniformly once per span.
struct PortBehaviour {
  double ecnMarkLo = 0, ecnMarkHi = 0;  ///< share of received RoCE packets arriving CE-marked
  double pausedByPeerLo = 0,
         pausedByPeerHi = 0;                    ///< share of time the peer's PFC stops our transmit
  double pausingPeerLo = 0, pausingPeerHi = 0;  ///< share of time our PFC stops the peer's transmit
  bool pauseStorm = false;  ///< pause held continuously: transmit on the RoCE priority frozen
  double preFecBer = 1e-8;  ///< corrected bits per received bit
  double symbolErrorsPerSecond = 0;
  double crcErrorsPerSecond = 0;
  double linkErrorRecoveriesPerSecond = 0;
  double transportErrorScale = 0;  ///< 1 = the `lossy` retransmission rates, 0 = none
  /// Out-of-sequence packets per second with no loss behind them: adaptive routing spraying one
  /// flow over several paths (no NAK, no timeout, no retransmission).
  double reorderPerSecond = 0;
  /// Bytes per second of bulk TCP the host sends and receives classified onto the RoCE priority (a
  /// DSCP map that puts DSCP 0 on the lossless class), on top of the usual IP traffic on priority 0.
  double bulkTcpOnRocePriority = 0;
  /// IEEE 802.3x global pause frames per second received and sent (a peer with link-level pause on).
  double globalPauseFramesPerSecond = 0;
  /// FEC codewords per second with more errors than the FEC corrects (frames lost after FEC).
  double uncorrectablePerSecond = 0;
};

struct PortModel {
  std::string device;  ///< "mlx5_0"
  unsigned port = 1;
  std::string netdev;      ///< "enp24s0np0" / "ibp170s0"
  std::string pciAddress;  ///< "0000:18:00.0"
  /// The function's directory below sys/devices: behind a root port and a PCIe switch for a compute
  /// NIC ("pci0000:00/0000:00:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0"), else on the root complex.
  std::string pciPath;
  /// The GPU behind the same PCIe switch (a compute NIC of the default node); "" = none.
  std::string gpuPath;
  bool roce = true;        ///< false = InfiniBand link layer
  unsigned rateGbps = 400;
  std::string rateText = "400 Gb/sec (4X NDR)";
  /// class/infiniband/<dev>/hca_type and board_id; empty = the driver has no such file (bnxt_re).
  std::string hcaType = "MT4129";
  std::string boardId = "MT_0000000838";
  /// The NIC vendor of this port when it differs from the node's (a mixed node); empty = the node's.
  std::string vendor;
  bool linkUp = true;
  std::string lldpChassis;  ///< the switch this Ethernet port is cabled to ("su1-leaf3"); "" = none
  /// While the link is down: taken down on purpose (InfiniBand: physical state Disabled; RoCE: the
  /// netdev without IFF_UP) rather than lost (InfiniBand: Polling, the port keeps trying to train,
  /// as with a pulled cable or a dead peer; RoCE: Disabled with the netdev still up).
  bool adminDisabled = false;
  /// The RDMA device is gone from sysfs (driver unloaded, PCIe link lost): class/infiniband/<dev>
  /// and the device directory are removed; the netdev stays.
  bool removed = false;
  /// nic-fw-fatal: the firmware stopped; no counter moves any more (the link state files still say up).
  bool frozen = false;
  /// DCB: PFC storm prevention timeout (ethtool tunable pfc-prevention-tout) in ms; 0 = off.
  unsigned stormPreventionMs = 100;
  /// DCB APP table: DSCP 0 (default TCP) mapped to the RoCE priority as well.
  bool dscpZeroOnRocePriority = false;
  std::array<bool, 8> npEnabled{};  ///< ecn/roce_np/enable/<p>
  std::array<bool, 8> rpEnabled{};  ///< ecn/roce_rp/enable/<p>
  uint64_t nodeGuid = 0;
  unsigned lid = 0;

  StatTable pma;      ///< ports/1/counters
  StatTable hw;       ///< ports/1/hw_counters (lifespan is written separately)
  StatTable ethtool;  ///< `ethtool -S` of the netdev (RoCE only)
  Counter carrierChanges, carrierUpCount, carrierDownCount;
  /// The FEC statistics of ethtool netlink (fec_dir files): corrected and uncorrectable codewords.
  Counter fecCorrectedBlocks, fecUncorrectableBlocks;
  /// InfiniBand: PMA PortExtendedSpeedsCounters in the RS-FEC layout (32-bit, saturating; the demo's
  /// MAD source answers them from the simulator's mad/ files).
  struct IbFec {
    Counter correctedSymbols{32}, correctedBlocks{32}, uncorrectableBlocks{32};
    std::array<Counter, 4> laneSymbols{Counter(32), Counter(32), Counter(32), Counter(32)};
  };
  /// This port's receiver, and the receiver of the switch port facing it (our transmitter's light).
  IbFec ibFec, peerIbFec;

  double baseTxUtilisation = 0.7;  ///< share of line rate, fixed per port from the seed
  double baseRxUtilisation = 0.7;
  std::array<double, 4> laneWeights{};  ///< how corrected bits spread over the 4 SerDes lanes
  std::mt19937_64 rng;
};

/// Number of netdev channels (queues) simulated in the ethtool listing.
inline constexpr unsigned kChannels = 16;

/// Fills the stat tables with every name a ConnectX-7 exposes, at boot values (a fresh driver
/// load).
void buildTables(PortModel& port);
/// Moves every counter over `seconds` of time under `behaviour`. A link that is down moves nothing.
void advance(PortModel& port, double seconds, const PortBehaviour& behaviour);
/// Link transitions, as the kernel and firmware count them.
void linkDown(PortModel& port);
void linkUp(PortModel& port);

}  // namespace fabricmon::sim
