// The registry (collectors/registry.hpp): every collector's entry, defined in its own .cpp, is in
// the list of registry.cpp once, and tests reach a collector by its name.
#include "collectors/registry.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

namespace fabricmon {
namespace {

TEST(CollectorRegistry, EveryEntryIsListedOnceAndFoundByItsName) {
  std::set<std::string_view> names;
  for (const CollectorEntry* entry : collectorRegistry()) {
    ASSERT_NE(entry, nullptr);
    EXPECT_TRUE(names.insert(entry->name).second) << entry->name << " is listed twice";
    EXPECT_NE(entry->factory, nullptr) << entry->name;
    EXPECT_EQ(&collectorEntry(entry->name), entry);
  }
  EXPECT_GE(names.size(), 16u) << "an entry of registry.cpp's list went missing";
}

TEST(CollectorRegistry, AnUnknownNameIsAnError) {
  EXPECT_THROW(collectorEntry("no_such_collector"), std::invalid_argument);
  EXPECT_THROW(makeCollector("", Sources{}, Config{}), std::invalid_argument);
}

TEST(CollectorRegistry, MakeCollectorNamesTheCollectorAsTheDaemonDoes) {
  Sources sources;
  sources.sysfs = std::make_shared<const SysfsRoot>("/nonexistent-fabricmon-registry-test");
  const auto collector = makeCollector("rdma_port", sources, Config{});
  ASSERT_NE(collector, nullptr);
  EXPECT_EQ(collector->name(), "rdma_port");
}

}  // namespace
}  // namespace fabricmon
