// A series is identified once, when it is made (model/sample.cpp): the same family and labels give
// the same object and id while any holder keeps it; ids are never reused.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "model/sample.hpp"

namespace fabricmon {
namespace {

const FamilyDef kFamily{"fabricmon_identity_test_total", "A test counter.", MetricType::kCounter, "events",
                        "interface"};
const FamilyDef kOther{"fabricmon_identity_other_total", "Another test counter.", MetricType::kCounter, "events",
                       "interface"};

TEST(SeriesIdentity, TheSameFamilyAndLabelsAreOneObjectWithOneId) {
  const SeriesPtr a = makeSeries(kFamily, {{"interface", "eth0"}});
  const SeriesPtr b = makeSeries(kFamily, {{"interface", "eth0"}});
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(a->id, b->id);
  EXPECT_NE(makeSeries(kFamily, {{"interface", "eth1"}})->id, a->id);
  EXPECT_NE(makeSeries(kOther, {{"interface", "eth0"}})->id, a->id);
}

TEST(SeriesIdentity, AReleasedSeriesIsMadeAgainWithANewId) {
  std::weak_ptr<const Series> weak;
  uint64_t firstId = 0;
  {
    const SeriesPtr a = makeSeries(kFamily, {{"interface", "gone0"}});
    weak = a;
    firstId = a->id;
  }
  EXPECT_TRUE(weak.expired());  // the table holds no reference of its own
  const SeriesPtr again = makeSeries(kFamily, {{"interface", "gone0"}});
  EXPECT_GT(again->id, firstId);
}

TEST(SeriesIdentity, LabelValuesThatLookAlikeUnescapedAreDifferentSeries) {
  // Unescaped, both would read fabricmon_identity_test_total{a="x",b="y"}.
  const SeriesPtr one = makeSeries(kFamily, {{"a", R"(x",b="y)"}});
  const SeriesPtr two = makeSeries(kFamily, {{"a", "x"}, {"b", "y"}});
  EXPECT_NE(one.get(), two.get());
  EXPECT_NE(one->key, two->key);
  EXPECT_FALSE(one->plainKey());
  EXPECT_TRUE(two->plainKey());
  EXPECT_EQ(two->key, R"(fabricmon_identity_test_total{a="x",b="y"})");
}

// A plain series keeps no copy of its labels: they are read out of its key (LabelView). Whatever
// the labels, reading them back gives exactly what the series was made with, in order.
TEST(SeriesIdentity, LabelsReadBackAsMadeWhetherTheKeyIsPlainOrNot) {
  const std::vector<Labels> cases{
      {},
      {{"interface", "eth0"}},
      {{"device", "mlx5_0"}, {"port", "1"}, {"empty", ""}, {"priority", "3"}},
      {{"device", ""}, {"port", ""}},
      {{"reason", "say \"hi\""}, {"path", "C:\\x"}, {"line", "a\nb"}},  // escaped in the key
      {{"utf8", "caf\xc3\xa9"}, {"x", "y"}},                           // not ASCII: not plain
      {{"odd-name", "v"}, {"b", "w"}},                                  // a name the key cannot delimit
      {{"text", "a=b,c={d}"}, {"z", ","}},                              // plain, with = , { } inside
  };
  for (const Labels& labels : cases) {
    const SeriesPtr s = makeSeries(kFamily, labels);
    EXPECT_EQ(s->labels().copy(), labels) << s->key;
    EXPECT_EQ(s->labels().size(), labels.size()) << s->key;
    EXPECT_EQ(s->labels().empty(), labels.empty()) << s->key;
    for (const auto& [k, v] : labels) EXPECT_EQ(s->label(k), v) << s->key << " " << k;
    EXPECT_EQ(s->label("absent"), "") << s->key;
  }
  EXPECT_TRUE(makeSeries(kFamily, cases[2])->plainKey());
  EXPECT_EQ(makeSeries(kFamily, cases[2])->escaped, nullptr);  // read from the key, no copy kept
  EXPECT_FALSE(makeSeries(kFamily, cases[4])->plainKey());
  EXPECT_FALSE(makeSeries(kFamily, cases[6])->plainKey());
}

TEST(SeriesIdentity, ConcurrentMakersOfOneSeriesGetOneObject) {
  constexpr int kThreads = 4;
  std::vector<SeriesPtr> made(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&made, i] {
      for (int n = 0; n < 1000; ++n) made[i] = makeSeries(kFamily, {{"interface", "race0"}});
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 1; i < kThreads; ++i) EXPECT_EQ(made[i].get(), made[0].get());
}

// The table grows, shrinks and erases entries from the middle of probe runs (model/sample.cpp): every
// live series must still be found as itself, and no released one.
TEST(SeriesIdentity, ManySeriesReleasedInRandomOrderLeaveTheRestFindable) {
  constexpr int kSeries = 20000;
  std::vector<SeriesPtr> live;
  std::vector<std::string> names;
  for (int i = 0; i < kSeries; ++i) {
    names.push_back("table" + std::to_string(i));
    live.push_back(makeSeries(kFamily, {{"interface", names.back()}}));
  }
  std::unordered_map<uint64_t, int> ids;
  for (int i = 0; i < kSeries; ++i) ids[live[i]->id] = i;
  ASSERT_EQ(ids.size(), static_cast<size_t>(kSeries));

  std::mt19937 rng(7);
  std::vector<int> order(kSeries);
  for (int i = 0; i < kSeries; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<uint64_t> releasedIds;
  // Release 95 % (the table shrinks on the way), checking a sample of the survivors as it goes.
  for (int n = 0; n < kSeries * 95 / 100; ++n) {
    releasedIds.push_back(live[order[n]]->id);
    live[order[n]].reset();
    if (n % 997 == 0) {
      for (int m = n + 1; m < kSeries; m += 101) {
        const int i = order[m];
        ASSERT_EQ(makeSeries(kFamily, {{"interface", names[i]}}).get(), live[i].get()) << names[i];
      }
    }
  }
  for (int i = 0; i < kSeries; ++i) {
    if (!live[i]) continue;
    EXPECT_EQ(makeSeries(kFamily, {{"interface", names[i]}}).get(), live[i].get()) << names[i];
  }
  // A released series is made anew, never found as its old self.
  for (int n = 0; n < 50; ++n) {
    const int i = order[n];
    const SeriesPtr again = makeSeries(kFamily, {{"interface", names[i]}});
    EXPECT_FALSE(ids.count(again->id)) << names[i] << " came back with an old id";
  }
}

// Threads making and dropping the same few series at once: a series whose last reference is being
// dropped while another thread looks it up must not be handed out again (use after free under
// ASan), and at every moment the holders of one key hold one object.
TEST(SeriesIdentity, MakersAndDroppersRacingOnFewKeysNeverShareADeadSeries) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&mismatches, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      for (int n = 0; n < 20000; ++n) {
        const std::string name = "churn" + std::to_string(rng() % 3);
        SeriesPtr a = makeSeries(kFamily, {{"interface", name}});
        SeriesPtr b = makeSeries(kFamily, {{"interface", name}});
        if (a.get() != b.get() || a->id != b->id || a->label("interface") != name) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace fabricmon
