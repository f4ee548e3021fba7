// loadConfigFile: reading the file, and naming it in every error.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "config/config_loader.hpp"
#include "daemon/config_schema.hpp"

namespace fabricmon {
namespace {

class ConfigFile : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "fabricmon_config_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const auto& f : files_) ::unlink(f.c_str());
    ::rmdir(dir_.c_str());
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    files_.push_back(path);
    return path;
  }

  std::string dir_;
  std::vector<std::string> files_;
};

TEST_F(ConfigFile, AMissingFileIsOneErrorNamingIt) {
  const std::string path = dir_ + "/absent.yaml";
  const ConfigLoad load = loadConfigFile(path, configSchema());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(load.errors[0].format(),
            path + ": cannot open config file: No such file or directory (ENOENT)");
  EXPECT_EQ(load.errors[0].line, 0);
}

TEST_F(ConfigFile, ADirectoryIsOneErrorNamingIt) {
  const ConfigLoad load = loadConfigFile(dir_, configSchema());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(load.errors[0].file, dir_);
  EXPECT_NE(load.errors[0].message.find("EISDIR"), std::string::npos) << load.errors[0].format();
}

TEST_F(ConfigFile, AnUnreadableFileIsOneErrorNamingIt) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  const std::string path = write("secret.yaml", "poll: {}\n");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  const ConfigLoad load = loadConfigFile(path, configSchema());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_NE(
      load.errors[0].format().find(path + ": cannot open config file: Permission denied (EACCES)"),
      std::string::npos);
}

TEST_F(ConfigFile, AnOversizedFileIsRejectedBeforeParsing) {
  const ConfigLoad load = loadConfigFile(write("huge.yaml", std::string((1 << 20) + 10, '#')), configSchema());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_NE(load.errors[0].message.find("larger than 1 MiB"), std::string::npos);
}

TEST_F(ConfigFile, ErrorsInAFileCarryItsPath) {
  const std::string path = write("bad.yaml", "# comment\nqos:\n  roce_priority: 8\n");
  const ConfigLoad load = loadConfigFile(path, configSchema());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(load.errors[0].format(),
            path + ":3:18: qos.roce_priority: must be between 0 and 7, got 8");
}

TEST_F(ConfigFile, AValidFileLoads) {
  const ConfigLoad load =
      loadConfigFile(write("ok.yaml", "log:\n  level: warn\nweb:\n  listen: '[::1]:0'\n"), configSchema());
  ASSERT_TRUE(load.ok());
  EXPECT_EQ(load.config.log.level, "warn");
  EXPECT_EQ(load.config.web.listen, "[::1]:0");
}

TEST_F(ConfigFile, AFifoIsRefusedAtOnceNotReadForever) {
  const std::string path = dir_ + "/config.fifo";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  files_.push_back(path);
  const ConfigLoad load = loadConfigFile(path, configSchema());  // blocked forever before: open() waited for a writer
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_NE(load.errors[0].format().find("not a regular file (a FIFO)"), std::string::npos)
      << load.errors[0].format();
}

TEST_F(ConfigFile, ADirectoryIsRefused) {
  const ConfigLoad load = loadConfigFile(dir_, configSchema());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_NE(load.errors[0].format().find("a directory"), std::string::npos) << load.errors[0].format();
}

TEST_F(ConfigFile, ConnectionLimitsAndTheWebConfigOriginAreRead) {
  const std::string path = write("c.yaml",
                                 "web:\n  max_connections: 8\n  header_timeout: 2s\n  idle_timeout: 30s\n"
                                 "  config_file: /etc/w.yml\nsources:\n  max_open_files: 100\n");
  const ConfigLoad load = loadConfigFile(path, configSchema());
  ASSERT_TRUE(load.ok()) << load.errors[0].format();
  EXPECT_EQ(load.config.web.maxConnections, 8u);
  EXPECT_EQ(load.config.web.headerTimeout, std::chrono::seconds(2));
  EXPECT_EQ(load.config.web.idleTimeout, std::chrono::seconds(30));
  EXPECT_EQ(load.config.web.configFileOrigin.text, path + ":5:16");
  EXPECT_EQ(load.config.sources.maxOpenFiles, 100u);
  const ConfigLoad tooFew = loadConfigText("web:\n  max_connections: 1\n", "x.yaml", configSchema());
  ASSERT_EQ(tooFew.errors.size(), 1u);
  EXPECT_EQ(tooFew.errors[0].key, "web.max_connections");
}

}  // namespace
}  // namespace fabricmon
