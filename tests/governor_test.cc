// The governor's policy over scripted sensor timelines: each test replays a timeline the way the
// caller does (a poll every few seconds, the readings in force at that time) and checks the profile
// events it would emit, with their times and reasons.
#include "governor/governor.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "governor/sensor_timeline.h"

namespace earshot::governor {
namespace {

GovernorConfig NoDwell() {
  GovernorConfig c = GovernorConfig::Defaults();
  c.min_dwell_ms = 0;
  return c;
}

// "t profile reason" of each event the caller would emit.
std::string Describe(const statemachine::ProfileEvent& e) {
  char t[32];
  std::snprintf(t, sizeof t, "%g", e.t);
  return std::string(t) + " " + e.profile + " " + e.reason;
}

// Polls `governor` every `poll_s` from 0 to `end_s` with the timeline's readings; the events.
std::vector<std::string> Replay(Governor& governor, std::string_view timeline, double end_s,
                                double poll_s = 5) {
  Result<SensorTimeline> t = SensorTimeline::Parse(timeline, "script");
  EXPECT_TRUE(t.ok()) << t.error().message;
  std::vector<std::string> events;
  for (double s = 0; s <= end_s; s += poll_s) {
    Decision d = governor.Update(t->At(s), static_cast<int64_t>(s * 1000));
    if (d.changed) events.push_back(Describe(MakeProfileEvent(d, s)));
  }
  return events;
}

std::vector<std::string> Replay(const GovernorConfig& config, std::string_view timeline,
                                double end_s, double poll_s = 5) {
  Governor governor(config);
  return Replay(governor, timeline, end_s, poll_s);
}

// One line per minute: the battery loses 1% a minute from `from` down to `to`, discharging, 40 C.
std::string Discharge(int from, int to, int start_s = 0) {
  std::string text = "# t battery_percent charging temp_c\n";
  for (int p = from; p >= to; --p) {
    text += std::to_string(start_s + (from - p) * 60) + " " + std::to_string(p) + " 0 40\n";
  }
  return text;
}

TEST(GovernorPolicy, SlowDischargeCrossesEveryThreshold) {
  EXPECT_EQ(Replay(NoDwell(), Discharge(50, 5), 45 * 60),
            (std::vector<std::string>{
                "0 performance battery 50% discharging", "660 balanced battery 39% discharging",
                "1860 saver battery 19% discharging", "2460 critical battery 9% discharging"}));
}

TEST(GovernorPolicy, DefaultDwellDelaysButKeepsTheDischargeSteps) {
  // With the 30 s default dwell and a poll every 5 s nothing is lost on a slow discharge.
  EXPECT_EQ(Replay(GovernorConfig::Defaults(), Discharge(50, 5), 45 * 60).size(), 4u);
}

TEST(GovernorPolicy, ChargerPluggedMidwayIsPlentyOfPower) {
  const char* timeline =
      "0   45 0 40\n"
      "60  19 0 40\n"  // saver
      "120 19 1 40\n"  // charger plugged
      "180 35 1 40\n"
      "240 35 0 40\n"   // unplugged at 35%: balanced
      "300 8  0 40\n";  // critical
  EXPECT_EQ(Replay(NoDwell(), timeline, 300),
            (std::vector<std::string>{
                "0 performance battery 45% discharging", "60 saver battery 19% discharging",
                "120 performance charging", "240 balanced battery 35% discharging",
                "300 critical battery 8% discharging"}));
}

TEST(GovernorPolicy, ThermalSpikeAndRecoveryWithHysteresis) {
  const char* timeline =
      "0   80 1 50\n"
      "10  80 1 70\n"    // balanced
      "20  80 1 83\n"    // critical, even though charging
      "30  80 1 78\n"    // within 3 C of 80: still critical
      "40  80 1 76.9\n"  // saver
      "50  80 1 62.5\n"  // within 3 C of 65: still balanced (from saver, 62.5 > 62)
      "60  80 1 62\n";   // performance
  EXPECT_EQ(
      Replay(NoDwell(), timeline, 60),
      (std::vector<std::string>{"0 performance charging", "10 balanced temperature 70.0 C",
                                "20 critical temperature 83.0 C", "40 saver temperature 76.9 C",
                                "50 balanced temperature 62.5 C", "60 performance charging"}));
}

TEST(GovernorPolicy, TheThriftierInputWinsAndNamesTheReason) {
  const char* timeline =
      "0  15 0 68\n"    // battery saver, thermal balanced: saver for the battery
      "10 15 0 74\n"    // both saver: no change
      "20 15 0 81.2\n"  // critical for the temperature
      "30 15 0 40\n";   // the battery's saver again
  EXPECT_EQ(
      Replay(NoDwell(), timeline, 30),
      (std::vector<std::string>{"0 saver battery 15% discharging", "20 critical temperature 81.2 C",
                                "30 saver battery 15% discharging"}));
}

TEST(GovernorPolicy, HysteresisAbsorbsFlappingReadings) {
  std::string timeline;
  for (int i = 0; i < 40; ++i) {  // the charge jitters 19/21%, the temperature 72.5/70.5 C
    timeline += std::to_string(i * 5) + (i % 2 ? " 21 0 70.5\n" : " 19 0 72.5\n");
  }
  EXPECT_EQ(Replay(NoDwell(), timeline, 200),
            (std::vector<std::string>{"0 saver temperature 72.5 C"}));
  // The same readings without hysteresis flap at every poll: the test above can fail.
  GovernorConfig no_hysteresis = NoDwell();
  no_hysteresis.hysteresis_percent = 0;
  no_hysteresis.hysteresis_milli_c = 0;
  EXPECT_EQ(Replay(no_hysteresis, timeline, 200).size(), 40u);
}

TEST(GovernorPolicy, MinimumDwellHoldsAProfile) {
  GovernorConfig c = GovernorConfig::Defaults();
  c.min_dwell_ms = 30000;
  const char* timeline =
      "0  45 0 40\n"
      "10 39 0 40\n"   // balanced asked at 10 s, given at 30 s
      "35 15 0 40\n"   // saver asked at 35 s, given at 60 s
      "70 15 0 90\n"   // a thermal spike shorter than the dwell...
      "85 15 0 40\n";  // ...is absorbed
  EXPECT_EQ(Replay(c, timeline, 200),
            (std::vector<std::string>{"0 performance battery 45% discharging",
                                      "30 balanced battery 39% discharging",
                                      "60 saver battery 15% discharging"}));
}

TEST(GovernorPolicy, UnknownReadingsChangeNothing) {
  const char* timeline =
      "0  15 0 40\n"
      "10 -  - -\n"  // every sensor gone: saver stays, no event
      "20 -  0 -\n"
      "30 -  1 -\n"    // the charger is seen again: performance
      "40 -  - 75\n";  // a temperature again: saver for it
  EXPECT_EQ(Replay(NoDwell(), timeline, 60),
            (std::vector<std::string>{"0 saver battery 15% discharging", "30 performance charging",
                                      "40 saver temperature 75.0 C"}));
}

TEST(GovernorPolicy, NoBatteryIsMainsPowerUnlessHot) {
  EXPECT_EQ(Replay(NoDwell(), "0 - - 45\n10 - 1 -\n20 - - 73\n", 20),
            (std::vector<std::string>{"0 performance mains power", "20 saver temperature 73.0 C"}));
  EXPECT_EQ(Replay(NoDwell(), "0 - - -\n", 20),
            (std::vector<std::string>{"0 performance mains power"}));
}

TEST(GovernorPolicy, ChargeWithoutStatusIsReadAsIs) {
  EXPECT_EQ(Replay(NoDwell(), "0 18 - -\n", 0), (std::vector<std::string>{"0 saver battery 18%"}));
  EXPECT_EQ(Replay(NoDwell(), "0 - 0 -\n", 0),
            (std::vector<std::string>{"0 performance discharging, charge unknown"}));
}

TEST(GovernorPolicy, TemperaturesAreWrittenInTenths) {
  EXPECT_EQ(Replay(NoDwell(), "0 - - 81.25\n", 0),
            (std::vector<std::string>{"0 critical temperature 81.3 C"}));
  GovernorConfig cold = NoDwell();  // thresholds below zero (a freezer's controller)
  cold.balanced_above_milli_c = cold.saver_above_milli_c = cold.critical_above_milli_c = -10000;
  EXPECT_EQ(Replay(cold, "0 - - -0.04\n", 0),
            (std::vector<std::string>{"0 critical temperature 0.0 C"}));
  EXPECT_EQ(Replay(cold, "0 - - -9.96\n", 0),
            (std::vector<std::string>{"0 critical temperature -10.0 C"}));
}

TEST(GovernorPolicy, ManualOverrideBeatsReadingsAndAutoGivesControlBack) {
  // The default dwell: manual and auto act at once all the same.
  Governor g(GovernorConfig::Defaults());
  SensorReadings low{15, false, 40000};
  EXPECT_EQ(g.Update(low, 0).profile, Profile::kSaver);

  Decision d = g.SetOverride(Profile::kPerformance, 1000);
  EXPECT_TRUE(d.changed);
  EXPECT_TRUE(d.manual);
  EXPECT_EQ(d.profile, Profile::kPerformance);
  EXPECT_EQ(d.reason, "manual");
  EXPECT_FALSE(g.Update(SensorReadings{5, false, 90000}, 2000).changed);  // readings ignored
  EXPECT_EQ(g.Update(SensorReadings{std::nullopt, std::nullopt, 91000}, 2500).profile,
            Profile::kPerformance);
  EXPECT_EQ(g.known(), (SensorReadings{5, false, 91000}));           // but kept
  EXPECT_FALSE(g.SetOverride(Profile::kPerformance, 3000).changed);  // same again
  EXPECT_TRUE(g.SetOverride(Profile::kBalanced, 3500).changed);

  d = g.SetOverride(std::nullopt, 4000);  // auto: the readings decide at once
  EXPECT_TRUE(d.changed);
  EXPECT_FALSE(d.manual);
  EXPECT_EQ(d.profile, Profile::kCritical);
  EXPECT_EQ(d.reason, "temperature 91.0 C");
  EXPECT_FALSE(g.SetOverride(std::nullopt, 5000).changed);  // auto again: nothing
}

TEST(GovernorPolicy, ManualToTheSameProfileIsAnnounced) {
  Governor g(NoDwell());
  EXPECT_EQ(g.Update(SensorReadings{15, false, 40000}, 0).profile, Profile::kSaver);
  Decision d = g.SetOverride(Profile::kSaver, 10);
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(d.reason, "manual");
}

TEST(GovernorPolicy, ConfiguredProfileIsManualFromTheStart) {
  GovernorConfig c = GovernorConfig::Defaults();
  c.manual = Profile::kCritical;
  Governor g(c);
  EXPECT_EQ(g.decision().profile, Profile::kCritical);
  Decision d = g.Update(SensorReadings{100, true, 30000}, 0);
  EXPECT_TRUE(d.changed);  // the first call announces the starting profile
  EXPECT_EQ(d.profile, Profile::kCritical);
  EXPECT_EQ(d.reason, "manual");
  EXPECT_EQ(g.SetOverride(std::nullopt, 10).profile, Profile::kPerformance);
}

TEST(GovernorLevels, ThresholdsAreStrictAndHysteresisIsExact) {
  const GovernorConfig c = GovernorConfig::Defaults();
  EXPECT_EQ(BatteryLevel(c, Profile::kPerformance, 40), Profile::kPerformance);
  EXPECT_EQ(BatteryLevel(c, Profile::kPerformance, 39), Profile::kBalanced);
  EXPECT_EQ(BatteryLevel(c, Profile::kBalanced, 42), Profile::kBalanced);
  EXPECT_EQ(BatteryLevel(c, Profile::kBalanced, 43), Profile::kPerformance);
  EXPECT_EQ(BatteryLevel(c, Profile::kCritical, 12), Profile::kCritical);
  EXPECT_EQ(BatteryLevel(c, Profile::kCritical, 24), Profile::kBalanced);  // two levels at once
  EXPECT_EQ(BatteryLevel(c, Profile::kPerformance, 0), Profile::kCritical);
  EXPECT_EQ(ThermalLevel(c, Profile::kPerformance, 65000), Profile::kPerformance);
  EXPECT_EQ(ThermalLevel(c, Profile::kPerformance, 65001), Profile::kBalanced);
  EXPECT_EQ(ThermalLevel(c, Profile::kBalanced, 62001), Profile::kBalanced);
  EXPECT_EQ(ThermalLevel(c, Profile::kBalanced, 62000), Profile::kPerformance);
  EXPECT_EQ(ThermalLevel(c, Profile::kSaver, 80001), Profile::kCritical);
}

TEST(GovernorConfigTest, DefaultsAreTheOptionsTables) {
  const GovernorConfig d = GovernorConfig::Defaults();
  EXPECT_EQ(d.manual, std::nullopt);
  EXPECT_EQ(d.balanced_below_percent, 40);
  EXPECT_EQ(d.critical_above_milli_c, 80000);
  EXPECT_EQ(d.min_dwell_ms, 30000);
  EXPECT_EQ(d.sysfs_root, "/sys");
  EXPECT_EQ(
      d.Models(Profile::kBalanced),
      (statemachine::ProfileModels{statemachine::KwsSize::kLarge, statemachine::SttSize::kSmall}));
  EXPECT_EQ(
      d.Models(Profile::kCritical),
      (statemachine::ProfileModels{statemachine::KwsSize::kSmall, statemachine::SttSize::kOff}));
}

TEST(GovernorConfigTest, OptionsReachThePolicy) {
  config::Config cfg = config::Config::Defaults();
  ASSERT_TRUE(cfg.Set("governor.profile", "saver").ok());
  ASSERT_TRUE(cfg.Set("governor.critical_stt", "small").ok());
  ASSERT_TRUE(cfg.Set("governor.performance_kws", "small").ok());
  ASSERT_TRUE(cfg.Set("governor.min_dwell_ms", "1000").ok());
  Result<GovernorConfig> c = GovernorConfig::FromConfig(cfg);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->manual, Profile::kSaver);
  EXPECT_EQ(c->Models(Profile::kCritical).stt, statemachine::SttSize::kSmall);
  EXPECT_EQ(c->Models(Profile::kPerformance).kws, statemachine::KwsSize::kSmall);
  EXPECT_EQ(c->min_dwell_ms, 1000);
}

TEST(GovernorConfigTest, ThresholdsOutOfOrderAreRefusedWithNamesAndUnits) {
  config::Config cfg = config::Config::Defaults();
  ASSERT_TRUE(cfg.Set("governor.saver_below_percent", "50").ok());
  Result<GovernorConfig> c = GovernorConfig::FromConfig(cfg);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "governor.saver_below_percent (50 %) must not exceed governor.balanced_below_percent "
            "(40 %)");
  GovernorConfig t = GovernorConfig::Defaults();
  t.critical_above_milli_c = 70000;
  ASSERT_FALSE(t.Validate().ok());
  EXPECT_NE(
      t.Validate().error().message.find("governor.critical_above_milli_c (70000 millidegrees C)"),
      std::string::npos)
      << t.Validate().error().message;
}

TEST(GovernorConfigTest, ProfileSettingParses) {
  EXPECT_EQ(*ParseProfileSetting("auto"), std::nullopt);
  EXPECT_EQ(*ParseProfileSetting("critical"), Profile::kCritical);
  Result<std::optional<Profile>> bad = ParseProfileSetting("turbo");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "profile = turbo: expected one of performance|balanced|saver|critical or auto");
  for (int p = 0; p < kProfileCount; ++p) {
    EXPECT_EQ(ParseProfileSetting(ProfileName(static_cast<Profile>(p)))->value(),
              static_cast<Profile>(p));
  }
  EXPECT_EQ(statemachine::KwsSizeName(statemachine::KwsSize::kSmall), "small");
  EXPECT_EQ(statemachine::SttSizeName(statemachine::SttSize::kOff), "off");
}

TEST(GovernorEvent, ProfileEventCarriesProfileAndReason) {
  Decision d{Profile::kSaver, "battery 14% discharging", false, true};
  EXPECT_EQ(
      statemachine::ToJson(MakeProfileEvent(d, 12.5)),
      R"({"event": "profile", "t": 12.5, "profile": "saver", "reason": "battery 14% discharging"})");
}

}  // namespace
}  // namespace earshot::governor
