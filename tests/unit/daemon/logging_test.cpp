// Under systemd every log line must carry its syslog priority as journald reads it: a numeric
// "<N>" prefix (systemd.exec(5)); "<warning>" would be filed at priority 6 as text.
#include "daemon/logging.hpp"

#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>

namespace fabricmon {
namespace {

std::string format(bool journal, spdlog::level::level_enum level, const char* text) {
  auto formatter = makeLogFormatter(journal);
  spdlog::memory_buf_t out;
  formatter->format(spdlog::details::log_msg("fabricmon", level, text), out);
  return std::string(out.data(), out.size());
}

TEST(LoggingTest, JournalLinesStartWithTheNumericSyslogPriority) {
  EXPECT_EQ(format(true, spdlog::level::warn, "disk on fire"), "<4>disk on fire\n");
  EXPECT_EQ(format(true, spdlog::level::err, "x"), "<3>x\n");
  EXPECT_EQ(format(true, spdlog::level::critical, "x"), "<2>x\n");
  EXPECT_EQ(format(true, spdlog::level::info, "x"), "<6>x\n");
  EXPECT_EQ(format(true, spdlog::level::debug, "x"), "<7>x\n");
  EXPECT_EQ(format(true, spdlog::level::trace, "x"), "<7>x\n");
}

TEST(LoggingTest, TerminalLinesHaveATimestampAndALevelName) {
  const std::string line = format(false, spdlog::level::warn, "careful");
  EXPECT_NE(line.find(" warning careful"), std::string::npos) << line;
  EXPECT_EQ(line.find('<'), std::string::npos) << line;
}

TEST(LoggingTest, JournalStreamMustBeStderrItself) {
  ::setenv("JOURNAL_STREAM", "1:2", 1);  // some other stream: not ours
  EXPECT_FALSE(stderrIsJournal());
  ::unsetenv("JOURNAL_STREAM");
  EXPECT_FALSE(stderrIsJournal());
}

}  // namespace
}  // namespace fabricmon
