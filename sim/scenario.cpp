#include "sim/scenario.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace fabricmon::sim {

namespace {

double degradePhase(double t) {
  if (t <= kOpticDegradeFrom) return 0;
  if (t >= kOpticDegradeTo) return 1;
  return (t - kOpticDegradeFrom) / (kOpticDegradeTo - kOpticDegradeFrom);
}

/// congested and the two DCQCN faults: the same traffic; the faults differ in their set-up.
void congestion(PortBehaviour& b, double) {
  b.ecnMarkLo = 0.003, b.ecnMarkHi = 0.006;
  b.pausedByPeerLo = 0.02, b.pausedByPeerHi = 0.05;
  b.pausingPeerLo = 0.02, b.pausingPeerHi = 0.05;
}

// Every scenario, one row each, in the order of the enum (docs/simulator.md describes them).
const std::array<ScenarioDef, 30> kScenarios{{
    {.scenario = Scenario::kHealthy,
     .name = "healthy",
     .summary = "every port busy with RDMA traffic; no pause, no ECN, no errors"},
    {.scenario = Scenario::kCongested,
     .name = "congested",
     .summary = "normal congestion: ECN marks and CNPs on priority 3, 2-5 % pause time; traffic still flowing",
     .priority = true,
     .behaviour = congestion},
    {.scenario = Scenario::kPauseStorm,
     .name = "pause-storm",
     .summary = "peer pauses priority 3 ~100 % of the time; transmit on it frozen; storm warning at 5 s",
     .priority = true,
     .firstEvent = kStormWarningAt,
     .event = [](ScenarioNode& node, unsigned) {
       node.affected().ethtool["tx_pause_storm_warning_events"].add(1);
       return kNoEvent;
     },
     .behaviour = [](PortBehaviour& b, double) {
       // pause_duration slightly below elapsed: the counter is sampled by firmware, not integrated
       // exactly.
       b.pausedByPeerLo = 0.997, b.pausedByPeerHi = 1.0;
       b.pauseStorm = true;
     }},
    {.scenario = Scenario::kDcqcnNpDisabled,
     .name = "dcqcn-np-disabled",
     .summary = "ecn/roce_np/enable/3 = 0: ECN-marked packets arrive but no CNPs are sent",
     .priority = true,
     .needsEcn = true,
     .setUp = [](PortModel& p) { p.npEnabled[kRocePriority] = false; },
     .behaviour = congestion},
    {.scenario = Scenario::kDcqcnRpDisabled,
     .name = "dcqcn-rp-disabled",
     .summary = "ecn/roce_rp/enable/3 = 0: CNPs ignored (rp_cnp_ignored rises, rp_cnp_handled flat)",
     .priority = true,
     .needsEcn = true,
     .setUp = [](PortModel& p) { p.rpEnabled[kRocePriority] = false; },
     .behaviour = congestion},
    {.scenario = Scenario::kPfcWithoutEcn,
     .name = "pfc-without-ecn",
     .summary = "3-8 % pause time on priority 3 with no ECN marks and no CNPs",
     .priority = true,
     .behaviour = [](PortBehaviour& b, double) {
       b.pausedByPeerLo = 0.03, b.pausedByPeerHi = 0.08;
       b.pausingPeerLo = 0.03, b.pausingPeerHi = 0.08;
     }},
    {.scenario = Scenario::kLinkFlap,
     .name = "link-flap",
     .summary = "the link goes down for 2 s every 6 s",
     .firstEvent = kFlapDownAt,
     .event = [](ScenarioNode& node, unsigned n) {
       // Events alternate: down (n even, cycle n/2), back up at the end of the cycle.
       PortModel& p = node.affected();
       if (p.linkUp) {
         linkDown(p);
         return kFlapPeriod * (n / 2 + 1);
       }
       linkUp(p);
       return kFlapPeriod * ((n + 1) / 2) + kFlapDownAt;
     }},
    {.scenario = Scenario::kCableErrors,
     .name = "cable-errors",
     .summary = "bad cable: symbol/PCS/CRC errors several per second, link recoveries, high pre-FEC BER",
     .behaviour = [](PortBehaviour& b, double) {
       b.preFecBer = 2e-5;
       b.symbolErrorsPerSecond = 6;
       b.crcErrorsPerSecond = 3;
       b.linkErrorRecoveriesPerSecond = 0.1;
     }},
    {.scenario = Scenario::kLossy,
     .name = "lossy",
     .summary = "RoCE packet loss upstream: out-of-sequence, sequence-error NAKs, ack timeouts (3/s), "
     "retransmissions",
     .behaviour = [](PortBehaviour& b, double) { b.transportErrorScale = 1; }},
    {.scenario = Scenario::kDegradedPort,
     .name = "degraded-port",
     .summary = "the port trained at 200 Gb/sec (2X NDR), half its lanes",
     .setUp = [](PortModel& p) {
       p.rateGbps = 200;
       p.rateText = "200 Gb/sec (2X NDR)";
     }},
    {.scenario = Scenario::kCounterReset,
     .name = "counter-reset",
     .summary = "driver reload after 10 s: every counter of the device restarts at 0",
     .firstEvent = kResetAt,
     .event = [](ScenarioNode& node, unsigned) {
       buildTables(node.affected());  // a driver reload: every counter of the device and its netdev starts again
       return kNoEvent;
     }},
    {.scenario = Scenario::kBusyPause,
     .name = "busy-pause",
     .summary = "busy but healthy: priority 3 paused 45-55 % of the time, traffic still flowing, ECN marks and "
     "CNPs (DCQCN at work)",
     .priority = true,
     .behaviour = [](PortBehaviour& b, double) {
       // The look-alike a storm detector must stay silent on: half the time paused, yet moving.
       b.ecnMarkLo = 0.003, b.ecnMarkHi = 0.006;
       b.pausedByPeerLo = 0.45, b.pausedByPeerHi = 0.55;
       b.pausingPeerLo = 0.02, b.pausingPeerHi = 0.05;
     }},
    {.scenario = Scenario::kPortDown,
     .name = "port-down",
     .summary = "the link goes down 3 s after the onset and stays down (cable, optic or peer: Polling on InfiniBand, Disabled with the interface up on RoCE)",
     .firstEvent = kPortEventAt,
     .event = [](ScenarioNode& node, unsigned) {
       linkDown(node.affected());
       return kNoEvent;
     }},
    {.scenario = Scenario::kPortDisabled,
     .name = "port-disabled",
     .summary = "look-alike of port-down: the port is taken down on purpose 3 s after the onset (Disabled on InfiniBand, the interface down on RoCE)",
     .firstEvent = kPortEventAt,
     .event = [](ScenarioNode& node, unsigned) {
       node.affected().adminDisabled = true;
       linkDown(node.affected());
       return kNoEvent;
     }},
    {.scenario = Scenario::kUnusedPort,
     .name = "unused-port",
     .summary = "look-alike of port-down: the port is down from the start and never comes up (an unused port)",
     .setUp = [](PortModel& p) { p.linkUp = false; }},
    {.scenario = Scenario::kDeviceMissing,
     .name = "device-missing",
     .summary = "the RDMA device leaves /sys/class/infiniband 3 s after the onset and never comes back",
     .firstEvent = kPortEventAt,
     .event = [](ScenarioNode& node, unsigned) {
       node.removeDevice();
       return kNoEvent;
     }},
    {.scenario = Scenario::kDriverReload,
     .name = "driver-reload",
     .summary = "look-alike of device-missing: the RDMA device leaves sysfs for 4 s and comes back with fresh counters",
     .firstEvent = kPortEventAt,
     .event = [](ScenarioNode& node, unsigned n) {
       if (n == 0) {
         node.removeDevice();
         return kPortEventAt + kReloadGone;
       }
       // The driver comes back with fresh counters; a clean reload logs only what a probe logs,
       // the look-alike nic_driver_error stays silent on.
       node.restoreDevice();
       return kNoEvent;
     }},
    {.scenario = Scenario::kPfcProtectionOff,
     .name = "pfc-protection-off",
     .summary = "PFC on priority 3 with the PFC storm prevention timeout set to 0 (off)",
     .setUp = [](PortModel& p) { p.stormPreventionMs = 0; }},
    {.scenario = Scenario::kGlobalPause,
     .name = "global-pause",
     .summary = "IEEE 802.3x global pause frames received and sent (50/s each) on a port that runs PFC",
     .setUp = [](PortModel& p) {
       // Link-level pause is on: the driver lists its counters from the start (at 0 so far).
       for (const char* name : {"rx_global_pause", "tx_global_pause"}) p.ethtool.add(name);
     },
     .behaviour = [](PortBehaviour& b, double) { b.globalPauseFramesPerSecond = 50; }},
    {.scenario = Scenario::kLosslessShared,
     .name = "lossless-shared",
     .summary = "DSCP 0 mapped to priority 3: 10 GB/s of bulk TCP each way shares the lossless RoCE priority",
     .priority = true,
     .setUp = [](PortModel& p) { p.dscpZeroOnRocePriority = true; },
     .behaviour = [](PortBehaviour& b, double) {
       // A checkpoint or dataset copy over TCP: about a fifth of the 400G port's bytes each way.
       b.bulkTcpOnRocePriority = 10e9;
     }},
    {.scenario = Scenario::kReordering,
     .name = "reordering",
     .summary = "look-alike of lossy: out-of-sequence packets (200/s, adaptive routing) with no NAK, timeout or "
     "retransmission",
     .behaviour = [](PortBehaviour& b, double) { b.reorderPerSecond = 200; }},
    {.scenario = Scenario::kPcieAer,
     .name = "pcie-aer",
     .summary = "PCIe corrected errors at the switch port above the NIC, from 1/s and rising; a non-fatal AER "
     "error (completion timeout) at the NIC's function 12 s after the onset",
     .firstEvent = kAerNonFatalAt,
     .event = [](ScenarioNode& node, unsigned) {
       node.addCompletionTimeout();
       return kNoEvent;
     },
     .pcie = [](ScenarioNode& node, double t0, double seconds) {
       const double t1 = t0 + seconds;
       node.addCorrectedAtReporter(kAerCorrectedStart * seconds + kAerCorrectedGrowth * (t1 * t1 - t0 * t0) / 2);
     }},
    {.scenario = Scenario::kPcieAerBackground,
     .name = "pcie-aer-background",
     .summary = "look-alike of pcie-aer: a steady 2 corrected PCIe errors a minute at the NIC's function and every "
     "port above it",
     .pcie = [](ScenarioNode& node, double, double seconds) {
       node.addCorrectedAlongPath(kAerBackgroundPerSecond * seconds);
     }},
    {.scenario = Scenario::kNicFwFatal,
     .name = "nic-fw-fatal",
     .summary = "the NIC's firmware fails 3 s after the onset: mlx5 logs a fatal health error to the kernel log and "
     "the port's counters freeze (the link still shows up)",
     .firstEvent = kPortEventAt,
     .event = [](ScenarioNode& node, unsigned) {
       // mlx5/core/health.c, poll_health(): the health buffer reports a fatal error; the firmware
       // stops, and with it every counter (the link still shows up).
       node.affected().frozen = true;
       node.logKernel(3, "poll_health:800:(pid 0): Fatal error 1 detected");
       return kNoEvent;
     }},
    {.scenario = Scenario::kHotModule,
     .name = "hot-module",
     .summary = "the port's optic heats up from 48 °C past its 75 °C high warning (10-130 s after the onset)",
     .module = [](ModuleParams& m, double t) { m.temperatureCelsius += hotModuleRise(t); }},
    {.scenario = Scenario::kOpticDegrading,
     .name = "optic-degrading",
     .summary = "a failing optic: Rx power of lane 1 sinks 9 dB below the module's low warning and the pre-FEC BER rises "
     "from 1e-9 to 1e-4 (10-130 s after the onset); the link flaps at 150 s",
     .firstEvent = kOpticFlapAt,
     .event = [](ScenarioNode& node, unsigned) {
       // The optic finally loses the link once, as link-flap's flaps do (down for 2 s).
       PortModel& p = node.affected();
       if (p.linkUp) {
         linkDown(p);
         return kOpticFlapAt + (kFlapPeriod - kFlapDownAt);
       }
       linkUp(p);
       return kNoEvent;
     },
     .behaviour = [](PortBehaviour& b, double t) { b.preFecBer = opticDegradingBer(t); },
     .module = [](ModuleParams& m, double t) {
       // Lane 1 sinks; the others stay (a dirty or damaged connector ferrule hits one fibre).
       const double healthy = m.rxPowerWatts.empty() ? 0.85e-3 : m.rxPowerWatts[0];
       m.rxPowerWatts.assign(std::max(m.lanes, 1u), healthy);
       m.rxPowerWatts[0] = healthy * std::pow(10.0, -opticsDrift(t) / 10.0);
     }},
    {.scenario = Scenario::kOpticMarginal,
     .name = "optic-marginal",
     .summary = "look-alike of optic-degrading: every lane's Rx power steady 0.5 dB above the module's low warning, "
     "from the start",
     .module = [](ModuleParams& m, double) {
       const double lowWarning = m.thresholds[4][2];
       m.rxPowerWatts = {lowWarning * std::pow(10.0, 0.5 / 10.0)};
     },
     .moduleFromStart = true},
    {.scenario = Scenario::kModuleSwap,
     .name = "module-swap",
     .summary = "look-alike: the port's optic is replaced 30 s after the onset (new serial, flags clear, same healthy values)",
     .module = [](ModuleParams& m, double t) {
       if (t >= kModuleSwapAt) m.serialNumber += "-R";
     }},
    {.scenario = Scenario::kDirtyConnector,
     .name = "dirty-connector",
     .summary = "a dirty connector: pre-FEC BER high (5e-5, a decade from RS(544,514)'s limit) but stable; nothing lost yet",
     .behaviour = [](PortBehaviour& b, double) { b.preFecBer = 5e-5; }},
    {.scenario = Scenario::kFecUncorrectable,
     .name = "fec-uncorrectable",
     .summary = "the FEC gives up: uncorrectable codewords (0.5/s) at a pre-FEC BER of 1e-4",
     .behaviour = [](PortBehaviour& b, double) {
       b.preFecBer = 1e-4;
       b.uncorrectablePerSecond = 0.5;
     }},
}};

constexpr size_t kCount = 30;
const std::array<std::string_view, kCount> kNames = [] {
  std::array<std::string_view, kCount> names{};
  for (size_t i = 0; i < kCount; ++i) names[i] = kScenarios[i].name;
  return names;
}();

}  // namespace

std::span<const ScenarioDef> scenarioDefs() { return kScenarios; }
const ScenarioDef& scenarioDef(Scenario s) { return kScenarios[static_cast<size_t>(s)]; }

std::span<const std::string_view> scenarioNames() { return kNames; }

std::optional<Scenario> parseScenario(std::string_view name) {
  for (const ScenarioDef& s : kScenarios) {
    if (s.name == name) return s.scenario;
  }
  return std::nullopt;
}

std::string_view scenarioName(Scenario s) { return scenarioDef(s).name; }
std::string_view scenarioSummary(Scenario s) { return scenarioDef(s).summary; }
bool scenarioHasPriority(Scenario s) { return scenarioDef(s).priority; }
bool scenarioNeedsEcnTree(Scenario s) { return scenarioDef(s).needsEcn; }

PortBehaviour healthyBehaviour() {
  PortBehaviour b;
  // Pre-FEC BER of a good 400G PAM4 link is well below the KP4 FEC limit (2.4e-4); 1e-8 gives ~4000
  // corrected bits/s, which every working link shows.
  b.preFecBer = 1e-8;
  return b;
}

PortBehaviour affectedBehaviour(Scenario s, double sinceOnset) {
  PortBehaviour b = healthyBehaviour();
  if (auto change = scenarioDef(s).behaviour) change(b, sinceOnset);
  return b;
}

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

}  // namespace fabricmon::sim
