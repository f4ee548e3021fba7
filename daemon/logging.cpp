#include "daemon/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace fabricmon {

void setupLogging(const std::string& level) {
  auto logger = spdlog::stderr_logger_mt("fabricmon");
  if (std::getenv("JOURNAL_STREAM") != nullptr) {
    logger->set_pattern("<%l> %v");
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %v");
  }
  spdlog::set_default_logger(logger);
  setLogLevel(level);
}

void setLogLevel(const std::string& level) {
  spdlog::set_level(spdlog::level::from_str(level == "warn" ? "warning" : level));
  spdlog::flush_on(spdlog::level::info);
}

}  // namespace fabricmon
