// SlotPool (watchdog/slot_pool.hpp), the pool behind History's tracked series and series ids: a
// lookup finds exactly what was inserted, entries never move while the index grows, an erased
// entry's slot is reused, and erasing from the middle of a probe run (one that wraps around the
// end of the index too) leaves every other key reachable.
#include "watchdog/slot_pool.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fabricmon::watchdog {
namespace {

struct Entry {
  std::string name;  ///< empty: a free slot
  int value = 0;
};

struct Spread {
  static bool live(const Entry& e) { return !e.name.empty(); }
  static std::string_view key(const Entry& e) { return e.name; }
  static size_t home(std::string_view key, uint8_t bits) {
    return std::hash<std::string_view>{}(key) & ((size_t{1} << bits) - 1);
  }
  static bool equal(std::string_view key, const Entry& e) { return e.name == key; }
};

/// Every key's home is one of the index's last three positions: one long probe run that wraps.
struct Crowded : Spread {
  static size_t home(std::string_view key, uint8_t bits) {
    return (size_t{1} << bits) - 1 - std::hash<std::string_view>{}(key) % 3;
  }
};

template <class Traits>
using Pool = SlotPool<Entry, Traits, 4>;  // small chunks: many chunks in every test

template <class Traits>
Entry& add(Pool<Traits>& pool, const std::string& name, int value) {
  return pool.insert(std::string_view(name), [&](Entry& e) {
    EXPECT_TRUE(e.name.empty()) << "a slot handed out is a free one";
    EXPECT_EQ(e.value, 0);
    e.name = name;
    e.value = value;
  });
}

std::string keyOf(int i) { return "k" + std::to_string(i); }

TEST(SlotPoolTest, FindsWhatWasInsertedAndNothingElse) {
  Pool<Spread> pool;
  EXPECT_EQ(pool.find(std::string_view("a")), nullptr);  // an empty pool has no index yet
  Entry& a = add(pool, "a", 1);
  Entry& b = add(pool, "b", 2);
  EXPECT_EQ(pool.find(std::string_view("a")), &a);
  EXPECT_EQ(pool.find(std::string_view("b")), &b);
  EXPECT_EQ(pool.find(std::string_view("c")), nullptr);
  EXPECT_EQ(pool.find(std::string_view("")), nullptr);
  EXPECT_EQ(pool.size(), 2u);
}

TEST(SlotPoolTest, AnErasedEntrysSlotIsTheNextOneHandedOut) {
  Pool<Spread> pool;
  Entry& a = add(pool, "a", 1);
  Entry& b = add(pool, "b", 2);
  Entry& c = add(pool, "c", 3);
  pool.erase(b);
  EXPECT_EQ(pool.size(), 2u);
  EXPECT_EQ(pool.find(std::string_view("b")), nullptr);
  EXPECT_TRUE(b.name.empty()) << "an erased entry is reset";
  Entry& d = add(pool, "d", 4);
  EXPECT_EQ(&d, &b);
  EXPECT_EQ(pool.find(std::string_view("d")), &d);
  EXPECT_EQ(pool.find(std::string_view("a")), &a);
  EXPECT_EQ(pool.find(std::string_view("c")), &c);
  EXPECT_EQ(a.value, 1);
  EXPECT_EQ(c.value, 3);
  EXPECT_EQ(pool.size(), 3u);
}

TEST(SlotPoolTest, EntriesStayWhereTheyAreWhileTheIndexGrows) {
  Pool<Spread> pool;
  constexpr int kKeys = 5000;  // the index grows from 64 to 8192 positions
  std::vector<Entry*> at;
  for (int i = 0; i < kKeys; ++i) at.push_back(&add(pool, keyOf(i), i));
  EXPECT_EQ(pool.size(), size_t(kKeys));
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(pool.find(std::string_view(keyOf(i))), at[i]) << keyOf(i);
    EXPECT_EQ(at[i]->value, i);
  }
  EXPECT_EQ(pool.find(std::string_view(keyOf(kKeys))), nullptr);
  int visited = 0;
  pool.forEach([&](Entry& e) { visited += e.value == std::stoi(e.name.substr(1)); });
  EXPECT_EQ(visited, kKeys);
}

TEST(SlotPoolTest, ErasingInsideAWrappingProbeRunKeepsEveryOtherKeyReachable) {
  constexpr int kKeys = 40;
  for (int gone = 0; gone < kKeys; ++gone) {  // a hole at every place of the run, in turn
    Pool<Crowded> pool;
    for (int i = 0; i < kKeys; ++i) add(pool, keyOf(i), i);
    pool.erase(*pool.find(std::string_view(keyOf(gone))));
    for (int i = 0; i < kKeys; ++i) {
      const Entry* e = pool.find(std::string_view(keyOf(i)));
      ASSERT_EQ(e == nullptr, i == gone) << "erased " << keyOf(gone) << ", looked up " << keyOf(i);
      if (e) {
        EXPECT_EQ(e->value, i);
      }
    }
  }
  // Several holes at once.
  Pool<Crowded> pool;
  for (int i = 0; i < kKeys; ++i) add(pool, keyOf(i), i);
  for (int i = 0; i < kKeys; i += 3) pool.erase(*pool.find(std::string_view(keyOf(i))));
  for (int i = 0; i < kKeys; ++i) {
    const Entry* e = pool.find(std::string_view(keyOf(i)));
    if (i % 3 == 0) {
      EXPECT_EQ(e, nullptr) << keyOf(i);
    } else {
      ASSERT_NE(e, nullptr) << keyOf(i);
      EXPECT_EQ(e->value, i);
    }
  }
  // Added again, into the freed slots: all of them reachable.
  for (int i = 0; i < kKeys; i += 3) add(pool, keyOf(i), i);
  EXPECT_EQ(pool.size(), size_t(kKeys));
  for (int i = 0; i < kKeys; ++i) {
    const Entry* e = pool.find(std::string_view(keyOf(i)));
    ASSERT_NE(e, nullptr) << keyOf(i);
    EXPECT_EQ(e->value, i);
  }
}

TEST(SlotPoolTest, EraseIfFreesExactlyTheEntriesItIsTrueFor) {
  Pool<Crowded> pool;
  for (int i = 0; i < 30; ++i) add(pool, keyOf(i), i);
  pool.eraseIf([](const Entry& e) { return e.value % 2 == 1; });
  EXPECT_EQ(pool.size(), 15u);
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(pool.find(std::string_view(keyOf(i))) == nullptr, i % 2 == 1) << keyOf(i);
  }
  int visited = 0;
  pool.forEach([&](Entry& e) {
    ++visited;
    EXPECT_EQ(e.value % 2, 0);
  });
  EXPECT_EQ(visited, 15);
}

TEST(SlotPoolTest, ClearFreesEverythingAndReusesTheLowestSlotFirst) {
  Pool<Spread> pool;
  Entry& first = add(pool, "a", 1);
  add(pool, "b", 2);
  add(pool, "c", 3);
  pool.clear();
  EXPECT_EQ(pool.size(), 0u);
  EXPECT_EQ(pool.find(std::string_view("a")), nullptr);
  int visited = 0;
  pool.forEach([&](Entry&) { ++visited; });
  EXPECT_EQ(visited, 0);
  EXPECT_EQ(&add(pool, "x", 9), &first);
  EXPECT_EQ(pool.find(std::string_view("x")), &first);
}

}  // namespace
}  // namespace fabricmon::watchdog
