#pragma once
// The watchdog rules (CONTRACT §5; docs/rules.md documents each). One function per rule, each in its
// own file; all read the History through a RuleContext and report through the FindingTracker.

#include <chrono>
#include <map>
#include <string>
#include <string_view>

#include "config/config.hpp"
#include "watchdog/finding_tracker.hpp"
#include "watchdog/history.hpp"
#include "watchdog/port_join.hpp"
#include "watchdog/storm_ledger.hpp"

namespace fabricmon::watchdog {

inline Nanos toNanos(Duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); }

struct RuleContext {
  const History& history;
  const WatchdogConfig& config;
  const QosConfig& qos;
  const PortJoin& join;
  FindingTracker& tracker;
  StormLedger& storms;
  /// port_degraded: the best rate each port ("device/port") ran at while up, since start.
  std::map<std::string, double, std::less<>>& portBestRate;
  std::string rocePriority;  ///< qos.rocePriority as a label value
  std::string cnpPriority;

  /// A series with enough samples to be judged (counters need two for a delta).
  bool ready(const Tracked* s) const {
    if (s == nullptr) return false;
    unsigned need = config.minSamples;
    if (inputFamily(s->fam).counter) need = std::max(need, 2u);
    return s->samples >= need;
  }
  /// A counter with a judged rate (see History::judgeRate: cadence-proof).
  bool rated(const Tracked* s) const { return ready(s) && s->rated(); }
  /// The RDMA port is known to be not ACTIVE or its physical link not up.
  bool portDown(std::string_view device, std::string_view port) const;
  /// The interface is known to be down (operstate).
  bool interfaceDown(std::string_view interface) const;
};

void evaluatePauseStorm(RuleContext& ctx);
void evaluateDcqcnMisconfig(RuleContext& ctx);
void evaluateLinkFlap(RuleContext& ctx);
void evaluateLinkErrors(RuleContext& ctx);
void evaluatePortDegraded(RuleContext& ctx);
void evaluateRocePacketLoss(RuleContext& ctx);
void evaluateLosslessDrop(RuleContext& ctx);
void evaluateIbCongestion(RuleContext& ctx);

/// PortState values (Documentation/ABI/stable/sysfs-class-infiniband).
inline constexpr double kPortActive = 4;
inline constexpr double kPhysLinkUp = 5;

}  // namespace fabricmon::watchdog
