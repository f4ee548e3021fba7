#include "collectors/error_tracker.hpp"

#include <spdlog/spdlog.h>

#include "collectors/collector.hpp"

namespace fabricmon {

bool ErrorTracker::failed(std::string_view key, const Error& error) {
  auto [it, inserted] = failing_.try_emplace(std::string(key), Entry{error.message});
  it->second.touched = true;
  if (inserted) {
    // A file error names its path already; others (a MAD that timed out) need the key to say where.
    if (error.message.find(key) != std::string::npos) {
      spdlog::warn("collector {}: {} (skipped until it reads again)", collector_, error.message);
    } else {
      spdlog::warn("collector {}: {}: {} (skipped until it reads again)", collector_, key, error.message);
    }
  }
  return inserted;
}

bool ErrorTracker::recovered(std::string_view key) {
  if (failing_.empty()) return false;
  auto it = failing_.find(key);
  if (it == failing_.end()) return false;
  spdlog::info("collector {}: {} reads again (was: {})", collector_, key, it->second.message);
  failing_.erase(it);
  return true;
}

void ErrorTracker::sweep() {
  for (auto it = failing_.begin(); it != failing_.end();) {
    if (!it->second.touched) {
      it = failing_.erase(it);
    } else {
      it->second.touched = false;
      ++it;
    }
  }
}

void CollectOutput::fileError(std::string_view key, const Error& error) {
  ++errorCount_;
  errors_.failed(key, error);
}

void CollectOutput::fileOk(std::string_view key) { errors_.recovered(key); }

}  // namespace fabricmon
