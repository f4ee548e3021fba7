#pragma once
// The metric families the watchdog reads (docs/contract.md §4 and docs/metrics.md), and how each is
// keyed in its history. Only these are ingested: every other family is skipped at the door, which
// is what keeps the watchdog's memory proportional to what the rules use.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "model/sample.hpp"

namespace fabricmon::watchdog {

enum class Fam : uint8_t {
  kPortInfo,            // {device,port,interface,link_layer,rate} = 1: the device/port <-> interface join
  kPortState,           // {device,port} 4 = ACTIVE
  kPortPhysState,       // {device,port} 5 = LinkUp
  kPortRate,            // {device,port} bytes/s
  kSymbolErrors,        // PMA symbol_error (16 bit)
  kLinkErrorRecovery,   // PMA link_error_recovery (8 bit)
  kLinkDowned,          // PMA link_downed (8 bit)
  kReceiveErrors,       // PMA port_rcv_errors (16 bit)
  kPortCounter,         // {device,port,counter}: local_link_integrity_errors, excessive_buffer_overrun_errors
  kRoceEcnMarked,       // hw_counters/np_ecn_marked_roce_packets
  kRoceCnpSent,         // np_cnp_sent
  kRoceCnpHandled,      // rp_cnp_handled
  kRoceCnpIgnored,      // rp_cnp_ignored
  kRoceOutOfSequence,   // out_of_sequence
  kRoceSeqErrors,       // packet_seq_err
  kRoceLocalAckTimeouts,// local_ack_timeout_err
  kHwCounter,           // {device,port,counter}: roce_adp_retrans
  kNetdevUp,            // {interface}
  kCarrierChanges,      // {interface} carrier_changes (up and down)
  kCarrierDownChanges,  // {interface} carrier_down_count
  kPauseSeconds,        // {interface,priority,direction}
  kStormWarning,        // {interface} tx_pause_storm_warning_events
  kStormError,          // {interface} tx_pause_storm_error_events
  kPrioTxPackets,       // {interface,priority}
  kPrioRxPackets,       // {interface,priority}
  kPrioDiscards,        // {interface,priority,kind}
  kPrioEcnMarked,       // {interface,priority} rx_prio<N>_marked
  kPhyLinkDown,         // {interface} link_down_events_phy
  kPhySymbolErrors,     // {interface} rx_symbol_err_phy
  kNpEnabled,           // {interface,priority} 0/1
  kRpEnabled,           // {interface,priority} 0/1
  kDcqcnParameter,      // {interface,role,parameter}: only the CNP priority / DSCP parameters
  kPfcEnabled,          // {interface,priority} 0/1
  kTrustDscp,           // {interface} 1 dscp, 0 pcp
  kDscpPriority,        // {interface,dscp} = priority
  kPfcFramesRx,         // {interface,priority} PFC pause frames received (every vendor's dialect)
  kPfcFramesTx,         // {interface,priority} PFC pause frames sent
  kDcbPfcIndications,   // {interface,priority} DCB ieee_pfc.indications: pause received (vendor-neutral)
  kDcbPfcRequests,      // {interface,priority} DCB ieee_pfc.requests: pause sent
  kDeviceInfo,          // {device} = 1, with hca_type and board_id: the NIC model
  kPhyTxBytes,          // {interface} bytes the port transmitted, all priorities
  kPfcStormTimeout,     // {interface} PFC storm prevention timeout, seconds (0 = off)
  kGlobalPauseRx,       // {interface} 802.3x pause frames received
  kGlobalPauseTx,       // {interface} 802.3x pause frames sent
  kPrioRxBytes,         // {interface,priority}
  kPrioTxBytes,         // {interface,priority}
  kRdmaVportBytes,      // {interface,direction} RDMA unicast bytes of the vport (mlx5)
  // InfiniBand over MADs (peer_port): the neighbour's counters carry the local device and port.
  kXmitWait,            // PMA port_xmit_wait (32 bit)
  kPeerXmitWait,        // the neighbour's PortXmitWait towards us
  kPeerSymbolErrors,
  kPeerLinkErrorRecovery,
  kPeerLinkDowned,
  kPeerReceiveErrors,
  kPeerPortCounter,     // {device,port,counter}: local_link_integrity_errors
  kLinkDownObserved,    // PortInfo state changes seen by the MAD poller
  kPeerLinkDownObserved,
  kWidthActive,         // lanes
  kWidthEnabled,
  kPeerWidthEnabled,
  kSpeedActive,         // per-lane bytes/s
  kSpeedEnabled,
  kPeerSpeedEnabled,
  // Where a port sits on the host (port_topology).
  kPortTopology,        // {device,port} = 1, with role and rail
  kPcieWidth,           // {device,which}: current / max lanes of the device's PCI function
  kPcieSpeed,           // {device,which}: current / max transfers per second
  kPcieAerErrors,       // {pci_address,severity,error}: only error="total" (pcie_aer)
  // The kernel log (nic_driver_log): the latest record per function and driver message pattern,
  // with the record's text as the series' note (Batch::notes).
  kNicDriverLastRecord, // {pci_address,pattern} = unix time of the record
  // The pluggable module in each cage (transceiver): DOM values, the module's thresholds, its
  // latched alarm flags (only the alarm levels are ingested).
  kXcvrTemperature,     // {interface} °C
  kXcvrTxBias,          // {interface,lane} A
  kXcvrTxPower,         // {interface,lane} W
  kXcvrRxPower,         // {interface,lane} W
  kXcvrTemperatureThreshold,  // {interface,level}
  kXcvrTxBiasThreshold,       // {interface,level}
  kXcvrTxPowerThreshold,      // {interface,level}
  kXcvrRxPowerThreshold,      // {interface,level}
  kXcvrFlag,            // {interface,quantity,level,lane} 0/1
  kXcvrInfo,            // {interface} = 1, with the module's serial_number (a swap is a new module)
  // The physical layer (link_ber): pre-FEC bit errors, bits received, FEC blocks and geometry.
  kPhyCorrectedBits,    // {interface} bit errors the FEC corrected
  kPhyLaneCorrectedBits,// {interface,lane}
  kPhyReceivedBytes,    // {interface} data the PHY received (x8 = bits)
  kFecCorrectedBlocks,  // {interface} corrected codewords
  kFecUncorrectable,    // {interface} uncorrectable codewords
  kFecLaneCorrected,    // {interface,lane}
  kFecInfo,             // {interface} = 1, with mode and code
  kLinkLanes,           // {interface}
  kLinkSpeed,           // {interface} bytes/s
  // The NIC's own sensors (nic_temperature): °C, and the limits the NIC reports for each.
  kNicTemperature,           // {pci_address,chip,sensor}
  kNicTemperatureThreshold,  // {pci_address,chip,sensor,level}
  // The NIC driver's devlink health reporters (devlink_health): 0/1, and the errors reported to each.
  kNicHealthReporterHealthy,  // {pci_address,devlink_port,reporter}
  kNicHealthReporterErrors,   // {pci_address,devlink_port,reporter}
  kNetdevAdminUp,       // {interface} IFF_UP: up on purpose (port_down tells a lost RoCE link by it)
  // A read of a NIC's kernel interface that has not returned (the pipeline, daemon/read_waits.hpp),
  // with "<kind> <target>" as the series' note.
  kNicReadWait,         // {collector,device,port,interface} seconds
  kKernelLogLost,       // {} records the kernel log ring overwrote before nic_driver_log read them
  kPhyPcsSymbolErrors,  // {interface} symbol errors the FEC did not correct (mlx5 rx_pcs_symbol_err_phy, bnxt rx_pcs_symbol_err)
  kNicHealthReporterAutoRecover,  // {pci_address,devlink_port,reporter} 0/1; only reporters that can recover
  // An InfiniBand link's FEC, both ends (peer_port over MADs): the neighbour's carry the local
  // device and port. 32-bit PMA counters that saturate (FireCode's port blocks: held lane sums).
  kIbFecInfo,               // {device,port} = 1, with mode and code
  kIbFecCorrectedBlocks,    // {device,port}
  kIbFecUncorrectable,      // {device,port}
  kIbFecCorrectedSymbols,   // {device,port} RS-FEC symbols corrected
  kIbFecLaneSymbols,        // {device,port,lane}
  kIbFecLaneBlocks,         // {device,port,lane} (FireCode)
  kPeerIbFecInfo,
  kPeerIbFecCorrectedBlocks,
  kPeerIbFecUncorrectable,
  kPeerIbFecCorrectedSymbols,
  kPeerIbFecLaneSymbols,
  kPeerIbFecLaneBlocks,
  kCount
};
inline constexpr size_t kFamCount = static_cast<size_t>(Fam::kCount);

struct InputFamily {
  const FamilyDef* family;                    ///< its one definition (model/families/)
  std::array<std::string_view, 4> keyLabels;  ///< label names that identify a series ("" = unused)
  /// PMA counters saturate at 2^width-1 (IBTA PortCounters; docs/metrics.md); 0 = not narrow.
  double saturatesAt;
  /// The most the counter can rise per second, when physics bounds it (a priority is paused at most
  /// one second per second); 0 = no bound. An increase above it is batching by the NIC, spread
  /// into the following interval, never dropped.
  double maxPerSecond = 0;

  bool counter() const { return family->type == MetricType::kCounter; }
  std::string_view name() const { return family->name; }
};

const InputFamily& inputFamily(Fam fam);
/// The watchdog's name for a family definition, if the watchdog reads it.
std::optional<Fam> inputFamilyOf(const FamilyDef* family);
/// Whether a series of `fam` with these key-label values is one the rules read (filters the
/// generic counter families down to the few counters used). Also returns the saturation point.
bool wanted(Fam fam, std::string_view thirdLabel, double* saturatesAt);
/// Whether the watchdog ingests this series (its family is an input and wanted() keeps it): what
/// it reads at every poll (collectors/poll_demand.hpp). Management ports count as read.
bool ingests(const Series& series);

}  // namespace fabricmon::watchdog
