// The config's keywords (models/kws/keywords.h; options/keywords.h): the specs of kws.models and
// its parallel lists, a sensitivity's threshold, the keywords' names and models at each size; and
// the text rules of a phrase or name (phrase.h).
#include "models/kws/keywords.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "config/paths.h"
#include "models/kws/phrase.h"
#include "options/stage_options.h"
#include "tests/model_writer.h"
#include "tests/trunk_models.h"

namespace earshot::kws {
namespace {

using testing_util::Int32;

TEST(ThresholdQ15, MapsSensitivityAroundTheModelsThreshold) {
  constexpr int32_t t0 = 26214;              // 0.8
  EXPECT_EQ(ThresholdQ15(0.0, t0), 32768);   // never: scores are at most 32767
  EXPECT_EQ(ThresholdQ15(0.25, t0), 29491);  // 32768 - (32768 - 26214) / 2
  EXPECT_EQ(ThresholdQ15(0.5, t0), t0);      // the model's own, exactly
  EXPECT_EQ(ThresholdQ15(0.75, t0), 13107);  // 26214 / 2
  EXPECT_EQ(ThresholdQ15(1.0, t0), 0);       // every hop
  EXPECT_EQ(ThresholdQ15(0.5, 1), 1);
  EXPECT_EQ(ThresholdQ15(0.9, 20000), 4000);
  int32_t before = 32769;
  for (int i = 0; i <= 100; ++i) {  // falls as the sensitivity rises
    const int32_t t = ThresholdQ15(i / 100.0, t0);
    EXPECT_LT(t, before) << i;
    before = t;
  }
}

config::Config Set(const std::map<std::string, std::string>& options) {
  config::Config config = config::Config::Defaults();
  for (const auto& [name, value] : options) EXPECT_TRUE(config.Set(name, value).ok()) << name;
  return config;
}

TEST(KeywordSpecs, TheDefaultIsTheBundledComputer) {
  auto specs = options::BindKeywords(config::Config::Defaults());
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  ASSERT_EQ(specs->size(), 1u);
  const KeywordSpec& computer = specs->front();
  EXPECT_EQ(computer.name, "");
  EXPECT_EQ(computer.path, config::BundledModelPath("kws/computer.eshm"));
  EXPECT_EQ(computer.small_path, config::BundledModelPath("kws/computer_small.eshm"));
  EXPECT_EQ(computer.sensitivity, 0.5);
  EXPECT_EQ(computer.refractory_frames, 100);
}

TEST(KeywordSpecs, TheKeywordsFromTextAreBundledByNameWithOneModelForBothProfiles) {
  auto specs = options::BindKeywords(
      Set({{"kws.models", "snowboy,view glass,computer"}, {"kws.small_models", ",,snowboy"}}));
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  ASSERT_EQ(specs->size(), 3u);
  EXPECT_EQ((*specs)[0].path, config::BundledModelPath("kws/snowboy.eshm"));
  EXPECT_EQ((*specs)[0].small_path, "");  // its model serves both
  EXPECT_EQ((*specs)[1].path, config::BundledModelPath("kws/view_glass.eshm"));
  EXPECT_EQ((*specs)[1].small_path, "");
  // Named as another keyword's small model, a bundled keyword without one gives its model.
  EXPECT_EQ((*specs)[2].small_path, config::BundledModelPath("kws/snowboy.eshm"));
}

TEST(KeywordSpecs, ParallelListsGiveEachKeywordItsOwn) {
  auto specs = options::BindKeywords(Set({{"kws.models", "computer, /m/hey.eshm,/m/x.eshm"},
                                 {"kws.small_models", ",,/m/x_small.eshm"},
                                 {"kws.names", "comp,,"},
                                 {"kws.sensitivities", "0.25,0.5,1"},
                                 {"kws.refractory_ms", "500,1000,2000"}}));
  ASSERT_TRUE(specs.ok()) << specs.error().message;
  ASSERT_EQ(specs->size(), 3u);
  EXPECT_EQ((*specs)[0].name, "comp");
  EXPECT_EQ((*specs)[0].small_path, config::BundledModelPath("kws/computer_small.eshm"));
  EXPECT_EQ((*specs)[1].path, "/m/hey.eshm");
  EXPECT_EQ((*specs)[1].small_path, "");  // its model serves both sizes
  EXPECT_EQ((*specs)[2].small_path, "/m/x_small.eshm");
  EXPECT_EQ((*specs)[2].name, "");
  EXPECT_EQ((*specs)[0].sensitivity, 0.25);
  EXPECT_EQ((*specs)[2].sensitivity, 1.0);
  EXPECT_EQ((*specs)[2].refractory_frames, 200);
}

TEST(KeywordSpecs, ErrorsNameTheOption) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"kws.models", ""}}, "option kws.models is empty"},
      {{{"kws.models", "computer,"}}, "option kws.models: an entry is empty"},
      {{{"kws.models", "computer,/m/a.eshm"}, {"kws.names", "x"}},
       "option kws.names has 1 entry and kws.models 2"},
      {{{"kws.names", "a\tb"}}, "option kws.names: 'a\tb' is no keyword name: a control"},
      {{{"kws.names", "\xff"}}, "is no keyword name: not UTF-8"},
  };
  for (const auto& [options, message] : cases) {
    auto specs = earshot::options::BindKeywords(Set(options));
    ASSERT_FALSE(specs.ok()) << message;
    EXPECT_NE(specs.error().message.find(message), std::string::npos) << specs.error().message;
  }
}

// Loads through a counting loader, as the model library does.
struct CountingLoader {
  std::map<std::string, int> loads;
  Result<std::shared_ptr<const KwsModel>> operator()(const std::string& path) {
    ++loads[path];
    return KwsModel::Load(path, features::FrontEndConfig{});
  }
};

TEST(LoadKeywordSet, NamesAndSizes) {
  std::vector<testing_util::Tensor> snowboy = testing_util::TrunkModelTensors(1, 10);
  snowboy.push_back(Int32("kws_phrase", {'h', 'e', 'y', ' ', 's', 'n', 'o', 'w', 'b', 'o', 'y'}));
  const std::string phrase_path = testing_util::WriteModel("kws-mlp", snowboy, "snowboy.eshm");
  const std::string plain_path = testing_util::WriteModel(
      "kws-mlp", testing_util::TrunkModelTensors(1, 11), "kitchen_light.eshm");
  const std::string small_path = testing_util::WriteModel(
      "kws-mlp", testing_util::TrunkModelTensors(1, 12), "kitchen_small.eshm");
  const std::vector<KeywordSpec> specs = {
      {"", phrase_path, ""}, {"", plain_path, small_path}, {"third", plain_path, ""}};
  CountingLoader loader;
  auto load = [&loader](const std::string& path) { return loader(path); };
  auto large = LoadKeywordSet(specs, false, load);
  ASSERT_TRUE(large.ok()) << large.error().message;
  const std::vector<Keyword>& k = (*large)->keywords();
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].name, "hey snowboy");                                 // its phrase
  EXPECT_EQ(k[1].name, "LoadKeywordSet_NamesAndSizes_kitchen_light");  // its file's stem
  EXPECT_EQ(k[2].name, "third");
  EXPECT_FALSE(k[1].small);
  EXPECT_EQ((*large)->groups().size(), 1u);  // one trunk
  auto small = LoadKeywordSet(specs, true, load);
  ASSERT_TRUE(small.ok()) << small.error().message;
  const std::vector<Keyword>& s = (*small)->keywords();
  EXPECT_EQ(s[0].path, phrase_path);  // no small model: its own serves
  EXPECT_FALSE(s[0].small);
  EXPECT_EQ(s[1].name, k[1].name);  // named by its large model in either size
  EXPECT_EQ(s[1].path, small_path);
  EXPECT_TRUE(s[1].small);
  EXPECT_EQ(loader.loads[small_path], 1);
  auto twice = LoadKeywordSet({{"", plain_path, ""}, {"", plain_path, ""}}, false, load);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("both named"), std::string::npos);
  EXPECT_NE(twice.error().message.find("kws.names"), std::string::npos);
}

TEST(Phrase, TextRules) {
  EXPECT_EQ(PhraseProblem(std::vector<int32_t>{'o', 'k'}), "");
  EXPECT_EQ(PhraseProblem(std::vector<int32_t>{'o', 0x85}), "a control character (U+0085)");
  EXPECT_EQ(PhraseProblem(std::vector<int32_t>{'o', 0x2028}), "a control character (U+2028)");
  EXPECT_EQ(PhraseProblem(std::vector<int32_t>{0x110000}),
            "character 1114112 is no Unicode scalar value");
  const std::vector<int32_t> text = {'a', 0xE9, 0x20AC, 0x1F600};
  const std::string utf8 = EncodeUtf8(text);
  EXPECT_EQ(utf8, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(DecodeUtf8(utf8), text);
  for (const char* bad : {"\x80", "\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF8\x88\x80\x80\x80"}) {
    EXPECT_EQ(DecodeUtf8(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace earshot::kws
