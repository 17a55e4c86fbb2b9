// Command sets (stt.commands) on real recordings: their sentences recognised with intents and
// slots, everything else rejected, the open transcript when asked for, and the sets' errors.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "base/cancel.h"
#include "models/pocketsphinx/pocketsphinx_backend.h"
#include "models/stt/stt.h"
#include "tests/read_samples.h"
#include "tests/stt_util.h"
#include "tests/temp_path.h"

namespace earshot::stt {
namespace {

using namespace test_util;  // NOLINT(build/namespaces): the STT tests' helpers

// The ten command words as one set (tools/eval/command_reject.py reads the same file).
const std::string kTen = kSource + "/tools/samples/commands/ten.commands";

// Command sets on real recordings: three read-speech utterances said by a set's templates give
// their intents and slots; the other utterances, and the words of another set, are rejected.
TEST(CommandSets, RecognisesTheirSentencesAndRejectsTheRest) {
  const std::string dir = kData + "/stt";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no shared data at " << kData;
  auto model = LoadWith("stt.commands", kSource + "/tests/data/questions.commands");
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto heard = [&](const std::string& path) {
    return Decode(**model, testing_util::ReadSamples(path));
  };
  SttResult r = heard(dir + "/6930-81414-0005.flac");  // "what was that"
  ASSERT_TRUE(r.command) << r.text;
  EXPECT_FALSE(r.rejected);
  EXPECT_EQ(r.command->set, "questions");
  EXPECT_EQ(r.command->intent, "what");
  EXPECT_EQ(r.command->slots,
            (std::map<std::string, std::string>{{"tense", "was"}, {"thing", "that"}}));
  r = heard(dir + "/4507-16021-0004.flac");  // "what is slang"
  ASSERT_TRUE(r.command) << r.text;
  EXPECT_EQ(r.command->slots.at("thing"), "slang");
  r = heard(dir + "/908-31957-0000.flac");  // "all is said without a word"
  ASSERT_TRUE(r.command) << r.text;
  EXPECT_EQ(r.command->intent, "said");
  for (const std::string& other :
       {dir + "/6930-75918-0012.flac", dir + "/5142-33396-0000.flac", dir + "/121-121726-0000.flac",
        kData + "/kws/dev/yes/56eb74ae_nohash_4.flac"}) {
    r = heard(other);
    EXPECT_TRUE(r.rejected) << other << ": " << r.text;
    EXPECT_FALSE(r.command) << other;
    EXPECT_EQ(r.text, "") << other;
  }
}

// The decoder and its phone loop alone (no classifier), on Speech Commands and read speech: a short
// command is no longer taken by a loop of one or two phones ("up" heard as "ah" when the loop was
// written "( ... )+"), and a command word followed by speech that pocketsphinx calls silence ("up
// and down the water we went ...": "down") is rejected for its voice beside the word, which the
// check alone rejects (command_garbage_ms = 10000 lets it through).
TEST(CommandSets, AShortCommandBeatsTheLoopAndVoiceBesideAWordRejects) {
  const std::string read = kData + "/stt/5142-33396-0021.flac";
  if (!std::filesystem::exists(read)) GTEST_SKIP() << "no shared data at " << kData;
  auto model = LoadWithAll({{"stt.commands", kTen}, {"stt.command_model", "none"}});
  ASSERT_TRUE(model.ok()) << model.error().message;
  for (const char* clip : {"e4be0cf6_nohash_1", "f428ca69_nohash_1"}) {
    const std::string path = kData + "/kws/train/up/" + clip + ".flac";
    const SttResult r = Decode(**model, testing_util::ReadSamples(path));
    ASSERT_TRUE(r.command) << path;
    EXPECT_EQ(r.command->slots.at("word"), "up") << path;
  }
  EXPECT_TRUE(Decode(**model, testing_util::ReadSamples(read)).rejected);
  auto unchecked = LoadWithAll({{"stt.commands", kTen}, {"stt.command_model", "none"}},
                               [](SttConfig& c) { c.command_garbage_ms = 10000; });
  ASSERT_TRUE(unchecked.ok()) << unchecked.error().message;
  const SttResult r = Decode(**unchecked, testing_util::ReadSamples(read));
  ASSERT_TRUE(r.command) << r.text;
  EXPECT_EQ(r.command->slots.at("word"), "down");
}

// Sets of one-word sentences, those words alone (PocketsphinxModel::WordsAlone), on the command
// decoder's own pocketsphinx decoder: a forced choice among them where the phone loop rejects the
// clip, and the command search is selected again for the next command session. Through the
// classifier's rescue (command_fusion.h): that kws/train "off" (the classifier 0.59 sure, under the
// rescue's 0.6) is a command because the words alone hear "off" too.
TEST(CommandSets, TheOneWordCommandsAloneAreASecondOpinion) {
  const std::string clip = kData + "/kws/train/off/51055bda_nohash_4.flac";
  if (!std::filesystem::exists(clip)) GTEST_SKIP() << "no shared data at " << kData;
  auto config = ConfigWith({{"stt.commands", kTen}, {"stt.command_model", "none"}});
  ASSERT_TRUE(config.ok()) << config.error().message;
  auto decoder = pocketsphinx::PocketsphinxModel::Load(*config);
  ASSERT_TRUE(decoder.ok()) << decoder.error().message;
  const std::shared_ptr<const SttModel> alone = (*decoder)->WordsAlone();
  ASSERT_NE(alone, nullptr);
  const std::vector<int16_t> x = testing_util::ReadSamples(clip);
  EXPECT_TRUE(Decode(**decoder, x).rejected);
  const SttResult forced = Decode(*alone, x);
  EXPECT_FALSE(forced.rejected);
  EXPECT_EQ(forced.text, "off");
  EXPECT_TRUE(Decode(**decoder, x).rejected);  // the loop is back
  const std::vector<int16_t> up =
      testing_util::ReadSamples(kData + "/kws/train/up/e4be0cf6_nohash_1.flac");
  EXPECT_EQ(Decode(**decoder, up).text, "up");
  // Sets with sentences of more words have none.
  auto questions_config =
      ConfigWith({{"stt.commands", kSource + "/tests/data/questions.commands"}});
  ASSERT_TRUE(questions_config.ok()) << questions_config.error().message;
  auto questions = pocketsphinx::PocketsphinxModel::Load(*questions_config);
  ASSERT_TRUE(questions.ok()) << questions.error().message;
  EXPECT_EQ((*questions)->WordsAlone(), nullptr);
  // The whole model: the classifier's rescue with the words' agreement.
  auto model = LoadWith("stt.commands", kTen);
  ASSERT_TRUE(model.ok()) << model.error().message;
  const SttResult rescued = Decode(**model, x);
  ASSERT_TRUE(rescued.command) << rescued.text;
  EXPECT_EQ(rescued.command->slots.at("word"), "off");
  auto alone_off =
      LoadWithAll({{"stt.commands", kTen}}, [](SttConfig& c) { c.command_rescue = 1; });
  ASSERT_TRUE(alone_off.ok()) << alone_off.error().message;
  EXPECT_TRUE(Decode(**alone_off, x).rejected);
}

TEST(CommandSets, AWordOutsideTheDictionaryGetsEspeakNgsPronunciation) {
  // The set is named after its file: a folder of the test's own, the file's name short (a set's
  // name is at most 64 bytes).
  const std::string dir = testing_util::TestTempPath("sets");
  std::filesystem::create_directories(dir);
  const std::string set = dir + "/call.commands";
  std::ofstream(set) << "intent call\n  call earshot\n";
  auto model = LoadWith("stt.commands", set);
  ASSERT_TRUE(model.ok()) << model.error().message;
}

TEST(CommandSets, ErrorsNameTheFileAndLine) {
  const std::string set = testing_util::TestTempPath("bad.commands");
  std::ofstream(set) << "intent call\n  call (me | you\n";
  auto model = LoadWith("stt.commands", set);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find(set + ":2: '(' without ')'"), std::string::npos)
      << model.error().message;
  auto exclusive = LoadWithAll(
      {{"stt.commands", kSource + "/tests/data/questions.commands"}, {"stt.words", "yes|no"}});
  ASSERT_FALSE(exclusive.ok());
  EXPECT_NE(exclusive.error().message.find("exclusive"), std::string::npos);
}

// stt.command_open_transcript: a command is still a command; what no set says gets the words the
// language model's decoder alone gives the same recording, and is still rejected as a command.
TEST(CommandSets, TheOpenTranscriptOfWhatNoSetSays) {
  const std::string other = kData + "/stt/121-121726-0000.flac";
  if (!std::filesystem::exists(other)) GTEST_SKIP() << "no shared data at " << kData;
  auto model = LoadWithAll({{"stt.commands", kSource + "/tests/data/questions.commands"},
                            {"stt.command_open_transcript", "true"}});
  ASSERT_TRUE(model.ok()) << model.error().message;
  SttResult r = Decode(**model, testing_util::ReadSamples(kData + "/stt/6930-81414-0005.flac"));
  ASSERT_TRUE(r.command) << r.text;
  EXPECT_EQ(r.text, "what was that");
  auto open = LoadWithAll({});
  ASSERT_TRUE(open.ok()) << open.error().message;
  const SttResult alone = Decode(**open, testing_util::ReadSamples(other));
  ASSERT_NE(alone.text, "");
  r = Decode(**model, testing_util::ReadSamples(other));
  EXPECT_TRUE(r.rejected);
  EXPECT_FALSE(r.command);
  EXPECT_EQ(r.text, alone.text);
  EXPECT_EQ(r.words.size(), alone.words.size());
}

// A set of 200 intents of four words each, written to the test's own folder.
std::string LargeSetFile() {
  const std::string dir = testing_util::TestTempPath("sets");
  std::filesystem::create_directories(dir);
  const std::string set = dir + "/large.commands";
  std::ofstream out(set);
  for (int i = 0; i < 200; ++i) {
    out << "intent i" << i << "\n  (turn | switch) (on | off) [the] (lamp | fan) number " << i % 10
        << "\n";
  }
  return set;
}

// Compiling a set again and again holds no more memory than compiling it once: Debian's
// pocketsphinx kept every grammar it parsed (0.7 MB a compile of this set), which a daemon whose
// clients register sets all day cannot afford (AddJsgfSearch frees it). malloc's count of the
// bytes allocated, which the sanitizers' allocator does not keep.
TEST(CommandSets, CompilesGiveBackTheirMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator: mallinfo2 does not count its blocks";
#endif
  const std::string set = LargeSetFile();
  ASSERT_TRUE(LoadWith("stt.commands", set).ok());  // pocketsphinx's first-use state
  const size_t before = mallinfo2().uordblks;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(LoadWith("stt.commands", set).ok());
  const auto grown = static_cast<int64_t>(mallinfo2().uordblks) - static_cast<int64_t>(before);
  std::printf("10 compiles of a 200-intent set kept %lld bytes\n", static_cast<long long>(grown));
  EXPECT_LT(grown, 512 * 1024);
}

// A compile cancelled ends with kCancelledMessage (one cancelled while it runs:
// daemon_limits_test); the same set compiles when its flag is not raised.
TEST(CommandSets, ACancelledCompileEndsWithCancelled) {
  auto config = ConfigWith({{"stt.commands", LargeSetFile()}});
  ASSERT_TRUE(config.ok()) << config.error().message;
  CancelFlag cancel;
  cancel.Raise();
  auto model = stt_factory::LoadModel(*config, &cancel);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().message, kCancelledMessage);
  const CancelFlag never;
  EXPECT_TRUE(stt_factory::LoadModel(*config, &never).ok());
}

}  // namespace
}  // namespace earshot::stt
