// ReadWatch (collectors/sources/read_watch.hpp): what a collector thread waits for, read from
// another thread without a lock. The concurrent test is the one that matters: a reader must never
// see a torn target (half of one path, half of the next) while the writer marks reads as fast as
// it can.
#include "collectors/sources/read_watch.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

namespace fabricmon {
namespace {

TEST(ReadWatch, AThreadWithoutAWatchMarksNothing) {
  setCurrentReadWatch(nullptr);
  ReadWatch watch;
  {
    const WatchedRead read("read", "/sys/class/net/eth0/speed");
    EXPECT_FALSE(watch.waiting());
  }
  EXPECT_EQ(currentReadWatch(), nullptr);
}

TEST(ReadWatch, AReadInProgressIsSeenUntilItReturns) {
  ReadWatch watch;
  setCurrentReadWatch(&watch);
  EXPECT_FALSE(watch.waiting());
  const auto before = ReadWatch::Clock::now();
  {
    const WatchedRead read("ethtool ioctl", "class/net/", "enp23s0np0");
    const auto w = watch.waiting();
    ASSERT_TRUE(w);
    EXPECT_EQ(w->kind, "ethtool ioctl");
    EXPECT_EQ(w->target, "class/net/enp23s0np0");
    EXPECT_GE(w->since, before - std::chrono::milliseconds(20)) << "the coarse clock is late by a tick at most";
    EXPECT_LE(w->since, ReadWatch::Clock::now());
  }
  EXPECT_FALSE(watch.waiting());
  setCurrentReadWatch(nullptr);
}

TEST(ReadWatch, ALongTargetKeepsItsEndWhichNamesTheFile) {
  ReadWatch watch;
  setCurrentReadWatch(&watch);
  const std::string deep = "/srv/" + std::string(400, 'x') + "/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent";
  {
    const WatchedRead read("read", deep);
    const auto w = watch.waiting();
    ASSERT_TRUE(w);
    EXPECT_EQ(w->target.size(), ReadWatch::kMaxTarget);
    EXPECT_EQ(w->target, deep.substr(deep.size() - ReadWatch::kMaxTarget));
  }
  {
    // The cut may fall inside the prefix or the name: the end is kept either way.
    const std::string name = std::string(300, 'n') + "/eth0";
    const WatchedRead read("dcb netlink", "class/net/", name);
    const auto w = watch.waiting();
    ASSERT_TRUE(w);
    EXPECT_EQ(w->target, name.substr(name.size() - ReadWatch::kMaxTarget));
  }
  setCurrentReadWatch(nullptr);
}

TEST(ReadWatch, AReaderNeverSeesATornTarget) {
  ReadWatch watch;
  std::atomic<bool> stop{false};
  // Targets of different lengths, each of one repeated character: a torn read mixes characters or
  // has a length that does not belong to its character.
  const std::string targets[] = {std::string(17, 'a'), std::string(200, 'b'), std::string(64, 'c'),
                                 std::string(1, 'd')};
  std::thread writer([&] {
    setCurrentReadWatch(&watch);
    for (size_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      const std::string& t = targets[i % 4];
      const WatchedRead read("read", t);
      // A read takes a moment: long enough for the reader to catch some in progress.
      for (int spin = 0; spin < 100 && !stop.load(std::memory_order_relaxed); ++spin) {
      }
    }
    setCurrentReadWatch(nullptr);
  });
  size_t seen = 0;
  std::string torn;  // the first torn reading, if any (checked once the writer has stopped)
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (seen < 20000 && torn.empty() && std::chrono::steady_clock::now() < deadline) {
    const auto w = watch.waiting();
    if (!w) continue;
    ++seen;
    const char c = w->target.empty() ? 0 : w->target.front();
    if (c < 'a' || c > 'd' || w->target != targets[c - 'a'] || w->kind != "read") torn = w->target;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(torn, "") << "a torn target";
  EXPECT_EQ(seen, 20000u) << "the reader caught too few reads in progress to tell";
}

}  // namespace
}  // namespace fabricmon
