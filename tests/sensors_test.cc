// The governor's inputs: SensorReader over fake sysfs trees written to a temporary directory, and
// the SensorTimeline parser of `earshot run --sensors`.
#include "governor/sensors.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "governor/sensor_poller.h"
#include "governor/sensor_timeline.h"
#include "tests/temp_path.h"

namespace earshot::governor {
namespace {

namespace fs = std::filesystem;

// A fake /sys under the test's temporary directory, empty at first.
class FakeSysfs {
 public:
  explicit FakeSysfs(const std::string& name) : root_(testing_util::TestTempPath("sys_" + name)) {
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~FakeSysfs() { fs::remove_all(root_); }
  void Write(const std::string& relative, const std::string& text) {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  void Battery(const std::string& name, const std::string& capacity, const std::string& status) {
    Write("class/power_supply/" + name + "/type", "Battery\n");
    Write("class/power_supply/" + name + "/capacity", capacity + "\n");
    Write("class/power_supply/" + name + "/status", status + "\n");
  }
  void Mains(const std::string& name, const std::string& online) {
    Write("class/power_supply/" + name + "/type", "Mains\n");
    Write("class/power_supply/" + name + "/online", online + "\n");
  }
  void Zone(int index, const std::string& type, const std::string& temp) {
    const std::string dir = "class/thermal/thermal_zone" + std::to_string(index);
    Write(dir + "/type", type + "\n");
    Write(dir + "/temp", temp + "\n");
  }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

bool Mentions(const std::vector<std::string>& warnings, const std::string& a,
              const std::string& b) {
  for (const std::string& w : warnings) {
    if (w.find(a) != std::string::npos && w.find(b) != std::string::npos) return true;
  }
  return false;
}

TEST(SensorReader, BatteryAndMains) {
  FakeSysfs sys("battery_and_mains");
  sys.Battery("BAT0", "57", "Discharging");
  sys.Mains("AC", "0");
  sys.Zone(0, "acpitz", "45000");
  sys.Zone(1, "x86_pkg_temp", "71500");  // the hottest zone counts
  sys.Write("class/thermal/cooling_device0/cur_state", "0\n");
  SensorReader reader(sys.root());
  SensorSample s = reader.Read();
  EXPECT_EQ(s.readings, (SensorReadings{57, false, 71500}));
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();

  sys.Mains("AC", "1");  // plugged in; the battery may still say Discharging for a moment
  EXPECT_EQ(reader.Read().readings.charging, true);
  sys.Mains("AC", "0");
  sys.Battery("BAT0", "100", "Full");
  EXPECT_EQ(reader.Read().readings, (SensorReadings{100, true, 71500}));
}

TEST(SensorReader, MainsOnlyIsNormal) {
  FakeSysfs sys("mains_only");
  sys.Mains("AC", "1");
  SensorSample s = SensorReader(sys.root()).Read();
  EXPECT_EQ(s.readings, (SensorReadings{std::nullopt, true, std::nullopt}));
  EXPECT_TRUE(s.warnings.empty());
}

// DESIGN.md's tree (capacity, status, online, no `type`): read by what each supply has.
TEST(SensorReader, SuppliesWithoutATypeAreReadByTheirAttributes) {
  FakeSysfs sys("no_type");
  sys.Write("class/power_supply/BAT0/capacity", "15\n");
  sys.Write("class/power_supply/BAT0/status", "Discharging\n");
  sys.Write("class/power_supply/AC/online", "0\n");
  SensorReader reader(sys.root());
  SensorSample s = reader.Read();
  EXPECT_EQ(s.readings, (SensorReadings{15, false, std::nullopt}));
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
  sys.Write("class/power_supply/AC/online", "1\n");
  EXPECT_EQ(reader.Read().readings, (SensorReadings{15, true, std::nullopt}));
}

TEST(SensorReader, TwoBatteriesAveragedAndDeviceBatteriesIgnored) {
  FakeSysfs sys("two_batteries");
  sys.Battery("BAT0", "0", "Not charging");
  sys.Battery("BAT1", "81", "Discharging");
  sys.Battery("hid-mouse-battery", "5", "Discharging");
  sys.Write("class/power_supply/hid-mouse-battery/scope", "Device\n");
  SensorSample s = SensorReader(sys.root()).Read();
  EXPECT_EQ(s.readings, (SensorReadings{41, false, std::nullopt}));
}

TEST(SensorReader, GarbageCapacityIsUnknownAndReportedOnce) {
  FakeSysfs sys("garbage_capacity");
  sys.Battery("BAT0", "abc", "Discharging");
  sys.Battery("BAT1", "150", "Weird");
  SensorReader reader(sys.root());
  SensorSample s = reader.Read();
  EXPECT_EQ(s.readings, (SensorReadings{std::nullopt, false, std::nullopt}));
  ASSERT_EQ(s.warnings.size(), 3u);
  EXPECT_TRUE(Mentions(s.warnings, "BAT0/capacity", "'abc' is not an integer in [0, 100]"));
  EXPECT_TRUE(Mentions(s.warnings, "BAT1/capacity", "'150'"));
  EXPECT_TRUE(Mentions(s.warnings, "BAT1/status", "unknown status 'Weird'"));
  SensorSample again = reader.Read();
  EXPECT_EQ(again.readings, s.readings);
  EXPECT_TRUE(again.warnings.empty());   // the same problems are not reported twice
  sys.Battery("BAT0", "33", "Unknown");  // fixed; "Unknown" is a legitimate status
  SensorSample fixed = reader.Read();
  EXPECT_EQ(fixed.readings, (SensorReadings{33, std::nullopt, std::nullopt}));
  EXPECT_TRUE(fixed.warnings.empty());
}

TEST(SensorReader, UnreadableAndMissingFilesAreUnknown) {
  // A directory where the attribute should be: read() fails with EISDIR, as a broken sensor's
  // attribute fails with EIO (permissions would not do: the tests may run as root).
  FakeSysfs sys("unreadable");
  sys.Write("class/power_supply/BAT0/type", "Battery\n");
  fs::create_directories(sys.root() / "class/power_supply/BAT0/capacity");
  sys.Write("class/power_supply/USB/type", "USB\n");  // no online attribute
  fs::create_directories(sys.root() / "class/thermal/thermal_zone0/temp");
  sys.Zone(1, "soc", "-273000");  // out of range
  SensorSample s = SensorReader(sys.root()).Read();
  EXPECT_EQ(s.readings, (SensorReadings{}));
  EXPECT_TRUE(Mentions(s.warnings, "BAT0/capacity", "Is a directory"));
  EXPECT_TRUE(Mentions(s.warnings, "BAT0/status", "No such file"));
  EXPECT_TRUE(Mentions(s.warnings, "USB/online", "No such file"));
  EXPECT_TRUE(Mentions(s.warnings, "thermal_zone0/temp", "Is a directory"));
  EXPECT_TRUE(Mentions(s.warnings, "thermal_zone1/temp", "'-273000'"));
  EXPECT_EQ(s.warnings.size(), 5u);
}

// A FIFO where an attribute should be (a fake tree, a mistake) is never opened for a blocking
// read: before, Read() waited for a writer forever and the daemon's loop with it.
TEST(SensorReader, AFifoIsSkippedNotWaitedFor) {
  FakeSysfs sys("fifo");
  sys.Battery("BAT0", "50", "Discharging");
  fs::create_directories(sys.root() / "class/thermal/thermal_zone0");
  ASSERT_EQ(mkfifo((sys.root() / "class/thermal/thermal_zone0/temp").c_str(), 0600), 0);
  SensorReader reader(sys.root());
  SensorSample s = reader.Read();
  EXPECT_EQ(s.readings.battery_percent, 50);
  EXPECT_FALSE(s.readings.temp_milli_c.has_value());
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_TRUE(Mentions(s.warnings, "thermal_zone0/temp", "not a regular file"));
  EXPECT_TRUE(reader.Read().warnings.empty());  // reported once
}

// The poller's hook: an attribute it refuses is not read, is unknown and is no problem to report.
TEST(SensorReader, BeforeReadSkipsAnAttribute) {
  FakeSysfs sys("skip");
  sys.Battery("BAT0", "50", "Discharging");
  sys.Zone(0, "cpu", "70000");
  SensorReader reader(sys.root());
  std::vector<std::string> asked;
  reader.set_before_read([&](const fs::path& attribute) {
    asked.push_back(attribute.filename().string());
    return attribute.filename() != "temp";
  });
  SensorSample s = reader.Read();
  EXPECT_EQ(s.readings.battery_percent, 50);
  EXPECT_FALSE(s.readings.temp_milli_c.has_value());
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_NE(std::find(asked.begin(), asked.end(), "temp"), asked.end());
}

// Off the caller's thread, the same readings and each warning once. (A read that never returns:
// daemon_sensors_test, with a preloaded read().)
TEST(SensorPoller, ReadsWhatTheReaderReads) {
  FakeSysfs sys("poller");
  sys.Battery("BAT0", "15", "Discharging");
  sys.Zone(0, "cpu", "hot");
  sys.Zone(1, "cpu", "66000");
  const SensorSample direct = SensorReader(sys.root()).Read();
  SensorPoller poller(sys.root());
  SensorSample s = poller.Read();
  EXPECT_EQ(s.readings, direct.readings);
  EXPECT_EQ(s.warnings, direct.warnings);
  EXPECT_EQ(s.warnings.size(), 1u);
  s = poller.Read();
  EXPECT_EQ(s.readings, direct.readings);
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_FALSE(poller.Take().has_value());  // Read() took it
}

TEST(SensorPoller, StartSignalsDoneAndTakeGivesTheSampleOnce) {
  FakeSysfs sys("poller_async");
  sys.Battery("BAT0", "80", "Charging");
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  SensorPoller poller(sys.root(), [&] {
    std::lock_guard lock(mu);
    ++done;
    cv.notify_all();
  });
  poller.Start();
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return done == 1; }));
  }
  std::optional<SensorSample> s = poller.Take();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->readings.battery_percent, 80);
  EXPECT_EQ(s->readings.charging, true);
  EXPECT_FALSE(poller.Take().has_value());
}

TEST(SensorReader, NoThermalZonesAndNoSupplies) {
  FakeSysfs sys("empty");
  SensorSample s = SensorReader(sys.root()).Read();
  EXPECT_EQ(s.readings, (SensorReadings{}));
  EXPECT_TRUE(s.warnings.empty());
}

TEST(SensorReader, MissingRootIsReportedNotFatal) {
  SensorReader reader("/nonexistent/sys");
  SensorSample s = reader.Read();
  EXPECT_EQ(s.readings, (SensorReadings{}));
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "sysfs root /nonexistent/sys: not a directory");
  EXPECT_TRUE(reader.Read().warnings.empty());
}

TEST(SensorTimeline, ParsesCommentsBlanksAndUnknowns) {
  Result<SensorTimeline> t = SensorTimeline::Parse(
      "# t battery_percent charging temp_c\n"
      "\n"
      "0\t80 0 45.5   # morning\r\n"
      "  600 19 0 -\n"
      "900 - 1 81.2\n"
      "900 - - -\n",  // the same time again: the later line wins
      "day.txt");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->entries().size(), 4u);
  EXPECT_EQ(t->At(0), (SensorReadings{80, false, 45500}));
  EXPECT_EQ(t->At(599.99), (SensorReadings{80, false, 45500}));
  EXPECT_EQ(t->At(600), (SensorReadings{19, false, std::nullopt}));
  EXPECT_EQ(t->At(1e6), (SensorReadings{}));
}

TEST(SensorTimeline, BeforeTheFirstLineEverythingIsUnknown) {
  Result<SensorTimeline> t = SensorTimeline::Parse("10 50 1 30\n", "x");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->At(9.5), (SensorReadings{}));
  EXPECT_EQ(t->At(10), (SensorReadings{50, true, 30000}));
  EXPECT_EQ(SensorTimeline::Parse("# nothing\n", "x")->At(5), (SensorReadings{}));
}

TEST(SensorTimeline, BadLinesNameFileLineAndCause) {
  auto error = [](const std::string& text) {
    Result<SensorTimeline> t = SensorTimeline::Parse(text, "day.txt");
    return t.ok() ? std::string("ok") : t.error().message;
  };
  EXPECT_EQ(error("# c\n0 50 0\n"),
            "day.txt:2: expected 4 fields (t battery_percent charging temp_c), found 3");
  EXPECT_EQ(error("0 50 0 40 9\n"),
            "day.txt:1: expected 4 fields (t battery_percent charging temp_c), found 5");
  EXPECT_EQ(error("x 50 0 40\n"), "day.txt:1: t 'x' is not a time >= 0 s");
  EXPECT_EQ(error("-1 50 0 40\n"), "day.txt:1: t '-1' is not a time >= 0 s");
  EXPECT_EQ(error("10 50 0 40\n5 50 0 40\n"),
            "day.txt:2: t 5 s is before the previous line's 10 s");
  EXPECT_EQ(error("0 101 0 40\n"),
            "day.txt:1: battery_percent '101' is not an integer in [0, 100] or '-'");
  EXPECT_EQ(error("0 5.5 0 40\n"),
            "day.txt:1: battery_percent '5.5' is not an integer in [0, 100] or '-'");
  EXPECT_EQ(error("0 50 yes 40\n"), "day.txt:1: charging 'yes' is not 0, 1 or '-'");
  EXPECT_EQ(error("0 50 0 hot\n"),
            "day.txt:1: temp_c 'hot' is not a temperature in [-40, 150] C or '-'");
  EXPECT_EQ(error("0 50 0 nan\n"),
            "day.txt:1: temp_c 'nan' is not a temperature in [-40, 150] C or '-'");
  EXPECT_EQ(error("0 50 0 40\n\n\n1 50 0 1e9\n"),
            "day.txt:4: temp_c '1e9' is not a temperature in [-40, 150] C or '-'");
}

TEST(SensorTimeline, LoadsAFileAndNamesAMissingOne) {
  const fs::path path = testing_util::TestTempPath("timeline.txt");
  std::ofstream(path) << "0 90 0 40\n3600 70 0 -\n";
  Result<SensorTimeline> t = SensorTimeline::Load(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->At(4000), (SensorReadings{70, false, std::nullopt}));

  Result<SensorTimeline> missing = SensorTimeline::Load("/nonexistent/day.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "/nonexistent/day.txt: cannot open: No such file or directory");
  std::ofstream(path) << "0 90 0 40\n0 x 0 40\n";
  Result<SensorTimeline> bad = SensorTimeline::Load(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind(path.string() + ":2: battery_percent 'x'", 0), 0u)
      << bad.error().message;
}

}  // namespace
}  // namespace earshot::governor
