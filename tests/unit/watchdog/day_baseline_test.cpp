// DayBaseline (watchdog/day_baseline.hpp): the median of the parts before the current one, within
// the last 24, and what a state file may bring back.
#include "watchdog/day_baseline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace fabricmon::watchdog {
namespace {

constexpr int64_t kHour = 3600;

TEST(DayBaseline, TheMedianOfThePartsBeforeTheCurrentOne) {
  DayBaseline b;
  // Parts 0..4 hold 1, 2, 100, 3, 4 (one bad hour); part 5, the current one, holds 1000.
  const double values[] = {1, 2, 100, 3, 4, 1000};
  for (int p = 0; p < 6; ++p) b.add(kHour, p * kHour + 10, values[p] * 2, 2);
  EXPECT_DOUBLE_EQ(b.median(5 * kHour + 20, 1, 5), 3) << "the bad hour and the current part are not the median";
  EXPECT_EQ(b.median(5 * kHour + 20, 1, 6), -1) << "five parts qualify, six are asked for";
  EXPECT_EQ(b.median(5 * kHour + 20, 3, 1), -1) << "no part has the weight asked for";
}

// A whole day is 24 parts, an even count: its median is the mean of the two middle parts, neither
// the larger (a baseline that read high would make a sinking lane look sunk sooner) nor the smaller.
TEST(DayBaseline, OfAnEvenCountTheMedianIsTheMeanOfTheTwoMiddleParts) {
  DayBaseline b;
  const double values[] = {4, 1, 10, 2, 0};  // part 4, the current one, holds nothing yet
  for (int p = 0; p < 4; ++p) b.add(kHour, p * kHour + 10, values[p], 1);
  EXPECT_DOUBLE_EQ(b.median(4 * kHour + 20, 1, 1), 3) << "1, 2, 4, 10: (2 + 4) / 2";
  EXPECT_DOUBLE_EQ(b.median(3 * kHour + 20, 1, 1), 4) << "1, 4, 10: an odd count, its middle";
  // A whole day of 12 parts at 1 and 12 at 3.
  DayBaseline day;
  for (int p = 0; p < 24; ++p) day.add(kHour, p * kHour + 10, p % 2 == 0 ? 1 : 3, 1);
  EXPECT_DOUBLE_EQ(day.median(24 * kHour + 20, 1, DayBaseline::kParts), 2);
}

TEST(DayBaseline, AFullDayIsTheTwentyFourPartsBeforeTheCurrentOneWhetherItHoldsAnythingOrNot) {
  DayBaseline b;
  // Parts 0..29 hold 1, except part 5 (100): 25 parts before part 30, the oldest must not count.
  for (int p = 0; p < 30; ++p) b.add(kHour, p * kHour + 10, p == 5 ? 100 : 1, 1);
  const int64_t empty = 30 * kHour + 20;  // part 30 has nothing yet
  EXPECT_DOUBLE_EQ(b.median(empty, 1, DayBaseline::kParts), 1) << "parts 6..29: 24 of them, all 1";
  EXPECT_EQ(b.median(empty, 1, DayBaseline::kParts + 1), -1) << "part 5 is 25 parts back: not the day";
  b.add(kHour, 30 * kHour + 30, 50, 1);  // now part 30 holds a reading: still the same 24 before it
  EXPECT_DOUBLE_EQ(b.median(30 * kHour + 40, 1, DayBaseline::kParts), 1);
  // Part 31 begins: part 30 joins the day, part 6 leaves it. 23 parts of 1 and one of 50.
  EXPECT_DOUBLE_EQ(b.median(31 * kHour + 5, 1, DayBaseline::kParts), 1);
  EXPECT_EQ(b.median(31 * kHour + 5, 1, DayBaseline::kParts + 1), -1);
}

TEST(DayBaseline, PartsOlderThanTheDayAreLeftOutAndThenExpire) {
  DayBaseline b;
  b.add(kHour, 0, 5, 1);
  b.add(kHour, 30 * kHour, 7, 1);  // reuses the slot of part 5, not of part 0
  EXPECT_DOUBLE_EQ(b.median(31 * kHour, 1, 1), 7) << "part 0 is more than 24 parts before part 31";
  EXPECT_FALSE(b.expired(40 * kHour));
  EXPECT_TRUE(b.expired(60 * kHour));
  // Parts dated after now (a clock set back, a file that says so) are no median and keep nothing alive.
  EXPECT_EQ(b.median(29 * kHour, 1, 1), -1);
  EXPECT_TRUE(b.expired(28 * kHour)) << "its only parts are 0 (more than a day before) and 30 (after)";
}

TEST(DayBaseline, AnotherPartWidthStartsOver) {
  DayBaseline b;
  b.add(kHour, 0, 5, 1);
  b.cut(600);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.partSeconds(), 600);
}

TEST(DayBaseline, WhatASavedFileBringsBack) {
  DayBaseline b;
  for (int p = 0; p < 3; ++p) b.add(kHour, p * kHour, p + 1.0, 1);
  nlohmann::json doc;
  b.save(doc);
  EXPECT_EQ(doc["part_seconds"], kHour);
  DayBaseline back;
  ASSERT_TRUE(back.restore(doc, 10));
  EXPECT_DOUBLE_EQ(back.median(3 * kHour, 1, 3), b.median(3 * kHour, 1, 3));
  // Sums and weights that cannot be are not believed, nor a ratio above the most there can be, nor
  // a part of another shape.
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::json bad = {
      {"part_seconds", kHour},
      {"parts", nlohmann::json::array({{0, -1.0, 1.0}, {1, 1.0, nan}, {2, "x", 1}, {3}, "part", {4, 11.0, 1.0}})}};
  DayBaseline none;
  EXPECT_FALSE(none.restore(bad, 10));
  nlohmann::json zeroWidth = doc;
  zeroWidth["part_seconds"] = 0;
  EXPECT_FALSE(none.restore(zeroWidth, 10));
  EXPECT_FALSE(none.restore(nlohmann::json::array(), 10));
  ASSERT_TRUE(back.restore(doc, 2));
  EXPECT_EQ(back.median(3 * kHour, 1, 3), -1) << "the part of ratio 3 is above 2: two parts are left";
}

// A rule holds the baseline while its finding says the port left its normal: the day then reads as
// it did when the hold began, nothing is learned and nothing ages out, until the hold lapses.
TEST(DayBaseline, AHoldStandsTheDayStillUntilItLapses) {
  DayBaseline b;
  for (int p = 0; p < 24; ++p) b.add(kHour, p * kHour + 10, 1, 1);  // a day of parts at 1
  const int64_t since = 24 * kHour + 10;
  b.hold(since, since + 48 * kHour);
  EXPECT_TRUE(b.held());
  for (int p = 24; p < 60; ++p) b.add(kHour, p * kHour + 10, 9, 1);  // a day and a half at 9: not learned
  EXPECT_DOUBLE_EQ(b.median(59 * kHour + 20, 1, 12), 1) << "the day before the hold, not today's parts";
  EXPECT_FALSE(b.expired(59 * kHour + 20)) << "its parts are older than a day, but held";
  // The hold lapses: what is added from then on is learned, the day is read at the time asked for.
  const int64_t lapsed = since + 48 * kHour;
  EXPECT_FALSE(b.holding(lapsed));
  EXPECT_TRUE(b.held()) << "lapsed, not released: a rule does not hold the same excursion again";
  EXPECT_EQ(b.median(lapsed, 1, 1), -1) << "nothing was learned in the day before now";
  EXPECT_TRUE(b.expired(lapsed));
  for (int p = 72; p < 84; ++p) b.add(kHour, p * kHour + 10, 9, 1);
  EXPECT_DOUBLE_EQ(b.median(84 * kHour + 20, 1, 12), 9);
  b.release();
  EXPECT_FALSE(b.held());
  // A hold that ends before it begins is none; another part width drops a hold with the parts.
  DayBaseline c;
  c.add(kHour, 10, 1, 1);
  c.hold(100, 100);
  EXPECT_FALSE(c.held());
  c.hold(100, 200);
  c.cut(600);
  EXPECT_FALSE(c.held());
}

TEST(DayBaseline, AHoldSurvivesTheStateFile) {
  DayBaseline b;
  for (int p = 0; p < 3; ++p) b.add(kHour, p * kHour, 2, 1);
  b.hold(3 * kHour, 10 * kHour);
  nlohmann::json doc;
  b.save(doc);
  DayBaseline back;
  ASSERT_TRUE(back.restore(doc, 10));
  EXPECT_TRUE(back.holding(9 * kHour));
  EXPECT_FALSE(back.holding(10 * kHour));
  back.add(kHour, 5 * kHour, 8, 1);
  EXPECT_DOUBLE_EQ(back.median(9 * kHour, 1, 3), 2) << "held: read at 3 h, the reading at 5 h not learned";
  // A hold that ends before it begins, or is not two times, is not believed; the parts still are.
  for (const nlohmann::json& held : {nlohmann::json::array({10 * kHour, 3 * kHour}), nlohmann::json::array({1}),
                                     nlohmann::json("x")}) {
    nlohmann::json bad = doc;
    bad["held"] = held;
    DayBaseline c;
    ASSERT_TRUE(c.restore(bad, 10));
    EXPECT_FALSE(c.held()) << held.dump();
  }
  DayBaseline none;
  none.add(kHour, 0, 1, 1);
  nlohmann::json plain;
  none.save(plain);
  EXPECT_FALSE(plain.contains("held"));
}

// The hold configured now bounds one taken before (a reload, a state file): shortened to it, ended
// by 0, and ended when it would start after now (a clock set back, a file from the future).
TEST(DayBaseline, TheHoldConfiguredNowBoundsOneTakenBefore) {
  DayBaseline b;
  b.add(kHour, 10, 1, 1);
  b.hold(100, 100 + 168 * kHour);
  b.limitHold(std::chrono::hours(2), 200);
  EXPECT_TRUE(b.holding(100 + 2 * kHour - 1));
  EXPECT_FALSE(b.holding(100 + 2 * kHour));
  b.limitHold(std::chrono::hours(24), 200);
  EXPECT_FALSE(b.holding(100 + 2 * kHour)) << "never lengthened";
  b.limitHold(std::chrono::hours(0), 200);
  EXPECT_FALSE(b.held());
  b.hold(5000, 9000);
  b.limitHold(std::chrono::hours(1), 4000);
  EXPECT_FALSE(b.held()) << "a hold that starts after now";
  b.hold(-5, 9000);
  EXPECT_FALSE(b.held()) << "no wall-clock time is negative";
}

// What a rule's judgements do to the hold: firing takes one where none was taken, clear ends it, a
// judgement that does not fire ends it only once it has lapsed (a new excursion may then hold again;
// the one that outlasted its hold may not), and a hold of 0 is none.
TEST(DayBaseline, ARulesJudgementsTakeAndEndTheHold) {
  const auto week = std::chrono::hours(168);
  DayBaseline b;
  b.add(kHour, 10, 1, 1);
  b.judged(false, false, 100, week);
  EXPECT_FALSE(b.held()) << "nothing fired";
  b.judged(true, false, 100, std::chrono::hours(0));
  EXPECT_FALSE(b.held()) << "baseline_hold 0";
  b.judged(true, false, 100, week);
  ASSERT_TRUE(b.holding(200));
  EXPECT_EQ(b.heldSince(), 100);
  b.judged(true, false, 300, week);
  EXPECT_EQ(b.heldSince(), 100) << "taken once";
  b.judged(false, false, 400, week);
  EXPECT_TRUE(b.holding(400)) << "not firing, not clear: held while in force";
  b.judged(false, true, 500, week);
  EXPECT_FALSE(b.held()) << "clear";
  b.judged(true, false, 600, std::chrono::hours(1));
  const int64_t lapsed = 600 + kHour;
  b.judged(true, false, lapsed, std::chrono::hours(1));
  EXPECT_TRUE(b.held());
  EXPECT_FALSE(b.holding(lapsed)) << "the same excursion, lapsed: not held again";
  b.judged(false, false, lapsed + 10, std::chrono::hours(1));
  EXPECT_FALSE(b.held()) << "lapsed and no longer firing: released";
  b.judged(true, false, lapsed + 20, std::chrono::hours(1));
  EXPECT_TRUE(b.holding(lapsed + 20)) << "a new excursion";
}

// A file written by the 24-slot ring of earlier versions lists its parts in slot order (index mod 24):
// parts 25 apart may then share a slot of today's 25, and the later one, still in the day, is kept.
TEST(DayBaseline, AnOlderFilesPartsThatShareASlotKeepTheLaterOne) {
  const nlohmann::json old = {{"part_seconds", kHour},
                              {"parts", nlohmann::json::array({{48, 5.0, 1.0}, {23, 1.0, 1.0}})}};
  DayBaseline b;
  ASSERT_TRUE(b.restore(old, 10));
  EXPECT_DOUBLE_EQ(b.median(49 * kHour, 1, 1), 5) << "part 48 (slot 23 of 25), not part 23 written over it";
}

}  // namespace
}  // namespace fabricmon::watchdog
