#include "config/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "config/options.h"
#include "tests/temp_path.h"

namespace earshot::config {
namespace {

std::filesystem::path WriteTemp(const std::string& name, const std::string& text) {
  std::filesystem::path path = testing_util::TestTempPath(name);
  std::ofstream(path) << text;
  return path;
}

TEST(OptionsTable, EveryDefaultIsValidAndSectionsAreContiguous) {
  std::set<std::string_view> closed;
  std::string_view section;
  for (const OptionSpec& spec : Options()) {
    EXPECT_FALSE(spec.doc.empty()) << spec.name;
    const std::string_view s = spec.name.substr(0, spec.name.find('.'));
    ASSERT_NE(spec.name.find('.'), std::string_view::npos) << spec.name;
    if (!spec.parallel_to.empty()) {  // a list beside another list
      const OptionSpec* list = FindOption(spec.parallel_to);
      ASSERT_NE(list, nullptr) << spec.name;
      EXPECT_TRUE(IsList(spec.type) && IsList(list->type)) << spec.name;
    }
    if (spec.distinct) {
      EXPECT_EQ(spec.type, OptionType::kStringList) << spec.name;
    }
    if (s != section) {
      EXPECT_FALSE(closed.contains(s)) << "section " << s << " split in the table";
      closed.insert(section);
      section = s;
    }
  }
  Config c = Config::Defaults();  // aborts on a default outside its range
  EXPECT_EQ(c.Int("audio.preroll_ms"), 1500);
  EXPECT_TRUE(c.Check().ok());
}

TEST(Config, FileOverridesDefaults) {
  auto path = WriteTemp("ok.toml", "[audio]\npreroll_ms = 900\nresampler_quality = \"medium\"\n");
  Result<Config> c = Config::FromFile(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->Int("audio.preroll_ms"), 900);
  EXPECT_EQ(c->String("audio.resampler_quality"), "medium");
  EXPECT_EQ(c->Int("audio.read_chunk_ms"), 100);
}

TEST(Config, UnknownKeyIsAnErrorNamingFileAndKey) {
  auto path = WriteTemp("unknown.toml", "[audio]\npreroll = 900\n");
  Result<Config> c = Config::FromFile(path);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("unknown.toml"), std::string::npos);
  EXPECT_NE(c.error().message.find("unknown option audio.preroll"), std::string::npos);
}

TEST(Config, OnlyRegularFilesOfShallowKeysAreRead) {
  const std::filesystem::path dir = testing_util::TestTempPath("config_dir");
  std::filesystem::create_directories(dir);
  EXPECT_EQ(Config::FromFile(dir).error().message, dir.string() + ": is a directory, not a config");
  EXPECT_EQ(Config::FromFile("/dev/zero").error().message,
            "/dev/zero: not a regular file (a device or FIFO?)");
  // 50,000 dotted parts overflowed toml++'s stack; options are two parts deep.
  std::string deep = "[audio]\npreroll_ms = 900\n[";
  for (int i = 0; i < 50000; ++i) deep += "a.";
  auto path = WriteTemp("deep.toml", deep + "b]\n");
  EXPECT_NE(Config::FromFile(path).error().message.find("deep.toml:3: a key of more than 9 dotted"),
            std::string::npos);
  // Dots in values are not keys.
  path = WriteTemp("dots.toml", "[stt]\ndictionary = '/a.b.c.d.e.f.g.h.i.j.k.l/x.dict'\n");
  EXPECT_TRUE(Config::FromFile(path).ok());
}

TEST(Config, WrongTypesSayTheTypeOnce) {
  Config c = Config::Defaults();
  EXPECT_EQ(c.Set("daemon.realtime", "yes").error().message,
            "option daemon.realtime = yes: expected boolean");
  EXPECT_EQ(c.SetAssignment("vad.threshold").error().message,
            "vad.threshold: expected SECTION.KEY=VALUE");
}

TEST(Config, OutOfRangeNamesKeyAndRange) {
  auto path = WriteTemp("range.toml", "[audio]\npreroll_ms = 20000\n");
  Result<Config> c = Config::FromFile(path);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("audio.preroll_ms"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("[0, 10000] ms"), std::string::npos) << c.error().message;
}

TEST(Config, WrongTypeAndBadChoiceAreErrors) {
  EXPECT_FALSE(Config::FromFile(WriteTemp("t1.toml", "[audio]\npreroll_ms = \"x\"\n")).ok());
  EXPECT_FALSE(Config::FromFile(WriteTemp("t2.toml", "[audio]\npreroll_ms = 1.5\n")).ok());
  Result<Config> c = Config::FromFile(WriteTemp("t3.toml", "[audio]\nresampler_quality = 'best'\n"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("quick|low|medium|high|very_high"), std::string::npos);
  EXPECT_FALSE(Config::FromFile(WriteTemp("t4.toml", "preroll_ms = 3\n")).ok());
}

TEST(Config, SyntaxErrorGivesLineAndColumn) {
  Result<Config> c = Config::FromFile(WriteTemp("syntax.toml", "[audio]\npreroll_ms = = 3\n"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("syntax.toml:2:"), std::string::npos) << c.error().message;
}

TEST(Config, MissingFileIsAnError) {
  Result<Config> c = Config::FromFile("/nonexistent/earshot.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("/nonexistent/earshot.toml"), std::string::npos);
}

TEST(Config, SetAssignment) {
  Config c = Config::Defaults();
  EXPECT_TRUE(c.SetAssignment("audio.preroll_ms=250").ok());
  EXPECT_EQ(c.Int("audio.preroll_ms"), 250);
  EXPECT_FALSE(c.SetAssignment("audio.preroll_ms").ok());
  EXPECT_FALSE(c.SetAssignment("audio.preroll_ms=-1").ok());
  EXPECT_FALSE(c.SetAssignment("audio.preroll_ms=12abc").ok());
  EXPECT_FALSE(c.SetAssignment("audio.nope=1").ok());
  EXPECT_EQ(c.Int("audio.preroll_ms"), 250);  // failed sets change nothing
}

TEST(Config, PrintedConfigReadsBackUnchanged) {
  Config c = Config::Defaults();
  ASSERT_TRUE(c.SetAssignment("audio.preroll_ms=42").ok());
  ASSERT_TRUE(c.SetAssignment("audio.resampler_quality=very_high").ok());
  auto path = WriteTemp("roundtrip.toml", c.ToToml());
  Result<Config> back = Config::FromFile(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->ToToml(), c.ToToml());
}

TEST(ConfigLists, TextAndTomlForms) {
  Config c = Config::Defaults();
  EXPECT_EQ(c.StringList("kws.models"), std::vector<std::string>{"computer"});
  EXPECT_TRUE(c.FloatList("kws.sensitivities").empty());
  ASSERT_TRUE(c.Set("kws.models", " a.eshm ,/b/c.eshm").ok());  // spaces around entries dropped
  EXPECT_EQ(c.StringList("kws.models"), (std::vector<std::string>{"a.eshm", "/b/c.eshm"}));
  ASSERT_TRUE(c.Set("kws.sensitivities", "0.25, 1").ok());
  EXPECT_EQ(c.FloatList("kws.sensitivities"), (std::vector<double>{0.25, 1.0}));
  ASSERT_TRUE(c.Set("kws.refractory_ms", "500,2000").ok());
  EXPECT_EQ(c.IntList("kws.refractory_ms"), (std::vector<int64_t>{500, 2000}));
  ASSERT_TRUE(c.Set("kws.names", ",x").ok());
  EXPECT_EQ(c.StringList("kws.names"), (std::vector<std::string>{"", "x"}));
  ASSERT_TRUE(c.Set("kws.small_models", "").ok());  // the empty list
  EXPECT_TRUE(c.StringList("kws.small_models").empty());
  EXPECT_TRUE(c.Check().ok());
  const std::string toml = c.ToToml();
  EXPECT_NE(toml.find("\nmodels = ['a.eshm', '/b/c.eshm']\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("\nsensitivities = [0.25, 1.0]\n"), std::string::npos);
  EXPECT_NE(toml.find("\nsmall_models = []\n"), std::string::npos);
  Result<Config> back = Config::FromFile(WriteTemp("lists.toml", toml));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->ToToml(), toml);
}

TEST(ConfigLists, ErrorsNameTheKey) {
  Config c = Config::Defaults();
  EXPECT_EQ(c.Set("kws.sensitivities", "0.5,1.5").error().message,
            "option kws.sensitivities = 1.5 is out of range: expected [0, 1]");
  EXPECT_EQ(c.Set("kws.refractory_ms", "100,x").error().message,
            "option kws.refractory_ms = x: expected integer [0, 10000] ms");
  ASSERT_TRUE(c.Set("kws.names", "a,b").ok());  // checked with the others' lengths, later
  EXPECT_EQ(c.Check().error().message,
            "option kws.names has 2 entries and kws.models 1: give one per kws.models entry, or "
            "none for the defaults");
  ASSERT_TRUE(c.Set("kws.models", "a.eshm,b.eshm,c.eshm").ok());
  ASSERT_TRUE(c.Set("kws.names", "x,,x").ok());
  EXPECT_EQ(c.Check().error().message, "option kws.names names 'x' twice: its entries must differ");
  ASSERT_TRUE(c.Set("kws.names", ",,").ok());  // '' is each one's default, not a name
  EXPECT_TRUE(c.Check().ok());
  const std::vector<std::pair<std::string, std::string>> files = {
      {"[kws]\nmodels = ['a.eshm', 'b.eshm']\nsensitivities = [0.5]\n",
       "lengths.toml: option kws.sensitivities has 1 entry and kws.models 2"},
      {"[kws]\nsensitivities = 0.5\n",
       "scalar.toml: option kws.sensitivities = 0.5: expected a list of numbers in [0, 1]"},
      {"[kws]\nsensitivities = [0.5, 'x']\n", "option kws.sensitivities = 'x': expected number"},
      {"[kws]\nsensitivities = [2]\n", "option kws.sensitivities = 2 is out of range"},
  };
  const char* names[] = {"lengths.toml", "scalar.toml", "element.toml", "range.toml"};
  for (size_t i = 0; i < files.size(); ++i) {
    Result<Config> bad = Config::FromFile(WriteTemp(names[i], files[i].first));
    ASSERT_FALSE(bad.ok()) << files[i].first;
    EXPECT_NE(bad.error().message.find(files[i].second), std::string::npos)
        << bad.error().message;
  }
}

TEST(Config, ShippedDefaultFileMatchesTheTable) {
  std::ifstream in(std::string(EARSHOT_SOURCE_DIR) + "/config/earshot.toml");
  std::string shipped((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(shipped, Config::Defaults().ToToml())
      << "regenerate with: build/tools/earshot run --print-config > config/earshot.toml";
}

}  // namespace
}  // namespace earshot::config
