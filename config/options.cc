#include "config/options.h"

#include <array>

namespace earshot::config {
namespace {

using T = OptionType;

constexpr std::array kOptions = {
    OptionSpec{
        "audio.preroll_ms", T::kInt, "1500", 0, 10000, "", "ms",
        "Past audio kept in the ring buffer for later stages (the keyword spotter looks back "
        "into it when the VAD fires)"},
    OptionSpec{"audio.resampler_quality", T::kString, "high", 0, 0,
               "quick|low|medium|high|very_high", "",
               "libsoxr recipe used when a source is not 16 kHz (high: 20-bit precision)"},
    OptionSpec{"audio.read_chunk_ms", T::kInt, "100", 10, 10000, "", "ms",
               "Audio decoded per read from a file or device; memory use is bounded by it"},
    OptionSpec{"vad.model", T::kString, "", 0, 0, "", "",
               "VAD model file (empty: the bundled models/vad/vad.eshm)"},
    OptionSpec{"vad.smooth_ms", T::kInt, "210", 0, 1000, "", "ms",
               "Scores are averaged over this window centred on each frame (adds half of it to the "
               "VAD's latency)"},
    OptionSpec{"vad.threshold", T::kFloat, "0.5", 0.0, 1.0, "", "",
               "Score at or above which a frame is voice"},
    OptionSpec{"vad.min_speech_ms", T::kInt, "50", 0, 1000, "", "ms",
               "Voice must last this long to start speech (shorter bursts are ignored)"},
    OptionSpec{"vad.hangover_ms", T::kInt, "100", 0, 3000, "", "ms",
               "Speech goes on this long after the last voice frame"},
    OptionSpec{"kws.models", T::kStringList, "computer", 0, 0, "", "",
               "The keywords, one model file each, all scored on every hop; a bundled keyword's "
               "name stands for its file (computer: models/kws/computer.eshm, its small model "
               "models/kws/computer_small.eshm; snowboy and view glass, trained from their text: "
               "models/kws/snowboy.eshm, models/kws/view_glass.eshm)"},
    OptionSpec{"kws.small_models", T::kStringList, "", 0, 0, "", "",
               "Each keyword's model in the governor's profiles of small keyword models ('': a "
               "bundled keyword's small model (computer's); for a keyword without one its model "
               "serves both)",
               "kws.models"},
    OptionSpec{"kws.names", T::kStringList, "", 0, 0, "", "",
               "Each keyword's name in wake events and on D-Bus, no two alike ('': the phrase its "
               "model file states, else the file's name without .eshm)",
               "kws.models", true},
    OptionSpec{"kws.sensitivities", T::kFloatList, "", 0.0, 1.0, "", "",
               "Each keyword's sensitivity (default 0.5: the threshold its model file states, else "
               "0.8): 0 never wakes, 1 wakes on every hop; higher hears more and wakes falsely "
               "more",
               "kws.models"},
    OptionSpec{"kws.refractory_ms", T::kIntList, "", 0, 10000, "", "ms",
               "Each keyword's time after a wake in which it gives no other (default 1000)",
               "kws.models"},
    OptionSpec{"kws.playback_sensitivity_shift", T::kFloat, "0.0", -0.5, 0.5, "", "",
               "Added to every keyword's sensitivity while the device's own playback is being "
               "cancelled (daemon.reference, earshot run --reference): above 0 hears more "
               "wake words over music at more false wakes, below 0 fewer of both"},
    OptionSpec{"kws.gap_ms", T::kInt, "100", 0, 1000, "", "ms",
               "Dips under the threshold this short do not end the keyword (0: any dip ends it)"},
    OptionSpec{"kws.smooth_ms", T::kInt, "50", 10, 500, "", "ms",
               "The score is the mean of the network's scores over this long (10: no smoothing)"},
    OptionSpec{
        "stt.profile", T::kString, "large", 0, 0, "large|small", "",
        "Speech-to-text search: large (full beams) or small (about 3x faster, less accurate)"},
    OptionSpec{"stt.acoustic_model", T::kString, "", 0, 0, "", "",
               "pocketsphinx acoustic model directory (empty: Debian's en-us)"},
    OptionSpec{"stt.language_model", T::kString, "", 0, 0, "", "",
               "n-gram language model (empty: Debian's en-us.lm.bin)"},
    OptionSpec{"stt.dictionary", T::kString, "", 0, 0, "", "",
               "pronunciation dictionary (empty: Debian's cmudict-en-us.dict)"},
    OptionSpec{
        "stt.grammar", T::kString, "", 0, 0, "", "",
        "JSGF grammar file decoded instead of the language model (fixed-vocabulary devices)"},
    OptionSpec{"stt.words", T::kString, "", 0, 0, "", "",
               "Command words separated by '|' (e.g. yes|no|stop), decoded as a one-word grammar"},
    OptionSpec{"stt.commands", T::kStringList, "", 0, 0, "", "",
               "Command set files (docs/commands.md) or directories of *.commands files (e.g. "
               "/etc/earshot/commands.d): the decoder hears only their sentences, every set at "
               "once, and rejects what none of them says"},
    OptionSpec{"stt.command_open_transcript", T::kBool, "false", 0, 0, "", "",
               "Command sets: what no set says gets the open transcript (decoded again after the "
               "endpoint with the language model: more memory and latency for those requests) "
               "instead of the command decoder's words; the command event still says rejected"},
    OptionSpec{
        "stt.command_model", T::kString, "", 0, 0, "", "",
        "Command classifier joined to the command words (stt.words, or an stt.grammar "
        "whose one rule says one of them; empty: the bundled models/commands/commands.eshm when "
        "they are its ten words; none: off)"},
    OptionSpec{"stt.partial_interval_ms", T::kInt, "500", 0, 10000, "", "ms",
               "A partial transcript (final: false) at most this often during a request when it "
               "changed (0: final transcripts only)"},
    OptionSpec{"stt.endpoint_silence_ms", T::kInt, "700", 100, 5000, "", "ms",
               "A request ends after this much silence once speech was heard"},
    OptionSpec{"stt.max_utterance_ms", T::kInt, "10000", 1000, 60000, "", "ms",
               "A request ends at this length in any case"},
    OptionSpec{"stt.no_speech_timeout_ms", T::kInt, "4000", 500, 30000, "", "ms",
               "A wake word followed by no speech for this long ends the request"},
    OptionSpec{"governor.profile", T::kString, "auto", 0, 0,
               "auto|performance|balanced|saver|critical", "",
               "Manual profile (D-Bus SetProfile does the same); auto: battery and temperature "
               "choose"},
    OptionSpec{"governor.poll_ms", T::kInt, "5000", 100, 3600000, "", "ms",
               "Battery and thermal sensors are read this often"},
    OptionSpec{
        "governor.sysfs_root", T::kString, "/sys", 0, 0, "", "",
        "Where sysfs is read from (class/power_supply, class/thermal); tests use fake trees"},
    OptionSpec{"governor.balanced_below_percent", T::kInt, "40", 0, 100, "", "%",
               "On battery (not charging), below this charge the profile is at least balanced"},
    OptionSpec{"governor.saver_below_percent", T::kInt, "20", 0, 100, "", "%",
               "On battery, below this charge at least saver"},
    OptionSpec{"governor.critical_below_percent", T::kInt, "10", 0, 100, "", "%",
               "On battery, below this charge critical"},
    OptionSpec{"governor.hysteresis_percent", T::kInt, "3", 0, 50, "", "%",
               "A battery level is left only when the charge is this far back above its threshold"},
    OptionSpec{
        "governor.balanced_above_milli_c", T::kInt, "65000", 0, 150000, "", "millidegrees C",
        "Above this temperature of the hottest thermal zone the profile is at least balanced "
        "(even when charging)"},
    OptionSpec{"governor.saver_above_milli_c", T::kInt, "72000", 0, 150000, "", "millidegrees C",
               "Above this temperature at least saver"},
    OptionSpec{"governor.critical_above_milli_c", T::kInt, "80000", 0, 150000, "", "millidegrees C",
               "Above this temperature critical"},
    OptionSpec{"governor.hysteresis_milli_c", T::kInt, "3000", 0, 30000, "", "millidegrees C",
               "A thermal level is left only when the temperature is this far back below its "
               "threshold"},
    OptionSpec{"governor.min_dwell_ms", T::kInt, "30000", 0, 3600000, "", "ms",
               "After a change, the governor keeps a profile at least this long (a manual profile "
               "applies at once)"},
    OptionSpec{"governor.performance_kws", T::kString, "large", 0, 0, "large|small", "",
               "Keyword model size in the performance profile (kws.models or kws.small_models)"},
    OptionSpec{"governor.performance_stt", T::kString, "large", 0, 0, "large|small|off", "",
               "Speech-to-text profile in the performance profile (off: wake words only)"},
    OptionSpec{"governor.balanced_kws", T::kString, "large", 0, 0, "large|small", "",
               "Keyword model size in the balanced profile"},
    OptionSpec{"governor.balanced_stt", T::kString, "small", 0, 0, "large|small|off", "",
               "Speech-to-text profile in the balanced profile"},
    OptionSpec{"governor.saver_kws", T::kString, "small", 0, 0, "large|small", "",
               "Keyword model size in the saver profile"},
    OptionSpec{"governor.saver_stt", T::kString, "small", 0, 0, "large|small|off", "",
               "Speech-to-text profile in the saver profile"},
    OptionSpec{"governor.critical_kws", T::kString, "small", 0, 0, "large|small", "",
               "Keyword model size in the critical profile"},
    OptionSpec{"governor.critical_stt", T::kString, "off", 0, 0, "large|small|off", "",
               "Speech-to-text profile in the critical profile (off: wake words only)"},
    OptionSpec{
        "daemon.input", T::kString, "alsa:default", 0, 0, "", "",
        "earshotd's audio: alsa:DEVICE (an ALSA capture PCM) or wav:PATH (a recording played "
        "through the same path); --input overrides it"},
    OptionSpec{"daemon.reference", T::kString, "", 0, 0, "", "",
               "What the device plays, whose echo is cancelled from the microphone: "
               "pipe:PATH[:RATE[:CHANNELS]] (a FIFO a player writes raw 16-bit PCM into) or "
               "alsa:DEVICE (a capture PCM that carries the playback); empty: none; --reference "
               "overrides it"},
    OptionSpec{"daemon.realtime", T::kBool, "true", 0, 0, "", "",
               "wav: input is played at the pace of real time (false: as fast as the pipeline "
               "takes it)"},
    OptionSpec{"daemon.queue_ms", T::kInt, "5000", 100, 60000, "", "ms",
               "Audio held between capture and the pipeline while a stage (the STT's decode) is "
               "slower than real time; capture never waits for the pipeline within it"},
    OptionSpec{"daemon.alsa_buffer_ms", T::kInt, "500", 20, 5000, "", "ms",
               "ALSA ring buffer requested from the device (the device may round it)"},
    OptionSpec{"daemon.alsa_period_ms", T::kInt, "20", 5, 1000, "", "ms",
               "ALSA period: the daemon wakes up about this often to read the device"},
    OptionSpec{"daemon.reopen_min_ms", T::kInt, "250", 10, 60000, "", "ms",
               "First retry after the capture device is lost; each failed retry doubles the wait"},
    OptionSpec{"daemon.reopen_max_ms", T::kInt, "5000", 10, 600000, "", "ms",
               "Longest wait between two attempts to reopen a lost capture device"},
    OptionSpec{"daemon.watchdog", T::kBool, "true", 0, 0, "", "",
               "Send WATCHDOG=1 from the event loop when systemd asks for it (WatchdogSec=)"},
    OptionSpec{"daemon.command_sets_per_client", T::kInt, "16", 1, 256, "", "sets",
               "Command sets one bus connection may register (RegisterCommands); more are "
               "refused with io.earshot.Error.LimitExceeded"},
    OptionSpec{"daemon.command_sets_max", T::kInt, "256", 1, 400, "", "sets",
               "Command sets registered by all apps together; more are refused with "
               "io.earshot.Error.LimitExceeded (each connection with sets costs the daemon one of "
               "the 512 match rules the system bus allows it)"},
    OptionSpec{"daemon.command_words_max", T::kInt, "20000", 1, 1000000, "", "words",
               "Words in the templates and slot values of all registered command sets together "
               "(what a compile costs grows with it); a set that would pass it is refused with "
               "io.earshot.Error.LimitExceeded"},
};

}  // namespace

std::span<const OptionSpec> Options() { return kOptions; }

const OptionSpec* FindOption(std::string_view name) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

bool IsList(OptionType type) {
  return type == T::kIntList || type == T::kFloatList || type == T::kStringList;
}

OptionType ElementType(OptionType type) {
  switch (type) {
    case T::kIntList:
      return T::kInt;
    case T::kFloatList:
      return T::kFloat;
    case T::kStringList:
      return T::kString;
    default:
      return type;
  }
}

std::string_view TypeName(OptionType type) {
  switch (type) {
    case T::kInt:
      return "integer";
    case T::kFloat:
      return "number";
    case T::kBool:
      return "boolean";
    case T::kString:
      return "string";
    case T::kIntList:
      return "list of integers";
    case T::kFloatList:
      return "list of numbers";
    case T::kStringList:
      return "list of strings";
  }
  return "?";
}

}  // namespace earshot::config
