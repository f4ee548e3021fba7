#include "sim/scenario.hpp"

#include <array>
#include <cmath>

namespace fabricmon::sim {

namespace {

struct Spec {
  Scenario scenario;
  std::string_view name;
  std::string_view summary;
  bool priority;
  bool needsEcn;
};

constexpr std::array<Spec, 30> kSpecs{{
    {Scenario::kHealthy, "healthy",
     "every port busy with RDMA traffic; no pause, no ECN, no errors", false, false},
    {Scenario::kCongested, "congested",
     "normal congestion: ECN marks and CNPs on priority 3, 2-5 % pause time; traffic still flowing",
     true, false},
    {Scenario::kPauseStorm, "pause-storm",
     "peer pauses priority 3 ~100 % of the time; transmit on it frozen; storm warning at 5 s", true,
     false},
    {Scenario::kDcqcnNpDisabled, "dcqcn-np-disabled",
     "ecn/roce_np/enable/3 = 0: ECN-marked packets arrive but no CNPs are sent", true, true},
    {Scenario::kDcqcnRpDisabled, "dcqcn-rp-disabled",
     "ecn/roce_rp/enable/3 = 0: CNPs ignored (rp_cnp_ignored rises, rp_cnp_handled flat)", true,
     true},
    {Scenario::kPfcWithoutEcn, "pfc-without-ecn",
     "3-8 % pause time on priority 3 with no ECN marks and no CNPs", true, false},
    {Scenario::kLinkFlap, "link-flap", "the link goes down for 2 s every 6 s", false, false},
    {Scenario::kCableErrors, "cable-errors",
     "bad cable: symbol/PCS/CRC errors several per second, link recoveries, high pre-FEC BER",
     false, false},
    {Scenario::kLossy, "lossy",
     "RoCE packet loss upstream: out-of-sequence, sequence-error NAKs, ack timeouts (3/s), "
     "retransmissions",
     false, false},
    {Scenario::kDegradedPort, "degraded-port",
     "the port trained at 200 Gb/sec (2X NDR), half its lanes", false, false},
    {Scenario::kCounterReset, "counter-reset",
     "driver reload after 10 s: every counter of the device restarts at 0", false, false},
    {Scenario::kBusyPause, "busy-pause",
     "busy but healthy: priority 3 paused 45-55 % of the time, traffic still flowing, ECN marks and "
     "CNPs (DCQCN at work)",
     true, false},
    {Scenario::kPortDown, "port-down",
     "the link goes down 3 s after the onset and stays down (physical state Polling: cable, optic or peer)",
     false, false},
    {Scenario::kPortDisabled, "port-disabled",
     "look-alike of port-down: the port is taken down on purpose 3 s after the onset (physical state Disabled)",
     false, false},
    {Scenario::kUnusedPort, "unused-port",
     "look-alike of port-down: the port is down from the start and never comes up (an unused port)", false,
     false},
    {Scenario::kDeviceMissing, "device-missing",
     "the RDMA device leaves /sys/class/infiniband 3 s after the onset and never comes back", false, false},
    {Scenario::kDriverReload, "driver-reload",
     "look-alike of device-missing: the RDMA device leaves sysfs for 4 s and comes back with fresh counters",
     false, false},
    {Scenario::kPfcProtectionOff, "pfc-protection-off",
     "PFC on priority 3 with the PFC storm prevention timeout set to 0 (off)", false, false},
    {Scenario::kGlobalPause, "global-pause",
     "IEEE 802.3x global pause frames received and sent (50/s each) on a port that runs PFC", false, false},
    {Scenario::kLosslessShared, "lossless-shared",
     "DSCP 0 mapped to priority 3: 10 GB/s of bulk TCP each way shares the lossless RoCE priority", true,
     false},
    {Scenario::kReordering, "reordering",
     "look-alike of lossy: out-of-sequence packets (200/s, adaptive routing) with no NAK, timeout or "
     "retransmission",
     false, false},
    {Scenario::kPcieAer, "pcie-aer",
     "PCIe corrected errors at the switch port above the NIC, from 1/s and rising; a non-fatal AER "
     "error (completion timeout) at the NIC's function 12 s after the onset",
     false, false},
    {Scenario::kPcieAerBackground, "pcie-aer-background",
     "look-alike of pcie-aer: a steady 2 corrected PCIe errors a minute at the NIC's function and every "
     "port above it",
     false, false},
    {Scenario::kNicFwFatal, "nic-fw-fatal",
     "the NIC's firmware fails 3 s after the onset: mlx5 logs a fatal health error to the kernel log and "
     "the port's counters freeze (the link still shows up)",
     false, false},
    {Scenario::kHotModule, "hot-module",
     "the port's optic heats up from 48 °C past its 75 °C high warning (10-130 s after the onset)", false, false},
    {Scenario::kOpticDegrading, "optic-degrading",
     "a failing optic: Rx power of lane 1 sinks 9 dB below the module's low warning and the pre-FEC BER rises "
     "from 1e-9 to 1e-4 (10-130 s after the onset); the link flaps at 150 s",
     false, false},
    {Scenario::kOpticMarginal, "optic-marginal",
     "look-alike of optic-degrading: every lane's Rx power steady 0.5 dB above the module's low warning", false,
     false},
    {Scenario::kModuleSwap, "module-swap",
     "look-alike: the port's optic is replaced 30 s after the onset (new serial, flags clear, same healthy values)",
     false, false},
    {Scenario::kDirtyConnector, "dirty-connector",
     "a dirty connector: pre-FEC BER high (5e-5, a decade from RS(544,514)'s limit) but stable; nothing lost yet",
     false, false},
    {Scenario::kFecUncorrectable, "fec-uncorrectable",
     "the FEC gives up: uncorrectable codewords (0.5/s) at a pre-FEC BER of 1e-4", false, false},
}};

constexpr std::array<std::string_view, kSpecs.size()> kNames = [] {
  std::array<std::string_view, kSpecs.size()> names{};
  for (size_t i = 0; i < kSpecs.size(); ++i) names[i] = kSpecs[i].name;
  return names;
}();

const Spec& spec(Scenario s) { return kSpecs[static_cast<size_t>(s)]; }

}  // namespace

std::span<const std::string_view> scenarioNames() { return kNames; }

std::optional<Scenario> parseScenario(std::string_view name) {
  for (const Spec& s : kSpecs) {
    if (s.name == name) return s.scenario;
  }
  return std::nullopt;
}

std::string_view scenarioName(Scenario s) { return spec(s).name; }
std::string_view scenarioSummary(Scenario s) { return spec(s).summary; }
bool scenarioHasPriority(Scenario s) { return spec(s).priority; }
bool scenarioNeedsEcnTree(Scenario s) { return spec(s).needsEcn; }

PortBehaviour healthyBehaviour() {
  PortBehaviour b;
  // Pre-FEC BER of a good 400G PAM4 link is well below the KP4 FEC limit (2.4e-4); 1e-8 gives ~4000
  // corrected bits/s, which every working link shows.
  b.preFecBer = 1e-8;
  return b;
}

PortBehaviour affectedBehaviour(Scenario s) {
  PortBehaviour b = healthyBehaviour();
  switch (s) {
    case Scenario::kCongested:
    case Scenario::kDcqcnNpDisabled:
    case Scenario::kDcqcnRpDisabled:
      b.ecnMarkLo = 0.003, b.ecnMarkHi = 0.006;
      b.pausedByPeerLo = 0.02, b.pausedByPeerHi = 0.05;
      b.pausingPeerLo = 0.02, b.pausingPeerHi = 0.05;
      break;
    case Scenario::kBusyPause:
      // The look-alike a storm detector must stay silent on: half the time paused, yet moving.
      b.ecnMarkLo = 0.003, b.ecnMarkHi = 0.006;
      b.pausedByPeerLo = 0.45, b.pausedByPeerHi = 0.55;
      b.pausingPeerLo = 0.02, b.pausingPeerHi = 0.05;
      break;
    case Scenario::kPauseStorm:
      // pause_duration slightly below elapsed: the counter is sampled by firmware, not integrated
      // exactly.
      b.pausedByPeerLo = 0.997, b.pausedByPeerHi = 1.0;
      b.pauseStorm = true;
      break;
    case Scenario::kPfcWithoutEcn:
      b.pausedByPeerLo = 0.03, b.pausedByPeerHi = 0.08;
      b.pausingPeerLo = 0.03, b.pausingPeerHi = 0.08;
      break;
    case Scenario::kCableErrors:
      b.preFecBer = 2e-5;
      b.symbolErrorsPerSecond = 6;
      b.crcErrorsPerSecond = 3;
      b.linkErrorRecoveriesPerSecond = 0.1;
      break;
    case Scenario::kLossy:
      b.transportErrorScale = 1;
      break;
    case Scenario::kReordering:
      b.reorderPerSecond = 200;
      break;
    case Scenario::kGlobalPause:
      b.globalPauseFramesPerSecond = 50;
      break;
    case Scenario::kLosslessShared:
      // A checkpoint or dataset copy over TCP: about a fifth of the 400G port's bytes each way.
      b.bulkTcpOnRocePriority = 10e9;
      break;
    case Scenario::kDirtyConnector:
      b.preFecBer = 5e-5;
      break;
    case Scenario::kFecUncorrectable:
      b.preFecBer = 1e-4;
      b.uncorrectablePerSecond = 0.5;
      break;
    case Scenario::kOpticDegrading:
      b.preFecBer = opticDegradingBer(0);
      break;
    case Scenario::kHealthy:
    case Scenario::kHotModule:
    case Scenario::kOpticMarginal:
    case Scenario::kModuleSwap:
    case Scenario::kLinkFlap:
    case Scenario::kDegradedPort:
    case Scenario::kCounterReset:
    case Scenario::kPortDown:
    case Scenario::kPortDisabled:
    case Scenario::kUnusedPort:
    case Scenario::kDeviceMissing:
    case Scenario::kDriverReload:
    case Scenario::kNicFwFatal:  // healthy until the firmware fails (an event: counters freeze)
    case Scenario::kPfcProtectionOff:
    case Scenario::kPcieAer:             // PCIe errors are the simulator's, not the port's (AerCounts)
    case Scenario::kPcieAerBackground:
      break;
  }
  return b;
}

namespace {
double degradePhase(double t) {
  if (t <= kOpticDegradeFrom) return 0;
  if (t >= kOpticDegradeTo) return 1;
  return (t - kOpticDegradeFrom) / (kOpticDegradeTo - kOpticDegradeFrom);
}
}  // namespace

double opticsDrift(double t) { return kOpticDriftDb * degradePhase(t); }
double hotModuleRise(double t) { return kHotModuleRise * degradePhase(t); }

double opticDegradingBer(double sinceOnset) {
  constexpr double kFrom = 1e-9, kTo = 1e-4;
  if (sinceOnset <= kOpticDegradeFrom) return kFrom;
  if (sinceOnset >= kOpticDegradeTo) return kTo;
  // Exponential in time: a straight line on the dashboards' log scale, a decade every 24 s.
  const double f = (sinceOnset - kOpticDegradeFrom) / (kOpticDegradeTo - kOpticDegradeFrom);
  return kFrom * std::pow(kTo / kFrom, f);
}

void evolveBehaviour(Scenario s, PortBehaviour& b, double sinceOnset) {
  if (s == Scenario::kOpticDegrading) b.preFecBer = opticDegradingBer(sinceOnset);
}

}  // namespace fabricmon::sim
