#pragma once
// The metric families of the ethtool group, shared by the ethtool_pfc collector and every vendor
// dialect (collectors/ethtool_dialects/): each driver's stat names land on these same families, so
// nothing downstream knows which vendor it reads. docs/metrics.md documents each one.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::ethtool {

extern const FamilyDef kPfcPauseRx;
extern const FamilyDef kPfcPauseTx;
extern const FamilyDef kPfcPauseSeconds;
extern const FamilyDef kPfcPauseTransitions;
extern const FamilyDef kGlobalPauseRx;
extern const FamilyDef kGlobalPauseTx;
extern const FamilyDef kGlobalPauseSeconds;
extern const FamilyDef kGlobalPauseTransitions;
extern const FamilyDef kStormWarning;
extern const FamilyDef kStormError;
extern const FamilyDef kPrioRxBytes;
extern const FamilyDef kPrioTxBytes;
extern const FamilyDef kPrioRxPackets;
extern const FamilyDef kPrioTxPackets;
extern const FamilyDef kPrioDiscards;
extern const FamilyDef kPrioEcnMarked;
extern const FamilyDef kPhyLinkDown;
extern const FamilyDef kPhySymbol;
extern const FamilyDef kPhyCrc;
extern const FamilyDef kPhyPcsSymbol;
extern const FamilyDef kPhyCorrectedBits;
/// Pre-FEC bit errors per lane (labels interface, lane).
extern const FamilyDef kPhyLaneCorrectedBits;
extern const FamilyDef kPhyReceivedBytes;
extern const FamilyDef kPhyTransmittedBytes;
extern const FamilyDef kPhyRxDiscards;
extern const FamilyDef kPhyTxDiscards;
extern const FamilyDef kRxOutOfBuffer;
extern const FamilyDef kRxBufferPassedThreshold;
extern const FamilyDef kRdmaVportBytes;
extern const FamilyDef kRdmaVportPackets;
extern const FamilyDef kPciStalled;
/// Any other stat matched by ethtool.stats_include (labels interface, stat).
extern const FamilyDef kEthtoolStat;

/// Every family above, in exposition order.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::ethtool
