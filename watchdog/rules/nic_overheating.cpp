// nic_overheating: a sensor of the NIC itself (its ASIC, its module, a board sensor: the hwmon
// device its driver registers, nic_temperature) is at or above a limit the NIC reports for it. At
// its `crit` the NIC is about to protect itself (throttle, or shut down at `emergency`/`shutdown`:
// bnxt_en's fatal and shutdown thresholds, drivers/net/ethernet/broadcom/bnxt/bnxt_hwmon.c), and
// every queue pair on it goes with it: critical. At its warning limit (`max`), or within
// warning_margin_celsius of `crit` where the driver shows no `max` (mlx5 shows only `crit`,
// drivers/net/ethernet/mellanox/mlx5/core/hwmon.c): a warning, time to look at the airflow. One
// finding per NIC and reason; the hottest sensor against its own limit is named.
#include "watchdog/rules/nic_overheating.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

/// The limits of one sensor, by fabricmon_nic_temperature_threshold_celsius' `level`.
enum Limit : size_t { kMax, kCrit, kEmergency, kShutdown, kLimits };

std::optional<Limit> limitOf(std::string_view level) {
  if (level == "max") return kMax;
  if (level == "crit") return kCrit;
  if (level == "emergency") return kEmergency;
  if (level == "shutdown") return kShutdown;
  return std::nullopt;
}

struct Sensor {
  const Tracked* temperature = nullptr;
  std::array<const Tracked*, kLimits> limits{};
};

/// pci_address, chip, sensor: one sensor, whichever devices share its function.
using SensorKey = std::tuple<std::string_view, std::string_view, std::string_view>;

SensorKey keyOf(const Tracked& s) { return {s.label("pci_address"), s.label("chip"), s.label("sensor")}; }

/// Where `reason` fires for this sensor, and which limit that is; nullopt when the NIC shows no limit
/// it could be judged against.
struct FirePoint {
  double celsius;
  std::string_view limit;  ///< "crit", "max", ...
  bool margin;             ///< warning_margin_celsius below crit (no max of its own)
};

std::optional<FirePoint> firePoint(const RuleContext& ctx, const Sensor& s, bool critical, double margin) {
  auto value = [&](Limit l) -> std::optional<double> {
    if (!ctx.ready(s.limits[l])) return std::nullopt;
    return s.limits[l]->raw;
  };
  if (critical) {
    if (auto c = value(kCrit)) return FirePoint{*c, "crit", false};
    // No crit: the lowest of the limits above it.
    std::optional<FirePoint> lowest;
    for (const auto& [l, name] : {std::pair{kEmergency, "emergency"}, std::pair{kShutdown, "shutdown"}}) {
      if (auto v = value(l); v && (!lowest || *v < lowest->celsius)) lowest = FirePoint{*v, name, false};
    }
    return lowest;
  }
  if (auto m = value(kMax)) return FirePoint{*m, "max", false};
  if (auto c = value(kCrit)) return FirePoint{*c - margin, "crit", true};
  return std::nullopt;
}

std::string sensorName(const Tracked& t) {
  const std::string_view label = t.label("label");
  return label.empty() ? fmt::format("{} {}", t.label("chip"), t.label("sensor"))
                       : fmt::format("{} ({} {})", label, t.label("chip"), t.label("sensor"));
}

void judge(RuleContext& ctx, const NicOverheatingRule& rule, std::string_view device,
           const std::vector<const Sensor*>& sensors, bool critical) {
  Verdict v;
  const Sensor* worst = nullptr;
  FirePoint worstAt{};
  double worstExcess = -INFINITY;
  bool allClear = true;
  for (const Sensor* s : sensors) {
    if (!ctx.ready(s->temperature)) continue;
    const auto at = firePoint(ctx, *s, critical, rule.warningMarginCelsius);
    if (!at) continue;
    v.judged = true;
    v.stamp = std::max(v.stamp, s->temperature->t);
    const double excess = s->temperature->raw - at->celsius;
    if (excess > worstExcess) {
      worst = s;
      worstAt = *at;
      worstExcess = excess;
    }
    if (excess > -rule.clearHysteresisCelsius) allClear = false;
  }
  v.fire = worst != nullptr && worstExcess >= 0;
  v.clear = allClear;
  if (worst != nullptr) {
    v.evidence.add("temperature_celsius", worst->temperature->raw);
    v.evidence.add("fires_at_celsius", worstAt.celsius);
    if (worstAt.margin) v.evidence.add("warning_margin_celsius", rule.warningMarginCelsius);
  }
  if (v.fire) {
    const Tracked& t = *worst->temperature;
    v.summary = fmt::format(
        "{}: NIC sensor {} at {} is {:.1f} °C, {}", device, sensorName(t), t.label("pci_address"), t.raw,
        worstAt.margin ? fmt::format("within {:g} °C of its crit limit of {:.1f} °C", rule.warningMarginCelsius,
                                     worstAt.celsius + rule.warningMarginCelsius)
                       : fmt::format("at or above its {} limit of {:.1f} °C", worstAt.limit, worstAt.celsius));
  }
  const Policy policy{rule.forReadings, 0, toNanos(rule.clearAfter)};
  ctx.observe(critical ? "crit" : "max", critical ? Severity::kCritical : Severity::kWarning,
              Subject{device, {}, {}, {}}, policy, v);
}

void evaluateNicOverheating(RuleContext& ctx, const NicOverheatingRule& rule) {
  std::map<SensorKey, Sensor> sensors;
  for (const Tracked* s : ctx.history.family(Fam::kNicTemperature)) sensors[keyOf(*s)].temperature = s;
  if (sensors.empty()) return;
  for (const Tracked* s : ctx.history.family(Fam::kNicTemperatureThreshold)) {
    const auto limit = limitOf(s->label("level"));
    const auto it = sensors.find(keyOf(*s));
    if (limit && it != sensors.end()) it->second.limits[*limit] = s;
  }
  // Each NIC's sensors; a function shared by several devices is each one's. Management NICs are
  // not in the join (watchdog/management_ports.hpp) and are not judged.
  std::set<std::string_view> watched;
  for (const PortRef& p : ctx.subjects.ports()) watched.insert(p.device);
  std::map<std::string_view, std::vector<const Sensor*>> byDevice;
  for (const auto& [key, sensor] : sensors) {
    if (sensor.temperature == nullptr) continue;
    std::string_view devices = sensor.temperature->label("device");
    while (!devices.empty()) {
      const size_t comma = devices.find(',');
      const std::string_view d = devices.substr(0, comma);
      if (watched.count(d) != 0) byDevice[d].push_back(&sensor);
      devices = comma == std::string_view::npos ? std::string_view{} : devices.substr(comma + 1);
    }
  }
  for (const auto& [device, list] : byDevice) {
    judge(ctx, rule, device, list, true);
    judge(ctx, rule, device, list, false);
  }
}

void planNicOverheating(const NicOverheatingRule& /*rule*/, EnginePlan& /*plan*/) {}

}  // namespace

const RuleDef kNicOverheatingRule =
    defineRule<NicOverheatingRule, planNicOverheating, evaluateNicOverheating>("nic_overheating", "nic_health");

}  // namespace fabricmon::watchdog
