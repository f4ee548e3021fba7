#include "daemon/series_guard.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "model/series_clash.hpp"

namespace fabricmon {

SeriesGuard::SeriesGuard(bool strict) : strict_(strict) {}

SeriesGuard SeriesGuard::fromEnvironment() {
  const char* v = std::getenv("FABRICMON_STRICT_SERIES");
  return SeriesGuard(v != nullptr && std::string_view(v) == "1");
}

void SeriesGuard::check(std::span<const BatchPtr> batches) {
  bool changed = batches.size() != fingerprints_.size();
  for (const BatchPtr& b : batches) {
    if (!b) continue;
    const uint64_t fp = b->seriesFingerprint != 0 ? b->seriesFingerprint : seriesFingerprint(b->samples);
    auto [it, inserted] = fingerprints_.try_emplace(b->collector, fp);
    if (inserted || it->second != fp) changed = true;
    it->second = fp;
  }
  if (!changed) return;
  if (fingerprints_.size() > batches.size()) {
    std::erase_if(fingerprints_, [&](const auto& entry) {
      for (const BatchPtr& b : batches) {
        if (b && b->collector == entry.first) return false;
      }
      return true;
    });
  }
  for (const SeriesClash& c : findSeriesClashes(batches)) {
    ++conflicts_;
    if (strict_) {
      const std::string message = fmt::format("series {} is emitted by both {} and {} (FABRICMON_STRICT_SERIES=1: aborting)",
                                              c.series->key, c.first, c.second);
      spdlog::critical("{}", message);
      spdlog::shutdown();
      // Also straight to stderr: the log may go to journald or stdout, and this must be seen.
      std::fprintf(stderr, "fabricmon: %s\n", message.c_str());
      std::abort();
    }
    if (logged_.insert(c.series->key).second) {
      spdlog::error("series {} is emitted by both {} and {}: one series must have one source; "
                    "/metrics shows the first",
                    c.series->key, c.first, c.second);
    }
  }
}

}  // namespace fabricmon
