#include "watchdog/input_families.hpp"

#include <unordered_map>

#include "model/families/dcb.hpp"
#include "model/families/dcqcn.hpp"
#include "model/families/ethtool.hpp"
#include "model/families/fec.hpp"
#include "model/families/mad.hpp"
#include "model/families/netdev.hpp"
#include "model/families/pcie.hpp"
#include "model/families/nic.hpp"
#include "model/families/pma.hpp"
#include "model/families/port.hpp"
#include "model/families/roce.hpp"
#include "model/families/topology.hpp"
#include "model/families/transceiver.hpp"

namespace fabricmon::watchdog {
namespace {

constexpr double kMax4 = 15, kMax8 = 255, kMax16 = 65535, kMax32 = 4294967295.0;

// Order follows enum Fam.
constexpr InputFamily kFamilies[] = {
    {&families::port::kPortInfo, {"device", "port", "interface"}, 0},
    {&families::port::kPortState, {"device", "port", ""}, 0},
    {&families::port::kPortPhysicalState, {"device", "port", ""}, 0},
    {&families::port::kPortRate, {"device", "port", ""}, 0},
    {&families::pma::kSymbolErrors, {"device", "port", ""}, kMax16},
    {&families::pma::kLinkErrorRecovery, {"device", "port", ""}, kMax8},
    {&families::pma::kLinkDowned, {"device", "port", ""}, kMax8},
    {&families::pma::kReceiveErrors, {"device", "port", ""}, kMax16},
    {&families::pma::kPortCounter, {"device", "port", "counter"}, 0},
    {&families::roce::kEcnMarked, {"device", "port", ""}, 0},
    {&families::roce::kCnpSent, {"device", "port", ""}, 0},
    {&families::roce::kCnpHandled, {"device", "port", ""}, 0},
    {&families::roce::kCnpIgnored, {"device", "port", ""}, 0},
    {&families::roce::kOutOfSequence, {"device", "port", ""}, 0},
    {&families::roce::kPacketSeqErr, {"device", "port", ""}, 0},
    {&families::roce::kLocalAckTimeout, {"device", "port", ""}, 0},
    {&families::roce::kHwCounter, {"device", "port", "counter"}, 0},
    {&families::netdev::kUp, {"interface", "", ""}, 0},
    {&families::netdev::kCarrierChanges, {"interface", "", ""}, 0},
    {&families::netdev::kCarrierDown, {"interface", "", ""}, 0},
    {&families::ethtool::kPfcPauseSeconds, {"interface", "priority", "direction"}, 0, 1.0},
    {&families::ethtool::kStormWarning, {"interface", "", ""}, 0},
    {&families::ethtool::kStormError, {"interface", "", ""}, 0},
    {&families::ethtool::kPrioTxPackets, {"interface", "priority", ""}, 0},
    {&families::ethtool::kPrioRxPackets, {"interface", "priority", ""}, 0},
    {&families::ethtool::kPrioDiscards, {"interface", "priority", "kind"}, 0},
    {&families::ethtool::kPrioEcnMarked, {"interface", "priority", ""}, 0},
    {&families::ethtool::kPhyLinkDown, {"interface", "", ""}, 0},
    {&families::ethtool::kPhySymbol, {"interface", "", ""}, 0},
    {&families::dcqcn::kNpEnabled, {"interface", "priority", ""}, 0},
    {&families::dcqcn::kRpEnabled, {"interface", "priority", ""}, 0},
    {&families::dcqcn::kParameter, {"interface", "role", "parameter"}, 0},
    {&families::dcb::kPfcEnabled, {"interface", "priority", ""}, 0},
    {&families::dcb::kTrustDscp, {"interface", "", ""}, 0},
    {&families::dcb::kDscpPriority, {"interface", "dscp", ""}, 0},
    {&families::ethtool::kPfcPauseRx, {"interface", "priority", ""}, 0},
    {&families::ethtool::kPfcPauseTx, {"interface", "priority", ""}, 0},
    {&families::dcb::kPfcIndications, {"interface", "priority", ""}, 0},
    {&families::dcb::kPfcRequests, {"interface", "priority", ""}, 0},
    {&families::port::kDeviceInfo, {"device", "", ""}, 0},
    {&families::ethtool::kPhyTransmittedBytes, {"interface", "", ""}, 0},
    {&families::dcb::kStormTimeout, {"interface", "", ""}, 0},
    {&families::ethtool::kGlobalPauseRx, {"interface", "", ""}, 0},
    {&families::ethtool::kGlobalPauseTx, {"interface", "", ""}, 0},
    {&families::ethtool::kPrioRxBytes, {"interface", "priority", ""}, 0},
    {&families::ethtool::kPrioTxBytes, {"interface", "priority", ""}, 0},
    {&families::ethtool::kRdmaVportBytes, {"interface", "direction", ""}, 0},
    {&families::pma::kTransmitWait, {"device", "port", ""}, kMax32},
    {&families::mad::kPeerTransmitWait, {"device", "port", ""}, kMax32},
    {&families::mad::kPeerSymbolErrors, {"device", "port", ""}, kMax16},
    {&families::mad::kPeerLinkErrorRecovery, {"device", "port", ""}, kMax8},
    {&families::mad::kPeerLinkDowned, {"device", "port", ""}, kMax8},
    {&families::mad::kPeerReceiveErrors, {"device", "port", ""}, kMax16},
    {&families::mad::kPeerStat, {"device", "port", "counter"}, 0},
    {&families::mad::kDownObserved, {"device", "port", ""}, 0},
    {&families::mad::kPeerDownObserved, {"device", "port", ""}, 0},
    {&families::mad::kWidthActive, {"device", "port", ""}, 0},
    {&families::mad::kWidthEnabled, {"device", "port", ""}, 0},
    {&families::mad::kPeerWidthEnabled, {"device", "port", ""}, 0},
    {&families::mad::kSpeedActive, {"device", "port", ""}, 0},
    {&families::mad::kSpeedEnabled, {"device", "port", ""}, 0},
    {&families::mad::kPeerSpeedEnabled, {"device", "port", ""}, 0},
    {&families::topology::kPortTopologyInfo, {"device", "port", ""}, 0},
    {&families::topology::kPcieLinkWidth, {"device", "which", ""}, 0},
    {&families::topology::kPcieLinkSpeed, {"device", "which", ""}, 0},
    {&families::pcie::kAerErrors, {"pci_address", "severity", "error"}, 0},
    {&families::nic::kDriverLastRecord, {"pci_address", "pattern", ""}, 0},
    {&families::transceiver::kTemperature, {"interface", "", ""}, 0},
    {&families::transceiver::kTxBias, {"interface", "lane", ""}, 0},
    {&families::transceiver::kTxPower, {"interface", "lane", ""}, 0},
    {&families::transceiver::kRxPower, {"interface", "lane", ""}, 0},
    {&families::transceiver::kTemperatureThreshold, {"interface", "level", ""}, 0},
    {&families::transceiver::kTxBiasThreshold, {"interface", "level", ""}, 0},
    {&families::transceiver::kTxPowerThreshold, {"interface", "level", ""}, 0},
    {&families::transceiver::kRxPowerThreshold, {"interface", "level", ""}, 0},
    {&families::transceiver::kFlag, {"interface", "quantity", "level", "lane"}, 0},
    {&families::transceiver::kInfo, {"interface", "", ""}, 0},
    {&families::ethtool::kPhyCorrectedBits, {"interface", "", ""}, 0},
    {&families::ethtool::kPhyLaneCorrectedBits, {"interface", "lane", ""}, 0},
    {&families::ethtool::kPhyReceivedBytes, {"interface", "", ""}, 0},
    {&families::fec::kCorrectedBlocks, {"interface", "", ""}, 0},
    {&families::fec::kUncorrectableBlocks, {"interface", "", ""}, 0},
    {&families::fec::kLaneCorrectedBlocks, {"interface", "lane", ""}, 0},
    {&families::fec::kInfo, {"interface", "", ""}, 0},
    {&families::fec::kLinkLanes, {"interface", "", ""}, 0},
    {&families::fec::kLinkSpeed, {"interface", "", ""}, 0},
    {&families::nic::kTemperature, {"pci_address", "chip", "sensor"}, 0},
    {&families::nic::kTemperatureThreshold, {"pci_address", "chip", "sensor", "level"}, 0},
    {&families::nic::kHealthReporterHealthy, {"pci_address", "devlink_port", "reporter"}, 0},
    {&families::nic::kHealthReporterErrors, {"pci_address", "devlink_port", "reporter"}, 0},
    {&families::netdev::kAdminUp, {"interface", "", ""}, 0},
    {&families::nic::kReadWait, {"collector", "device", "port", "interface"}, 0},
    {&families::nic::kKernelLogLost, {"", "", ""}, 0},
    {&families::ethtool::kPhyPcsSymbol, {"interface", "", ""}, 0},
    {&families::nic::kHealthReporterAutoRecover, {"pci_address", "devlink_port", "reporter"}, 0},
    {&families::mad::kFecInfo, {"device", "port", ""}, 0},
    // FireCode's port blocks are lane sums, which the collector holds at 2^32 - 1 like a counter.
    {&families::mad::kFecCorrectedBlocks, {"device", "port", ""}, kMax32},
    {&families::mad::kFecUncorrectableBlocks, {"device", "port", ""}, kMax32},
    {&families::mad::kFecCorrectedSymbols, {"device", "port", ""}, kMax32},
    {&families::mad::kFecLaneCorrectedSymbols, {"device", "port", "lane"}, kMax32},
    {&families::mad::kFecLaneCorrectedBlocks, {"device", "port", "lane"}, kMax32},
    {&families::mad::kPeerFecInfo, {"device", "port", ""}, 0},
    {&families::mad::kPeerFecCorrectedBlocks, {"device", "port", ""}, kMax32},
    {&families::mad::kPeerFecUncorrectableBlocks, {"device", "port", ""}, kMax32},
    {&families::mad::kPeerFecCorrectedSymbols, {"device", "port", ""}, kMax32},
    {&families::mad::kPeerFecLaneCorrectedSymbols, {"device", "port", "lane"}, kMax32},
    {&families::mad::kPeerFecLaneCorrectedBlocks, {"device", "port", "lane"}, kMax32},
};
static_assert(std::size(kFamilies) == kFamCount);

}  // namespace

const InputFamily& inputFamily(Fam fam) { return kFamilies[static_cast<size_t>(fam)]; }

std::optional<Fam> inputFamilyOf(const FamilyDef* family) {
  static const auto* const kByDef = [] {
    auto* m = new std::unordered_map<const FamilyDef*, Fam>();
    for (size_t i = 0; i < kFamCount; ++i) m->emplace(kFamilies[i].family, static_cast<Fam>(i));
    return m;
  }();
  auto it = kByDef->find(family);
  if (it == kByDef->end()) return std::nullopt;
  return it->second;
}

bool wanted(Fam fam, std::string_view third, double* saturatesAt) {
  *saturatesAt = inputFamily(fam).saturatesAt;
  switch (fam) {
    case Fam::kPeerPortCounter:
      *saturatesAt = kMax4;
      return third == "local_link_integrity_errors";
    case Fam::kPortCounter:
      // Both are 4-bit PMA counters (IBTA PortCounters; docs/metrics.md).
      *saturatesAt = kMax4;
      return third == "local_link_integrity_errors" || third == "excessive_buffer_overrun_errors";
    case Fam::kHwCounter:
      return third == "roce_adp_retrans";
    case Fam::kPcieAerErrors:
      // The errors each file reports, not the bits they set: one series per file is all
      // pcie_errors reads (docs/rules.md), whatever the kernel names.
      return third == "total";
    case Fam::kDcqcnParameter:
      // OFED ecn/roce_np names and the upstream debugfs cc_params names.
      return third == "cnp_802p_prio" || third == "np_cnp_prio" || third == "cnp_dscp" ||
             third == "np_cnp_dscp";
    case Fam::kXcvrFlag:
      // optics_degraded reads the alarm flags; the warnings are judged from the values.
      return third == "high_alarm" || third == "low_alarm";
    default:
      return true;
  }
}

bool ingests(const Series& series) {
  const auto fam = inputFamilyOf(series.family);
  if (!fam) return false;
  const std::string_view third = inputFamily(*fam).keyLabels[2];
  double saturatesAt = 0;
  return wanted(*fam, third.empty() ? std::string_view() : series.label(third), &saturatesAt);
}

}  // namespace fabricmon::watchdog
