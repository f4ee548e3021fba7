#include "model/thread_name.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <thread>

namespace fabricmon {
namespace {

// What the kernel shows for the calling thread (what top -H and ps -L read).
std::string kernelName() {
  std::ifstream in("/proc/thread-self/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

TEST(ThreadName, TheKernelShowsTheName) {
  std::string seen, kernel;
  std::thread t([&] {
    nameThisThread("pipeline");
    seen = thisThreadName();
    kernel = kernelName();
  });
  t.join();
  EXPECT_EQ(seen, "pipeline");
  EXPECT_EQ(kernel, "pipeline");
}

TEST(ThreadName, ALongNameIsCutToFifteenBytes) {
  std::string seen;
  std::thread t([&] {
    nameThisThread("nic_temperature_and_more");
    seen = kernelName();
  });
  t.join();
  EXPECT_EQ(seen, "nic_temperature");
}

TEST(ThreadName, OnlyTheCallingThreadIsRenamed) {
  const std::string before = thisThreadName();
  std::thread t([] { nameThisThread("worker"); });
  t.join();
  EXPECT_EQ(thisThreadName(), before);
}

}  // namespace
}  // namespace fabricmon
