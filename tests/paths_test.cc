// config/paths.h: the prefix of an installed program or library, and where the bundled files of
// code run from the build tree are (the source tree's; install_test.sh checks the installed ones).
#include "config/paths.h"

#include <gtest/gtest.h>

#include "config/config.h"

namespace earshot::config {
namespace {

TEST(PrefixOf, ProgramInBin) {
  EXPECT_EQ(PrefixOf("/usr/bin/earshot", "bin"), std::filesystem::path("/usr"));
  EXPECT_EQ(PrefixOf("/stage/opt/earshot/sbin/earshotd", "sbin"),
            std::filesystem::path("/stage/opt/earshot"));
  EXPECT_EQ(PrefixOf("/bin/earshot", "bin/"), std::filesystem::path("/"));
}

TEST(PrefixOf, LibraryInAMultiarchDirectory) {
  EXPECT_EQ(PrefixOf("/usr/lib/x86_64-linux-gnu/libearshot.so.0", "lib/x86_64-linux-gnu"),
            std::filesystem::path("/usr"));
}

TEST(PrefixOf, NotInTheDirectory) {
  EXPECT_EQ(PrefixOf("/home/me/earshot", "bin"), std::nullopt);
  EXPECT_EQ(PrefixOf("/usr/lib/libearshot.so.0", "lib/x86_64-linux-gnu"), std::nullopt);
  EXPECT_EQ(PrefixOf("/usr/bin/earshot", "/usr/bin"), std::nullopt);  // absolute: no prefix
}

TEST(BundledFilePath, TheSourceTreeFromTheBuildTree) {
  EXPECT_EQ(BundledModelPath("vad/vad.eshm"), std::string(EARSHOT_SOURCE_DIR) + "/models/vad/vad.eshm");
  EXPECT_EQ(BundledFilePath("computer_request.flac", "tools/samples/computer_request.flac"),
            std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/computer_request.flac");
}

TEST(ModelPath, TheOptionOrTheBundledModelThatStandsForIt) {
  Config config = Config::Defaults();
  EXPECT_EQ(ModelPath(config, "vad.model"), BundledModelPath("vad/vad.eshm"));
  EXPECT_EQ(ModelPath(config, "stt.command_model"), BundledModelPath("commands/commands.eshm"));
  ASSERT_TRUE(config.Set("vad.model", "my_vad.eshm").ok());
  EXPECT_EQ(ModelPath(config, "vad.model"), "my_vad.eshm");
}

}  // namespace
}  // namespace earshot::config
