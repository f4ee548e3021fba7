#include "daemon/self_metrics.hpp"

namespace fabricmon {

namespace {

const FamilyDef kCollectorUp{
    "fabricmon_collector_up",
    "1 if the collector's last run succeeded and it is not stuck in a run, else 0.",
    MetricType::kGauge, "0/1", "collector"};
const FamilyDef kCollectorDuration{
    "fabricmon_collector_duration_seconds",
    "Wall-clock length of the collector's last finished run, in seconds.", MetricType::kGauge,
    "seconds", "collector"};
const FamilyDef kCollectorLastSuccess{
    "fabricmon_collector_last_success_timestamp_seconds",
    "Unix time of the collector's last successful run (0 if it never succeeded).",
    MetricType::kGauge, "Unix seconds", "collector"};
const FamilyDef kCollectorErrors{
    "fabricmon_collector_errors_total",
    "Failed collector runs plus per-file read errors (each skipped value counts once).",
    MetricType::kCounter, "errors", "collector"};
const FamilyDef kBuildInfo{"fabricmon_build_info",
                           "Always 1; the labels give the fabricmon version and source revision.",
                           MetricType::kGauge, "1", "version,revision"};

// The names Prometheus and Alertmanager give the same facts about themselves, so one alert rule
// (`..._config_last_reload_successful == 0`) covers all three.
const FamilyDef kReloadSuccessful{
    "fabricmon_config_last_reload_successful",
    "1 if the last configuration reload (SIGHUP) was accepted, 0 if it was rejected and the "
    "previous configuration is still in force.",
    MetricType::kGauge, "0/1", ""};
const FamilyDef kReloadTimestamp{
    "fabricmon_config_last_reload_success_timestamp_seconds",
    "Unix time of the last successful configuration load (the start or an accepted reload).",
    MetricType::kGauge, "seconds", ""};

const FamilyDef kSeriesConflicts{
    "fabricmon_series_conflicts_total",
    "Samples left out of a snapshot because another sample of it carried the same series (two "
    "sources for one series: a bug, logged once per series with both collectors' names).",
    MetricType::kCounter, "samples", ""};

const FamilyDef* const kFamilies[] = {&kCollectorUp,     &kCollectorDuration, &kCollectorLastSuccess,
                                      &kCollectorErrors, &kBuildInfo,         &kReloadSuccessful,
                                      &kReloadTimestamp, &kSeriesConflicts,   &RequestDurations::familyDef()};

}  // namespace

SelfMetrics::SelfMetrics(std::string version, std::string revision,
                         std::shared_ptr<RequestDurations> durations,
                         std::shared_ptr<const ReloadStatus> reload)
    : buildInfo_(makeSeries(kBuildInfo, {{"version", std::move(version)}, {"revision", std::move(revision)}})),
      durations_(std::move(durations)),
      reload_(std::move(reload)),
      seriesConflicts_(makeSeries(kSeriesConflicts, {})) {
  if (reload_) {
    reloadSuccessful_ = makeSeries(kReloadSuccessful, {});
    reloadTimestamp_ = makeSeries(kReloadTimestamp, {});
  }
}

std::span<const FamilyDef* const> SelfMetrics::families() { return kFamilies; }

const SelfMetrics::CollectorSeries& SelfMetrics::seriesFor(const std::string& collector) {
  auto it = series_.find(collector);
  if (it != series_.end()) return it->second;
  const Labels labels{{"collector", collector}};
  CollectorSeries s{makeSeries(kCollectorUp, labels), makeSeries(kCollectorDuration, labels),
                    makeSeries(kCollectorLastSuccess, labels), makeSeries(kCollectorErrors, labels)};
  return series_.emplace(collector, std::move(s)).first->second;
}

BatchPtr SelfMetrics::batch(std::span<const CollectorHealth> health,
                            std::chrono::steady_clock::time_point now, uint64_t seriesConflicts) {
  auto b = std::make_shared<Batch>();
  b->collector = "self";
  b->monotonic = now;
  b->wall = std::chrono::system_clock::now();
  b->samples.reserve(4 + 4 * health.size());
  SampleWriter out(*b);
  out.add(buildInfo_, 1);
  out.add(seriesConflicts_, static_cast<double>(seriesConflicts));
  if (reload_) {
    out.add(reloadSuccessful_, reload_->successful() ? 1.0 : 0.0);
    out.add(reloadTimestamp_, reload_->lastSuccessUnix());
  }
  for (const auto& h : health) {
    const auto& s = seriesFor(h.name);
    out.add(s.up, h.up ? 1.0 : 0.0);
    out.add(s.duration, h.durationSeconds);
    out.add(s.lastSuccess, h.lastSuccessUnixSeconds);
    out.add(s.errors, static_cast<double>(h.errorsTotal));
  }
  out.finish();
  return b;
}

}  // namespace fabricmon
