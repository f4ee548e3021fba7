// The lldpcli runner (collectors/sources/lldpcli_source.cpp) against stand-in programs: shell
// scripts in a temporary directory that print, fail, hang or flood the way lldpcli can. The real
// lldpcli against a real lldpd is tests/deploy/lldp_netns_test.sh.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "collectors/sources/lldp_source.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class LldpcliSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = dir_ / "lldpd.socket";
    std::ofstream(socket_) << "";  // the runner only checks that the socket exists; the script ignores it
  }

  /// A stand-in lldpcli: `body` runs under /bin/sh with lldpcli's arguments.
  fs::path script(const std::string& body) {
    const fs::path path = dir_ / "lldpcli";
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }

  testing::TempDir tmp_{"fabricmon-lldpcli"};
  const fs::path& dir_ = tmp_.path();
  fs::path socket_;
};

const char* kOneNeighbour =
    R"({"lldp":[{"interface":[{"name":"eth2","chassis":[{"name":[{"value":"leaf-1"}]}],)"
    R"("port":[{"id":[{"type":"ifname","value":"swp4"}]}]}]}]})";

TEST_F(LldpcliSourceTest, RunsLldpcliWithTheSocketAndJson0AndParsesWhatItPrints) {
  const fs::path args = dir_ / "args";
  auto source = makeLldpcliSource(script("echo \"$@\" > " + args.string() + "\necho '" + kOneNeighbour + "'"),
                                  socket_.string(), 2s);
  auto n = source->neighbors();
  ASSERT_TRUE(n) << n.error().message;
  ASSERT_EQ(n->size(), 1u);
  EXPECT_EQ((*n)[0].chassisName, "leaf-1");
  EXPECT_EQ((*n)[0].portId, "swp4");
  std::ifstream in(args);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "-u " + socket_.string() + " -f json0 show neighbors details");
}

TEST_F(LldpcliSourceTest, NoLldpcliOrNoSocketIsNoLldpOnThisNode) {
  auto noProgram = makeLldpcliSource(dir_ / "absent", socket_.string(), 2s)->neighbors();
  ASSERT_FALSE(noProgram);
  EXPECT_EQ(noProgram.error().errnum, ENOENT);
  auto noSocket = makeLldpcliSource(script("exit 0"), (dir_ / "absent.socket").string(), 2s)->neighbors();
  ASSERT_FALSE(noSocket);
  EXPECT_EQ(noSocket.error().errnum, ENOENT);
  EXPECT_NE(noSocket.error().message.find("absent.socket"), std::string::npos) << noSocket.error().message;
}

TEST_F(LldpcliSourceTest, AFailingLldpcliIsAnErrorCarryingItsStderr) {
  // What lldpcli prints when lldpd's socket refuses it.
  auto n = makeLldpcliSource(script("echo 'lldpcli: unable to connect to socket /x' >&2\nexit 1"),
                             socket_.string(), 2s)
               ->neighbors();
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().errnum, EIO);
  EXPECT_NE(n.error().message.find("exited with 1"), std::string::npos) << n.error().message;
  EXPECT_NE(n.error().message.find("unable to connect to socket"), std::string::npos) << n.error().message;
}

TEST_F(LldpcliSourceTest, GarbageOnStdoutIsAParseError) {
  auto n = makeLldpcliSource(script("echo 'Interface: eth2 via LLDP'"), socket_.string(), 2s)->neighbors();
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().errnum, EINVAL);
}

TEST_F(LldpcliSourceTest, AHungLldpcliIsKilledAtTheDeadlineAndReaped) {
  const fs::path pidFile = dir_ / "pid";
  // exec: the PID written is the process that hangs.
  auto source = makeLldpcliSource(script("echo $$ > " + pidFile.string() + "\nexec sleep 30"), socket_.string(), 300ms);
  const auto start = std::chrono::steady_clock::now();
  auto n = source->neighbors();
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().errnum, ETIMEDOUT);
  EXPECT_LT(took, 5s) << "the deadline was 300 ms";
  pid_t pid = 0;
  std::ifstream(pidFile) >> pid;
  ASSERT_GT(pid, 0);
  EXPECT_NE(::kill(pid, 0), 0) << "the hung child " << pid << " still exists";
  EXPECT_EQ(errno, ESRCH);
  // Reaped: no child of this process is left (a zombie would still be waitable).
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(LldpcliSourceTest, AChildThatClosesItsOutputAndLingersIsKilledAtTheDeadline) {
  const fs::path pidFile = dir_ / "pid";
  auto source = makeLldpcliSource(script("echo $$ > " + pidFile.string() + "\nexec >&- 2>&-\nexec sleep 30"),
                                  socket_.string(), 300ms);
  const auto start = std::chrono::steady_clock::now();
  auto n = source->neighbors();
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().errnum, ETIMEDOUT);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  pid_t pid = 0;
  std::ifstream(pidFile) >> pid;
  ASSERT_GT(pid, 0);
  EXPECT_NE(::kill(pid, 0), 0) << "the lingering child " << pid << " still exists";
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
}

TEST_F(LldpcliSourceTest, AFloodIsCutOffNotBuffered) {
  auto n = makeLldpcliSource(script("exec yes '{\"lldp\":[{}]}'"), socket_.string(), 10s)->neighbors();
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().errnum, EFBIG);
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
}

TEST_F(LldpcliSourceTest, TheChildGetsNoneOfTheDaemonsDescriptors) {
  // A descriptor the daemon holds open without CLOEXEC (a listening socket, a umad port).
  const int leaked = ::dup(STDOUT_FILENO);
  ASSERT_GE(leaked, 3);
  const fs::path seen = dir_ / "fd";
  auto n = makeLldpcliSource(script("if [ -e /proc/self/fd/" + std::to_string(leaked) + " ]; then echo open > " +
                                    seen.string() + "; fi\necho '{\"lldp\":[{}]}'"),
                             socket_.string(), 2s)
               ->neighbors();
  ::close(leaked);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_FALSE(fs::exists(seen)) << "descriptor " << leaked << " was inherited by lldpcli";
}

}  // namespace
}  // namespace fabricmon
