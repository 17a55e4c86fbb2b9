// Speech-to-text: the pocketsphinx backend on real speech, its file checks, the command classifier.
#include "models/stt/stt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>

#include "config/config.h"
#include "models/commands/command_model.h"
#include "models/pocketsphinx/acoustic_model_check.h"
#include "models/pocketsphinx/jsgf_check.h"
#include "models/pocketsphinx/language_model_check.h"
#include "models/pocketsphinx/sphinx_cepstra.h"
#include "models/stt_factory/load_model.h"
#include "options/stage_options.h"
#include "tests/emulation.h"
#include "tests/read_samples.h"
#include "tests/stt_util.h"
#include "tests/temp_path.h"

namespace earshot::stt {
namespace {

using namespace test_util;  // NOLINT(build/namespaces): the STT tests' helpers

int WordErrors(const std::string& ref, const std::string& hyp) {  // Levenshtein over words
  std::istringstream rs(ref), hs(hyp);
  std::vector<std::string> r{std::istream_iterator<std::string>(rs), {}};
  std::vector<std::string> h{std::istream_iterator<std::string>(hs), {}};
  std::vector<int> prev(h.size() + 1), cur(h.size() + 1);
  for (size_t j = 0; j <= h.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= r.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= h.size(); ++j) {
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r[i - 1] == h[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[h.size()];
}

const std::string kCommands = "yes|no|up|down|left|right|on|off|stop|go";

TEST(Pocketsphinx, TranscribesReadSpeechWithTimingsAndConfidence) {
  const std::string path = kData + "/stt/121-121726-0000.flac";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data at " << kData;
  auto config = options::BindStt(config::Config::Defaults());
  ASSERT_TRUE(config.ok());
  auto model = stt_factory::LoadModel(*config);
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto x = testing_util::ReadSamples(path);
  const std::string ref =
      "also a popular contrivance whereby love making may be suspended but not stopped during the "
      "picnic season";
  // Twice with the same model: sessions reuse the loaded decoder, with the same result.
  std::string first_text;
  for (int round = 0; round < 2; ++round) {
    std::string partial;
    const SttResult r = Decode(**model, x, &partial);
    EXPECT_FALSE(partial.empty()) << "a partial hypothesis half-way through";
    if (round == 0) first_text = r.text;
    EXPECT_EQ(r.text, first_text);
    const int errors = WordErrors(ref, r.text);
    EXPECT_LE(errors, 6) << r.text;  // 16 words; pocketsphinx en-us is far from perfect
    EXPECT_GT(r.confidence, 0.0);
    EXPECT_LE(r.confidence, 1.0);
    ASSERT_FALSE(r.words.empty());
    for (size_t i = 1; i < r.words.size(); ++i)
      EXPECT_GE(r.words[i].start, r.words[i - 1].end - 1e-9);
    EXPECT_LE(r.words.back().end, static_cast<double>(x.size()) / 16000 + 0.02);
  }
}

SttResult DecodeIn(SttSession& session, const std::vector<int16_t>& x) {
  EXPECT_TRUE(session.Begin().ok());
  for (size_t i = 0; i + 160 <= x.size(); i += 160) {
    EXPECT_TRUE(session.Feed(std::span<const int16_t>(x).subspan(i, 160)).ok());
  }
  Result<SttResult> r = session.End();
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : SttResult{};
}

TEST(Pocketsphinx, ASessionCarriesItsStreamsCepstralMean) {
  const std::string path = kData + "/stt/121-121726-0000.flac";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data at " << kData;
  if (testing_util::UnderEmulation()) {
    GTEST_SKIP() << "under qemu-user its four decodes take 190 s (pocketsphinx's float scoring in "
                    "software floating point); the sessions' bookkeeping it checks is the same C++ "
                    "on every architecture: the x86 suite runs it, and the one above decodes here";
  }
  auto model = stt_factory::LoadModel(*options::BindStt(config::Config::Defaults()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto x = testing_util::ReadSamples(path);
  // Two streams, their utterances interleaved. In each, the second utterance starts from the mean
  // the first left (this speaker's, not the model's -cmninit), so it decodes differently; neither
  // stream sees the other's history.
  auto stream = (*model)->NewSession();
  auto other = (*model)->NewSession();
  const SttResult first = DecodeIn(*stream, x);
  const SttResult other_first = DecodeIn(*other, x);
  const SttResult second = DecodeIn(*stream, x);
  const SttResult other_second = DecodeIn(*other, x);
  EXPECT_TRUE(second.text != first.text || second.confidence != first.confidence);
  EXPECT_EQ(other_first.text, first.text);
  EXPECT_EQ(other_first.confidence, first.confidence);
  EXPECT_EQ(other_second.text, second.text);
  EXPECT_EQ(other_second.confidence, second.confidence);
}

TEST(Pocketsphinx, CommandWordsAsAGrammar) {
  const std::string dir = kData + "/kws/dev/yes";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no shared data at " << kData;
  // The decoder's grammar alone (the classifier joined to it: CommandFusion below).
  auto model = LoadWithAll({{"stt.words", kCommands}, {"stt.command_model", "none"}});
  ASSERT_TRUE(model.ok()) << model.error().message;
  int right = 0, total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::vector<int16_t> x = testing_util::ReadSamples(entry.path().string());
    std::string partial = "unset";
    const SttResult r = Decode(**model, x, &partial);
    right += r.text == "yes";
    ++total;
    // A grammar decodes the utterance whole at End: nothing before it.
    EXPECT_EQ(partial, "");
    ASSERT_EQ(r.words.size(), 1u) << r.text;
    EXPECT_EQ(r.words[0].word, r.text);
    EXPECT_GT(r.words[0].end, r.words[0].start);
    EXPECT_LE(r.words[0].end, static_cast<double>(x.size()) / 16000 + 0.02);
    EXPECT_GT(r.confidence, 0.0);
    EXPECT_LE(r.confidence, 1.0);
  }
  EXPECT_EQ(right, total);
}

// The bundled command classifier joins stt.words when they are its words, in any order: at a bonus
// of 1000 the decoder's word stands, at 0 the classifier chooses among the words (when the decoder
// heard one); named for other words, it is an error. Clips of other words (bed, bird, ...) are
// among them, where the grammar makes the decoder name a command word: there the two disagree
// whatever the classifier's accuracy on its own words.
TEST(CommandFusion, JoinsTheDecoderOnItsWords) {
  const std::string dir = kData + "/kws/dev";
  if (!std::filesystem::exists(dir + "/up")) GTEST_SKIP() << "no shared data at " << kData;
  const std::string reversed = "go|stop|off|on|right|left|down|up|no|yes";
  auto alone = LoadWithAll({{"stt.words", reversed}, {"stt.command_model", "none"}});
  auto decoder =
      LoadWithAll({{"stt.words", reversed}}, [](SttConfig& c) { c.command_bonus = 1000; });
  auto classifier =
      LoadWithAll({{"stt.words", reversed}}, [](SttConfig& c) { c.command_bonus = 0; });
  for (const auto* m : {&alone, &decoder, &classifier}) ASSERT_TRUE(m->ok()) << m->error().message;
  const std::string models = std::string(EARSHOT_SOURCE_DIR) + "/models/";
  auto commands = commands::CommandModel::Load(models + "commands/commands.eshm",
                                               models + "embedding/speech_embedding.eshm");
  ASSERT_TRUE(commands.ok()) << commands.error().message;
  int differ = 0;
  for (const char* word : {"yes", "up", "down", "left", "right", "on", "off", "go", "bed", "bird",
                           "cat", "dog", "wow"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/" + word)) {
      const std::vector<int16_t> x = testing_util::ReadSamples(entry.path().string());
      const SttResult a = Decode(**alone, x);
      EXPECT_EQ(Decode(**decoder, x).text, a.text);
      const SttResult c = Decode(**classifier, x);
      if (a.text.empty()) {
        EXPECT_EQ(c.text, "");
        continue;
      }
      const std::vector<float> lp = (*commands)->LogProbs(x);
      const auto best = static_cast<size_t>(std::max_element(lp.begin(), lp.end()) - lp.begin());
      if (best >= (*commands)->words().size()) {  // another word it knows: rejected
        EXPECT_EQ(c.text, "") << entry.path();
        EXPECT_TRUE(c.rejected) << entry.path();
        differ += 1;
        continue;
      }
      EXPECT_EQ(c.text, (*commands)->words()[best]) << entry.path();
      ASSERT_EQ(c.words.size(), 1u);
      EXPECT_EQ(c.words[0].word, c.text);
      EXPECT_NEAR(c.confidence, std::exp(lp[best]), 1e-4);
      differ += c.text != a.text;
    }
  }
  EXPECT_GT(differ, 0) << "the classifier alone never disagreed with the decoder";

  // Not its words: the decoder alone, as with stt.command_model = none (the same confidence).
  auto other = LoadWithAll({{"stt.words", "yes|no"}});
  auto other_alone = LoadWithAll({{"stt.words", "yes|no"}, {"stt.command_model", "none"}});
  ASSERT_TRUE(other.ok()) << other.error().message;
  ASSERT_TRUE(other_alone.ok()) << other_alone.error().message;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/yes")) {
    const std::vector<int16_t> x = testing_util::ReadSamples(entry.path().string());
    const SttResult r = Decode(**other, x), want = Decode(**other_alone, x);
    EXPECT_EQ(r.text, want.text);
    EXPECT_EQ(r.confidence, want.confidence);
  }
  const std::string bundled = std::string(EARSHOT_SOURCE_DIR) + "/models/commands/commands.eshm";
  other = LoadWithAll({{"stt.words", "yes|no"}, {"stt.command_model", bundled}});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("are not the decoder's (yes|no)"), std::string::npos)
      << other.error().message;
  other = LoadWithAll({{"stt.command_model", bundled}});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("needs its command words"), std::string::npos);
  other = LoadWithAll({{"stt.words", kCommands}, {"stt.command_model", "/nonexistent.eshm"}});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("/nonexistent.eshm"), std::string::npos);
}

// Words said apart join the classifier to command sets whose every word it knows; a named
// classifier that does not know a word of the sets is an error naming the word.
TEST(CommandSequence, JoinsSetsOfWordsItKnows) {
  const std::string samples = std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/commands/";
  const std::string bundled = std::string(EARSHOT_SOURCE_DIR) + "/models/commands/commands.eshm";
  auto digits = LoadWithAll({{"stt.commands", samples + "digits.commands"}});
  EXPECT_TRUE(digits.ok()) << digits.error().message;
  auto lights = LoadWithAll({{"stt.commands", samples + "lights.commands"}});
  EXPECT_TRUE(lights.ok()) << lights.error().message;  // the decoder alone
  lights =
      LoadWithAll({{"stt.commands", samples + "lights.commands"}, {"stt.command_model", bundled}});
  ASSERT_FALSE(lights.ok());
  EXPECT_NE(lights.error().message.find("does not know the word"), std::string::npos)
      << lights.error().message;
}

// Goldens of what the classifier changes, one of each kind, on clips of speakers it never trained
// on: a command the decoder's set rejects and the classifier rescues, a word it knows as another
// word rejected where the decoder heard a command, and digits said apart that the decoder alone
// rejects.
TEST(CommandFusion, GoldensOfEachKind) {
  const std::string dev = kData + "/kws/dev/";
  const std::string fsdd = kData + "/kws_aux/fsdd/dev/";
  if (!std::filesystem::exists(dev + "down") || !std::filesystem::exists(fsdd + "five")) {
    GTEST_SKIP() << "no shared data at " << kData;
  }
  if (testing_util::UnderEmulation()) {
    GTEST_SKIP() << "goldens of pocketsphinx's float decisions are held to the architecture they "
                    "were recorded on (x86-64); the classifier's integers are checked bit-exact "
                    "on every architecture (command_model_test)";
  }
  const std::string samples = std::string(EARSHOT_SOURCE_DIR) + "/tools/samples/commands/";
  auto ten = LoadWithAll({{"stt.commands", samples + "ten.commands"}});
  auto ten_alone =
      LoadWithAll({{"stt.commands", samples + "ten.commands"}, {"stt.command_model", "none"}});
  auto digits = LoadWithAll({{"stt.commands", samples + "digits.commands"}});
  auto digits_alone = LoadWithAll({{"stt.commands", samples + "digits.commands"}},
                                  [](SttConfig& c) { c.command_apart = 1; });
  for (const auto* m : {&ten, &ten_alone, &digits, &digits_alone}) {
    ASSERT_TRUE(m->ok()) << m->error().message;
  }
  const struct {
    const char* clip;
    const char* fused;  // "" rejected
    const char* alone;
  } cases[] = {
      {"down/a19a0225_nohash_0.flac", "down", ""},  // rescued
      {"on/437455be_nohash_0.flac", "on", ""},
      {"nine/3a53b856_nohash_0.flac", "", "no"},  // another word it knows
      {"one/3291330e_nohash_2.flac", "", "on"},
  };
  for (const auto& c : cases) {
    const std::vector<int16_t> x = testing_util::ReadSamples(dev + c.clip);
    const SttResult fused = Decode(**ten, x), alone = Decode(**ten_alone, x);
    EXPECT_EQ(fused.text, c.fused) << c.clip;
    EXPECT_EQ(fused.rejected, std::string(c.fused).empty()) << c.clip;
    EXPECT_EQ(alone.text, c.alone) << c.clip;
  }
  // "five eight": two of FSDD dev's clips 0.3 s apart.
  std::vector<int16_t> x = testing_util::ReadSamples(fsdd + "five/nicolas_1.flac");
  x.resize(x.size() + 4800, 0);
  const std::vector<int16_t> eight = testing_util::ReadSamples(fsdd + "eight/nicolas_2.flac");
  x.insert(x.end(), eight.begin(), eight.end());
  EXPECT_EQ(Decode(**digits, x).text, "five eight");
  EXPECT_TRUE(Decode(**digits_alone, x).rejected);
}

// A JSGF file that only says one of the ten words is the same vocabulary as stt.words: the
// classifier joins it, and the results are those of stt.words. A grammar of other shape decodes
// alone.
TEST(CommandFusion, JoinsAGrammarOfItsWords) {
  const std::string dir = kData + "/kws/dev";
  if (!std::filesystem::exists(dir + "/up")) GTEST_SKIP() << "no shared data at " << kData;
  const std::string words_grammar = testing_util::TestTempPath("commands.gram");
  std::ofstream(words_grammar) << "#JSGF V1.0;\n// the ten words\ngrammar commands;\n"
                                  "public <command> = ( go | stop | off | on | right | left |\n"
                                  "  down | up | no | yes );\n";
  const std::string sequence_grammar = testing_util::TestTempPath("sequence.gram");
  std::ofstream(sequence_grammar) << "#JSGF V1.0;\ngrammar commands;\npublic <command> = <w>;\n"
                                     "<w> = go | stop | off | on | right | left | down | up | no "
                                     "| yes;\n";
  auto words = LoadWithAll({{"stt.words", kCommands}}, [](SttConfig& c) { c.command_bonus = 0; });
  auto grammar =
      LoadWithAll({{"stt.grammar", words_grammar}}, [](SttConfig& c) { c.command_bonus = 0; });
  auto alone = LoadWithAll({{"stt.words", kCommands}, {"stt.command_model", "none"}});
  auto other =
      LoadWithAll({{"stt.grammar", sequence_grammar}}, [](SttConfig& c) { c.command_bonus = 0; });
  for (const auto* m : {&words, &grammar, &alone, &other}) {
    ASSERT_TRUE(m->ok()) << m->error().message;
  }
  int differ = 0;
  // Other words too (bed, bird, ...), where the two disagree whatever the classifier's accuracy.
  for (const char* word :
       {"up", "down", "left", "right", "on", "off", "go", "bed", "bird", "cat"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/" + word)) {
      const std::vector<int16_t> x = testing_util::ReadSamples(entry.path().string());
      const SttResult w = Decode(**words, x), g = Decode(**grammar, x);
      EXPECT_EQ(g.text, w.text) << entry.path();
      EXPECT_EQ(g.confidence, w.confidence) << entry.path();
      const SttResult a = Decode(**alone, x);
      EXPECT_EQ(Decode(**other, x).text, a.text) << entry.path();
      differ += a.text != w.text;
    }
  }
  EXPECT_GT(differ, 0) << "at bonus 0 the classifier never disagreed with the decoder";
}

TEST(JsgfCheck, WordListsOfOneRule) {
  using Words = std::vector<std::string>;
  EXPECT_EQ(pocketsphinx::JsgfWordList("#JSGF V1.0;\ngrammar g;\npublic <c> = yes | no ;\n"),
            Words({"yes", "no"}));
  EXPECT_EQ(pocketsphinx::JsgfWordList("#JSGF V1.0; grammar g; /* c */ public <c> = (up|down);"),
            Words({"up", "down"}));
  EXPECT_EQ(pocketsphinx::JsgfWordList("#JSGF V1.0;\ngrammar g;\npublic <c> = go;\n"),
            Words({"go"}));
  for (const char* other : {
           "#JSGF V1.0;\ngrammar g;\npublic <c> = turn on | off;\n",         // a sequence
           "#JSGF V1.0;\ngrammar g;\npublic <c> = [please] yes | no;\n",     // an optional part
           "#JSGF V1.0;\ngrammar g;\npublic <c> = /2/ yes | /1/ no;\n",      // weights
           "#JSGF V1.0;\ngrammar g;\npublic <c> = yes {y} | no;\n",          // a tag
           "#JSGF V1.0;\ngrammar g;\npublic <c> = <w>;\n<w> = yes | no;\n",  // two rules
           "#JSGF V1.0;\ngrammar g;\n<c> = yes | no;\n",                     // not public
           "#JSGF V1.0;\ngrammar g;\npublic <c> = yes | | no;\n",            // an empty alternative
           "#JSGF V1.0;\ngrammar g;\npublic <c> = yes | no\n",               // not a grammar
       }) {
    EXPECT_EQ(pocketsphinx::JsgfWordList(other), std::nullopt) << other;
  }
}

TEST(Pocketsphinx, GrammarSessionsStartAfresh) {
  const std::string dir = kData + "/kws/dev";
  if (!std::filesystem::exists(dir + "/left")) GTEST_SKIP() << "no shared data at " << kData;
  auto model = LoadWith("stt.words", kCommands);
  ASSERT_TRUE(model.ok()) << model.error().message;
  std::vector<std::vector<int16_t>> clips;
  for (const char* word : {"left", "right", "on"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/" + word)) {
      clips.push_back(testing_util::ReadSamples(entry.path().string()));
      break;
    }
  }
  // One session over several requests (as the cascade uses it), then each clip in a new one:
  // the buffered audio of one request never leaks into the next.
  auto session = (*model)->NewSession();
  std::vector<std::string> reused;
  for (const auto& x : clips) {
    ASSERT_TRUE(session->Begin().ok());
    for (size_t i = 0; i + 160 <= x.size(); i += 160) {
      ASSERT_TRUE(session->Feed(std::span<const int16_t>(x).subspan(i, 160)).ok());
    }
    Result<SttResult> r = session->End();
    ASSERT_TRUE(r.ok());
    reused.push_back(r->text);
  }
  for (size_t i = 0; i < clips.size(); ++i) EXPECT_EQ(Decode(**model, clips[i]).text, reused[i]);
  EXPECT_NE(reused[0], reused[1]);
}

TEST(Pocketsphinx, EarshotsFrontEndDecodesReadSpeech) {
  const std::string path = kData + "/stt/121-121726-0000.flac";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data at " << kData;
  auto model = LoadWithAll({}, [](SttConfig& c) { c.front_end = "earshot"; });
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto x = testing_util::ReadSamples(path);
  const SttResult r = Decode(**model, x);
  EXPECT_LE(WordErrors("also a popular contrivance whereby love making may be suspended but not "
                       "stopped during the picnic season",
                       r.text),
            6)
      << r.text;
  // Fed in pieces that are not whole hops, the cepstra and so the result are the same.
  auto session = (*model)->NewSession();
  ASSERT_TRUE(session->Begin().ok());
  for (size_t i = 0; i < x.size(); i += 100) {
    const size_t n = std::min<size_t>(100, x.size() - i);
    ASSERT_TRUE(session->Feed(std::span<const int16_t>(x).subspan(i, n)).ok());
  }
  Result<SttResult> pieces = session->End();
  ASSERT_TRUE(pieces.ok());
  EXPECT_EQ(pieces->text, r.text);
}

TEST(SphinxCepstra, ReadsTheModelsFeatureParameters) {
  const std::string debian = SttConfig{}.acoustic_model + "/feat.params";
  if (!std::filesystem::exists(debian)) GTEST_SKIP() << "no " << debian;
  auto spec = pocketsphinx::CepstraSpec::FromFeatParams(debian);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  const features::FrontEndConfig& c = spec->front_end;
  EXPECT_EQ(c.mel_bands, 25);
  EXPECT_EQ(c.mel_low_hz, 130);
  EXPECT_EQ(c.mel_high_hz, 6800);
  EXPECT_EQ(c.lifter, 22);
  EXPECT_EQ(c.mfcc_count, 13);
  EXPECT_EQ(c.window_ms, 26);  // -wlen 0.025625 s
  EXPECT_TRUE(c.noise_suppression);
  ASSERT_EQ(spec->offset.size(), 13u);
  // c0 of 0 dB re full scale in every band, in pocketsphinx's units (natural logs of int16 power).
  EXPECT_GT(spec->offset[0], 100.0f);

  auto made = pocketsphinx::SphinxCepstra::Create(*spec);
  ASSERT_TRUE(made.ok());
  std::vector<float> cepstra;
  std::vector<int16_t> tone(250);
  for (size_t i = 0; i < tone.size(); ++i) {
    tone[i] = static_cast<int16_t>(8000 * std::sin(0.3 * static_cast<double>(i)));
  }
  made->Process(tone, cepstra);
  EXPECT_EQ(cepstra.size(), 13u);  // one whole hop; the other 90 samples wait for the next call
  made->Process(std::span<const int16_t>(tone).first(70), cepstra);
  EXPECT_EQ(cepstra.size(), 26u);
}

TEST(SphinxCepstra, BadFeatureParametersAreClearErrors) {
  auto expect_error = [](const std::string& text, const std::string& cause) {
    const std::string path = testing_util::TestTempPath("feat.params");
    std::ofstream(path) << text;
    auto spec = pocketsphinx::CepstraSpec::FromFeatParams(path);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_NE(spec.error().message.find(path), std::string::npos) << spec.error().message;
    EXPECT_NE(spec.error().message.find(cause), std::string::npos) << spec.error().message;
  };
  expect_error("-nfilt 25\n-lifter 22\n", "-transform legacy");  // pocketsphinx's default
  expect_error("-transform dct\n-nfilt twenty\n", "-nfilt 'twenty' is not a number");
  expect_error("-transform dct\n-samprate 8000\n", "sample rate must be 16000 Hz");
  expect_error("-transform dct\n-lowerf\n", "-lowerf has no value");
  expect_error("-transform dct\n-wlen 1e300\n", "window 2000000000 ms must be");
  expect_error("-transform dct\n-wlen 8025\n", "window 8025000 ms must be");
  // What pocketsphinx's own front end crashed on or took without a word (FeatParams).
  expect_error("-transform dct\n-nfilt -5\n", "-nfilt -5: expected a whole number of bands");
  expect_error("-transform dct\n-nfilt 25\n-ncep 0\n", "-ncep 0: expected a whole number");
  expect_error("-transform dct\n-nfilt 25\n-ncep 26\n", "1 to -nfilt (25)");
  expect_error("-transform dct\n-lifter -3\n", "-lifter -3: expected 0 or more");
  expect_error("-transform dct\n-cmninit 41.0,a\n", "-cmninit 41.0,a: expected at most -ncep");
  expect_error("-transform dct\nhello world\n", "'hello' is not a setting");
  EXPECT_NE(pocketsphinx::CepstraSpec::FromFeatParams("/nonexistent/feat.params")
                .error()
                .message.find("/nonexistent/feat.params"),
            std::string::npos);
}

// What pocketsphinx's JSGF lexer places (checked against it: none of these print anything) passes;
// text between statements, which it would copy onto stdout, is an error naming its line.
TEST(JsgfCheck, StatementsPocketsphinxCanPlace) {
  for (const char* good : {
           "#JSGF V1.0;\ngrammar g;\npublic <c> = yes | no ;\n",
           "// first\n#JSGF V1.0 utf-8 en;\n/* c */ grammar g;\nimport <other.x>;\n"
           "public <c> = yes {a;b} | \"n;o\" /* ; */ | <d>;\n<d> = up // to eol\n| down;\n",
           "  #JSGF V1.0; // head\ngrammar g; public<e>=go;",
       }) {
    const Status status = pocketsphinx::CheckJsgfStatements(good);
    EXPECT_TRUE(status.ok()) << good << (status.ok() ? "" : status.error().message);
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "an empty grammar"},
      {"hello\n", "line 1: expected the header '#JSGF V1.0;', found 'hello'"},
      {"x#JSGF V1.0;\n", "line 1: expected the header"},
      {"#JSGF V1.0;\ngrammar g;\n\n<d = up;\n", "line 4: expected a rule"},
      {"#JSGF V1.0;\ngrammar g;\npublic = up;\n", "line 3: expected a rule"},
      {"#JSGF V1.0;\ngrammar g;\npublic <c> = yes; no;\n", "line 3: expected a rule"},
      {"#JSGF V1.0;\ngrammar g;\npublic <c> = yes | no\n", "line 3: statement not ended"},
      {"#JSGF V1.0;\ngrammar g;\npublic <c> = yes; // end", "line 3: a // comment at the end"},
      {"#JSGF V1.0;\ngrammar g;\n/* open\n", "line 3: comment not closed"},
  };
  for (const auto& [text, cause] : bad) {
    const Status status = pocketsphinx::CheckJsgfStatements(text);
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_NE(status.error().message.find(cause), std::string::npos) << status.error().message;
  }
}

// A copy of Debian's en-us model in which `file` is replaced by `edit` of its bytes.
std::string EditedModel(const std::string& name, const std::string& file,
                        const std::function<void(std::string&)>& edit) {
  const std::filesystem::path debian = SttConfig{}.acoustic_model;
  const std::filesystem::path dir = testing_util::TestTempPath(name);
  std::filesystem::remove_all(dir);
  std::filesystem::copy(debian, dir);
  std::ifstream in(dir / file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  edit(bytes);
  std::ofstream(dir / file, std::ios::binary | std::ios::trunc) << bytes;
  return dir;
}

// A cut binary mdef crashed inside libpocketsphinx, a cut sendump decoded garbage; both, and
// indices the library follows unchecked, are errors naming the file before it reads them.
TEST(Pocketsphinx, DamagedAcousticModelsAreClearErrors) {
  if (!std::filesystem::exists(SttConfig{}.acoustic_model + "/sendump")) {
    GTEST_SKIP() << "no Debian en-us model";
  }
  const auto keep = [](double share) {
    return [share](std::string& b) {
      b.resize(static_cast<size_t>(static_cast<double>(b.size()) * share));
    };
  };
  const auto expect = [](const std::string& dir, const std::string& file,
                         const std::string& cause) {
    const Status status = pocketsphinx::CheckAcousticModel(dir);
    ASSERT_FALSE(status.ok()) << file << ": " << cause;
    EXPECT_NE(status.error().message.find(dir + "/" + file + ": " + cause), std::string::npos)
        << status.error().message;
  };
  EXPECT_TRUE(
      pocketsphinx::CheckAcousticModel(EditedModel("am_same", "mdef", [](std::string&) {})).ok());
  for (double share : {0.0, 0.001, 0.5, 0.999}) {
    expect(EditedModel("am_mdef", "mdef", keep(share)), "mdef", share == 0 ? "empty" : "truncated");
    expect(EditedModel("am_sendump", "sendump", keep(share)), "sendump", "truncated");
  }
  // The first CD phone (after the header, its counts, the 42 phone names and the context tree)
  // names a senone sequence past the last one.
  const std::string dir = EditedModel("am_ssid", "mdef", [](std::string& b) {
    int32_t header, n_ciphone, n_cd_tree;
    std::memcpy(&header, b.data() + 8, 4);
    const size_t counts = 12 + static_cast<size_t>(header);
    std::memcpy(&n_ciphone, b.data() + counts, 4);
    std::memcpy(&n_cd_tree, b.data() + counts + 32, 4);
    size_t at = counts + 40;
    for (int32_t i = 0; i < n_ciphone; ++i) at = b.find('\0', at) + 1;
    at = counts + 40 + ((at - counts - 40 + 3) & ~size_t{3});
    const size_t phone =
        at + 8 * static_cast<size_t>(n_cd_tree) + 12 * static_cast<size_t>(n_ciphone);
    const int32_t far = 1 << 30;
    std::memcpy(b.data() + phone, &far, 4);
  });
  expect(dir, "mdef", "corrupt: phone 42");
  auto refused = LoadWith("stt.acoustic_model", dir);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(dir + "/mdef: corrupt"), std::string::npos);
  // A feat.params that crashed pocketsphinx's front end (-ncep 0: a segmentation fault).
  const std::string feat =
      EditedModel("am_feat", "feat.params", [](std::string& b) { b += "-ncep 0\n"; });
  refused = LoadWith("stt.acoustic_model", feat);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(feat + "/feat.params: -ncep 0"), std::string::npos)
      << refused.error().message;
  // Fatal errors inside pocketsphinx, after which it ends the process, fail the load instead (the
  // daemon goes on after a Reload with such a model): a filterbank above the Nyquist frequency,
  // and variance normalisation, which it cannot do live, at the first frame.
  for (const auto& [setting, cause] :
       {std::pair{"-lowerf 9000\n", "Failed to create filterbank, frequency range does not match"},
        std::pair{"-varnorm yes\n", "-varnorm yes: pocketsphinx cannot normalise variance"}}) {
    const std::string fatal =
        EditedModel("am_fatal", "feat.params", [&](std::string& b) { b += setting; });
    refused = LoadWith("stt.acoustic_model", fatal);
    ASSERT_FALSE(refused.ok()) << setting;
    EXPECT_NE(refused.error().message.find(cause), std::string::npos) << refused.error().message;
  }
}

TEST(Pocketsphinx, MissingOrBrokenFilesAreClearErrors) {
  auto model = LoadWith("stt.acoustic_model", "/nonexistent/hmm");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("/nonexistent/hmm"), std::string::npos);

  model = LoadWith("stt.dictionary", "/nonexistent/words.dict");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("/nonexistent/words.dict: dictionary not found"),
            std::string::npos);
  const std::string empty_dict = testing_util::TestTempPath("empty.dict");
  std::ofstream{empty_dict};
  model = LoadWith("stt.dictionary", empty_dict);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find(empty_dict + ": empty dictionary"), std::string::npos);

  const std::string bad_lm = testing_util::TestTempPath("broken.lm");
  std::ofstream(bad_lm) << "this is not a language model\n";
  model = LoadWith("stt.language_model", bad_lm);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find(bad_lm), std::string::npos) << model.error().message;
  // An ARPA file cut short: pocketsphinx's reason (the first of its errors) comes before its
  // failed attempt to read the file as binary.
  const std::string cut_lm = testing_util::TestTempPath("cut.lm");
  std::ofstream(cut_lm) << "\\data\\\nngram 1=4\n\n\\1-grams:\n-0.6 </s>\n";
  model = LoadWith("stt.language_model", cut_lm);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("Unexpected end of ARPA file"), std::string::npos)
      << model.error().message;

  config::Config cfg = config::Config::Defaults();
  ASSERT_TRUE(cfg.Set("stt.grammar", "/x.gram").ok());
  ASSERT_TRUE(cfg.Set("stt.words", "yes|no").ok());
  EXPECT_FALSE(options::BindStt(cfg).ok());

  // A word outside the dictionary is named (it used to be "could not load" without a cause); one
  // JSGF cannot take is refused before its lexer echoes it onto stdout, where the events go.
  model = LoadWith("stt.words", "yes|qwzx");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("stt.words: 'qwzx' is not in the dictionary"),
            std::string::npos)
      << model.error().message;
  for (const std::string words : {"yes;no", "yes||no", "<x>"}) {
    model = LoadWith("stt.words", words);
    ASSERT_FALSE(model.ok()) << words;
    EXPECT_NE(model.error().message.find("is not a word"), std::string::npos)
        << model.error().message;
  }

  // A grammar file: text between its statements (which pocketsphinx's lexer would copy onto
  // stdout, then go on without) and a rule it uses but never defines (which left every transcript
  // empty) are errors naming the file.
  const std::string header = "#JSGF V1.0;\ngrammar g;\n";
  const std::vector<std::pair<std::string, std::string>> grammars = {
      {"public <c> = yes | no ;\n<d = up;\n", "line 4: expected a rule"},
      {"public <c> = yes | no ;\nhello\n", "line 4: expected a rule"},
      {"public <c> = yes | <missing> ;\n", "Undefined rule in RHS: <g.missing>"},
      {"public <c> = yes | no\n", "line 3: statement not ended by ';'"},
  };
  for (const auto& [rules, cause] : grammars) {
    const std::string gram = testing_util::TestTempPath("broken.gram");
    std::ofstream(gram) << header << rules;
    testing::internal::CaptureStdout();
    model = LoadWith("stt.grammar", gram);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "") << rules;
    ASSERT_FALSE(model.ok()) << rules;
    EXPECT_NE(model.error().message.find(gram), std::string::npos) << model.error().message;
    EXPECT_NE(model.error().message.find(cause), std::string::npos) << model.error().message;
  }

  SttConfig unknown = *options::BindStt(config::Config::Defaults());
  unknown.front_end = "htk";
  model = stt_factory::LoadModel(unknown);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("front end 'htk'"), std::string::npos);
}

// Sessions of one model share its decoder: a second session's utterance while the first's is in
// progress is refused (it restarted the decoder under the first), and served once that one ended.
TEST(Pocketsphinx, ASecondSessionsUtteranceWaitsForTheFirst) {
  auto model = stt_factory::LoadModel(*options::BindStt(config::Config::Defaults()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const std::vector<int16_t> silence(1600, 0);
  auto first = (*model)->NewSession();
  auto second = (*model)->NewSession();
  ASSERT_TRUE(first->Begin().ok());
  ASSERT_TRUE(first->Feed(silence).ok());
  Status refused = second->Begin();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("busy with another session's utterance"),
            std::string::npos)
      << refused.error().message;
  EXPECT_FALSE(second->End().ok());  // it holds nothing to end
  EXPECT_TRUE(first->End().ok());
  EXPECT_TRUE(second->Begin().ok());
  EXPECT_TRUE(second->Feed(silence).ok());
  EXPECT_TRUE(second->End().ok());
  // A session dropped in the middle of an utterance gives the decoder back.
  ASSERT_TRUE(first->Begin().ok());
  first.reset();
  EXPECT_TRUE(second->Begin().ok());
  EXPECT_TRUE(second->End().ok());
}

// A binary language model cut short was read past its buffer inside libsphinxbase
// (AddressSanitizer: heap-buffer-overflow in ngram_model_trie_read_bin): now an error naming it.
TEST(Pocketsphinx, ACutBinaryLanguageModelIsAClearError) {
  const std::string lm = options::BindStt(config::Config::Defaults())->language_model;
  std::ifstream in(lm, std::ios::binary);
  const std::vector<uint8_t> whole{std::istreambuf_iterator<char>(in), {}};
  ASSERT_GT(whole.size(), 100000u) << lm;
  EXPECT_TRUE(pocketsphinx::CheckTrieLanguageModel(whole, lm).ok());
  const std::span<const uint8_t> bytes(whole);
  // Cuts after the header, in the counts, the trie, the vocabulary, and one at a word's end (a
  // part of the header is no trie model: pocketsphinx refuses it itself).
  const size_t last_word =
      static_cast<size_t>(std::find(whole.rbegin() + 1, whole.rend(), uint8_t{0}) - whole.rbegin());
  for (size_t keep : {size_t{19}, size_t{20}, size_t{24}, size_t{20000}, whole.size() / 2,
                      whole.size() - 1000, whole.size() - last_word, whole.size() - 1}) {
    Status checked = pocketsphinx::CheckTrieLanguageModel(bytes.first(keep), "x.lm.bin");
    ASSERT_FALSE(checked.ok()) << keep;
    EXPECT_NE(checked.error().message.find("x.lm.bin: not a whole pocketsphinx binary language "
                                           "model"),
              std::string::npos)
        << checked.error().message;
  }
  const std::string cut = testing_util::TestTempPath("cut.lm.bin");
  std::ofstream(cut, std::ios::binary).write(reinterpret_cast<const char*>(whole.data()), 20000);
  auto model = LoadWith("stt.language_model", cut);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find(cut + ": not a whole"), std::string::npos)
      << model.error().message;
}

}  // namespace
}  // namespace earshot::stt
