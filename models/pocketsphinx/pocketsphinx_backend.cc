#include "models/pocketsphinx/pocketsphinx_backend.h"

#include <pocketsphinx.h>
#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/feat.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "base/read_file.h"
#include "models/pocketsphinx/acoustic_model_check.h"
#include "models/pocketsphinx/dictionary_subset.h"
#include "models/pocketsphinx/espeak_pronounce.h"
#include "models/pocketsphinx/feat_params.h"
#include "models/pocketsphinx/jsgf_check.h"
#include "models/pocketsphinx/language_model_check.h"
#include "models/pocketsphinx/pocketsphinx_init.h"
#include "models/stt/command_decoder.h"
#include "models/stt/command_grammar.h"
#include "models/stt/voiced_hops.h"

namespace earshot::pocketsphinx {
namespace {

constexpr double kFrameSeconds = 0.01;  // pocketsphinx's frame rate (-frate 100)

bool Exists(const std::string& path, bool directory) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && (directory ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

// Profiles (see the header): pocketsphinx arguments on top of its defaults.
std::vector<std::string> ProfileArgs(const std::string& profile, bool grammar) {
  // An n-gram search streams: live cepstral mean normalisation (from the model's -cmninit), and no
  // fwdflat second pass, which would redo the whole utterance after its end (measured: 250 ms
  // median latency for 1.3 points of WER). A grammar decodes a short command whole at its end,
  // normalised by its own cepstral mean (-cmn batch): pocketsphinx's live mean hardly leaves
  // -cmninit within a second (it is updated after 800 frames), and the command words of
  // kws/train went from 76.1% to 87.0% right (docs/research/stt.md).
  // pocketsphinx's own voice-activity detector stays off: it drops the frames it calls silence,
  // and word timings then count only the frames it kept, from an offset of its last speech
  // onset (an 8 s request with a pause gave words at 5.0 .. 10.9 s). The cascade's VAD already
  // chose the audio; the grammar's commands score the same without it (docs/research/stt.md).
  std::vector<std::string> args = {"-cmn", grammar ? "batch" : "live", "-fwdflat",
                                   "no",   "-remove_silence",          "no"};
  if (profile == "large") {
    // What runs after the last frame is kept short (docs/research/stt.md): at most 10 word exits
    // per frame shrink the lattice that bestpath rescoring and the confidence walk (a 20 s
    // utterance: ~200 -> ~20 ms of CPU), and a 1-frame phone lookahead leaves fewer frames to
    // search at the end (0 frames measured 1 point better but 30% slower, with more slow ends). The
    // last frames searched at the end (trailing noise, whose denoised frames keep many HMMs in the
    // beam) cost up to 20 ms each: at most 7000 active HMMs per frame halve the slowest ends, WER
    // unchanged.
    args.insert(args.end(), {"-maxwpf", "10", "-pl_window", "1", "-maxhmmpf", "7000"});
  } else if (profile == "small") {
    // Narrower phone and last-phone beams and 2000 HMMs per frame kept it 2x faster than large
    // once large was capped at 7000 HMMs (docs/research/stt.md).
    args.insert(args.end(),
                {"-ds", "2", "-topn", "2", "-maxhmmpf", "2000", "-maxwpf", "5", "-pl_window", "10",
                 "-beam", "1e-40", "-wbeam", "1e-24", "-pbeam", "1e-40", "-lpbeam", "1e-30"});
  }
  return args;
}

// Command sets (measured on kws/train clips, docs/commands.md): the grammar's probabilities
// scaled up (-lw 6) and silence free (-silprob 1, else the phone loop's words take the silence
// around a command, being cheaper), and each word, a command's or the phone loop's, costs
// `word_cost` (natural log, -wip): the phone loop spends one per phone, a command one per word.
std::vector<std::string> CommandSetArgs(double word_cost) {
  char wip[32];
  std::snprintf(wip, sizeof wip, "%.6g", std::exp(-word_cost));
  return {"-lw", "6", "-silprob", "1", "-wip", wip};
}

// stt.words as JSGF alternatives: each a dictionary word, of the characters a JSGF token takes
// (others, such as ';', the grammar's lexer echoes to stdout, where the events go).
Status CheckWords(ps_decoder_t* decoder, const std::string& words, const std::string& dictionary) {
  for (const std::string& word : stt::SplitWords(words)) {
    const auto bad = std::find_if(word.begin(), word.end(), [](unsigned char c) {
      return !std::isalnum(c) && c != '\'' && c != '-' && c != '_' && c != '.';
    });
    if (word.empty() || bad != word.end()) {
      return Error{"stt.words '" + words + "': '" + word +
                   "' is not a word (letters, digits, ' - _ . between the |s)"};
    }
    char* pronunciation = ps_lookup_word(decoder, word.c_str());
    if (pronunciation == nullptr) {
      return Error{"stt.words: '" + word + "' is not in the dictionary " + dictionary};
    }
    ckd_free(pronunciation);
  }
  return OkStatus();
}

// stt.grammar: a regular file of at most 16 MiB whose statements pocketsphinx can place.
Status CheckGrammarFile(const std::string& path) {
  Result<std::string> text = ReadGrammarFile(path);
  if (!text.ok()) return text.error();
  if (Status statements = CheckJsgfStatements(*text); !statements.ok()) {
    return Error{path + ": not a JSGF grammar: " + statements.error().message};
  }
  return OkStatus();
}

// "yes|no|up" -> a JSGF grammar accepting any one of the words.
std::string WordsGrammar(const std::string& words) {
  std::string alternatives;
  for (char c : words) alternatives += c == '|' ? std::string(" | ") : std::string(1, c);
  return "#JSGF V1.0;\ngrammar commands;\npublic <command> = " + alternatives + " ;\n";
}

constexpr const char* kCommandSearch = "commands";
constexpr const char* kWordsAloneSearch = "words_alone";  // one-word sentences, no loop

// The phone loop's words: each a phone of the CMU set (Debian's en-us model) alone; those the
// acoustic model lacks are left out.
constexpr const char* kLoopPhones[] = {"AA", "AE", "AH", "AO", "AW", "AY", "B",  "CH", "D",  "DH",
                                       "EH", "ER", "EY", "F",  "G",  "HH", "IH", "IY", "JH", "K",
                                       "L",  "M",  "N",  "NG", "OW", "OY", "P",  "R",  "S",  "SH",
                                       "T",  "TH", "UH", "UW", "V",  "W",  "Y",  "Z",  "ZH"};

// Every word of the sets in the decoder's dictionary (empty at first, Load): its
// pronunciations from `dictionary`, or where it has none there espeak-ng's
// (espeak_pronounce.h), else the error names the word and where the set uses it.
Status AddMissingWords(ps_decoder_t* decoder, const stt::CommandGrammar& grammar,
                       const std::string& dictionary, const CancelFlag* cancel) {
  const std::map<std::string, std::string> words = grammar.Words();
  std::set<std::string> wanted;
  for (const auto& [word, where] : words) wanted.insert(word);
  Result<std::vector<DictionaryEntry>> entries = ReadDictionaryEntries(dictionary, wanted);
  if (!entries.ok()) return entries.error();
  for (const DictionaryEntry& entry : *entries) {
    if (ps_add_word(decoder, entry.word.c_str(), entry.phones.c_str(), FALSE) < 0) {
      return Error{dictionary + ": '" + entry.word + "' has phones the acoustic model lacks (" +
                   entry.phones + ")"};
    }
  }
  for (const auto& [word, where] : words) {
    if (Cancelled(cancel)) return Error{kCancelledMessage};
    if (char* known = ps_lookup_word(decoder, word.c_str()); known != nullptr) {
      ckd_free(known);
      continue;
    }
    Result<std::string> phones = EspeakPronunciation(word);
    if (!phones.ok()) {
      return Error{where + ": '" + word + "' is not in the dictionary " + dictionary +
                   ", and has no pronunciation from espeak-ng: " + phones.error().message};
    }
    if (ps_add_word(decoder, word.c_str(), phones->c_str(), FALSE) < 0) {
      return Error{where + ": '" + word + "' is not in the dictionary " + dictionary +
                   ", and espeak-ng's pronunciation (" + *phones +
                   ") has phones the acoustic "
                   "model lacks"};
    }
  }
  return OkStatus();
}

// The phone loop's words, added to the dictionary.
std::vector<std::string> AddPhoneWords(ps_decoder_t* decoder) {
  std::vector<std::string> words;
  for (const char* phone : kLoopPhones) {
    std::string word = std::string(stt::kPhoneWordPrefix) + phone;
    for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (ps_add_word(decoder, word.c_str(), phone, FALSE) >= 0) words.push_back(std::move(word));
  }
  (void)TakePocketsphinxErrors();  // a phone the model lacks is logged as an error: it is only left
                                   // out
  return words;
}

// The command sets as one grammar search, beside a loop of any phones (the out-of-grammar path:
// whatever the loop explains better than any command is no command; CommandSetArgs).
Status SetCommandSearch(ps_decoder_t* decoder, const stt::SttConfig& c, const CancelFlag* cancel) {
  const stt::CommandGrammar grammar(c.command_sets);
  if (Status words = AddMissingWords(decoder, grammar, c.dictionary, cancel); !words.ok()) {
    return words;
  }
  const std::vector<std::string> phones = AddPhoneWords(decoder);
  if (phones.empty()) return Error{c.acoustic_model + ": none of the CMU phones (the phone loop)"};
  if (Status added = AddJsgfSearch(decoder, kCommandSearch, grammar.Jsgf(phones), cancel);
      !added.ok()) {
    if (Cancelled(cancel)) return added;  // kCancelledMessage
    return Error{"stt: pocketsphinx refused the command sets' grammar"};
  }
  if (ps_set_search(decoder, kCommandSearch) < 0) {
    return Error{"stt: pocketsphinx could not select the command sets' grammar"};
  }
  return OkStatus();
}

// The sets' sentences as a second search of one word each (PocketsphinxModel::WordsAlone); false
// unless every sentence is one word.
Result<bool> AddWordsAloneSearch(ps_decoder_t* decoder, const stt::SttConfig& c) {
  const std::string words = stt::JoinWords(stt::CommandGrammar(c.command_sets).OneWordSentences());
  if (words.empty()) return false;
  if (!AddJsgfSearch(decoder, kWordsAloneSearch, WordsGrammar(words)).ok()) {
    return Error{"stt: pocketsphinx refused the command sets' one-word grammar"};
  }
  return true;
}

}  // namespace

struct PocketsphinxDecoder {
  explicit PocketsphinxDecoder(ps_decoder_t* d) : decoder(d) {}
  ~PocketsphinxDecoder() { ps_free(decoder); }
  PocketsphinxDecoder(const PocketsphinxDecoder&) = delete;
  PocketsphinxDecoder& operator=(const PocketsphinxDecoder&) = delete;
  ps_decoder_t* const decoder;
  std::atomic<bool> busy{false};  // a session's utterance holds the decoder
};

namespace {

// The model's one decoder, held by one session's utterance at a time (Begin to End): a second
// session's Begin meanwhile is refused, where it used to restart the decoder under the first.
class DecoderLease {
 public:
  explicit DecoderLease(std::shared_ptr<PocketsphinxDecoder> shared) : shared_(std::move(shared)) {}
  ~DecoderLease() { Release(); }
  DecoderLease(const DecoderLease&) = delete;
  DecoderLease& operator=(const DecoderLease&) = delete;
  // True when this session holds the decoder now (it took it, or held it already).
  bool Take() {
    bool free = false;
    if (!held_) held_ = shared_->busy.compare_exchange_strong(free, true);
    return held_;
  }
  void Release() {
    if (held_) shared_->busy.store(false);
    held_ = false;
  }
  bool held() const { return held_; }
  ps_decoder_t* decoder() const { return shared_->decoder; }

 private:
  std::shared_ptr<PocketsphinxDecoder> shared_;  // a session may outlive the model
  bool held_ = false;
};

class PocketsphinxSession final : public stt::SttSession {
 public:
  PocketsphinxSession(std::shared_ptr<PocketsphinxDecoder> decoder, bool whole_utterance,
                      std::optional<CommandLimits> limits, const std::vector<mfcc_t>& initial_cmn,
                      const std::optional<SphinxCepstra>& cepstra, std::string search)
      : lease_(std::move(decoder)),
        decoder_(lease_.decoder()),
        whole_utterance_(whole_utterance),
        command_limits_(limits),
        stream_cmn_(initial_cmn),
        cepstra_(cepstra),
        search_(std::move(search)) {
    if (KeepsSamples()) samples_.reserve(kReservedSamples);
    if (cepstra_) {
      const size_t frames = whole_utterance_ ? kReservedSamples / 160 : 8;
      frames_.reserve(frames * static_cast<size_t>(cepstra_->coefficients()));
      rows_.reserve(frames);
    }
  }

  ~PocketsphinxSession() override {
    if (lease_.held()) ps_end_utt(decoder_);  // dropped mid-utterance: the next one can start
  }

  Status Begin() override {
    if (!lease_.Take()) {
      return Error{
          "stt: the model's decoder is busy with another session's utterance (its "
          "sessions take turns, one utterance at a time)"};
    }
    if (!search_.empty() && ps_set_search(decoder_, search_.c_str()) < 0) {
      lease_.Release();
      return Error{"stt: pocketsphinx could not select the search '" + search_ + "'"};
    }
    samples_.clear();
    frames_.clear();
    if (cepstra_) cepstra_->Reset();
    if (whole_utterance_) return OkStatus();  // decoded at End
    return StartUtterance();
  }

  Status Feed(std::span<const int16_t> samples) override {
    if (KeepsSamples()) samples_.insert(samples_.end(), samples.begin(), samples.end());
    if (cepstra_) {
      cepstra_->Process(samples, frames_);
      if (whole_utterance_) return OkStatus();
      Status decoded = DecodeFrames(false);
      frames_.clear();
      return decoded;
    }
    if (whole_utterance_) return OkStatus();
    if (ps_process_raw(decoder_, samples.data(), samples.size(), FALSE, FALSE) < 0) {
      return Error{"stt: pocketsphinx failed to decode a frame"};
    }
    return OkStatus();
  }

  std::string Partial() override {
    if (whole_utterance_) return "";
    const char* hyp = ps_get_hyp(decoder_, nullptr);
    return hyp != nullptr ? hyp : "";
  }

  Result<stt::SttResult> End() override {
    if (!lease_.Take()) return Error{"stt: End without Begin"};
    struct ReleaseAtEnd {
      DecoderLease& lease;
      ~ReleaseAtEnd() { lease.Release(); }
    } release{lease_};
    if (whole_utterance_) {
      if (Status s = DecodeWhole(); !s.ok()) return s.error();
    }
    if (ps_end_utt(decoder_) < 0) return Error{"stt: pocketsphinx could not end the utterance"};
    if (command_limits_) return WithoutPhoneLoop(Collect(), *command_limits_, samples_);
    // pocketsphinx folded this utterance into the live mean at its end: the stream keeps it.
    feat_t* feat = ps_get_feat(decoder_);
    if (!whole_utterance_ && feat != nullptr && feat->cmn_struct != nullptr &&
        !stream_cmn_.empty()) {
      cmn_live_get(feat->cmn_struct, stream_cmn_.data());
    }
    return Collect();
  }

 private:
  // 10 s of audio, the cascade's default stt.max_utterance_ms: no reallocation while feeding.
  static constexpr size_t kReservedSamples = 10 * 16000;

  // The audio is kept to be decoded whole by pocketsphinx's front end, and for command sets,
  // whose decoded words are checked against the utterance's voice (WithoutPhoneLoop).
  bool KeepsSamples() const { return (whole_utterance_ && !cepstra_) || command_limits_; }

  Status StartUtterance() {
    // A fresh pocketsphinx stream per utterance, so frame numbers (word timings) count from its
    // start. The live cepstral mean is the session's own: the model's -cmninit in a new session,
    // then what this session's previous utterances left. A session is one audio stream (one
    // microphone and room), so its requests start from that stream's channel, and results depend
    // on that stream's history only, never on other sessions of the model.
    if (ps_start_stream(decoder_) < 0) return Error{"stt: pocketsphinx could not start a stream"};
    feat_t* feat = ps_get_feat(decoder_);
    if (feat != nullptr && feat->cmn_struct != nullptr && !stream_cmn_.empty()) {
      cmn_live_set(feat->cmn_struct, stream_cmn_.data());
    }
    if (ps_start_utt(decoder_) < 0) {
      return Error{"stt: pocketsphinx could not start an utterance"};
    }
    return OkStatus();
  }

  // Decodes the utterance kept (samples_ or frames_) in one pass; the utterance stays open.
  Status DecodeWhole() {
    if (Status s = StartUtterance(); !s.ok()) return s;
    // full_utt: the cepstral mean of the whole utterance (-cmn batch) before the search.
    const bool decoded =
        cepstra_ ? DecodeFrames(true).ok()
                 : ps_process_raw(decoder_, samples_.data(), samples_.size(), FALSE, TRUE) >= 0;
    if (!decoded) {
      ps_end_utt(decoder_);
      return Error{"stt: pocketsphinx failed to decode the utterance"};
    }
    return OkStatus();
  }

  // Decodes the cepstra in frames_ (earshot's front end).
  Status DecodeFrames(bool full_utt) {
    const size_t width = static_cast<size_t>(cepstra_->coefficients());
    rows_.clear();
    for (size_t i = 0; i < frames_.size(); i += width) rows_.push_back(&frames_[i]);
    if (rows_.empty()) return OkStatus();
    if (ps_process_cep(decoder_, rows_.data(), static_cast<int>(rows_.size()), FALSE,
                       full_utt ? TRUE : FALSE) < 0) {
      return Error{"stt: pocketsphinx failed to decode a frame"};
    }
    return OkStatus();
  }

  stt::SttResult Collect() const {
    stt::SttResult result;
    int32 score = 0;
    const char* hyp = ps_get_hyp(decoder_, &score);
    result.text = hyp != nullptr ? hyp : "";
    result.confidence = logmath_exp(ps_get_logmath(decoder_), ps_get_prob(decoder_));
    for (ps_seg_t* seg = ps_seg_iter(decoder_); seg != nullptr; seg = ps_seg_next(seg)) {
      const std::string word = ps_seg_word(seg);
      if (word.empty() || word[0] == '<' || word[0] == '[' || word == "(NULL)") continue;
      int start = 0, end = 0;
      ps_seg_frames(seg, &start, &end);
      // "word(2)" is the dictionary's second pronunciation of "word".
      result.words.push_back(stt::SttWord{word.substr(0, word.find('(')), start * kFrameSeconds,
                                          (end + 1) * kFrameSeconds});
    }
    return result;
  }

  // Command sets: an utterance the phone loop explains (the grammar never joins it to a command)
  // is rejected. pocketsphinx's silence takes whatever speech the grammar cannot say (measured:
  // 4.6 s of a read sentence as <sil> inside "all is said without a word", the rest of "up and
  // down the water we went ..." after "down"), so a command is rejected too with a pause over
  // pause_ms between two of its words, or with more than garbage_ms of voiced hops (VoicedHops)
  // that none of its words covers (a click or a breath is less; each word is widened by
  // kWordMarginMs, its timing being approximate).
  static stt::SttResult WithoutPhoneLoop(const stt::SttResult& result, const CommandLimits& limits,
                                         std::span<const int16_t> samples) {
    stt::SttResult kept = result;
    kept.words.clear();
    kept.text.clear();
    double longest_pause_s = 0;
    for (const stt::SttWord& w : result.words) {
      if (w.word.rfind(stt::kPhoneWordPrefix, 0) == 0) continue;
      if (!kept.words.empty()) {
        longest_pause_s = std::max(longest_pause_s, w.start - kept.words.back().end);
      }
      kept.text += (kept.text.empty() ? "" : " ") + w.word;
      kept.words.push_back(w);
    }
    if (kept.words.empty() || longest_pause_s * 1000 > limits.pause_ms ||
        VoiceBesideWordsMs(kept.words, samples) > limits.garbage_ms) {
      return stt::SttResult{"", 0, {}, true, {}};
    }
    return kept;
  }

  static constexpr int kWordMarginMs = 100;

  // The voiced hops of `samples` outside every word of `words` (widened by kWordMarginMs), in ms.
  static int VoiceBesideWordsMs(const std::vector<stt::SttWord>& words,
                                std::span<const int16_t> samples) {
    const std::vector<bool> voiced = stt::VoicedHops(samples);
    const double margin_s = kWordMarginMs / 1000.0;
    int hops = 0;
    for (size_t h = 0; h < voiced.size(); ++h) {
      if (!voiced[h]) continue;
      const double t =
          (static_cast<double>(h) + 0.5) * stt::kVoicedHopMs / 1000.0;  // the hop's middle
      const bool in_word = std::any_of(words.begin(), words.end(), [&](const stt::SttWord& w) {
        return t >= w.start - margin_s && t < w.end + margin_s;
      });
      if (!in_word) ++hops;
    }
    return hops * stt::kVoicedHopMs;
  }

  DecoderLease lease_;
  ps_decoder_t* decoder_;  // lease_'s, used from Begin to End
  const bool whole_utterance_;
  const std::optional<CommandLimits> command_limits_;  // command sets: what a command may have
  std::vector<mfcc_t> stream_cmn_;        // the live cepstral mean of this stream's next utterance
  std::vector<int16_t> samples_;          // the utterance so far, when decoded whole
  std::optional<SphinxCepstra> cepstra_;  // earshot's front end (front_end = "earshot")
  std::vector<mfcc_t> frames_;            // its cepstra not yet decoded, frame after frame
  std::vector<mfcc_t*> rows_;             // frames_ as pocketsphinx's rows
  const std::string search_;              // selected at Begin (empty: the decoder's only one)
};

// Every file of the configuration, checked before pocketsphinx reads it: on files it cannot read
// it crashes, exits or goes on with nonsense (acoustic_model_check.h, feat_params.h, jsgf_check.h).
Status CheckFiles(const stt::SttConfig& c, bool use_lm) {
  if (!Exists(c.acoustic_model, true) || !Exists(c.acoustic_model + "/mdef", false)) {
    return Error{c.acoustic_model + ": not a pocketsphinx acoustic model directory (no mdef)"};
  }
  if (Status files = CheckAcousticModel(c.acoustic_model); !files.ok()) return files;
  if (const std::string feat = c.acoustic_model + "/feat.params"; Exists(feat, false)) {
    Result<FeatParams> params = FeatParams::Read(feat);
    if (!params.ok()) return params.error();
    // pocketsphinx would end the process at the first frame: it has no live variance normalisation.
    const auto varnorm = params->settings.find("-varnorm");
    if (use_lm && varnorm != params->settings.end() && varnorm->second == "yes") {
      return Error{feat +
                   ": -varnorm yes: pocketsphinx cannot normalise variance while it decodes "
                   "live (a language model; a grammar decodes whole utterances)"};
    }
  }
  if (!Exists(c.dictionary, false)) return Error{c.dictionary + ": dictionary not found"};
  // pocketsphinx takes an empty one, and hears nothing but its fillers.
  Result<uint64_t> dictionary = RegularFileSize(c.dictionary, "a dictionary");
  if (!dictionary.ok()) return dictionary.error();
  if (*dictionary == 0) return Error{c.dictionary + ": empty dictionary (0 bytes): no words"};
  if (use_lm && !Exists(c.language_model, false)) {
    return Error{c.language_model + ": language model not found"};
  }
  if (use_lm) {
    if (Status lm = CheckLanguageModel(c.language_model); !lm.ok()) return lm;
  }
  if (!c.grammar.empty()) return CheckGrammarFile(c.grammar);
  return OkStatus();
}

}  // namespace

Result<std::shared_ptr<const PocketsphinxModel>> PocketsphinxModel::Load(const stt::SttConfig& c,
                                                                         const CancelFlag* cancel) {
  const bool use_lm = c.grammar.empty() && c.words.empty() && c.command_sets.empty();
  if (Status files = CheckFiles(c, use_lm); !files.ok()) return files.error();
  std::optional<SphinxCepstra> cepstra;
  if (c.front_end == "earshot") {
    auto made = SphinxCepstra::FromFeatParams(c.acoustic_model + "/feat.params");
    if (!made.ok()) return made.error();
    cepstra = std::move(made).value();
  } else if (c.front_end != "pocketsphinx") {
    return Error{"stt: front end '" + c.front_end + "': expected pocketsphinx or earshot"};
  }
  // -logfn: what pocketsphinx prints outside its log calls (its configuration table) goes nowhere.
  // A command sets' decoder starts with an empty dictionary: the sets' words alone are added.
  std::vector<std::string> args = {"-hmm",   c.acoustic_model,
                                   "-dict",  c.command_sets.empty() ? c.dictionary : "/dev/null",
                                   "-logfn", "/dev/null"};
  if (use_lm) args.insert(args.end(), {"-lm", c.language_model});
  if (!c.grammar.empty()) args.insert(args.end(), {"-jsgf", c.grammar});
  if (!c.command_sets.empty()) {
    for (std::string& a : CommandSetArgs(c.command_word_cost)) args.push_back(std::move(a));
  }
  for (std::string& a : ProfileArgs(c.profile, !use_lm)) args.push_back(std::move(a));
  const std::string what = c.acoustic_model + " / " +
                           (use_lm                    ? c.language_model
                            : !c.command_sets.empty() ? "stt.commands"
                            : c.grammar.empty()       ? "stt.words"
                                                      : c.grammar) +
                           " / " + c.dictionary;
  if (Cancelled(cancel)) return Error{kCancelledMessage};
  Result<ps_decoder_t*> made_decoder = MakePocketsphinxDecoder(args, what);
  if (!made_decoder.ok()) return Error{"stt: " + made_decoder.error().message};
  ps_decoder_t* decoder = *made_decoder;
  if (decoder != nullptr && !c.words.empty()) {
    if (Status words = CheckWords(decoder, c.words, c.dictionary); !words.ok()) {
      ps_free(decoder);
      return words.error();
    }
    if (!AddJsgfSearch(decoder, "words", WordsGrammar(c.words)).ok() ||
        ps_set_search(decoder, "words") < 0) {
      ps_free(decoder);
      decoder = nullptr;
    }
  }
  bool words_alone = false;
  if (decoder != nullptr && !c.command_sets.empty()) {
    if (Status sets = SetCommandSearch(decoder, c, cancel); !sets.ok()) {
      ps_free(decoder);
      return sets.error();
    }
    Result<bool> added = AddWordsAloneSearch(decoder, c);
    if (!added.ok()) {
      ps_free(decoder);
      return added.error();
    }
    words_alone = *added;
  }
  const std::string logged = TakePocketsphinxErrors();
  // pocketsphinx goes on after some errors: a grammar's undefined rule leaves a grammar that
  // never matches (every transcript empty). An error logged is a failed load.
  if (decoder != nullptr && !logged.empty()) {
    ps_free(decoder);
    decoder = nullptr;
  }
  if (decoder == nullptr) {
    return Error{"stt: pocketsphinx could not load " + what +
                 (logged.empty() ? "" : ": " + logged)};
  }
  auto model = std::shared_ptr<PocketsphinxModel>(new PocketsphinxModel(
      std::make_shared<PocketsphinxDecoder>(decoder), !use_lm,
      c.command_sets.empty()
          ? std::nullopt
          : std::optional<CommandLimits>(CommandLimits{c.command_garbage_ms, c.command_pause_ms}),
      std::move(cepstra), words_alone ? kCommandSearch : ""));
  const feat_t* feat = ps_get_feat(decoder);
  if (feat != nullptr && feat->cmn_struct != nullptr) {
    model->initial_cmn_.resize(static_cast<size_t>(feat->cmn_struct->veclen));
    cmn_live_get(feat->cmn_struct, model->initial_cmn_.data());
  }
  return std::shared_ptr<const PocketsphinxModel>(std::move(model));
}

PocketsphinxModel::~PocketsphinxModel() = default;

std::unique_ptr<stt::SttSession> PocketsphinxModel::NewSession() const {
  return std::make_unique<PocketsphinxSession>(decoder_, whole_utterance_, command_limits_,
                                               initial_cmn_, cepstra_, search_);
}

std::shared_ptr<const stt::SttModel> PocketsphinxModel::WordsAlone() const {
  if (search_ != kCommandSearch) return nullptr;  // the command search is selected only beside it
  auto alone = std::shared_ptr<PocketsphinxModel>(
      new PocketsphinxModel(decoder_, true, std::nullopt, cepstra_, kWordsAloneSearch));
  alone->initial_cmn_ = initial_cmn_;
  return alone;
}

}  // namespace earshot::pocketsphinx
