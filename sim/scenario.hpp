#pragma once
// The named fault scenarios of the simulator and how each one bends the first RoCE port.

#include <optional>
#include <span>
#include <string_view>

#include "sim/module_image.hpp"
#include "sim/port_model.hpp"

namespace fabricmon::sim {

enum class Scenario {
  kHealthy,
  kCongested,
  kPauseStorm,
  kDcqcnNpDisabled,
  kDcqcnRpDisabled,
  kPfcWithoutEcn,
  kLinkFlap,
  kCableErrors,
  kLossy,
  kDegradedPort,
  kCounterReset,
  kBusyPause,
  kPortDown,
  kPortDisabled,
  kUnusedPort,
  kDeviceMissing,
  kDriverReload,
  kPfcProtectionOff,
  kGlobalPause,
  kLosslessShared,
  kReordering,
  kPcieAer,
  kPcieAerBackground,
  kNicFwFatal,
  kHotModule,
  kOpticDegrading,
  kOpticMarginal,
  kModuleSwap,
  kDirtyConnector,
  kFecUncorrectable,
};

/// What a scenario may do to the node at its events and as time passes; the simulator implements
/// it. "The affected port" is the fault port (SimOptions::faultPort).
class ScenarioNode {
 public:
  virtual ~ScenarioNode() = default;
  virtual PortModel& affected() = 0;
  /// The affected port's RDMA device leaves sysfs (its class/infiniband link and directory go).
  virtual void removeDevice() = 0;
  /// It comes back: fresh counters, its files written again, its driver's probe lines logged.
  virtual void restoreDevice() = 0;
  /// A record of the affected port's driver in the node's kernel log (syslog level, text).
  virtual void logKernel(unsigned level, std::string_view text) = 0;
  /// Corrected PCIe errors at the function that reports the affected port's link (the switch port
  /// above the NIC, or the NIC's own function on the root complex).
  virtual void addCorrectedAtReporter(double errors) = 0;
  /// Corrected PCIe errors at the NIC's function and every port above it, each.
  virtual void addCorrectedAlongPath(double errors) = 0;
  /// A non-fatal AER error (completion timeout) at the NIC's own function.
  virtual void addCompletionTimeout() = 0;
};

/// No (further) event.
inline constexpr double kNoEvent = -1;

/// One scenario, whole: what it is, what it sets up, when its first event comes and what each
/// event does, and what it changes as time passes. Times are seconds since the fault's onset
/// (SimOptions::faultAt); before the onset every port is healthy. Each row is in scenario.cpp.
struct ScenarioDef {
  Scenario scenario;
  std::string_view name;
  std::string_view summary;  ///< one line for `fabricsim --list-scenarios` and the docs
  bool priority = false;     ///< concerns one priority (the RoCE priority 3), not the whole port
  bool needsEcn = false;     ///< needs the OFED ecn/ tree (per-priority enable files)
  /// At start, on the affected port (configuration faults, an unused port, a degraded rate).
  void (*setUp)(PortModel& affected) = nullptr;
  /// The first event's time, or kNoEvent.
  double firstEvent = kNoEvent;
  /// Event `n` (0, 1, ...): what it does; returns the next event's time, or kNoEvent.
  double (*event)(ScenarioNode& node, unsigned n) = nullptr;
  /// The affected port's traffic and error behaviour at time t (starting from healthyBehaviour()).
  void (*behaviour)(PortBehaviour& b, double t) = nullptr;
  /// The affected port's module at time t (starting from the module as built).
  void (*module)(ModuleParams& m, double t) = nullptr;
  /// The module is that way from the start, before the onset too: a look-alike's steady state, not
  /// a change at the onset (which a rule that learns the port's own normal rightly reports).
  bool moduleFromStart = false;
  /// PCIe errors accrued over the `seconds` from time t0.
  void (*pcie)(ScenarioNode& node, double t0, double seconds) = nullptr;
};

/// Every scenario, in the order of the enum.
std::span<const ScenarioDef> scenarioDefs();
const ScenarioDef& scenarioDef(Scenario s);

/// Every scenario name, in the order of the enum ("healthy", "congested", ...).
std::span<const std::string_view> scenarioNames();
std::optional<Scenario> parseScenario(std::string_view name);
std::string_view scenarioName(Scenario s);
/// One line for `fabricsim --list-scenarios` and the docs.
std::string_view scenarioSummary(Scenario s);
/// Whether the scenario concerns one priority (the RoCE priority 3) rather than the whole port.
bool scenarioHasPriority(Scenario s);
/// Whether it needs the OFED ecn/ tree (per-priority enable files), which the upstream driver
/// lacks.
bool scenarioNeedsEcnTree(Scenario s);

/// A healthy port under GPU training traffic.
PortBehaviour healthyBehaviour();
/// The behaviour of the affected port under `s`, `sinceOnset` seconds after the onset.
PortBehaviour affectedBehaviour(Scenario s, double sinceOnset);

/// optic-degrading's pre-FEC BER: 1e-9 until kOpticDegradeFrom, rising exponentially to 1e-4 at
/// kOpticDegradeTo, held there (the same degrade phase as its Rx power, below).
double opticDegradingBer(double sinceOnset);

/// link-flap: every kFlapPeriod seconds the link goes down at phase kFlapDownAt and comes back at
/// the end of the period; counter-reset: the driver reloads at kResetAt; pause-storm: the NIC's
/// stall detector warns once at kStormWarningAt.
// Three flaps within 18 s: a bad cable or transceiver, and enough for link_flap's default of 3 down
// events to be reached in a short test.
inline constexpr double kFlapPeriod = 6.0;
inline constexpr double kFlapDownAt = 4.0;
inline constexpr double kResetAt = 10.0;
inline constexpr double kStormWarningAt = 5.0;
/// port-down, port-disabled, device-missing, driver-reload: the event happens this long after the
/// fault onset, so the daemon has seen the port ACTIVE (the device present) first.
inline constexpr double kPortEventAt = 3.0;
/// driver-reload: the RDMA device is gone from sysfs this long, then back with fresh counters (a
/// `modprobe -r mlx5_ib; modprobe mlx5_ib` or a devlink reload takes seconds).
inline constexpr double kReloadGone = 4.0;
/// pcie-aer: the PCIe switch port above the NIC detects corrected errors from the onset,
/// kAerCorrectedStart per second, growing by kAerCorrectedGrowth per second each second (a link
/// wearing out: replays, then worse); kAerNonFatalAt seconds after the onset the NIC's function
/// logs a non-fatal error (a completion timeout).
inline constexpr double kAerCorrectedStart = 1.0;
inline constexpr double kAerCorrectedGrowth = 0.2;
inline constexpr double kAerNonFatalAt = 12.0;
/// pcie-aer-background: the look-alike, corrected errors at the NIC's function and every port above
/// it at 2 a minute, steady: a quarter of pcie_errors' 8 per minute.
inline constexpr double kAerBackgroundPerSecond = 2.0 / 60;
/// optic-degrading and hot-module (scenario time = seconds since the fault onset): the module's
/// degrade phase runs from kOpticDegradeFrom to kOpticDegradeTo; optic-degrading's link flaps
/// (down for kFlapPeriod - kFlapDownAt seconds, as in link-flap) at kOpticFlapAt. Shared with the
/// pre-FEC BER part of optic-degrading (docs/simulator.md).
inline constexpr double kOpticDegradeFrom = 10.0;
inline constexpr double kOpticDegradeTo = 130.0;
inline constexpr double kOpticFlapAt = 150.0;
/// module-swap: the module is replaced (new serial, flags clear) this long after the onset.
inline constexpr double kModuleSwapAt = 30.0;

/// optic-degrading: how far lane 1's Rx power of the affected port has sunk below its healthy
/// level at scenario time `t`, in dB: 0 before the degrade phase, then linear to
/// kOpticDriftDb at its end, held after it.
double opticsDrift(double t);
inline constexpr double kOpticDriftDb = 9.0;
/// hot-module: the affected module's temperature rise in °C at scenario time `t` (linear over the
/// degrade phase to kHotModuleRise, held after it).
double hotModuleRise(double t);
inline constexpr double kHotModuleRise = 34.0;

}  // namespace fabricmon::sim
