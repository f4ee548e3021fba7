#include "daemon/logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace fabricmon {

namespace {

/// `%*`: the syslog priority number of the level (sd-daemon.h SD_ERR=3 ... SD_DEBUG=7). journald
/// reads a leading `<N>` on a stream line as the priority (systemd.exec(5), SyslogLevelPrefix=);
/// a level *name* in brackets would be kept as text and the line logged at info.
class PriorityFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm& /*tm*/,
              spdlog::memory_buf_t& dest) override {
    const char digit = static_cast<char>('0' + syslogPriority(msg.level));
    dest.push_back(digit);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<PriorityFlag>();
  }
};

}  // namespace

int syslogPriority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical: return 2;
    case spdlog::level::err: return 3;
    case spdlog::level::warn: return 4;
    case spdlog::level::info: return 6;
    default: return 7;
  }
}

bool stderrIsJournal() {
  // systemd.exec(5): JOURNAL_STREAM is "device:inode" of the stream; compare it with stderr so a
  // child whose stderr was redirected elsewhere does not print journal prefixes into a file.
  const char* env = std::getenv("JOURNAL_STREAM");
  if (env == nullptr) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(env, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == dev &&
         static_cast<unsigned long long>(st.st_ino) == ino;
}

std::string logPattern(bool journal) {
  return journal ? "<%*>%v" : "%Y-%m-%dT%H:%M:%S.%e%z %l %v";
}

void setupLogging(const std::string& level) {
  auto logger = spdlog::stderr_logger_mt("fabricmon");
  logger->set_formatter(makeLogFormatter(stderrIsJournal()));
  spdlog::set_default_logger(logger);
  setLogLevel(level);
}

std::unique_ptr<spdlog::formatter> makeLogFormatter(bool journal) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<PriorityFlag>('*').set_pattern(logPattern(journal));
  return formatter;
}

void setLogLevel(const std::string& level) {
  spdlog::set_level(spdlog::level::from_str(level == "warn" ? "warning" : level));
  spdlog::flush_on(spdlog::level::info);
}

}  // namespace fabricmon
