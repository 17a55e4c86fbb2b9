// Drop-in configs (config/config.h): FILE.d/*.toml read after FILE, in name order, checked as a
// whole; errors name the drop-in.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"
#include "tests/temp_path.h"

namespace earshot::config {
namespace {

namespace fs = std::filesystem;

// A fresh directory with earshot.toml holding `text`.
fs::path ConfigWith(const std::string& text) {
  const fs::path dir = testing_util::TestTempPath("etc");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "earshot.toml") << text;
  return dir / "earshot.toml";
}

void DropIn(const fs::path& config, const std::string& name, const std::string& text) {
  fs::create_directories(config.string() + ".d");
  std::ofstream(config.string() + ".d/" + name) << text;
}

TEST(DropIns, ReadAfterTheFileInNameOrder) {
  const fs::path config = ConfigWith("[vad]\nthreshold = 0.3\nsmooth_ms = 100\n");
  DropIn(config, "20-late.toml", "[vad]\nthreshold = 0.7\n");
  DropIn(config, "10-early.toml", "[vad]\nthreshold = 0.6\nhangover_ms = 300\n");
  DropIn(config, "30-ignored.toml.bak", "[vad]\nthreshold = 0.9\n");
  Result<Config> c = Config::FromFile(config);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->Float("vad.threshold"), 0.7);
  EXPECT_EQ(c->Int("vad.hangover_ms"), 300);
  EXPECT_EQ(c->Int("vad.smooth_ms"), 100);  // the file's, where no drop-in says otherwise
}

TEST(DropIns, NoDirectoryIsTheFileAlone) {
  Result<Config> c = Config::FromFile(ConfigWith("[vad]\nthreshold = 0.3\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->Float("vad.threshold"), 0.3);
}

TEST(DropIns, CheckedAsAWhole) {
  // A list in the file, its parallel list in a drop-in: only together are they consistent.
  const fs::path config = ConfigWith("[kws]\nmodels = ['computer']\nnames = ['hey']\n");
  DropIn(config, "sens.toml", "[kws]\nsensitivities = [0.4]\n");
  Result<Config> c = Config::FromFile(config);
  ASSERT_TRUE(c.ok()) << c.error().message;
  DropIn(config, "wrong.toml", "[kws]\nsensitivities = [0.4, 0.6]\n");
  c = Config::FromFile(config);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("sensitivities"), std::string::npos) << c.error().message;
}

TEST(DropIns, ErrorsNameTheDropIn) {
  const fs::path config = ConfigWith("");
  DropIn(config, "bad.toml", "[vad]\nthreshhold = 0.5\n");
  Result<Config> c = Config::FromFile(config);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, config.string() + ".d/bad.toml: unknown option vad.threshhold");
}

TEST(DropIns, ADotDThatIsAFileIsAnError) {
  const fs::path config = ConfigWith("");
  std::ofstream(config.string() + ".d") << "not a directory";
  Result<Config> c = Config::FromFile(config);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find(config.string() + ".d: not a directory"), std::string::npos)
      << c.error().message;
}

TEST(DropIns, ADirectoryNamedLikeADropInIsAnError) {
  const fs::path config = ConfigWith("");
  fs::create_directories(config.string() + ".d/sub.toml");
  Result<Config> c = Config::FromFile(config);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("sub.toml"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace earshot::config
